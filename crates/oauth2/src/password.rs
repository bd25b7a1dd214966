//! Django-compatible PBKDF2-SHA256 password hashes, so users can be imported
//! from AWX (Django 4.2) with their passwords intact and AWX-format hashes
//! written by ACS stay readable by Django.
//!
//! The stored form is Django's
//! `pbkdf2_sha256$<iterations>$<salt>$<base64 of 32-byte derived key>`.
//! Only that one algorithm is accepted: AWX has always used Django's default
//! hasher, and refusing everything else keeps weak legacy formats (unsalted
//! MD5/SHA-1) out.

use std::num::NonZeroU32;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use ring::pbkdf2;
use ring::rand::SecureRandom;

use crate::identifiers::random_alphanumeric;
use crate::secret::RandomnessError;

/// Iterations used for new hashes: the default of Django 4.2, which AWX
/// 24.6.1 runs, so hashes ACS writes are what AWX would have written (it is
/// also OWASP's 2023 recommendation for PBKDF2-HMAC-SHA256).
pub const DEFAULT_ITERATIONS: u32 = 600_000;

/// Upper bound on iterations accepted when verifying (a crafted imported hash
/// must not pin a CPU for minutes).
pub const MAX_ITERATIONS: u32 = 10_000_000;

/// Algorithm identifier Django writes in front of PBKDF2-SHA256 hashes.
const ALGORITHM: &str = "pbkdf2_sha256";

/// Length of the derived key: Django uses the digest size of SHA-256.
const KEY_LEN: usize = 32;

/// Salt length Django 4.2 generates: enough characters of a 62-symbol
/// alphabet for at least 128 bits of entropy (`ceil(128 / log2(62))`).
const SALT_LEN: usize = 22;

/// Length of the random suffix after `!` in Django's unusable-password marker
/// (`UNUSABLE_PASSWORD_SUFFIX_LENGTH`).
const UNUSABLE_SUFFIX_LEN: usize = 40;

/// Django's `UNUSABLE_PASSWORD_PREFIX`.
const UNUSABLE_PREFIX: char = '!';

/// Why a password could not be hashed or a stored hash could not be checked.
///
/// Messages never include the password or the hash, since these errors end up
/// in logs.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PasswordError {
    /// The stored hash is not of the form
    /// `pbkdf2_sha256$<iterations>$<salt>$<base64 key>`: missing parts,
    /// non-numeric or non-canonical iterations, empty salt, bad base64, or a
    /// derived key that is not 32 bytes.
    #[error("malformed password hash")]
    Malformed,
    /// The hash names an algorithm other than `pbkdf2_sha256`.
    #[error("unsupported password hash algorithm {0:?}")]
    UnsupportedAlgorithm(String),
    /// The iteration count is 0 or above [`MAX_ITERATIONS`].
    #[error("password hash iterations {0} outside 1..={max}", max = MAX_ITERATIONS)]
    IterationsOutOfRange(u32),
    /// The system random number generator failed while drawing a salt.
    #[error("the system random number generator failed")]
    Randomness,
}

impl From<RandomnessError> for PasswordError {
    fn from(_: RandomnessError) -> Self {
        Self::Randomness
    }
}

impl From<ring::error::Unspecified> for PasswordError {
    fn from(_: ring::error::Unspecified) -> Self {
        Self::Randomness
    }
}

/// Hash in Django's format:
/// `pbkdf2_sha256$<iterations>$<salt>$<base64 std (with padding) of 32-byte derived key>`.
///
/// The salt is 22 random characters from `[a-zA-Z0-9]` (Django's
/// `get_random_string` alphabet), drawn without modulo bias (see
/// [`crate::identifiers`]).
/// `iterations` must be in `1..=MAX_ITERATIONS`, so ACS never writes a hash it
/// would itself refuse to verify; pass [`DEFAULT_ITERATIONS`] outside tests.
pub fn hash_password(
    password: &str,
    iterations: u32,
    rng: &dyn SecureRandom,
) -> Result<String, PasswordError> {
    let iterations = checked_iterations(iterations)?;
    let salt = random_alphanumeric(rng, SALT_LEN)?;
    Ok(encode(password, &salt, iterations))
}

/// `Ok(true)` iff the password matches. Uses `ring::pbkdf2::verify` (constant
/// time).
///
/// An unusable hash (empty string, or starting with `!`, Django's
/// `UNUSABLE_PASSWORD_PREFIX`) gives `Ok(false)`: such users exist but must
/// log in elsewhere (LDAP/OIDC), which is not an error.
/// A malformed hash, an unknown algorithm, or iterations 0 or above
/// [`MAX_ITERATIONS`] give `Err` (never a panic), so callers can tell a wrong
/// password from a corrupt row.
pub fn verify_password(password: &str, encoded: &str) -> Result<bool, PasswordError> {
    if !is_usable(encoded) {
        return Ok(false);
    }
    let parsed = parse(encoded)?;
    Ok(pbkdf2::verify(
        pbkdf2::PBKDF2_HMAC_SHA256,
        parsed.iterations,
        parsed.salt.as_bytes(),
        password.as_bytes(),
        &parsed.key,
    )
    .is_ok())
}

/// True unless empty or `!`-prefixed.
///
/// Django itself calls an empty string "usable" but then fails every check
/// against it; treating it as unusable gives the same outcome more plainly.
pub fn is_usable(encoded: &str) -> bool {
    !encoded.is_empty() && !encoded.starts_with(UNUSABLE_PREFIX)
}

/// Django's unusable-password marker for users who log in elsewhere
/// (LDAP/OIDC): `!` followed by 40 random `[a-zA-Z0-9]` chars.
///
/// Random rather than a constant so the column still looks like Django's and
/// no two users share a value.
pub fn unusable_password(rng: &dyn SecureRandom) -> Result<String, PasswordError> {
    let suffix = random_alphanumeric(rng, UNUSABLE_SUFFIX_LEN)?;
    let mut out = String::with_capacity(1 + UNUSABLE_SUFFIX_LEN);
    out.push(UNUSABLE_PREFIX);
    out.push_str(&suffix);
    Ok(out)
}

/// Iterations recorded in a hash, if it is a well-formed pbkdf2_sha256 hash
/// (lets callers rehash weaker hashes on login).
///
/// `Some` exactly when [`verify_password`] would not return `Err` for a usable
/// hash, so iterations outside `1..=MAX_ITERATIONS` give `None`.
pub fn iterations_of(encoded: &str) -> Option<u32> {
    parse(encoded).ok().map(|p| p.iterations.get())
}

/// The pieces of a well-formed hash, borrowed from the encoded string.
struct Parsed<'a> {
    iterations: NonZeroU32,
    salt: &'a str,
    key: [u8; KEY_LEN],
}

/// Splits and validates a stored hash the way Django's
/// `PBKDF2PasswordHasher.decode` does (`split("$", 3)`), but stricter: Django
/// re-encodes and compares whole strings, so a non-canonical hash (leading
/// zeros in the iterations, non-canonical base64) can never match there and
/// is reported as malformed here instead.
fn parse(encoded: &str) -> Result<Parsed<'_>, PasswordError> {
    let (algorithm, rest) = encoded.split_once('$').ok_or(PasswordError::Malformed)?;
    if algorithm != ALGORITHM {
        return Err(unsupported(algorithm));
    }
    let mut parts = rest.splitn(3, '$');
    let (Some(iterations), Some(salt), Some(hash)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err(PasswordError::Malformed);
    };
    let iterations = checked_iterations(parse_decimal(iterations)?)?;
    if salt.is_empty() {
        // Django refuses to encode with an empty salt.
        return Err(PasswordError::Malformed);
    }
    let key = STANDARD
        .decode(hash)
        .map_err(|_| PasswordError::Malformed)?
        .try_into()
        .map_err(|_| PasswordError::Malformed)?;
    Ok(Parsed {
        iterations,
        salt,
        key,
    })
}

/// Reports an unknown algorithm by name only when the name looks like a
/// hasher identifier (as Django's are: `argon2`, `bcrypt_sha256`, …). Anything
/// else might be a plaintext password pasted into the column, which must not
/// reach an error message and hence the logs.
fn unsupported(algorithm: &str) -> PasswordError {
    let looks_like_identifier = !algorithm.is_empty()
        && algorithm.len() <= 32
        && algorithm
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if looks_like_identifier {
        PasswordError::UnsupportedAlgorithm(algorithm.to_owned())
    } else {
        PasswordError::Malformed
    }
}

/// Parses canonical decimal digits (what Django's `"%d"` writes): no sign,
/// no spaces, no leading zeros, fits in a `u32`.
fn parse_decimal(s: &str) -> Result<u32, PasswordError> {
    let canonical =
        !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && (s == "0" || !s.starts_with('0'));
    if !canonical {
        return Err(PasswordError::Malformed);
    }
    s.parse().map_err(|_| PasswordError::Malformed)
}

/// Enforces `1..=MAX_ITERATIONS` for both hashing and verifying.
fn checked_iterations(iterations: u32) -> Result<NonZeroU32, PasswordError> {
    match NonZeroU32::new(iterations) {
        Some(n) if iterations <= MAX_ITERATIONS => Ok(n),
        _ => Err(PasswordError::IterationsOutOfRange(iterations)),
    }
}

/// Django's `PBKDF2PasswordHasher.encode`: the password is hashed as UTF-8,
/// the salt as its own UTF-8 bytes.
fn encode(password: &str, salt: &str, iterations: NonZeroU32) -> String {
    let mut key = [0u8; KEY_LEN];
    pbkdf2::derive(
        pbkdf2::PBKDF2_HMAC_SHA256,
        iterations,
        salt.as_bytes(),
        password.as_bytes(),
        &mut key,
    );
    format!("{ALGORITHM}${iterations}${salt}${}", STANDARD.encode(key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::rand::SystemRandom;

    /// `base64(pbkdf2_hmac('sha256', b'password', b'seasalt', 1000))`,
    /// computed with Python's hashlib, which is what Django uses.
    const DJANGO_VECTOR: &str =
        "pbkdf2_sha256$1000$seasalt$YIWkt6M1JFXrHg5s0jZjBSc7C2Cz6QvchSJ0h8Y+i7c=";

    fn n(i: u32) -> NonZeroU32 {
        NonZeroU32::new(i).unwrap()
    }

    #[test]
    fn known_django_vector_verifies() {
        assert_eq!(verify_password("password", DJANGO_VECTOR), Ok(true));
        assert_eq!(verify_password("Password", DJANGO_VECTOR), Ok(false));
        assert_eq!(verify_password("", DJANGO_VECTOR), Ok(false));
        assert_eq!(verify_password("password ", DJANGO_VECTOR), Ok(false));
    }

    #[test]
    fn encode_reproduces_django_vector() {
        assert_eq!(encode("password", "seasalt", n(1000)), DJANGO_VECTOR);
    }

    #[test]
    fn non_ascii_password_is_hashed_as_utf8() {
        // Python: pbkdf2_hmac('sha256', 'pässwörd'.encode(), b'abcDEF123xyz', 1000)
        let encoded =
            "pbkdf2_sha256$1000$abcDEF123xyz$Z7oX2Fu8m+kl1Kj1vLExNa2FyzJbRd8H22HEqjWVkE8=";
        assert_eq!(verify_password("pässwörd", encoded), Ok(true));
        assert_eq!(verify_password("passwort", encoded), Ok(false));
    }

    #[test]
    fn round_trip_with_small_iterations() {
        let rng = SystemRandom::new();
        for iterations in [1, 2, 1000] {
            let h = hash_password("s3cret!", iterations, &rng).unwrap();
            assert_eq!(verify_password("s3cret!", &h), Ok(true));
            assert_eq!(verify_password("s3cret", &h), Ok(false));
            assert_eq!(iterations_of(&h), Some(iterations));
            assert!(is_usable(&h));
        }
        let h = hash_password("", 10, &rng).unwrap();
        assert_eq!(verify_password("", &h), Ok(true));
        assert_eq!(verify_password("x", &h), Ok(false));
    }

    #[test]
    fn hash_has_django_shape_and_fresh_salt() {
        let rng = SystemRandom::new();
        let a = hash_password("pw", 1000, &rng).unwrap();
        let b = hash_password("pw", 1000, &rng).unwrap();
        assert_ne!(a, b, "salts must differ");
        let parts: Vec<&str> = a.split('$').collect();
        assert_eq!(parts.len(), 4);
        assert_eq!(parts[0], "pbkdf2_sha256");
        assert_eq!(parts[1], "1000");
        assert_eq!(parts[2].len(), SALT_LEN);
        assert!(parts[2].bytes().all(|c| c.is_ascii_alphanumeric()));
        assert_eq!(parts[3].len(), 44);
        assert!(parts[3].ends_with('='));
        assert_eq!(STANDARD.decode(parts[3]).unwrap().len(), KEY_LEN);
    }

    #[test]
    fn default_iterations_appear_in_hash() {
        // The only test that pays for DEFAULT_ITERATIONS.
        let h = hash_password("pw", DEFAULT_ITERATIONS, &SystemRandom::new()).unwrap();
        assert!(h.starts_with("pbkdf2_sha256$600000$"), "{h}");
        assert_eq!(iterations_of(&h), Some(DEFAULT_ITERATIONS));
    }

    #[test]
    fn hashing_rejects_out_of_range_iterations() {
        let rng = SystemRandom::new();
        assert_eq!(
            hash_password("pw", 0, &rng),
            Err(PasswordError::IterationsOutOfRange(0))
        );
        assert_eq!(
            hash_password("pw", MAX_ITERATIONS + 1, &rng),
            Err(PasswordError::IterationsOutOfRange(MAX_ITERATIONS + 1))
        );
    }

    #[test]
    fn unusable_hashes_verify_false() {
        assert_eq!(verify_password("", ""), Ok(false));
        assert_eq!(verify_password("x", ""), Ok(false));
        assert_eq!(verify_password("", "!"), Ok(false));
        assert_eq!(verify_password("password", "!"), Ok(false));
        // Even a well-formed hash behind the prefix is unusable.
        assert_eq!(
            verify_password("password", &format!("!{DJANGO_VECTOR}")),
            Ok(false)
        );
        assert!(!is_usable(""));
        assert!(!is_usable("!"));
        assert!(!is_usable("!abc"));
        assert!(is_usable(DJANGO_VECTOR));
        assert_eq!(iterations_of(""), None);
        assert_eq!(iterations_of("!"), None);
    }

    #[test]
    fn unusable_password_has_django_shape() {
        let rng = SystemRandom::new();
        let a = unusable_password(&rng).unwrap();
        let b = unusable_password(&rng).unwrap();
        assert_ne!(a, b);
        assert_eq!(a.len(), 41);
        assert!(a.starts_with('!'));
        assert!(a[1..].bytes().all(|c| c.is_ascii_alphanumeric()));
        assert!(!is_usable(&a));
        assert_eq!(verify_password("", &a), Ok(false));
        assert_eq!(verify_password(&a, &a), Ok(false));
    }

    #[test]
    fn malformed_hashes_are_errors() {
        use PasswordError::Malformed;
        let key = "YIWkt6M1JFXrHg5s0jZjBSc7C2Cz6QvchSJ0h8Y+i7c=";
        let cases: Vec<String> = vec![
            // No '$' at all (e.g. a plaintext or unsalted legacy value).
            "password".into(),
            "5f4dcc3b5aa765d61d8327deb882cf99".into(),
            // Missing parts.
            "pbkdf2_sha256$".into(),
            "pbkdf2_sha256$1000".into(),
            "pbkdf2_sha256$1000$seasalt".into(),
            // Empty pieces.
            format!("pbkdf2_sha256$$seasalt${key}"),
            format!("pbkdf2_sha256$1000$${key}"),
            "pbkdf2_sha256$1000$seasalt$".into(),
            // Non-numeric or non-canonical iterations.
            format!("pbkdf2_sha256$abc$seasalt${key}"),
            format!("pbkdf2_sha256$-1000$seasalt${key}"),
            format!("pbkdf2_sha256$+1000$seasalt${key}"),
            format!("pbkdf2_sha256$ 1000$seasalt${key}"),
            format!("pbkdf2_sha256$1e3$seasalt${key}"),
            format!("pbkdf2_sha256$01000$seasalt${key}"),
            format!("pbkdf2_sha256$99999999999$seasalt${key}"),
            // Bad base64: invalid characters, URL-safe alphabet, missing
            // padding, extra '$' in the key part.
            "pbkdf2_sha256$1000$seasalt$not*base64".into(),
            "pbkdf2_sha256$1000$seasalt$YIWkt6M1JFXrHg5s0jZjBSc7C2Cz6QvchSJ0h8Y-i7c=".into(),
            "pbkdf2_sha256$1000$seasalt$YIWkt6M1JFXrHg5s0jZjBSc7C2Cz6QvchSJ0h8Y+i7c".into(),
            format!("pbkdf2_sha256$1000$seasalt${key}$extra"),
            // Wrong key length: 31 and 33 bytes.
            format!("pbkdf2_sha256$1000$seasalt${}", STANDARD.encode([1u8; 31])),
            format!("pbkdf2_sha256$1000$seasalt${}", STANDARD.encode([1u8; 33])),
            // Algorithm names that are not identifiers are not echoed.
            "$1000$seasalt$x".into(),
            "hunter2 is my password$x".into(),
        ];
        for encoded in &cases {
            assert_eq!(
                verify_password("password", encoded),
                Err(Malformed),
                "{encoded}"
            );
            assert_eq!(iterations_of(encoded), None, "{encoded}");
        }
    }

    #[test]
    fn other_algorithms_are_unsupported() {
        let cases = [
            (
                "argon2$argon2id$v=19$m=102400,t=2,p=8$c29tZXNhbHQ$aGFzaA",
                "argon2",
            ),
            (
                "bcrypt_sha256$$2b$12$abcdefghijklmnopqrstuv",
                "bcrypt_sha256",
            ),
            ("pbkdf2_sha1$260000$salt$aGFzaA==", "pbkdf2_sha1"),
            ("sha1$$5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8", "sha1"),
            ("md5$salt$abc", "md5"),
        ];
        for (encoded, algorithm) in cases {
            assert_eq!(
                verify_password("password", encoded),
                Err(PasswordError::UnsupportedAlgorithm(algorithm.to_owned())),
                "{encoded}"
            );
            assert_eq!(iterations_of(encoded), None);
        }
    }

    #[test]
    fn out_of_range_iterations_are_refused_before_hashing() {
        let key = "YIWkt6M1JFXrHg5s0jZjBSc7C2Cz6QvchSJ0h8Y+i7c=";
        for iterations in [0u32, MAX_ITERATIONS + 1, 20_000_000, u32::MAX] {
            let encoded = format!("pbkdf2_sha256${iterations}$seasalt${key}");
            assert_eq!(
                verify_password("password", &encoded),
                Err(PasswordError::IterationsOutOfRange(iterations)),
                "{encoded}"
            );
            assert_eq!(iterations_of(&encoded), None);
        }
        // The bound itself is accepted (only parsed here, not run).
        let at_max = format!("pbkdf2_sha256${MAX_ITERATIONS}$seasalt${key}");
        assert_eq!(iterations_of(&at_max), Some(MAX_ITERATIONS));
    }

    #[test]
    fn errors_display_without_secrets() {
        assert_eq!(
            PasswordError::Malformed.to_string(),
            "malformed password hash"
        );
        assert_eq!(
            PasswordError::UnsupportedAlgorithm("argon2".into()).to_string(),
            "unsupported password hash algorithm \"argon2\""
        );
        assert_eq!(
            PasswordError::IterationsOutOfRange(0).to_string(),
            "password hash iterations 0 outside 1..=10000000"
        );
        assert_eq!(
            PasswordError::Randomness.to_string(),
            "the system random number generator failed"
        );
        assert_eq!(
            PasswordError::from(RandomnessError),
            PasswordError::Randomness
        );
    }
}

//! Secrets shown to their owner once (bearer tokens, session ids, client
//! secrets) and the SHA-256 digests under which they are stored.
//!
//! Only the digest is ever persisted, so a leaked database does not leak
//! usable credentials. These secrets carry 256 bits of entropy, which is why a
//! plain (unsalted, fast) SHA-256 is enough here: brute force is hopeless and
//! a deterministic digest lets the store look a presented token up by index.
//! Human-chosen passwords are a different matter; see [`crate::password`].

use std::fmt;

use ring::digest;
use ring::rand::SecureRandom;

use crate::identifiers::random_alphanumeric;

/// Length of a generated secret: 43 characters of `[A-Za-z0-9]`, 256 bits.
pub const TOKEN_LENGTH: usize = 43;

/// A secret value shown to its owner once (a token, session id, client secret).
///
/// `Debug` prints `PlainSecret(***)` so the value cannot end up in logs or
/// panic messages by accident; reading it requires an explicit
/// [`expose`](Self::expose) or [`into_inner`](Self::into_inner).
#[derive(Clone, PartialEq, Eq)]
pub struct PlainSecret(String);

impl PlainSecret {
    /// Wraps an existing value, e.g. one presented in a cookie or an
    /// `Authorization` header, so it gets the same redaction as a generated one.
    pub fn new(value: String) -> Self {
        Self(value)
    }

    /// The secret itself, for the single place that must show or send it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Consumes the wrapper and returns the secret.
    pub fn into_inner(self) -> String {
        self.0
    }

    /// SHA-256 digest of the value: what gets stored and looked up.
    pub fn digest(&self) -> SecretDigest {
        let d = digest::digest(&digest::SHA256, self.0.as_bytes());
        let mut out = [0u8; 32];
        // SHA-256 output is always 32 bytes, so the lengths match.
        out.copy_from_slice(d.as_ref());
        SecretDigest(out)
    }
}

impl fmt::Debug for PlainSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PlainSecret(***)")
    }
}

/// SHA-256 digest of a secret, as stored in the database (32 bytes).
///
/// `Debug` shows only the first 4 bytes in hex: enough to tell rows apart in
/// logs, too little to be useful as a lookup key to anyone reading them.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SecretDigest(pub [u8; 32]);

impl SecretDigest {
    /// The 32 digest bytes, e.g. to bind as a database parameter.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// Rebuilds a digest read back from storage; `None` unless exactly 32 bytes.
    pub fn from_slice(b: &[u8]) -> Option<Self> {
        <[u8; 32]>::try_from(b).ok().map(Self)
    }
}

impl fmt::Debug for SecretDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SecretDigest(")?;
        for b in &self.0[..4] {
            write!(f, "{b:02x}")?;
        }
        f.write_str("…)")
    }
}

/// The system random number generator failed.
///
/// Kept as its own type (rather than ring's `Unspecified`) so callers can
/// report it without depending on ring.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the system random number generator failed")]
pub struct RandomnessError;

impl From<ring::error::Unspecified> for RandomnessError {
    fn from(_: ring::error::Unspecified) -> Self {
        Self
    }
}

/// Generates a random secret of [`TOKEN_LENGTH`] characters drawn uniformly
/// from `[A-Za-z0-9]` (256 bits).
///
/// Alphanumeric, as AWX's tokens are, so the value travels in headers,
/// cookies and query strings without escaping and can never be mistaken for an
/// option when a command line takes it as an argument (`awx --conf.token
/// <value>`: a base64url value starting with `-` made argparse refuse it).
pub fn generate_secret(rng: &dyn SecureRandom) -> Result<PlainSecret, RandomnessError> {
    random_alphanumeric(rng, TOKEN_LENGTH).map(PlainSecret)
}

/// Longest bearer token [`parse_bearer`] accepts. ACS's own tokens are 43
/// characters; the bound leaves room for imported or future formats while
/// keeping arbitrary header junk away from the digest lookup.
const MAX_BEARER_LEN: usize = 512;

/// The token of an `Authorization: Bearer <token>` header value, or `None`.
///
/// The scheme is matched case-insensitively (RFC 9110 §11.1), surrounding
/// spaces and tabs are trimmed, and one or more of them separate the scheme
/// from the token. The token must be a single word of 1..=512 visible ASCII
/// characters (`!`..=`~`); anything else (another scheme, a missing, empty,
/// overlong or non-ASCII token, or several words) gives `None`, so callers
/// treat the request as carrying no bearer token.
pub fn parse_bearer(header: &str) -> Option<PlainSecret> {
    let (scheme, token) = header.trim_ascii().split_once([' ', '\t'])?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return None;
    }
    let token = token.trim_ascii_start();
    let valid =
        (1..=MAX_BEARER_LEN).contains(&token.len()) && token.bytes().all(|b| b.is_ascii_graphic());
    valid.then(|| PlainSecret(token.to_owned()))
}

/// Constant-time equality for secret byte strings.
///
/// Implemented as an xor-fold over every byte pair rather than with ring:
/// `ring::constant_time::verify_slices_are_equal` is deprecated, and the
/// `hmac::verify` trick would need a key and randomness for a plain
/// comparison. The loop never exits early, and the accumulator goes through
/// [`std::hint::black_box`] so the optimiser is discouraged from turning it
/// back into a short-circuiting comparison.
///
/// Different lengths return `false` immediately: lengths are not secret here
/// (digests and tokens have fixed, public lengths), only contents are.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let diff = a
        .iter()
        .zip(b)
        .fold(0u8, |acc, (x, y)| std::hint::black_box(acc | (x ^ y)));
    std::hint::black_box(diff) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::rand::SystemRandom;

    #[test]
    fn generated_secret_is_43_alphanumeric_chars() {
        let s = generate_secret(&SystemRandom::new()).unwrap();
        assert_eq!(s.expose().len(), TOKEN_LENGTH);
        assert!(s.expose().bytes().all(|c| c.is_ascii_alphanumeric()));
        // 43 characters of 62 carry at least 256 bits.
        assert!(TOKEN_LENGTH as f64 * 62f64.log2() >= 256.0);
    }

    #[test]
    fn two_generated_secrets_differ() {
        let rng = SystemRandom::new();
        let a = generate_secret(&rng).unwrap();
        let b = generate_secret(&rng).unwrap();
        assert_ne!(a, b);
        assert_ne!(a.digest(), b.digest());
    }

    #[test]
    fn digest_of_abc_is_known_sha256() {
        let d = PlainSecret::new("abc".to_owned()).digest();
        let expected: [u8; 32] = [
            0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae,
            0x22, 0x23, 0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61,
            0xf2, 0x00, 0x15, 0xad,
        ];
        assert_eq!(d, SecretDigest(expected));
        assert_eq!(d.as_bytes(), &expected[..]);
    }

    #[test]
    fn digest_round_trips_through_slice() {
        let d = PlainSecret::new("token".to_owned()).digest();
        assert_eq!(SecretDigest::from_slice(d.as_bytes()), Some(d));
        assert_eq!(SecretDigest::from_slice(&[0u8; 31]), None);
        assert_eq!(SecretDigest::from_slice(&[0u8; 33]), None);
        assert_eq!(SecretDigest::from_slice(&[]), None);
    }

    #[test]
    fn debug_never_prints_the_secret() {
        let s = PlainSecret::new("hunter2-very-secret".to_owned());
        let shown = format!("{s:?}");
        assert_eq!(shown, "PlainSecret(***)");
        assert!(!shown.contains("hunter2"));
        // Also when nested inside other Debug output.
        let nested = format!("{:?}", Some(&s));
        assert!(!nested.contains("hunter2"));
        let pretty = format!("{s:#?}");
        assert!(!pretty.contains("hunter2"));
    }

    #[test]
    fn digest_debug_shows_only_a_prefix() {
        let d = PlainSecret::new("abc".to_owned()).digest();
        assert_eq!(format!("{d:?}"), "SecretDigest(ba7816bf…)");
    }

    #[test]
    fn expose_and_into_inner_return_the_value() {
        let s = PlainSecret::new("v".to_owned());
        assert_eq!(s.expose(), "v");
        assert_eq!(s.into_inner(), "v");
    }

    #[test]
    fn constant_time_eq_cases() {
        assert!(constant_time_eq(b"", b""));
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"bbc"));
        assert!(!constant_time_eq(b"abc", b"ab"));
        assert!(!constant_time_eq(b"ab", b"abc"));
        assert!(!constant_time_eq(b"", b"a"));
        assert!(!constant_time_eq(&[0u8; 32], &[0u8; 33]));
        let mut x = [7u8; 32];
        assert!(constant_time_eq(&x, &[7u8; 32]));
        x[31] ^= 0x80;
        assert!(!constant_time_eq(&x, &[7u8; 32]));
    }

    #[test]
    fn parse_bearer_cases() {
        let long = "a".repeat(MAX_BEARER_LEN);
        let too_long = "a".repeat(MAX_BEARER_LEN + 1);
        let at_limit = format!("Bearer {long}");
        let over_limit = format!("Bearer {too_long}");
        let cases: &[(&str, &str, Option<&str>)] = &[
            ("plain", "Bearer abc", Some("abc")),
            ("lower-case scheme", "bearer abc", Some("abc")),
            ("upper-case scheme", "BEARER abc", Some("abc")),
            ("mixed-case scheme", "bEaReR abc", Some("abc")),
            ("surrounding whitespace", "  Bearer abc \t", Some("abc")),
            ("several spaces between", "Bearer   abc", Some("abc")),
            ("tab between", "Bearer\tabc", Some("abc")),
            (
                "url-safe token",
                "Bearer a-b_c.d~e+f/g=",
                Some("a-b_c.d~e+f/g="),
            ),
            (
                "visible punctuation",
                "Bearer !\"#$%&'()*,:;<>?@[]^`{|}",
                Some("!\"#$%&'()*,:;<>?@[]^`{|}"),
            ),
            ("512 characters", &at_limit, Some(&long)),
            ("513 characters", &over_limit, None),
            ("empty header", "", None),
            ("blank header", "   ", None),
            ("scheme only", "Bearer", None),
            ("scheme and spaces", "Bearer   ", None),
            ("no separator", "Bearerabc", None),
            ("other scheme", "Basic dXNlcjpwYXNz", None),
            ("token scheme", "Token abc", None),
            ("two words", "Bearer abc def", None),
            ("newline inside", "Bearer abc\ndef", None),
            ("non-ASCII token", "Bearer abcé", None),
            ("control character", "Bearer abc\u{7f}", None),
            ("token without scheme", "abc", None),
        ];
        for (name, header, expected) in cases {
            assert_eq!(
                parse_bearer(header).as_ref().map(PlainSecret::expose),
                *expected,
                "{name}: {header:?}"
            );
        }
    }
}

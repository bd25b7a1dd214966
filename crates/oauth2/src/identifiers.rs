//! Generated OAuth 2 client credentials: the public `client_id` and the
//! `client_secret` of an application.
//!
//! Both are drawn from `[A-Za-z0-9]` with the lengths oauthlib uses (and so
//! AWX): 40 and 128 characters, i.e. about 238 and 762 bits. Alphanumeric
//! rather than base64 so the values survive every form encoding and copy-paste
//! unchanged, exactly as AWX's did. Characters are drawn by rejection sampling
//! so every character is equally likely (no modulo bias).
//!
//! The same sampler serves [`crate::password`] for Django's salts and
//! unusable-password markers.

use ring::rand::SecureRandom;

use crate::secret::{PlainSecret, RandomnessError};

/// Length of a generated `client_id` (oauthlib's `generate_client_id` default).
pub const CLIENT_ID_LENGTH: usize = 40;

/// Length of a generated `client_secret` (django-oauth-toolkit's
/// `CLIENT_SECRET_GENERATOR_LENGTH` default, which AWX keeps).
pub const CLIENT_SECRET_LENGTH: usize = 128;

/// Django's `get_random_string` alphabet, in Django's order (the order is
/// irrelevant to uniformity but keeps salts drawn from the same bytes
/// identical to Django's).
const ALPHABET: &[u8; 62] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/// Random bytes at or above this value are discarded: 248 = 4 × 62 is the
/// largest multiple of the alphabet size that fits in a byte, so `b % 62` is
/// uniform over the accepted bytes (no modulo bias).
const ACCEPT_BELOW: u8 = 248;

/// Random bytes drawn per round.
const DRAW_BYTES: usize = 64;

/// Rounds of random bytes drawn beyond the minimum a string of the requested
/// length needs. A healthy generator rejects 1 byte in 32, so it almost never
/// needs even one extra round; this bound only stops a broken one (e.g.
/// returning all 0xFF) from looping forever.
const EXTRA_DRAW_ROUNDS: usize = 16;

/// Generates a new `client_id`: [`CLIENT_ID_LENGTH`] characters of
/// `[A-Za-z0-9]`.
///
/// Not a secret (it identifies the application in URLs and forms), so it is
/// returned as a plain `String` and stored as is.
pub fn generate_client_id(rng: &dyn SecureRandom) -> Result<String, RandomnessError> {
    random_alphanumeric(rng, CLIENT_ID_LENGTH)
}

/// Generates a new `client_secret`: [`CLIENT_SECRET_LENGTH`] characters of
/// `[A-Za-z0-9]`.
///
/// Shown once in the creation response; only its
/// [`digest`](PlainSecret::digest) is stored.
pub fn generate_client_secret(rng: &dyn SecureRandom) -> Result<PlainSecret, RandomnessError> {
    random_alphanumeric(rng, CLIENT_SECRET_LENGTH).map(PlainSecret::new)
}

/// `len` characters drawn uniformly from `[A-Za-z0-9]` (Django's
/// `get_random_string`), by rejection sampling over random bytes.
pub fn random_alphanumeric(rng: &dyn SecureRandom, len: usize) -> Result<String, RandomnessError> {
    sample_alphanumeric(|buf| rng.fill(buf).map_err(RandomnessError::from), len)
}

/// The sampling loop of [`random_alphanumeric`], taking the byte source as a
/// closure so tests can feed it chosen bytes (ring's `SecureRandom` is sealed,
/// so no fake generator can implement it).
///
/// Fails with [`RandomnessError`] when the source fails, or when it still has
/// not produced `len` acceptable bytes after [`EXTRA_DRAW_ROUNDS`] rounds more
/// than the minimum.
fn sample_alphanumeric(
    mut fill: impl FnMut(&mut [u8]) -> Result<(), RandomnessError>,
    len: usize,
) -> Result<String, RandomnessError> {
    let mut out = String::with_capacity(len);
    let mut buf = [0u8; DRAW_BYTES];
    let rounds = len.div_ceil(DRAW_BYTES).saturating_add(EXTRA_DRAW_ROUNDS);
    for _ in 0..rounds {
        if out.len() == len {
            break;
        }
        fill(&mut buf)?;
        extend_unbiased(&buf, &mut out, len);
    }
    if out.len() == len {
        Ok(out)
    } else {
        Err(RandomnessError)
    }
}

/// Appends alphabet characters for the accepted bytes of `bytes` until `out`
/// holds `len` characters.
fn extend_unbiased(bytes: &[u8], out: &mut String, len: usize) {
    for &b in bytes {
        if out.len() >= len {
            break;
        }
        if b < ACCEPT_BELOW {
            out.push(char::from(ALPHABET[usize::from(b % 62)]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::rand::SystemRandom;
    use std::cell::Cell;

    fn is_alphanumeric(s: &str) -> bool {
        s.bytes().all(|c| c.is_ascii_alphanumeric())
    }

    #[test]
    fn generated_credentials_have_length_and_alphabet() {
        let rng = SystemRandom::new();
        let id = generate_client_id(&rng).unwrap();
        assert_eq!(id.len(), CLIENT_ID_LENGTH);
        assert!(is_alphanumeric(&id), "{id}");
        let secret = generate_client_secret(&rng).unwrap();
        assert_eq!(secret.expose().len(), CLIENT_SECRET_LENGTH);
        assert!(is_alphanumeric(secret.expose()));
    }

    #[test]
    fn two_generated_credentials_differ() {
        let rng = SystemRandom::new();
        assert_ne!(
            generate_client_id(&rng).unwrap(),
            generate_client_id(&rng).unwrap()
        );
        let a = generate_client_secret(&rng).unwrap();
        let b = generate_client_secret(&rng).unwrap();
        assert_ne!(a, b);
        assert_ne!(a.digest(), b.digest());
    }

    #[test]
    fn sampling_rejects_biased_bytes_and_is_uniform() {
        // Every accepted byte value 0..248 maps to each character exactly 4 times.
        let all: Vec<u8> = (0..=255).collect();
        let mut out = String::new();
        extend_unbiased(&all, &mut out, usize::MAX);
        assert_eq!(out.len(), 248);
        for &c in ALPHABET {
            assert_eq!(out.bytes().filter(|&b| b == c).count(), 4);
        }
        // Bytes 248..=255 contribute nothing.
        let mut out = String::new();
        extend_unbiased(&[248, 250, 255, 0, 61, 62], &mut out, 10);
        assert_eq!(out, "a9a");
        // Stops at the requested length.
        let mut out = String::new();
        extend_unbiased(&[1, 2, 3, 4], &mut out, 2);
        assert_eq!(out, "bc");
    }

    /// The bytes one call of the byte source fills.
    type Round = [u8; DRAW_BYTES];

    /// A fake byte source: serves the given rounds in order (panicking if
    /// asked for more) and counts them in `served`.
    fn scripted<'a>(
        rounds: &'a [Round],
        served: &'a Cell<usize>,
    ) -> impl FnMut(&mut [u8]) -> Result<(), RandomnessError> + 'a {
        move |buf| {
            let i = served.get();
            buf.copy_from_slice(rounds.get(i).expect("drew more rounds than scripted"));
            served.set(i + 1);
            Ok(())
        }
    }

    #[test]
    fn sampling_from_scripted_sources() {
        let rejected: Round = [0xFF; DRAW_BYTES];
        let zeros: Round = [0; DRAW_BYTES];
        let counting: Round = std::array::from_fn(|i| u8::try_from(i).unwrap());
        let half_rejected: Round = std::array::from_fn(|i| if i % 2 == 0 { 0xFF } else { 1 });
        // (name, rounds served in order, length asked, expected string, rounds used)
        let cases: Vec<(&str, Vec<Round>, usize, String, usize)> = vec![
            (
                "all 0xFF then valid bytes: rejection skips the first round",
                vec![rejected, zeros],
                CLIENT_ID_LENGTH,
                "a".repeat(40),
                2,
            ),
            (
                "several rejected rounds are survived",
                vec![rejected, rejected, rejected, counting],
                3,
                "abc".into(),
                4,
            ),
            (
                "one round covers a short string",
                vec![counting],
                5,
                "abcde".into(),
                1,
            ),
            (
                "half-rejected rounds add up",
                vec![half_rejected, half_rejected, half_rejected],
                70,
                "b".repeat(70),
                3,
            ),
            (
                "the secret length needs two valid rounds",
                vec![zeros, zeros],
                CLIENT_SECRET_LENGTH,
                "a".repeat(128),
                2,
            ),
            ("zero length draws nothing", vec![], 0, String::new(), 0),
        ];
        for (name, rounds, len, expected, used) in cases {
            let served = Cell::new(0);
            let fill = scripted(&rounds, &served);
            assert_eq!(sample_alphanumeric(fill, len), Ok(expected), "{name}");
            assert_eq!(served.get(), used, "{name}");
        }
    }

    #[test]
    fn a_source_that_only_returns_rejected_bytes_fails_instead_of_looping() {
        for len in [1, CLIENT_ID_LENGTH, CLIENT_SECRET_LENGTH] {
            let mut calls = 0usize;
            let fill = |buf: &mut [u8]| {
                calls += 1;
                buf.fill(0xFF);
                Ok(())
            };
            assert_eq!(
                sample_alphanumeric(fill, len),
                Err(RandomnessError),
                "{len}"
            );
            assert_eq!(calls, len.div_ceil(DRAW_BYTES) + EXTRA_DRAW_ROUNDS, "{len}");
        }
    }

    #[test]
    fn a_failing_source_fails() {
        let fill = |_: &mut [u8]| Err(RandomnessError);
        assert_eq!(sample_alphanumeric(fill, 1), Err(RandomnessError));
    }
}

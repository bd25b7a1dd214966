//! Encryption of secret credential inputs at rest.
//!
//! Secret input values are stored as
//!
//! ```text
//! $encrypted$AESGCM$<base64 (standard, padded) of nonce (12 bytes) || ciphertext || tag (16 bytes)>
//! ```
//!
//! * The cipher is AES-256-GCM. Its key is derived from the deployment's secret key with
//!   HKDF-SHA256, salt [`HKDF_SALT`] and info [`HKDF_INFO`], so the secret key itself never
//!   encrypts data and other uses of it get independent keys.
//! * Each value gets a fresh random 96-bit nonce from the caller's random source.
//! * The field id is the associated data: a sealed value only opens under the field it was
//!   sealed for, so it cannot be copied to another field (for instance a non-secret one that is
//!   shown in clear).
//!
//! The `$encrypted$` prefix makes stored values recognisable (the display form of any value
//! starting with it is `$encrypted$`).

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use ring::aead::{AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use ring::hkdf::{HKDF_SHA256, Salt};
use ring::rand::SecureRandom;

/// The prefix of every sealed value.
pub const SEALED_PREFIX: &str = "$encrypted$AESGCM$";

/// The HKDF salt used to derive the input-encryption key from the secret key.
pub const HKDF_SALT: &[u8] = b"acs credential inputs";

/// The HKDF info (context) used to derive the input-encryption key; names the format version.
pub const HKDF_INFO: &[u8] = b"aes-256-gcm v1";

/// Length of the GCM authentication tag.
const TAG_LEN: usize = 16;

/// Why sealing or opening failed. Messages never contain key material or plaintext.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum CipherError {
    /// The value is not a sealed value (wrong prefix, bad base64, too short).
    #[error("the value is not a well-formed encrypted value")]
    Malformed,
    /// Authentication failed: another key, another field, or the value was altered.
    #[error("the encrypted value was rejected (wrong key or field, or altered)")]
    Rejected,
    /// The random source failed to produce a nonce.
    #[error("no random nonce could be generated")]
    Random,
}

/// Seals and opens secret input values with a key derived from the deployment's secret key.
pub struct InputCipher {
    key: LessSafeKey,
}

impl fmt::Debug for InputCipher {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("InputCipher")
            .field("algorithm", &"AES-256-GCM")
            .finish_non_exhaustive()
    }
}

/// The HKDF output length type for a 32-byte AES-256 key.
struct KeyLength;

impl ring::hkdf::KeyType for KeyLength {
    fn len(&self) -> usize {
        AES_256_GCM.key_len()
    }
}

impl InputCipher {
    /// Derives the input-encryption key from `secret_key` (the deployment's secret key, any
    /// length; 32 random bytes in practice) with HKDF-SHA256 ([`HKDF_SALT`], [`HKDF_INFO`]).
    pub fn from_secret_key(secret_key: &[u8]) -> InputCipher {
        let prk = Salt::new(HKDF_SHA256, HKDF_SALT).extract(secret_key);
        let mut key_bytes = [0_u8; 32];
        // Expanding to 32 bytes is always within HKDF-SHA256's limit (255 * 32 bytes), and the
        // length matches the buffer, so neither step can fail.
        prk.expand(&[HKDF_INFO], KeyLength)
            .and_then(|okm| okm.fill(&mut key_bytes))
            .expect("HKDF-SHA256 expansion to 32 bytes cannot fail");
        let unbound = UnboundKey::new(&AES_256_GCM, &key_bytes)
            .expect("a 32-byte key is valid for AES-256-GCM");
        key_bytes.fill(0);
        InputCipher {
            key: LessSafeKey::new(unbound),
        }
    }

    /// Seals `plaintext` for the input field `field`.
    ///
    /// # Errors
    ///
    /// [`CipherError::Random`] when `rng` fails; [`CipherError::Malformed`] for a value too large
    /// to encrypt (more than 64 GiB).
    pub fn seal(
        &self,
        rng: &dyn SecureRandom,
        field: &str,
        plaintext: &str,
    ) -> Result<String, CipherError> {
        let mut nonce_bytes = [0_u8; NONCE_LEN];
        rng.fill(&mut nonce_bytes)
            .map_err(|_| CipherError::Random)?;
        let mut sealed = Vec::with_capacity(NONCE_LEN + plaintext.len() + TAG_LEN);
        sealed.extend_from_slice(&nonce_bytes);
        let mut in_out = plaintext.as_bytes().to_vec();
        self.key
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce_bytes),
                Aad::from(field.as_bytes()),
                &mut in_out,
            )
            .map_err(|_| CipherError::Malformed)?;
        sealed.extend_from_slice(&in_out);
        Ok(format!("{SEALED_PREFIX}{}", STANDARD.encode(sealed)))
    }

    /// Opens a value sealed for the input field `field`.
    ///
    /// # Errors
    ///
    /// [`CipherError::Malformed`] when `sealed` is not a sealed value;
    /// [`CipherError::Rejected`] when it does not authenticate (another key or field, or it was
    /// altered).
    pub fn open(&self, field: &str, sealed: &str) -> Result<String, CipherError> {
        let encoded = sealed
            .strip_prefix(SEALED_PREFIX)
            .ok_or(CipherError::Malformed)?;
        let mut data = STANDARD
            .decode(encoded)
            .map_err(|_| CipherError::Malformed)?;
        if data.len() < NONCE_LEN + TAG_LEN {
            return Err(CipherError::Malformed);
        }
        let (nonce_bytes, ciphertext) = data.split_at_mut(NONCE_LEN);
        let nonce =
            Nonce::try_assume_unique_for_key(nonce_bytes).map_err(|_| CipherError::Malformed)?;
        let plaintext = self
            .key
            .open_in_place(nonce, Aad::from(field.as_bytes()), ciphertext)
            .map_err(|_| CipherError::Rejected)?;
        // Only `seal` produces authentic values, and it seals UTF-8 text.
        String::from_utf8(plaintext.to_vec()).map_err(|_| CipherError::Malformed)
    }
}

/// Whether `value` looks like a value produced by [`InputCipher::seal`] (by its prefix; it says
/// nothing about authenticity).
pub fn is_sealed(value: &str) -> bool {
    value.starts_with(SEALED_PREFIX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use ring::rand::SystemRandom;

    fn cipher() -> InputCipher {
        InputCipher::from_secret_key(&[7_u8; 32])
    }

    #[test]
    fn round_trip() {
        let rng = SystemRandom::new();
        let cipher = cipher();
        for plaintext in ["", "s3cret", "ünïcødé 🐉", &"x".repeat(10_000)] {
            let sealed = cipher.seal(&rng, "password", plaintext).expect("seals");
            assert!(is_sealed(&sealed));
            assert!(sealed.starts_with("$encrypted$AESGCM$"));
            assert!(!sealed.contains(plaintext) || plaintext.is_empty());
            assert_eq!(cipher.open("password", &sealed).as_deref(), Ok(plaintext));
        }
    }

    #[test]
    fn same_key_derives_the_same_cipher() {
        let rng = SystemRandom::new();
        let sealed = cipher().seal(&rng, "token", "value").expect("seals");
        assert_eq!(
            InputCipher::from_secret_key(&[7_u8; 32]).open("token", &sealed),
            Ok("value".to_owned())
        );
    }

    #[test]
    fn nonces_are_fresh() {
        let rng = SystemRandom::new();
        let cipher = cipher();
        let first = cipher.seal(&rng, "password", "same").expect("seals");
        let second = cipher.seal(&rng, "password", "same").expect("seals");
        assert_ne!(first, second);
        let nonce = |sealed: &str| {
            STANDARD
                .decode(sealed.trim_start_matches(SEALED_PREFIX))
                .expect("base64")[..NONCE_LEN]
                .to_vec()
        };
        assert_ne!(nonce(&first), nonce(&second));
    }

    #[test]
    fn wrong_field_key_or_tampering_is_rejected() {
        let rng = SystemRandom::new();
        let cipher = cipher();
        let sealed = cipher.seal(&rng, "password", "s3cret").expect("seals");
        assert_eq!(cipher.open("username", &sealed), Err(CipherError::Rejected));
        assert_eq!(
            InputCipher::from_secret_key(&[8_u8; 32]).open("password", &sealed),
            Err(CipherError::Rejected)
        );
        let mut bytes = STANDARD
            .decode(sealed.trim_start_matches(SEALED_PREFIX))
            .expect("base64");
        for index in [0, NONCE_LEN, bytes.len() - 1] {
            bytes[index] ^= 1;
            let tampered = format!("{SEALED_PREFIX}{}", STANDARD.encode(&bytes));
            assert_eq!(
                cipher.open("password", &tampered),
                Err(CipherError::Rejected)
            );
            bytes[index] ^= 1;
        }
    }

    #[test]
    fn garbage_is_malformed() {
        let cipher = cipher();
        for garbage in [
            "",
            "plain",
            "$encrypted$",
            "$encrypted$UTF8$AESCBC$Z0FBQUFBQm",
            "$encrypted$AESGCM$",
            "$encrypted$AESGCM$not base64!",
            "$encrypted$AESGCM$AAAA",
        ] {
            assert_eq!(
                cipher.open("password", garbage),
                Err(CipherError::Malformed),
                "{garbage}"
            );
        }
    }

    #[test]
    fn debug_shows_no_key_material() {
        let text = format!("{:?}", cipher());
        assert_eq!(text, "InputCipher { algorithm: \"AES-256-GCM\", .. }");
    }

    proptest! {
        #[test]
        fn open_never_panics(field in ".{0,20}", value in ".{0,200}") {
            let cipher = cipher();
            let _ = cipher.open(&field, &value);
            let _ = cipher.open(&field, &format!("{SEALED_PREFIX}{value}"));
        }

        #[test]
        fn arbitrary_bytes_after_the_prefix_never_open(bytes in proptest::collection::vec(any::<u8>(), 0..100)) {
            let sealed = format!("{SEALED_PREFIX}{}", STANDARD.encode(&bytes));
            prop_assert!(cipher().open("password", &sealed).is_err());
        }

        #[test]
        fn round_trips_any_text(field in "[a-z_]{1,12}", plaintext in ".{0,100}") {
            let rng = SystemRandom::new();
            let cipher = cipher();
            let sealed = cipher.seal(&rng, &field, &plaintext).expect("seals");
            prop_assert_eq!(cipher.open(&field, &sealed), Ok(plaintext));
        }
    }
}

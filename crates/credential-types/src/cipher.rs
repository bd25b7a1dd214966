//! Encryption of secret credential inputs at rest, under a ring of keys.
//!
//! Secret input values are stored as
//!
//! ```text
//! $encrypted$AESGCM$<key id>$<base64 (standard, padded) of nonce (12 bytes) || ciphertext || tag (16 bytes)>
//! ```
//!
//! * The cipher is AES-256-GCM. Its key is derived from a deployment secret key with
//!   HKDF-SHA256, salt [`HKDF_SALT`] and info [`HKDF_INFO`], so the secret key itself never
//!   encrypts data and other uses of it get independent keys.
//! * The key id (16 hexadecimal digits, [`KeyId`]) names the secret key that sealed the value
//!   without revealing anything of it (HKDF-SHA256 again, info [`KEY_ID_INFO`]). An
//!   [`InputCipher`] holds the current key, which seals, and any number of earlier ones, which
//!   still open what they sealed: so a deployment can re-encrypt its values under a new key
//!   while every value stays readable. Values written before key ids existed
//!   (`$encrypted$AESGCM$<base64>`) open under whichever key of the ring authenticates them.
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
use ring::hkdf::{HKDF_SHA256, Prk, Salt};
use ring::rand::SecureRandom;

/// The prefix of every sealed value.
pub const SEALED_PREFIX: &str = "$encrypted$AESGCM$";

/// The HKDF salt used to derive the input-encryption key from the secret key.
pub const HKDF_SALT: &[u8] = b"acs credential inputs";

/// The HKDF info (context) used to derive the input-encryption key; names the format version.
pub const HKDF_INFO: &[u8] = b"aes-256-gcm v1";

/// The HKDF info used to derive a secret key's [`KeyId`].
pub const KEY_ID_INFO: &[u8] = b"key id v1";

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
    /// The value names a key that is not in the ring (sealed under a newer key, or under one
    /// that was retired).
    #[error("the encrypted value was sealed under a key this cipher does not hold")]
    UnknownKey,
    /// The random source failed to produce a nonce.
    #[error("no random nonce could be generated")]
    Random,
}

/// Names the secret key that sealed a value: 8 bytes derived from it, shown as 16 lowercase
/// hexadecimal digits. Knowing it tells nothing of the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeyId([u8; 8]);

impl fmt::Display for KeyId {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        for byte in self.0 {
            write!(formatter, "{byte:02x}")?;
        }
        Ok(())
    }
}

impl KeyId {
    /// Parses the 16 lowercase hexadecimal digits of a sealed value's key id.
    pub fn parse(text: &str) -> Option<KeyId> {
        let bytes = text.as_bytes();
        if bytes.len() != 16 {
            return None;
        }
        let mut id = [0_u8; 8];
        for (slot, pair) in id.iter_mut().zip(bytes.chunks_exact(2)) {
            let digit = |c: u8| match c {
                b'0'..=b'9' => Some(c - b'0'),
                b'a'..=b'f' => Some(c - b'a' + 10),
                _ => None,
            };
            *slot = digit(pair[0])? << 4 | digit(pair[1])?;
        }
        Some(KeyId(id))
    }
}

/// The key id a sealed value names: `None` when it names none (sealed before key ids
/// existed) or is not a sealed value at all.
pub fn sealed_key_id(value: &str) -> Option<KeyId> {
    let (id, _) = value.strip_prefix(SEALED_PREFIX)?.split_once('$')?;
    KeyId::parse(id)
}

/// Whether `value` looks like a value produced by [`InputCipher::seal`] (by its prefix; it says
/// nothing about authenticity).
pub fn is_sealed(value: &str) -> bool {
    value.starts_with(SEALED_PREFIX)
}

/// One secret key's derived AES-256-GCM key and its id.
struct SealingKey {
    id: KeyId,
    key: LessSafeKey,
}

/// An HKDF output length in bytes.
struct Length(usize);

impl ring::hkdf::KeyType for Length {
    fn len(&self) -> usize {
        self.0
    }
}

/// Fills `out` from `prk` with HKDF-Expand under `info`.
fn expand(prk: &Prk, info: &[u8], out: &mut [u8]) {
    // At most 32 bytes, always within HKDF-SHA256's limit (255 * 32 bytes), and the length
    // matches the buffer, so neither step can fail.
    prk.expand(&[info], Length(out.len()))
        .and_then(|okm| okm.fill(out))
        .expect("HKDF-SHA256 expansion to at most 32 bytes cannot fail");
}

impl SealingKey {
    fn derive(secret_key: &[u8]) -> SealingKey {
        let prk = Salt::new(HKDF_SHA256, HKDF_SALT).extract(secret_key);
        let mut key_bytes = [0_u8; 32];
        expand(&prk, HKDF_INFO, &mut key_bytes);
        let unbound = UnboundKey::new(&AES_256_GCM, &key_bytes)
            .expect("a 32-byte key is valid for AES-256-GCM");
        key_bytes.fill(0);
        let mut id = [0_u8; 8];
        expand(&prk, KEY_ID_INFO, &mut id);
        SealingKey {
            id: KeyId(id),
            key: LessSafeKey::new(unbound),
        }
    }

    /// Opens base64 `encoded` for `field`.
    fn open(&self, field: &str, encoded: &str) -> Result<String, CipherError> {
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

/// Seals and opens secret input values: seals under the current key, opens under any key of
/// the ring.
pub struct InputCipher {
    current: SealingKey,
    earlier: Vec<SealingKey>,
}

impl fmt::Debug for InputCipher {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("InputCipher")
            .field("algorithm", &"AES-256-GCM")
            .field("current", &self.current.id.to_string())
            .field("earlier", &self.earlier.len())
            .finish()
    }
}

impl InputCipher {
    /// A cipher holding one key, derived from `secret_key` (the deployment's secret key, any
    /// length; 32 random bytes in practice).
    pub fn from_secret_key(secret_key: &[u8]) -> InputCipher {
        InputCipher::with_earlier_keys(secret_key, &[])
    }

    /// A cipher that seals under `current` and also opens what the `earlier` secret keys
    /// sealed (a key that appears twice is held once).
    pub fn with_earlier_keys(current: &[u8], earlier: &[&[u8]]) -> InputCipher {
        let current = SealingKey::derive(current);
        let mut held: Vec<SealingKey> = Vec::with_capacity(earlier.len());
        for secret_key in earlier {
            let key = SealingKey::derive(secret_key);
            if key.id != current.id && held.iter().all(|other| other.id != key.id) {
                held.push(key);
            }
        }
        InputCipher {
            current,
            earlier: held,
        }
    }

    /// The id of the key new values are sealed under.
    pub fn current_key_id(&self) -> KeyId {
        self.current.id
    }

    /// The ids of every key this cipher opens values under, the current one first.
    pub fn key_ids(&self) -> impl Iterator<Item = KeyId> + '_ {
        std::iter::once(self.current.id).chain(self.earlier.iter().map(|key| key.id))
    }

    /// Seals `plaintext` for the input field `field` under the current key.
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
        self.current
            .key
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce_bytes),
                Aad::from(field.as_bytes()),
                &mut in_out,
            )
            .map_err(|_| CipherError::Malformed)?;
        sealed.extend_from_slice(&in_out);
        Ok(format!(
            "{SEALED_PREFIX}{}${}",
            self.current.id,
            STANDARD.encode(sealed)
        ))
    }

    /// Opens a value sealed for the input field `field`, under the key it names (or, for a
    /// value that names none, under whichever key of the ring authenticates it).
    ///
    /// # Errors
    ///
    /// [`CipherError::Malformed`] when `sealed` is not a sealed value;
    /// [`CipherError::UnknownKey`] when it names a key the ring does not hold;
    /// [`CipherError::Rejected`] when it does not authenticate (another key or field, or it was
    /// altered).
    pub fn open(&self, field: &str, sealed: &str) -> Result<String, CipherError> {
        let rest = sealed
            .strip_prefix(SEALED_PREFIX)
            .ok_or(CipherError::Malformed)?;
        let Some((id, encoded)) = rest.split_once('$') else {
            // Sealed before values named their key.
            let mut outcome = Err(CipherError::Rejected);
            for key in std::iter::once(&self.current).chain(&self.earlier) {
                outcome = key.open(field, rest);
                if !matches!(outcome, Err(CipherError::Rejected)) {
                    break;
                }
            }
            return outcome;
        };
        let id = KeyId::parse(id).ok_or(CipherError::Malformed)?;
        let key = std::iter::once(&self.current)
            .chain(&self.earlier)
            .find(|key| key.id == id)
            .ok_or(CipherError::UnknownKey)?;
        key.open(field, encoded)
    }

    /// `sealed` opened and sealed again under the current key, or `None` when the current
    /// key sealed it already.
    ///
    /// # Errors
    ///
    /// As [`InputCipher::open`] and [`InputCipher::seal`].
    pub fn reseal(
        &self,
        rng: &dyn SecureRandom,
        field: &str,
        sealed: &str,
    ) -> Result<Option<String>, CipherError> {
        if sealed_key_id(sealed) == Some(self.current.id) {
            return Ok(None);
        }
        let plaintext = self.open(field, sealed)?;
        self.seal(rng, field, &plaintext).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use ring::rand::SystemRandom;

    fn cipher() -> InputCipher {
        InputCipher::from_secret_key(&[7_u8; 32])
    }

    /// The base64 part of a sealed value.
    fn payload(sealed: &str) -> &str {
        let rest = sealed.strip_prefix(SEALED_PREFIX).expect("prefix");
        rest.split_once('$').map_or(rest, |(_, encoded)| encoded)
    }

    /// `sealed` as a value written before key ids existed.
    fn without_key_id(sealed: &str) -> String {
        format!("{SEALED_PREFIX}{}", payload(sealed))
    }

    #[test]
    fn round_trip() {
        let rng = SystemRandom::new();
        let cipher = cipher();
        for plaintext in ["", "s3cret", "ünïcødé 🐉", &"x".repeat(10_000)] {
            let sealed = cipher.seal(&rng, "password", plaintext).expect("seals");
            assert!(is_sealed(&sealed));
            assert!(sealed.starts_with("$encrypted$AESGCM$"));
            assert_eq!(sealed_key_id(&sealed), Some(cipher.current_key_id()));
            assert!(!sealed.contains(plaintext) || plaintext.is_empty());
            assert_eq!(cipher.open("password", &sealed).as_deref(), Ok(plaintext));
        }
    }

    #[test]
    fn same_key_derives_the_same_cipher() {
        let rng = SystemRandom::new();
        let sealed = cipher().seal(&rng, "token", "value").expect("seals");
        let again = InputCipher::from_secret_key(&[7_u8; 32]);
        assert_eq!(again.current_key_id(), cipher().current_key_id());
        assert_eq!(again.open("token", &sealed), Ok("value".to_owned()));
    }

    #[test]
    fn key_ids_name_keys_and_parse_back() {
        let seven = cipher().current_key_id();
        let eight = InputCipher::from_secret_key(&[8_u8; 32]).current_key_id();
        assert_ne!(seven, eight);
        let shown = seven.to_string();
        assert_eq!(shown.len(), 16);
        assert!(!shown.contains("0707"), "{shown}");
        assert_eq!(KeyId::parse(&shown), Some(seven));
        for bad in [
            "",
            "0123",
            "0123456789ABCDEF",
            "0123456789abcdeg",
            "0123456789abcdef0",
        ] {
            assert_eq!(KeyId::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_ring_opens_what_earlier_keys_sealed_and_seals_under_the_current_one() {
        let rng = SystemRandom::new();
        let old = cipher();
        let by_old = old.seal(&rng, "password", "s3cret").expect("seals");
        let legacy = without_key_id(&by_old);
        let ring = InputCipher::with_earlier_keys(&[8_u8; 32], &[&[7_u8; 32], &[8_u8; 32]]);
        assert_eq!(
            ring.key_ids().count(),
            2,
            "the current key is not held twice"
        );
        assert_eq!(ring.open("password", &by_old).as_deref(), Ok("s3cret"));
        assert_eq!(ring.open("password", &legacy).as_deref(), Ok("s3cret"));
        assert_eq!(old.open("password", &legacy).as_deref(), Ok("s3cret"));

        let by_new = ring.seal(&rng, "password", "n3w").expect("seals");
        assert_eq!(sealed_key_id(&by_new), Some(ring.current_key_id()));
        assert_eq!(old.open("password", &by_new), Err(CipherError::UnknownKey));
        assert_eq!(
            old.open("password", &without_key_id(&by_new)),
            Err(CipherError::Rejected)
        );
    }

    #[test]
    fn reseal_moves_a_value_under_the_current_key_once() {
        let rng = SystemRandom::new();
        let by_old = cipher().seal(&rng, "password", "s3cret").expect("seals");
        let ring = InputCipher::with_earlier_keys(&[8_u8; 32], &[&[7_u8; 32]]);
        for old in [by_old.clone(), without_key_id(&by_old)] {
            let moved = ring
                .reseal(&rng, "password", &old)
                .expect("reseals")
                .expect("was under another key");
            assert_eq!(sealed_key_id(&moved), Some(ring.current_key_id()));
            let retired = InputCipher::from_secret_key(&[8_u8; 32]);
            assert_eq!(retired.open("password", &moved).as_deref(), Ok("s3cret"));
            assert_eq!(ring.reseal(&rng, "password", &moved), Ok(None));
        }
        assert_eq!(
            ring.reseal(&rng, "username", &by_old),
            Err(CipherError::Rejected),
            "a value copied to another field is not laundered"
        );
    }

    #[test]
    fn nonces_are_fresh() {
        let rng = SystemRandom::new();
        let cipher = cipher();
        let first = cipher.seal(&rng, "password", "same").expect("seals");
        let second = cipher.seal(&rng, "password", "same").expect("seals");
        assert_ne!(first, second);
        let nonce =
            |sealed: &str| STANDARD.decode(payload(sealed)).expect("base64")[..NONCE_LEN].to_vec();
        assert_ne!(nonce(&first), nonce(&second));
    }

    #[test]
    fn wrong_field_key_or_tampering_is_rejected() {
        let rng = SystemRandom::new();
        let cipher = cipher();
        let sealed = cipher.seal(&rng, "password", "s3cret").expect("seals");
        assert_eq!(cipher.open("username", &sealed), Err(CipherError::Rejected));
        assert_eq!(
            InputCipher::from_secret_key(&[8_u8; 32]).open("password", &without_key_id(&sealed)),
            Err(CipherError::Rejected)
        );
        let id = cipher.current_key_id();
        let mut bytes = STANDARD.decode(payload(&sealed)).expect("base64");
        for index in [0, NONCE_LEN, bytes.len() - 1] {
            bytes[index] ^= 1;
            let tampered = format!("{SEALED_PREFIX}{id}${}", STANDARD.encode(&bytes));
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
        let id = cipher.current_key_id();
        let with_id = format!("{SEALED_PREFIX}{id}$AAAA");
        for garbage in [
            "",
            "plain",
            "$encrypted$",
            "$encrypted$UTF8$AESCBC$Z0FBQUFBQm",
            "$encrypted$AESGCM$",
            "$encrypted$AESGCM$not base64!",
            "$encrypted$AESGCM$AAAA",
            "$encrypted$AESGCM$zz$AAAA",
            "$encrypted$AESGCM$$AAAA",
            with_id.as_str(),
        ] {
            assert_eq!(
                cipher.open("password", garbage),
                Err(CipherError::Malformed),
                "{garbage}"
            );
        }
        assert_eq!(
            cipher.open("password", "$encrypted$AESGCM$0123456789abcdef$AAAA"),
            Err(CipherError::UnknownKey)
        );
    }

    #[test]
    fn debug_shows_no_key_material() {
        let text = format!("{:?}", cipher());
        let id = cipher().current_key_id();
        assert_eq!(
            text,
            format!("InputCipher {{ algorithm: \"AES-256-GCM\", current: \"{id}\", earlier: 0 }}")
        );
    }

    proptest! {
        #[test]
        fn open_never_panics(field in ".{0,20}", value in ".{0,200}") {
            let cipher = cipher();
            let _ = cipher.open(&field, &value);
            let _ = cipher.open(&field, &format!("{SEALED_PREFIX}{value}"));
            let _ = cipher.open(&field, &format!("{SEALED_PREFIX}{}${value}", cipher.current_key_id()));
        }

        #[test]
        fn arbitrary_bytes_after_the_prefix_never_open(bytes in proptest::collection::vec(any::<u8>(), 0..100)) {
            let cipher = cipher();
            let encoded = STANDARD.encode(&bytes);
            let unnamed = format!("{SEALED_PREFIX}{encoded}");
            prop_assert!(cipher.open("password", &unnamed).is_err());
            let named = format!("{SEALED_PREFIX}{}${encoded}", cipher.current_key_id());
            prop_assert!(cipher.open("password", &named).is_err());
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

//! Remembers recently verified passwords so that HTTP Basic does not cost a full PBKDF2 run on
//! every request. An entry is an HMAC (under a key that never leaves this process) of the user
//! id, the stored hash and the password: a changed password or a new hash can never match an
//! old entry, so the cache cannot grant what the database would refuse.

use std::num::NonZeroUsize;
use std::sync::Mutex;

use lru::LruCache;
use ring::hmac;
use ring::rand::SecureRandom;

/// Entries kept (bounded memory); past it, the least recently used goes.
const CAPACITY: NonZeroUsize = NonZeroUsize::new(10_000).expect("not zero");

/// Verified `(user, stored hash, password)` triples, as keyed digests.
pub struct PasswordCache {
    key: hmac::Key,
    entries: Mutex<LruCache<[u8; 32], ()>>,
}

impl std::fmt::Debug for PasswordCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PasswordCache")
    }
}

impl PasswordCache {
    /// A cache with a fresh random key.
    pub fn new(rng: &dyn SecureRandom) -> Result<Self, ring::error::Unspecified> {
        Ok(PasswordCache {
            key: hmac::Key::generate(hmac::HMAC_SHA256, rng)?,
            entries: Mutex::new(LruCache::new(CAPACITY)),
        })
    }

    fn entry(&self, user_id: i64, stored_hash: &str, password: &str) -> [u8; 32] {
        let mut context = hmac::Context::with_key(&self.key);
        context.update(&user_id.to_be_bytes());
        context.update(&(stored_hash.len() as u64).to_be_bytes());
        context.update(stored_hash.as_bytes());
        context.update(password.as_bytes());
        let mut out = [0u8; 32];
        out.copy_from_slice(context.sign().as_ref());
        out
    }

    /// True if this password was verified against this stored hash before.
    pub fn contains(&self, user_id: i64, stored_hash: &str, password: &str) -> bool {
        let entry = self.entry(user_id, stored_hash, password);
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&entry)
            .is_some()
    }

    /// Records a successful verification.
    pub fn insert(&self, user_id: i64, stored_hash: &str, password: &str) {
        let entry = self.entry(user_id, stored_hash, password);
        let mut entries = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        entries.put(entry, ());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_bound_to_user_hash_and_password() {
        let cache = PasswordCache::new(&ring::rand::SystemRandom::new()).expect("key");
        cache.insert(1, "hash-a", "secret");
        assert!(cache.contains(1, "hash-a", "secret"));
        assert!(
            !cache.contains(1, "hash-b", "secret"),
            "a new stored hash invalidates"
        );
        assert!(!cache.contains(1, "hash-a", "Secret"));
        assert!(!cache.contains(2, "hash-a", "secret"));
        // Length-prefixing keeps (hash, password) boundaries unambiguous.
        assert!(!cache.contains(1, "hash-as", "ecret"));
    }

    #[test]
    fn a_full_cache_keeps_the_passwords_in_use() {
        let cache = PasswordCache::new(&ring::rand::SystemRandom::new()).expect("key");
        cache.insert(0, "hash", "hot");
        for user in 1..=i64::try_from(CAPACITY.get()).expect("small") {
            assert!(cache.contains(0, "hash", "hot"), "lost at {user}");
            cache.insert(user, "hash", "cold");
        }
        assert!(cache.contains(0, "hash", "hot"));
        assert!(!cache.contains(1, "hash", "cold"), "the oldest went");
    }
}

//! Authenticated principals, reused by later requests with the same credentials while nothing
//! they were built from has changed.
//!
//! An entry records the change counters (`acs_storage::revisions`) read before it was built.
//! Database triggers bump those counters with every write to users, organization roles and
//! failed-login counters, and every change to or deletion of a session or access token (a new
//! one cannot alter an entry), from any process; each request reads them afresh. So an
//! entry is used only while the database still holds exactly what it was built from: a
//! password change, a deactivation, a revoked session or a new failed login (which could
//! throttle) takes effect on the next request, on every server. Credentials are never stored:
//! keys are HMACs under a key that never leaves this process.
//!
//! A change this process makes without moving the counters it trusts (the refresh grant's
//! deletion of the access token it replaces: see `acs_storage::local_changes`) is honoured
//! by [`PrincipalCache::forget`] instead: the entry goes, and so does any entry a concurrent
//! request built from what it read before the change ([`PrincipalCache::insert`] takes the
//! [`Since`] read before that request's lookup).

use std::net::IpAddr;
use std::num::NonZeroUsize;
use std::sync::Mutex;

use acs_oauth2::SecretDigest;
use acs_storage::Timestamp;
use acs_storage::revisions::Revisions;
use lru::LruCache;
use ring::hmac;
use ring::rand::SecureRandom;

use crate::principal::Principal;

/// Entries kept (bounded memory); past it, the least recently used goes, so a cold entry
/// makes room without the hot ones being lost with it.
const CAPACITY: NonZeroUsize = NonZeroUsize::new(10_000).expect("not zero");

/// What an entry depends on besides users and roles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// HTTP Basic: also the failed-login counters (a throttle may now apply).
    Basic,
    /// A session: also the sessions table (logout, eviction, expiry moves).
    Session,
    /// A bearer token: also the access tokens (revocation, scope change).
    Bearer,
}

#[derive(Debug, Clone)]
struct Entry {
    kind: Kind,
    users: i64,
    dependency: i64,
    principal: Principal,
    expires: Option<Timestamp>,
}

fn dependency(kind: Kind, revisions: &Revisions) -> i64 {
    match kind {
        Kind::Basic => revisions.login_failures,
        Kind::Session => revisions.sessions,
        Kind::Bearer => revisions.tokens,
    }
}

/// Cache key of one set of credentials.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CacheKey([u8; 32]);

/// How many entries the cache had forgotten when a request started to build a principal:
/// read before its database lookup, so that what it built is not stored if an entry was
/// forgotten meanwhile (it may have read what the forgetting change removed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Since(u64);

struct Entries {
    map: LruCache<CacheKey, Entry>,
    /// Entries forgotten so far: see [`Since`].
    forgotten: u64,
}

/// The cache of one server process.
pub struct PrincipalCache {
    key: hmac::Key,
    entries: Mutex<Entries>,
}

impl std::fmt::Debug for PrincipalCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PrincipalCache")
    }
}

impl PrincipalCache {
    /// A cache with a fresh random key.
    pub fn new(rng: &dyn SecureRandom) -> Result<Self, ring::error::Unspecified> {
        Ok(PrincipalCache {
            key: hmac::Key::generate(hmac::HMAC_SHA256, rng)?,
            entries: Mutex::new(Entries {
                map: LruCache::new(CAPACITY),
                forgotten: 0,
            }),
        })
    }

    fn digest(&self, parts: &[&[u8]]) -> CacheKey {
        let mut context = hmac::Context::with_key(&self.key);
        for part in parts {
            // Length prefixes keep part boundaries unambiguous.
            context.update(&(part.len() as u64).to_be_bytes());
            context.update(part);
        }
        let mut out = [0u8; 32];
        out.copy_from_slice(context.sign().as_ref());
        CacheKey(out)
    }

    /// The key of Basic credentials from one client address (the throttle is per address).
    pub fn basic_key(&self, username: &str, password: &str, client: Option<IpAddr>) -> CacheKey {
        let client = client.map(|ip| ip.to_string()).unwrap_or_default();
        self.digest(&[
            b"basic",
            username.as_bytes(),
            password.as_bytes(),
            client.as_bytes(),
        ])
    }

    /// The key of a session.
    pub fn session_key(&self, session: &SecretDigest) -> CacheKey {
        self.digest(&[b"session", session.as_bytes()])
    }

    /// The key of a bearer token.
    pub fn bearer_key(&self, token: &SecretDigest) -> CacheKey {
        self.digest(&[b"bearer", token.as_bytes()])
    }

    /// The principal stored under `key`, if it was built under the same counters; with the
    /// session expiry it was built with.
    pub fn get(
        &self,
        key: &CacheKey,
        kind: Kind,
        revisions: &Revisions,
    ) -> Option<(Principal, Option<Timestamp>)> {
        let mut entries = self.lock();
        let entry = entries.map.get(key)?;
        let entry = is_current(entry, kind, revisions).then_some(entry)?;
        Some((entry.principal.clone(), entry.expires))
    }

    /// Whether [`PrincipalCache::get`] would find a principal, without copying it.
    pub fn holds(&self, key: &CacheKey, kind: Kind, revisions: &Revisions) -> bool {
        self.lock()
            .map
            .peek(key)
            .is_some_and(|entry| is_current(entry, kind, revisions))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// To be read before a lookup whose result may be stored (see [`Since`]).
    pub fn since(&self) -> Since {
        Since(self.lock().forgotten)
    }

    /// Drops the entry under `key`, and keeps out any entry built from a lookup that started
    /// before: for a change this process made that the counters do not yet tell.
    pub fn forget(&self, key: &CacheKey) {
        let mut entries = self.lock();
        entries.forgotten += 1;
        entries.map.pop(key);
    }

    /// Stores a principal built after reading `revisions` and `since`, unless an entry was
    /// forgotten since.
    pub fn insert(
        &self,
        key: CacheKey,
        kind: Kind,
        revisions: &Revisions,
        since: Since,
        principal: Principal,
        expires: Option<Timestamp>,
    ) {
        let entry = Entry {
            kind,
            users: revisions.users,
            dependency: dependency(kind, revisions),
            principal,
            expires,
        };
        let mut entries = self.lock();
        if Since(entries.forgotten) != since {
            return;
        }
        entries.map.put(key, entry);
    }
}

/// Whether `entry` was built for `kind` under the same counters.
fn is_current(entry: &Entry, kind: Kind, revisions: &Revisions) -> bool {
    entry.kind == kind
        && entry.users == revisions.users
        && entry.dependency == dependency(kind, revisions)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn principal(id: i64) -> Principal {
        Principal {
            user: acs_storage::users::User {
                id,
                username: format!("u{id}"),
                is_active: true,
                ..Default::default()
            },
            actor: acs_authz::Actor {
                user_id: id,
                ..Default::default()
            },
            method: crate::principal::Method::Basic,
        }
    }

    #[test]
    fn entries_live_only_while_their_counters_hold() {
        let cache = PrincipalCache::new(&ring::rand::SystemRandom::new()).expect("key");
        let key = cache.basic_key("alice", "pw", None);
        let at = Revisions {
            settings: 1,
            users: 5,
            sessions: 7,
            login_failures: 9,
            tokens: 11,
            applications: 13,
        };
        cache.insert(key, Kind::Basic, &at, cache.since(), principal(1), None);
        assert!(cache.get(&key, Kind::Basic, &at).is_some());
        // A settings or sessions change does not concern Basic credentials.
        assert!(
            cache
                .get(
                    &key,
                    Kind::Basic,
                    &Revisions {
                        settings: 2,
                        sessions: 8,
                        ..at
                    }
                )
                .is_some()
        );
        // A user or role change, or a new failed login, does.
        assert!(
            cache
                .get(&key, Kind::Basic, &Revisions { users: 6, ..at })
                .is_none()
        );
        assert!(
            cache
                .get(
                    &key,
                    Kind::Basic,
                    &Revisions {
                        login_failures: 10,
                        ..at
                    }
                )
                .is_none()
        );
        // The same key never serves another kind.
        assert!(cache.get(&key, Kind::Session, &at).is_none());
        // `holds` answers as `get` does.
        assert!(cache.holds(&key, Kind::Basic, &at));
        assert!(!cache.holds(&key, Kind::Basic, &Revisions { users: 6, ..at }));
        assert!(!cache.holds(&key, Kind::Session, &at));
        // Bearer entries follow the tokens counter.
        let bearer = cache.bearer_key(&acs_oauth2::PlainSecret::new("t".into()).digest());
        cache.insert(bearer, Kind::Bearer, &at, cache.since(), principal(2), None);
        assert!(cache.get(&bearer, Kind::Bearer, &at).is_some());
        assert!(
            cache
                .get(&bearer, Kind::Bearer, &Revisions { tokens: 12, ..at })
                .is_none()
        );
    }

    #[test]
    fn a_forgotten_entry_stays_out_even_when_built_before_it_was_forgotten() {
        let cache = PrincipalCache::new(&ring::rand::SystemRandom::new()).expect("key");
        let at = Revisions::default();
        let token = cache.bearer_key(&acs_oauth2::PlainSecret::new("old".into()).digest());
        let other = cache.bearer_key(&acs_oauth2::PlainSecret::new("other".into()).digest());
        cache.insert(token, Kind::Bearer, &at, cache.since(), principal(1), None);
        cache.insert(other, Kind::Bearer, &at, cache.since(), principal(2), None);
        // A request starts its lookup of the token, the token is deleted and forgotten, and the
        // request then stores what it read before the deletion.
        let before = cache.since();
        cache.forget(&token);
        assert!(cache.get(&token, Kind::Bearer, &at).is_none());
        cache.insert(token, Kind::Bearer, &at, before, principal(1), None);
        assert!(
            cache.get(&token, Kind::Bearer, &at).is_none(),
            "read before the forget"
        );
        // Other entries stay, and lookups that start afterwards are stored again.
        assert!(cache.get(&other, Kind::Bearer, &at).is_some());
        cache.insert(token, Kind::Bearer, &at, cache.since(), principal(1), None);
        assert!(cache.get(&token, Kind::Bearer, &at).is_some());
    }

    #[test]
    fn a_full_cache_lets_its_least_recently_used_entry_go() {
        let cache = PrincipalCache::new(&ring::rand::SystemRandom::new()).expect("key");
        let at = Revisions::default();
        let key =
            |n: usize| cache.bearer_key(&acs_oauth2::PlainSecret::new(n.to_string()).digest());
        let hot = key(0);
        cache.insert(hot, Kind::Bearer, &at, cache.since(), principal(0), None);
        for n in 1..CAPACITY.get() + 500 {
            // The hot entry is used between the cold ones coming in.
            assert!(cache.get(&hot, Kind::Bearer, &at).is_some(), "lost at {n}");
            cache.insert(key(n), Kind::Bearer, &at, cache.since(), principal(1), None);
        }
        assert!(cache.get(&hot, Kind::Bearer, &at).is_some());
        assert!(
            cache.get(&key(1), Kind::Bearer, &at).is_none(),
            "the oldest cold entry went"
        );
        assert!(cache.get(&key(CAPACITY.get()), Kind::Bearer, &at).is_some());
        assert_eq!(cache.lock().map.len(), CAPACITY.get());
    }

    #[test]
    fn keys_separate_credentials_and_addresses() {
        let cache = PrincipalCache::new(&ring::rand::SystemRandom::new()).expect("key");
        let ip: IpAddr = "10.0.0.1".parse().expect("ip");
        let base = cache.basic_key("alice", "pw", Some(ip));
        assert_ne!(base, cache.basic_key("alice", "pw2", Some(ip)));
        assert_ne!(base, cache.basic_key("alic", "epw", Some(ip)));
        assert_ne!(base, cache.basic_key("alice", "pw", None));
        assert_eq!(base, cache.basic_key("alice", "pw", Some(ip)));
    }
}

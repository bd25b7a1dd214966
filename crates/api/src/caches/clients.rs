//! OAuth 2 applications by client id, for client authentication at the token, revocation and
//! introspection endpoints: a request whose application is cached reads no row for it.
//!
//! An entry records the `applications` change counter (`acs_storage::revisions`) read before
//! its row was: triggers bump it with every change to or deletion of an application, from any
//! process, so an entry is used only while the database still holds the row it copied (a
//! deleted application, a new client type or grant type takes effect as the principal cache's
//! changes do: at once on the server that made it, within the change feed's bound elsewhere).
//! The client secret is not in it: the row keeps only the secret's digest, which the request
//! checks the presented secret against each time.

use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use acs_storage::applications::Application;
use acs_storage::revisions::Revisions;
use lru::LruCache;

/// Entries kept (bounded memory); past it, the least recently used goes.
const CAPACITY: NonZeroUsize = NonZeroUsize::new(1_000).expect("not zero");

/// The application cache of one server process.
pub struct ClientCache {
    entries: Mutex<LruCache<String, (i64, Arc<Application>)>>,
}

impl Default for ClientCache {
    fn default() -> Self {
        ClientCache {
            entries: Mutex::new(LruCache::new(CAPACITY)),
        }
    }
}

impl std::fmt::Debug for ClientCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ClientCache")
    }
}

impl ClientCache {
    /// The application of `client_id`, if cached under the same `applications` counter.
    pub fn get(&self, client_id: &str, revisions: &Revisions) -> Option<Arc<Application>> {
        let mut entries = self.lock();
        let (counter, application) = entries.get(client_id)?;
        (*counter == revisions.applications).then(|| Arc::clone(application))
    }

    /// Stores `application`, read after `revisions`.
    pub fn insert(&self, revisions: &Revisions, application: Arc<Application>) {
        self.lock().put(
            application.client_id.clone(),
            (revisions.applications, application),
        );
    }

    fn lock(&self) -> MutexGuard<'_, LruCache<String, (i64, Arc<Application>)>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn application(client_id: &str) -> Application {
        Application {
            id: 1,
            name: "cli".into(),
            description: String::new(),
            client_id: client_id.to_owned(),
            client_secret_digest: vec![0; 32],
            client_type: "confidential".into(),
            redirect_uris: String::new(),
            authorization_grant_type: "password".into(),
            skip_authorization: false,
            organization_id: 1,
            user_id: None,
            created: acs_storage::Timestamp::default(),
            modified: acs_storage::Timestamp::default(),
        }
    }

    #[test]
    fn entries_live_only_while_the_applications_counter_holds() {
        let cache = ClientCache::default();
        let at = Revisions {
            applications: 3,
            ..Revisions::default()
        };
        cache.insert(&at, Arc::new(application("cli")));
        assert_eq!(
            cache.get("cli", &at).map(|found| found.client_id.clone()),
            Some("cli".to_owned())
        );
        assert!(cache.get("other", &at).is_none());
        // Other counters do not concern applications.
        let elsewhere = Revisions {
            users: 9,
            tokens: 9,
            ..at
        };
        assert!(cache.get("cli", &elsewhere).is_some());
        // A change to any application does.
        let changed = Revisions {
            applications: 4,
            ..at
        };
        assert!(cache.get("cli", &changed).is_none());
    }
}

//! Who made a request and how they authenticated: what authentication produces, the
//! principal cache keeps, and authorization reads. A leaf: it imports nothing of the crate.

use acs_authz::Actor;
use acs_storage::users::User;

/// How a request was authenticated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Method {
    /// A session cookie; carries the session row id.
    Session {
        /// Session primary key.
        id: i64,
    },
    /// HTTP Basic.
    Basic,
    /// An OAuth 2 bearer token.
    Bearer {
        /// The access token's primary key.
        token_id: i64,
        /// Its scope: without `write` the principal may only read.
        scope: acs_oauth2::Scope,
    },
}

/// The authenticated user of a request.
#[derive(Debug, Clone)]
pub struct Principal {
    /// The user row.
    pub user: User,
    /// The user's roles, for `authz`.
    pub actor: Actor,
    /// How they authenticated.
    pub method: Method,
}

impl Principal {
    /// The principal as it is once granted `role` (by the request it is making, before its
    /// cached form learns of it).
    pub fn with_grant(&self, role: acs_authz::roles::Role) -> Principal {
        let mut granted = self.clone();
        granted.actor.grants = std::mem::take(&mut granted.actor.grants).with(role);
        granted
    }

    /// Authenticated by a session cookie (so CSRF applies).
    pub fn is_session(&self) -> bool {
        matches!(self.method, Method::Session { .. })
    }

    /// The session id, when session-authenticated.
    pub fn session_id(&self) -> Option<i64> {
        match self.method {
            Method::Session { id } => Some(id),
            Method::Basic | Method::Bearer { .. } => None,
        }
    }
}

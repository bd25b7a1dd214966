//! The three grants of the OAuth 2 token endpoint (RFC 6749 §4.1, §4.3, §6): each checks what
//! the grant presents, decides with `acs_oauth2`, and issues the application's token pair
//! through [`crate::tokens`] in one write, so lifetimes, the external-user rule and the
//! activity record are those of every other token, and a refused issue (an external user,
//! say) leaves the code or refresh token it would have consumed untouched.
//!
//! The HTTP side authenticates the client, parses the form, checks a password grant's
//! credentials (with the login throttle) and renders what comes back.

mod code;
mod refresh;

pub use code::{authorization_code, issue_code};
pub use refresh::refresh_token;

use acs_oauth2::{DEFAULT_GRANT_SCOPE, OAuthError, Scope, granted_scope_words};
use acs_storage::applications::Application;
use acs_storage::local_changes::keeping_counters;
use acs_storage::users::User;
use acs_storage::{DbConnection, Pool, StorageError, Timestamp};
use ring::rand::SecureRandom;

use crate::settings::Settings;
use crate::tokens::{IssueRequest, Issued, issue};
use crate::{AppError, AppResult};

/// Why a grant issued nothing.
#[derive(Debug, thiserror::Error)]
pub enum GrantError {
    /// The protocol refuses it (an unknown code, a used refresh token): the client is told so.
    #[error(transparent)]
    Refused(#[from] OAuthError),
    /// The server could not serve it, or a rule of issuing refused it.
    #[error(transparent)]
    App(#[from] AppError),
}

impl From<StorageError> for GrantError {
    fn from(error: StorageError) -> Self {
        GrantError::App(error.into())
    }
}

impl From<diesel::result::Error> for GrantError {
    fn from(error: diesel::result::Error) -> Self {
        GrantError::App(error.into())
    }
}

/// What every grant issues with: the database, the client's application, and the settings,
/// time and random source of the request.
#[derive(Clone, Copy)]
pub struct Grantor<'a> {
    /// The pool the request's connection came from (on SQLite, writes run on its writer).
    pub pool: &'a Pool,
    /// The source of the new token values.
    pub rng: &'a dyn SecureRandom,
    /// The settings in force (lifetimes, the external-user rule).
    pub settings: &'a Settings,
    /// The time the request is evaluated at.
    pub now: Timestamp,
    /// The authenticated client.
    pub application: &'a Application,
}

impl std::fmt::Debug for Grantor<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Grantor")
            .field("application", &self.application.id)
            .field("now", &self.now)
            .finish_non_exhaustive()
    }
}

impl<'a> Grantor<'a> {
    /// A new access and refresh token for `owner`, acting for themself, recording `scope` (its
    /// words) and `description`, inside the caller's transaction.
    fn pair(
        &self,
        conn: &mut DbConnection,
        owner: &User,
        scope: &str,
        description: &str,
        chain: Option<i64>,
    ) -> AppResult<Issued> {
        issue(
            conn,
            self.rng,
            self.settings,
            self.now,
            self.request(owner, scope, description, chain),
        )
    }

    /// What [`Grantor::pair`] issues.
    fn request<'r>(
        &'r self,
        owner: &'r User,
        scope: &'r str,
        description: &'r str,
        chain: Option<i64>,
    ) -> IssueRequest<'r> {
        IssueRequest {
            actor: Some(owner),
            owner,
            application: Some(self.application),
            scope,
            description,
            chain,
        }
    }
}

/// `grant_type=password`, once the resource owner's username and password have been checked
/// (and throttled) as the login form checks them: the pair for `owner`, recording the words
/// of `scope` (the default grant scope when none was asked; `asked` is the request's `scope`
/// as sent).
pub fn password(
    grantor: &Grantor<'_>,
    conn: &mut DbConnection,
    owner: &User,
    scope: Option<Scope>,
    asked: Option<&str>,
) -> AppResult<Issued> {
    let words = granted_scope_words(scope.unwrap_or(DEFAULT_GRANT_SCOPE), asked);
    // Issuing writes with one statement (`acs_storage::issued_tokens`), and only rows no change
    // counter counts: the change feed's reading stays trusted.
    keeping_counters(&[], || {
        grantor
            .pool
            .single_statement_write(conn, |conn| grantor.pair(conn, owner, &words, "", None))
    })
}

/// The active user with this id, if any (codes and refresh tokens outlive deactivation).
fn active_user(conn: &mut DbConnection, id: i64) -> AppResult<Option<User>> {
    match acs_storage::users::find(conn, id) {
        Ok(user) => Ok(user.is_active.then_some(user)),
        Err(StorageError::NotFound) => Ok(None),
        Err(error) => Err(error.into()),
    }
}

//! Password checks shared by the login form, HTTP Basic and the password grant: throttled,
//! constant-time, cached only against the stored hash; local users first, then the directory
//! (a failure counts once, whichever was tried).

use std::sync::OnceLock;

use acs_storage::users::User;

use super::directory_login::{self, Answer};
use super::throttle;
use crate::error::ApiResult;
use crate::http::request::RequestInfo;
use crate::store::Store;

/// The outcome of a password check that was not throttled.
#[derive(Debug)]
pub enum Verdict {
    /// The username and password match this active user.
    Valid(User),
    /// They do not; when the directory could not be asked, why (for the login page).
    Invalid {
        /// The directory's problem, if it was one.
        directory_problem: Option<String>,
    },
}

impl Verdict {
    /// The user, when valid.
    pub fn user(self) -> Option<User> {
        match self {
            Verdict::Valid(user) => Some(user),
            Verdict::Invalid { .. } => None,
        }
    }
}

/// A hash with the configured cost that no password matches, verified for unknown users so
/// that response time does not tell which usernames exist.
fn decoy_hash(store: &Store<'_>) -> &'static str {
    static DECOY: OnceLock<String> = OnceLock::new();
    DECOY.get_or_init(|| {
        acs_oauth2::hash_password(
            "decoy",
            store.state.config.password_iterations,
            &store.state.rng,
        )
        .unwrap_or_default()
    })
}

/// Whether `password` matches `encoded`, hashed on the server's password threads and waited
/// for at most the request's database budget; a refusal counts nothing against the login.
fn hashed(
    store: &Store<'_>,
    password: &str,
    encoded: &str,
) -> ApiResult<Result<bool, acs_oauth2::PasswordError>> {
    let state = store.state;
    let deadline = std::time::Instant::now() + state.config.pool_timeout;
    state
        .password_turns
        .verify(password, encoded, deadline)
        .map_err(|refused| {
            crate::error::ApiError::PasswordChecksBusy(match refused {
                crate::password_gate::NoTurn::QueueFull => "the queue of password checks is full",
                crate::password_gate::NoTurn::TimedOut => {
                    "no password thread answered within the database budget"
                }
            })
        })
}

/// Checks `username` and `password` sent with `request`. Throttled attempts fail with 429
/// before any check; failures are counted.
pub fn check(
    store: &mut Store<'_>,
    request: &RequestInfo,
    username: &str,
    password: &str,
) -> ApiResult<Verdict> {
    let keys = throttle::keys(store, request, username)?;
    let had_failures = throttle::check(store, &keys)?;
    // No username holds a NUL (creation refuses it), and PostgreSQL cannot compare one.
    let user = if username.contains('\0') {
        None
    } else {
        acs_storage::users::find_by_username(store.conn()?, username)?.filter(|user| user.is_active)
    };

    // A directory or single sign-on user's record holds `!`, which never verifies, and a
    // local password such a record holds anyway (set before that was refused) is not looked
    // at: for them only the directory can vouch, below.
    let user_with_local_password = user.as_ref().filter(|user| user.external_account.is_none());
    let verified = match user_with_local_password {
        Some(user)
            if store
                .state
                .passwords
                .contains(user.id, &user.password, password) =>
        {
            true
        }
        Some(user) if acs_oauth2::is_usable(&user.password) => {
            // PBKDF2 takes a while: give the connection back meanwhile.
            store.release();
            let ok = hashed(store, password, &user.password)?.unwrap_or_else(|error| {
                tracing::warn!(user = user.id, %error, "stored password hash cannot be verified");
                false
            });
            if ok {
                store
                    .state
                    .passwords
                    .insert(user.id, &user.password, password);
            }
            ok
        }
        _ => {
            store.release();
            let _ = hashed(store, password, decoy_hash(store))?;
            false
        }
    };

    let answer = match user {
        Some(user) if verified => Answer::Vouched(user),
        _ => directory_login::check(store, username, password)?,
    };
    let directory_problem = match answer {
        Answer::Vouched(user) => {
            if had_failures {
                throttle::record_success(store, &keys)?;
            }
            return Ok(Verdict::Valid(user));
        }
        Answer::Refused => None,
        Answer::Unavailable(problem) => Some(problem),
    };
    tracing::info!(username, "failed password check");
    throttle::record_failure(store, &keys)?;
    Ok(Verdict::Invalid { directory_problem })
}

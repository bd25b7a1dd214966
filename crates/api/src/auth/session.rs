//! Session authentication and login (spec §4.4, contract §3). Only the SHA-256 digest of a
//! session id is stored; the id itself exists in the client's cookie alone.

use acs_oauth2::PlainSecret;
use acs_storage::users::User;
use chrono::Duration;
use serde_json::json;

use super::{Method, Principal, principal_of};
use crate::caches::principals::Kind;
use crate::error::{ApiError, ApiResult};
use crate::http::request::RequestInfo;
use crate::store::Store;

/// A session cookie to send back: the sliding expiry re-arms it on every request.
#[derive(Debug, Clone)]
pub struct SessionCookie {
    /// Cookie name (`SESSION_COOKIE_NAME`).
    pub name: String,
    /// The session id itself (already known to the client).
    pub value: String,
    /// Seconds until it expires.
    pub max_age: i64,
}

/// The expiry is written back only once it has slid this far, so a burst of requests does not
/// become a burst of writes; the cookie's Max-Age is re-armed on every response regardless.
const REARM_AFTER_SECONDS: i64 = 15;

/// Authenticates by the session cookie, re-arming the sliding expiry; returns the principal
/// and the cookie to send back.
pub fn authenticate(
    store: &mut Store<'_>,
    request: &RequestInfo,
) -> ApiResult<Option<(Principal, SessionCookie)>> {
    let settings = store.settings()?;
    let Some(value) = request
        .cookie(settings.session_cookie_name())
        .filter(|v| !v.is_empty())
    else {
        return Ok(None);
    };
    let secret = PlainSecret::new(value.to_owned());
    let now = store.now;
    let revisions = store.revisions()?;
    let key = store.state.principals.session_key(&secret.digest());
    let cached = store.state.principals.get(&key, Kind::Session, &revisions);
    let (principal, session_expires) = match cached {
        Some((principal, Some(expires))) if expires > now => (principal, expires),
        _ => {
            let since = store.state.principals.since();
            let digest = secret.digest();
            let Some((session, user, direct)) =
                acs_storage::sessions::find_active(store.conn()?, digest.as_bytes(), now)?
            else {
                return Ok(None);
            };
            let principal = principal_of(store, user, direct, Method::Session { id: session.id })?;
            let cache = &store.state.principals;
            cache.insert(
                key,
                Kind::Session,
                &revisions,
                since,
                principal.clone(),
                Some(session.expires),
            );
            (principal, session.expires)
        }
    };
    let Some(session_id) = principal.session_id() else {
        return Err(ApiError::Internal(
            "a session entry without a session".into(),
        ));
    };
    let age = settings.session_cookie_age();
    let expires = now + Duration::seconds(age);
    if expires - session_expires >= Duration::seconds(REARM_AFTER_SECONDS.min(age / 10).max(1)) {
        store.write(|conn| Ok(acs_storage::sessions::extend(conn, session_id, expires)?))?;
    }
    let cookie = SessionCookie {
        name: settings.session_cookie_name().to_owned(),
        value: secret.into_inner(),
        max_age: age,
    };
    Ok(Some((principal, cookie)))
}

/// Starts a session for `user`: stores its digest, applies `SESSIONS_PER_USER`, records the
/// login. Returns the cookie to send.
pub fn start(store: &mut Store<'_>, user: &User) -> ApiResult<SessionCookie> {
    let settings = store.settings()?;
    let secret = acs_oauth2::generate_secret(&store.state.rng)
        .map_err(|_| ApiError::Internal("random number generator failed".into()))?;
    let now = store.now;
    let age = settings.session_cookie_age();
    let limit = settings.sessions_per_user();
    let digest = secret.digest();
    store.write(|conn| {
        acs_storage::sessions::insert(
            conn,
            digest.as_bytes(),
            user.id,
            now,
            now + Duration::seconds(age),
        )?;
        if limit >= 0 {
            let evicted = acs_storage::sessions::enforce_limit(conn, user.id, limit, now)?;
            if evicted > 0 {
                tracing::info!(user = user.id, evicted, "session limit reached");
            }
        }
        acs_storage::users::touch_last_login(conn, user.id, now)?;
        let subject = acs_app::activity::Subject::user(user);
        acs_app::activity::record(conn, now, Some(user), "login", &subject, None, json!({}))
            .map_err(Into::into)
    })?;
    Ok(SessionCookie {
        name: settings.session_cookie_name().to_owned(),
        value: secret.into_inner(),
        max_age: age,
    })
}

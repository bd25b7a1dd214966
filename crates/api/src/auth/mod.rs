//! Authentication (contract §3): bearer token, then session cookie, then HTTP Basic. The first
//! that succeeds wins; invalid credentials of one kind fall through to the next.
//!
//! Authentication turns a request's credentials into a [`Principal`], reading through the
//! request's [`Store`]; the request context only keeps what it produced.

pub mod bearer;
pub mod csrf;
pub mod directory;
pub(crate) mod directory_login;
pub mod passwords;
pub mod session;
pub mod throttle;

use acs_authz::Actor;
use acs_storage::direct_grants::DirectGrants;
use acs_storage::users::User;
use base64::Engine;

pub use crate::principal::{Method, Principal};

use crate::caches::principals::Kind;
use crate::error::ApiResult;
use crate::http::request::RequestInfo;
use crate::state::AppState;
use crate::store::Store;
use session::SessionCookie;

/// What authentication found: who made the request and, for a session, the cookie to re-arm.
#[derive(Debug)]
pub struct Authenticated {
    /// Who made the request.
    pub principal: Principal,
    /// Set when a session cookie authenticated it.
    pub session: Option<SessionCookie>,
}

/// Builds the principal of `user` with its organization memberships and granted roles;
/// `direct` is what the credential's lookup read of its grants.
pub fn principal_of(
    store: &mut Store<'_>,
    user: User,
    direct: DirectGrants,
    method: Method,
) -> ApiResult<Principal> {
    let roles = acs_storage::roles::user_roles(store.conn()?, user.id, direct)?;
    let actor = Actor {
        user_id: user.id,
        is_superuser: user.is_superuser,
        is_system_auditor: user.is_system_auditor,
        admin_of: roles.admin_of,
        member_of: roles.member_of,
        read_only: false,
        grants: roles.grants,
    }
    .with_team_roles(&roles.team_grants);
    Ok(Principal {
        user,
        actor,
        method,
    })
}

/// Tries each authentication method in the contract's order on `request`'s credentials.
pub fn authenticate(
    store: &mut Store<'_>,
    request: &RequestInfo,
) -> ApiResult<Option<Authenticated>> {
    let authorization = request.authorization.as_deref();
    if let Some(principal) = bearer::authenticate(store, authorization)? {
        return Ok(Some(Authenticated {
            principal,
            session: None,
        }));
    }
    if let Some((principal, cookie)) = session::authenticate(store, request)? {
        return Ok(Some(Authenticated {
            principal,
            session: Some(cookie),
        }));
    }
    let principal = basic(store, request)?;
    Ok(principal.map(|principal| Authenticated {
        principal,
        session: None,
    }))
}

/// HTTP Basic: served from the principal cache when it holds the credentials, else checked
/// like a login.
fn basic(store: &mut Store<'_>, request: &RequestInfo) -> ApiResult<Option<Principal>> {
    let Some((username, password)) = basic_credentials(request.authorization.as_deref()) else {
        return Ok(None);
    };
    let settings = store.settings()?;
    if !settings.auth_basic_enabled() {
        return Ok(None);
    }
    let revisions = store.revisions()?;
    let client = request.client_ip(settings.trusted_proxies());
    let cache = &store.state.principals;
    let key = cache.basic_key(&username, &password, client);
    if let Some((principal, _)) = cache.get(&key, Kind::Basic, &revisions) {
        return Ok(Some(principal));
    }
    let since = cache.since();
    let passwords::Verdict::Valid(user) = passwords::check(store, request, &username, &password)?
    else {
        return Ok(None);
    };
    // A directory user's password is the directory's to judge, at every request.
    let cacheable = user.external_account.is_none();
    let principal = principal_of(store, user, DirectGrants::Unread, Method::Basic)?;
    if cacheable {
        store
            .state
            .principals
            .insert(key, Kind::Basic, &revisions, since, principal.clone(), None);
    }
    Ok(Some(principal))
}

/// Whether a request with HTTP Basic credentials would be served from the principal cache,
/// judged without the database (the change feed's counters and the settings already loaded):
/// then it costs no password check, and may run on the worker thread like a bearer request.
/// `false` whenever that cannot be known.
pub fn basic_is_cached(state: &AppState, request: &RequestInfo) -> bool {
    let Some(revisions) = state.changes.fresh() else {
        return false;
    };
    let Some(settings) = state.settings.at(revisions.settings) else {
        return false;
    };
    let Some((username, password)) = basic_credentials(request.authorization.as_deref()) else {
        return false;
    };
    if !settings.auth_basic_enabled() {
        return false;
    }
    let client = request.client_ip(settings.trusted_proxies());
    let key = state.principals.basic_key(&username, &password, client);
    state.principals.holds(&key, Kind::Basic, &revisions)
}

/// Decodes `Authorization: Basic base64(user:password)`; anything malformed is `None`.
pub fn basic_credentials(header: Option<&str>) -> Option<(String, String)> {
    let (scheme, encoded) = header?.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let (username, password) = text.split_once(':')?;
    Some((username.to_owned(), password.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::basic_credentials;

    #[test]
    fn basic_headers_parse_or_are_ignored() {
        let header = |s: &str| {
            format!(
                "Basic {}",
                base64::Engine::encode(&base64::engine::general_purpose::STANDARD, s)
            )
        };
        assert_eq!(
            basic_credentials(Some(&header("a:b:c"))),
            Some(("a".into(), "b:c".into()))
        );
        assert_eq!(
            basic_credentials(Some(&header("a:"))),
            Some(("a".into(), String::new()))
        );
        assert_eq!(
            basic_credentials(Some("basic YTpi")),
            Some(("a".into(), "b".into()))
        );
        for bad in [
            "Basic",
            "Basic !!!",
            "Bearer YTpi",
            "",
            "Basic bm9jb2xvbg==",
        ] {
            assert_eq!(basic_credentials(Some(bad)), None, "{bad}");
        }
        assert_eq!(basic_credentials(None), None);
    }
}

//! OAuth 2 bearer authentication (contract §3). Only the SHA-256 digest of a token is stored;
//! a presented token is digested and looked up with its user in one indexed query. Unknown,
//! expired or revoked tokens fall through to the other methods.

use acs_oauth2::Scope;

use super::{Method, Principal, principal_of};
use crate::caches::principals::Kind;
use crate::error::ApiResult;
use crate::store::Store;

/// Authenticates by an `Authorization: Bearer <token>` header.
pub fn authenticate(
    store: &mut Store<'_>,
    authorization: Option<&str>,
) -> ApiResult<Option<Principal>> {
    let Some(secret) = authorization.and_then(acs_oauth2::parse_bearer) else {
        return Ok(None);
    };
    let now = store.now;
    let digest = secret.digest();
    let revisions = store.revisions()?;
    let key = store.state.principals.bearer_key(&digest);
    if let Some((principal, Some(expires))) =
        store.state.principals.get(&key, Kind::Bearer, &revisions)
        && expires > now
    {
        return Ok(Some(principal));
    }
    let since = store.state.principals.since();
    let Some((token, user, direct)) =
        acs_storage::tokens::find_active(store.conn()?, digest.as_bytes(), now)?
    else {
        return Ok(None);
    };
    let scope = Scope::from_stored(&token.scope);
    let mut principal = principal_of(
        store,
        user,
        direct,
        Method::Bearer {
            token_id: token.id,
            scope,
        },
    )?;
    principal.actor.read_only = !scope.allows_write();
    store.state.principals.insert(
        key,
        Kind::Bearer,
        &revisions,
        since,
        principal.clone(),
        Some(token.expires),
    );
    Ok(Some(principal))
}

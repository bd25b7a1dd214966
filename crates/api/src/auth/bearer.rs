//! OAuth 2 bearer authentication (contract §3). Only the SHA-256 digest of a token is stored;
//! a presented token is digested and looked up with its user in one indexed query. Unknown,
//! expired or revoked tokens fall through to the other methods.

use acs_oauth2::Scope;

use super::principal_cache::Kind;
use super::{Method, Principal, principal_of};
use crate::context::Context;
use crate::error::ApiResult;

/// Authenticates by `Authorization: Bearer <token>`.
pub fn authenticate(ctx: &mut Context<'_>) -> ApiResult<Option<Principal>> {
    let Some(secret) = ctx
        .request
        .authorization
        .as_deref()
        .and_then(acs_oauth2::parse_bearer)
    else {
        return Ok(None);
    };
    let now = ctx.now;
    let digest = secret.digest();
    let revisions = ctx.revisions()?;
    let key = ctx.state.principals.bearer_key(&digest);
    if let Some((principal, Some(expires))) =
        ctx.state.principals.get(&key, Kind::Bearer, &revisions)
        && expires > now
    {
        return Ok(Some(principal));
    }
    let Some((token, user)) =
        acs_storage::tokens::find_active(ctx.conn()?, digest.as_bytes(), now)?
    else {
        return Ok(None);
    };
    let scope = Scope::from_stored(&token.scope);
    let mut principal = principal_of(
        ctx,
        user,
        Method::Bearer {
            token_id: token.id,
            scope,
        },
    )?;
    principal.actor.read_only = !scope.allows_write();
    ctx.state.principals.insert(
        key,
        Kind::Bearer,
        &revisions,
        principal.clone(),
        Some(token.expires),
    );
    Ok(Some(principal))
}

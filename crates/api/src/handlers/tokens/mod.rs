//! `/api/v2/tokens/`, `<id>/`, and the token lists under users and applications.

mod create;
mod delete;
mod detail;
mod input;
mod issue;
mod list;
mod options;
mod render;
mod update;

pub use create::create_personal;
pub use issue::{IssueRequest, Issued, issue};
pub use list::{ApplicationTokens, AuthorizedTokens, PersonalTokens, UserTokens};
pub use options::META;
pub use render::{TokenRecord, render_token};

use acs_authz::TargetToken;
use acs_storage::tokens::AccessToken;

use crate::auth::Principal;
use crate::context::Context;
use crate::error::{ApiError, ApiResult};

/// The resource: its handlers are generic ([`crate::handlers::detail`],
/// [`crate::handlers::change`]).
#[derive(Debug)]
pub struct Tokens;

/// The facts `authz` needs about a token: its owner with their organization roles.
pub fn target_of(ctx: &mut Context<'_>, token: &AccessToken) -> ApiResult<TargetToken> {
    let owner = acs_storage::users::find(ctx.conn()?, token.user_id)?;
    let memberships = acs_storage::users::memberships_of(ctx.conn()?, owner.id)?;
    Ok(TargetToken {
        id: token.id,
        owner: crate::handlers::users::target_of(&owner, &memberships),
        application: token.application_id,
    })
}

/// The token `id`, if the caller may see it: 404 if missing, 403 if invisible.
pub fn visible(
    ctx: &mut Context<'_>,
    principal: &Principal,
    id: i64,
) -> ApiResult<(AccessToken, TargetToken)> {
    let token = acs_storage::tokens::find(ctx.conn()?, id).map_err(|error| match error {
        acs_storage::StorageError::NotFound => ApiError::no_such("OAuth2AccessToken"),
        other => other.into(),
    })?;
    let target = target_of(ctx, &token)?;
    if !acs_authz::can_view_token(&principal.actor, &target) {
        return Err(ApiError::permission_denied());
    }
    Ok((token, target))
}

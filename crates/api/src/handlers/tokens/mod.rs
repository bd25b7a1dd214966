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
use crate::error::ApiResult;

/// The resource: its handlers are generic ([`crate::handlers::detail`],
/// [`crate::handlers::change`]).
#[derive(Debug)]
pub struct Tokens;

/// The token `id`, if the caller may see it: 404 if missing, 403 if invisible.
pub fn visible(
    ctx: &mut Context<'_>,
    principal: &Principal,
    id: i64,
) -> ApiResult<(AccessToken, TargetToken)> {
    Ok(acs_app::tokens::visible(ctx.conn()?, &principal.actor, id)?)
}

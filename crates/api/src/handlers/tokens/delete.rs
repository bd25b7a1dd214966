//! `DELETE /api/v2/tokens/<id>/`: revocation (see `acs_app::tokens::revoke`).

use super::Tokens;
use super::render::render_one;
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::detail::Delete;
use acs_app::activity::Subject;

/// Revokes a token (the profile page too).
impl Delete for Tokens {
    fn remove(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<Subject> {
        let writer = ctx.writer(principal);
        acs_app::tokens::revoke(&writer, ctx.conn()?, id, |conn, token| {
            render_one(conn, token.clone(), None)
        })
    }
}

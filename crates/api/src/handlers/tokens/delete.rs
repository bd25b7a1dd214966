//! `DELETE /api/v2/tokens/<id>/`: revocation. The token and its refresh token stop working at
//! once, on every server (bearer principals are cached only under the tokens counter).

use super::render::render_one;
use super::{Tokens, visible};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::detail::Delete;
use acs_app::activity::{self, Subject};

/// Revokes a token (the profile page too).
impl Delete for Tokens {
    fn remove(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<Subject> {
        let (token, target) = visible(ctx, principal, id)?;
        acs_authz::can_delete_token(&principal.actor, &target)?;
        let subject = Subject::named(acs_storage::activity::TOKEN, id, &token.description);
        let record = render_one(ctx.conn()?, token, None)?;
        let now = ctx.now;
        ctx.write(|conn| {
            acs_storage::tokens::revoke(conn, id, now)?;
            activity::record_deletion(conn, now, &principal.user, &subject, &record)
                .map_err(Into::into)
        })?;
        Ok(subject)
    }
}

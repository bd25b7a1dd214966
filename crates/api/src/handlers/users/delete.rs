//! `DELETE /api/v2/users/<id or username>/` (see [`crate::handlers::detail`]).

use super::{Users, visible};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::detail::Delete;
use acs_app::activity::Subject;

impl Delete for Users {
    /// Deletes a user with their sessions and memberships.
    fn remove(ctx: &mut Context<'_>, principal: &Principal, segment: String) -> ApiResult<Subject> {
        let (user, memberships, target) = visible(ctx, principal, &segment)?;
        let shown = super::render_user(principal, &user, &memberships);
        let writer = ctx.writer(principal);
        Ok(acs_app::users::delete(
            &writer,
            ctx.conn()?,
            (&user, &target),
            &shown,
        )?)
    }
}

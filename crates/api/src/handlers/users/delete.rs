//! `DELETE /api/v2/users/<id or username>/` (see [`crate::handlers::detail`]).

use super::{Users, visible};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::detail::Delete;
use acs_app::activity::Subject;
use acs_app::token_holders;
use acs_storage::tokens::TokenHolder;

impl Delete for Users {
    /// Deletes a user with their sessions and memberships.
    fn remove(ctx: &mut Context<'_>, principal: &Principal, segment: String) -> ApiResult<Subject> {
        let (user, memberships, target) = visible(ctx, principal, &segment)?;
        acs_authz::can_delete_user(&principal.actor, &target)?;
        let record = super::render_user(principal, &user, &memberships);
        let subject = Subject::user(&user);
        let now = ctx.now;
        ctx.write(|conn| {
            let holder = TokenHolder::User(user.id);
            token_holders::delete(conn, now, &principal.user, holder, &subject, &record)
                .map_err(Into::into)
        })?;
        Ok(subject)
    }
}

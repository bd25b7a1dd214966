//! `DELETE /api/v2/applications/<id>/` (see [`crate::handlers::detail`]).

use super::render::render_one;
use super::{Applications, visible};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::detail::Delete;
use acs_app::activity::Subject;
use acs_app::token_holders;
use acs_storage::tokens::TokenHolder;

/// Deletes an application and every token issued to it (the applications page too).
impl Delete for Applications {
    fn remove(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<Subject> {
        let app = visible(ctx, principal, id)?;
        acs_authz::can_delete_application(&principal.actor, &super::target_of(&app))?;
        let record = render_one(ctx.conn()?, principal, &app, None)?;
        let subject = Subject::named(acs_storage::activity::APPLICATION, id, &app.name);
        let now = ctx.now;
        ctx.write(|conn| {
            let holder = TokenHolder::Application(id);
            token_holders::delete(conn, now, &principal.user, holder, &subject, &record)
                .map_err(Into::into)
        })?;
        Ok(subject)
    }
}

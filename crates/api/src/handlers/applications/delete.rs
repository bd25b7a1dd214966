//! `DELETE /api/v2/applications/<id>/` (see [`crate::handlers::detail`]).

use super::Applications;
use super::render::render_one;
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::detail::Delete;
use acs_app::activity::Subject;

/// Deletes an application and every token issued to it (the applications page too).
impl Delete for Applications {
    fn remove(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<Subject> {
        let writer = ctx.writer(principal);
        let masked = |conn: &mut _, app: &_| render_one(conn, principal, app, None);
        acs_app::applications::delete(&writer, ctx.conn()?, id, masked)
    }
}

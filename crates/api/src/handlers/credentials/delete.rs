//! `DELETE /api/v2/credentials/<id>/` (see [`crate::handlers::detail`]).

use super::{Credentials, shown_to};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::detail::Delete;
use acs_app::activity::Subject;

impl Delete for Credentials {
    /// Deletes a credential; it leaves every content-source list it was in.
    fn remove(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<Subject> {
        let writer = ctx.writer(principal);
        acs_app::credentials::delete(&writer, ctx.conn()?, id, shown_to(principal))
    }
}

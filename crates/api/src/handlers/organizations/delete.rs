//! `DELETE /api/v2/organizations/<id>/` (see [`crate::handlers::detail`]).

use super::render::{render_organization, roles_of};
use super::{Organizations, visible};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::detail::Delete;
use acs_app::activity::Subject;

impl Delete for Organizations {
    /// Deletes an organization and its roles (superusers only).
    fn remove(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<Subject> {
        let org = visible(ctx, principal, id)?;
        acs_authz::can_delete_organization(&principal.actor, id)?;
        let object_roles = roles_of(ctx.conn()?, id)?;
        let record = render_organization(principal, &org, Default::default(), object_roles);
        let writer = ctx.writer(principal);
        Ok(acs_app::organizations::delete(
            &writer,
            ctx.conn()?,
            &org,
            &record,
        )?)
    }
}

//! `PUT` and `PATCH /api/v2/organizations/<id>/`.

use super::input;
use super::render::{render_organization, roles_of};
use super::{Organizations, visible};
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::change::{Change, Edit};
use acs_storage::organizations::RoleCounts;
use serde_json::Value;

impl Change for Organizations {
    fn change(ctx: &mut Context<'_>, edit: Edit<'_, i64>) -> ApiResult<Value> {
        let (principal, id, body, full) = (edit.principal, edit.key, edit.body, edit.full);
        let before = visible(ctx, principal, id)?;
        // Refused before the body is read, as in the reference.
        acs_authz::can_change_organization(&principal.actor, id)?;
        let values = input::read(body, full)?;
        let object_roles = roles_of(ctx.conn()?, id)?;
        let shown = |org: &_| {
            render_organization(principal, org, RoleCounts::default(), object_roles.clone())
        };
        let writer = ctx.writer(principal);
        let org = acs_app::organizations::change(&writer, ctx.conn()?, &before, &values, shown)?;
        let counts = acs_storage::organizations::role_counts(ctx.conn()?, &[id])?;
        Ok(render_organization(
            principal,
            &org,
            counts.get(&id).copied().unwrap_or_default(),
            object_roles,
        ))
    }
}

//! `PUT` and `PATCH /api/v2/organizations/<id>/`.

use acs_storage::StorageError;
use acs_storage::organizations::RoleCounts;

use super::input;
use super::render::{render_organization, roles_of};
use super::{NAME_TAKEN, Organizations, visible};
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::handlers::change::{Change, Edit};
use acs_app::activity::{self, Subject};
use serde_json::Value;

impl Change for Organizations {
    fn change(ctx: &mut Context<'_>, edit: Edit<'_, i64>) -> ApiResult<Value> {
        let (principal, id, body, full) = (edit.principal, edit.key, edit.body, edit.full);
        let before = visible(ctx, principal, id)?;
        acs_authz::can_change_organization(&principal.actor, id)?;
        let values = input::read(body, full)?;
        let now = ctx.now;
        let org = ctx.write(|conn| {
            let org =
                acs_storage::organizations::update(conn, id, &values, now).map_err(|error| {
                    match error {
                        StorageError::Conflict(_) => ApiError::field("name", NAME_TAKEN),
                        other => other.into(),
                    }
                })?;
            let counts = RoleCounts::default();
            let subject = Subject::named(acs_storage::activity::ORGANIZATION, id, &org.name);
            let object_roles = roles_of(conn, id)?;
            activity::record_update(
                conn,
                now,
                &principal.user,
                &subject,
                &render_organization(principal, &before, counts, object_roles.clone()),
                &render_organization(principal, &org, counts, object_roles),
            )?;
            Ok(org)
        })?;
        let counts = acs_storage::organizations::role_counts(ctx.conn()?, &[id])?;
        let object_roles = roles_of(ctx.conn()?, id)?;
        Ok(render_organization(
            principal,
            &org,
            counts.get(&id).copied().unwrap_or_default(),
            object_roles,
        ))
    }
}

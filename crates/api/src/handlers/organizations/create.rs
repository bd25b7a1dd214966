//! `POST /api/v2/organizations/`.

use acs_storage::StorageError;

use super::input;
use super::render::{render_organization, roles_of};
use super::{NAME_TAKEN, Organizations};
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::handlers::create::{Create, Submission};
use acs_app::activity::{self, Subject};
use serde_json::Value;

impl Create for Organizations {
    type Created = Value;

    /// Creates an organization (superusers only).
    fn create(ctx: &mut Context<'_>, new: Submission<'_, Self::Scope>) -> ApiResult<Self::Created> {
        let (principal, body) = (new.principal, new.body);
        acs_authz::can_create_organization(&principal.actor)?;
        let values = input::read(&body.0, true)?;
        let now = ctx.now;
        let org = ctx.write(|conn| {
            let org = acs_storage::organizations::insert(conn, &values, now);
            let org = org.map_err(|error| match error {
                StorageError::Conflict(_) => ApiError::field("name", NAME_TAKEN),
                other => other.into(),
            })?;
            let subject = Subject::named(acs_storage::activity::ORGANIZATION, org.id, &org.name);
            let record =
                render_organization(principal, &org, Default::default(), roles_of(conn, org.id)?);
            activity::record_creation(conn, now, &principal.user, &subject, &record)?;
            Ok(org)
        })?;
        tracing::info!(
            actor = principal.user.id,
            organization = org.id,
            "organization created"
        );
        let object_roles = roles_of(ctx.conn()?, org.id)?;
        Ok(render_organization(
            principal,
            &org,
            Default::default(),
            object_roles,
        ))
    }

    /// None, as in the reference.
    fn location(_: &Value) -> Option<String> {
        None
    }
}

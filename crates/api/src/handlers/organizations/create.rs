//! `POST /api/v2/organizations/`.

use super::Organizations;
use super::input;
use super::render::{render_organization, roles_of, shown};
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::create::{Create, Submission};
use serde_json::Value;

impl Create for Organizations {
    type Created = Value;

    /// Creates an organization (superusers only).
    fn create(ctx: &mut Context<'_>, new: Submission<'_, Self::Scope>) -> ApiResult<Self::Created> {
        let (principal, body) = (new.principal, new.body);
        acs_authz::can_create_organization(&principal.actor)?;
        let values = input::read(&body.0, true)?;
        let writer = ctx.writer(principal);
        let org = acs_app::organizations::create(&writer, ctx.conn()?, &values, shown(principal))?;
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

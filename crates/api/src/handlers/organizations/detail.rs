//! `GET` and `OPTIONS /api/v2/organizations/<id>/`, `OPTIONS` of the collection (see
//! [`crate::handlers::detail`]).

use serde_json::Value;

use super::render::{render_organization, roles_of};
use super::{Organizations, visible};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::detail::{Detail, Options};
use crate::handlers::listing::Parent;
use crate::http::options::ResourceMeta;

impl Detail for Organizations {
    type Key = i64;
    type Shown = Value;

    /// One organization.
    fn get(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<Value> {
        let org = visible(ctx, principal, id)?;
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

impl Options for Organizations {
    const ROLE_KIND: Option<acs_authz::roles::ResourceKind> =
        Some(acs_authz::roles::ResourceKind::Organization);
    const META: ResourceMeta = super::META;

    fn can_create(principal: &Principal) -> bool {
        acs_authz::can_create_organization(&principal.actor).is_ok()
    }

    fn can_change(_: &mut Context<'_>, principal: &Principal, key: i64) -> ApiResult<bool> {
        Ok(acs_authz::organization_capabilities(&principal.actor, key).edit)
    }
}

impl Parent for Organizations {
    const KIND: &'static str = acs_storage::activity::ORGANIZATION;

    fn visible_id(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<i64> {
        visible(ctx, principal, id).map(|_| id)
    }
}

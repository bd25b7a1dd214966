//! `GET` and `OPTIONS /api/v2/applications/<id>/` (see [`crate::handlers::detail`]).

use super::render::{ApplicationRecord, render_one};
use super::{Applications, visible};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::detail::{Detail, Options};
use crate::handlers::listing::Parent;
use crate::http::options::ResourceMeta;

impl Detail for Applications {
    type Key = i64;
    type Shown = ApplicationRecord;

    /// One application (its secret masked).
    fn get(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<ApplicationRecord> {
        let app = visible(ctx, principal, id)?;
        render_one(ctx.conn()?, principal, &app, None)
    }
}

impl Options for Applications {
    const META: ResourceMeta = super::META;

    /// Superusers and organization admins.
    fn can_create(principal: &Principal) -> bool {
        let actor = &principal.actor;
        !actor.read_only && (actor.is_superuser || actor.is_org_admin_anywhere())
    }

    fn can_change(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<bool> {
        Ok(match acs_storage::applications::find(ctx.conn()?, id) {
            Ok(app) => {
                acs_authz::application_capabilities(
                    &principal.actor,
                    &acs_app::applications::target_of(&app),
                )
                .edit
            }
            Err(_) => principal.actor.is_superuser && !principal.actor.read_only,
        })
    }
}

impl Parent for Applications {
    const KIND: &'static str = acs_storage::activity::APPLICATION;

    fn visible_id(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<i64> {
        visible(ctx, principal, id).map(|_| id)
    }
}

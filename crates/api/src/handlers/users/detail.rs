//! `GET` and `OPTIONS /api/v2/users/<id or username>/`, `OPTIONS` of the collection (see
//! [`crate::handlers::detail`]).

use super::{UserRecord, Users, render_user, visible};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::detail::{Detail, Options};
use crate::handlers::listing::Parent;
use crate::http::options::ResourceMeta;

impl Detail for Users {
    type Key = String;
    type Shown = UserRecord;

    /// One user; 403 if it exists but the caller may not see it.
    fn get(ctx: &mut Context<'_>, principal: &Principal, segment: String) -> ApiResult<UserRecord> {
        let (user, memberships, _) = visible(ctx, principal, &segment)?;
        Ok(render_user(principal, &user, &memberships))
    }
}

impl Options for Users {
    const META: ResourceMeta = super::META;

    fn can_create(principal: &Principal) -> bool {
        acs_authz::can_create_user(&principal.actor, Default::default()).is_ok()
    }

    fn can_change(ctx: &mut Context<'_>, principal: &Principal, key: String) -> ApiResult<bool> {
        let caps = match super::resolve(ctx, &key) {
            Ok(user) => {
                let memberships = acs_storage::users::memberships_of(ctx.conn()?, user.id)?;
                acs_authz::user_capabilities(
                    &principal.actor,
                    &super::target_of(&user, &memberships),
                )
            }
            Err(_) => acs_authz::Capabilities {
                edit: principal.actor.is_superuser,
                delete: principal.actor.is_superuser,
            },
        };
        Ok(caps.edit)
    }
}

impl Parent for Users {
    const KIND: &'static str = acs_storage::activity::USER;

    fn visible_id(ctx: &mut Context<'_>, principal: &Principal, segment: String) -> ApiResult<i64> {
        visible(ctx, principal, &segment).map(|(user, _, _)| user.id)
    }
}

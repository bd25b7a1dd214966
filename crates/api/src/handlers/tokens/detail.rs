//! `GET` and `OPTIONS /api/v2/tokens/<id>/`, `OPTIONS` of the token lists (see
//! [`crate::handlers::detail`]).

use super::render::{TokenRecord, render_one};
use super::{Tokens, visible};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::detail::{Detail, Options};
use crate::handlers::listing::Parent;
use crate::http::options::ResourceMeta;

impl Detail for Tokens {
    type Key = i64;
    type Shown = TokenRecord;

    /// One token (values masked).
    fn get(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<TokenRecord> {
        let (token, _) = visible(ctx, principal, id)?;
        render_one(ctx.conn()?, token, None)
    }
}

impl Options for Tokens {
    const META: ResourceMeta = super::META;

    fn can_create(principal: &Principal) -> bool {
        acs_authz::can_create_token(&principal.actor, None).is_ok()
    }

    fn can_change(ctx: &mut Context<'_>, principal: &Principal, key: i64) -> ApiResult<bool> {
        Ok(match acs_storage::tokens::find(ctx.conn()?, key) {
            Ok(token) => {
                let target = acs_app::tokens::target_of(ctx.conn()?, &token)?;
                acs_authz::token_capabilities(&principal.actor, &target).edit
            }
            Err(_) => principal.actor.is_superuser && !principal.actor.read_only,
        })
    }
}

impl Parent for Tokens {
    const KIND: &'static str = acs_storage::activity::TOKEN;

    fn visible_id(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<i64> {
        visible(ctx, principal, id).map(|_| id)
    }
}

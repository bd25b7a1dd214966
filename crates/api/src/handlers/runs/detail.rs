//! `GET /api/v2/<runs>/<id>/` (see [`crate::handlers::detail`]).

use serde_json::Value;

use super::{RunType, Runs, render_run, visible};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::detail::Detail;
use crate::http::browsable::Offer;

impl<T: RunType> Detail for Runs<T> {
    type Key = i64;
    type Shown = Value;

    /// One run.
    fn get(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<Value> {
        Ok(Self::get_offering(ctx, principal, id, false)?.1)
    }

    /// One run; its page offers deleting it once it has finished to whom may run it, though
    /// its `user_capabilities` say `delete: false` (as the reference system's do).
    fn get_offering(
        ctx: &mut Context<'_>,
        principal: &Principal,
        id: i64,
        page_wanted: bool,
    ) -> ApiResult<(Offer, Value)> {
        let job = visible::<T>(ctx, principal, id)?;
        let credentials = acs_storage::unified_jobs::credential_ids(ctx.conn()?, id)?;
        let organization = job.organization_id.unwrap_or_default();
        let offer = Offer {
            delete: page_wanted
                && job.is_finished()
                && acs_authz::can_run_automation(&principal.actor, organization).is_ok(),
            ..Offer::default()
        };
        Ok((offer, render_run(principal, &job, &credentials)))
    }
}

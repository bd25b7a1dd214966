//! `GET /api/v2/<runs>/<id>/` (see [`crate::handlers::detail`]).

use serde_json::Value;

use super::{RunType, Runs, render_run, visible};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::detail::Detail;

impl<T: RunType> Detail for Runs<T> {
    type Key = i64;
    type Shown = Value;

    /// One run.
    fn get(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<Value> {
        let job = visible::<T>(ctx, principal, id)?;
        let credentials = acs_storage::unified_jobs::credential_ids(ctx.conn()?, id)?;
        Ok(render_run(principal, &job, &credentials))
    }
}

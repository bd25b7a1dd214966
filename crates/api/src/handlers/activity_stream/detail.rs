//! `GET /api/v2/activity_stream/<id>/` (see [`crate::handlers::detail`]).

use super::ActivityStream;
use super::render::{ActivityRecord, render_activity};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::handlers::detail::{Detail, Options};
use crate::http::options::ResourceMeta;

impl Detail for ActivityStream {
    type Key = i64;
    type Shown = ActivityRecord;

    /// One entry the caller may read (404 otherwise: entries are not objects a caller acts on, so
    /// there is nothing to gain from telling "hidden" from "missing").
    fn get(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<ActivityRecord> {
        let visibility = super::visibility(principal);
        acs_storage::activity::find(ctx.conn()?, &visibility, id)?
            .map(|entry| render_activity(&entry, principal))
            .ok_or_else(|| ApiError::no_such("ActivityStream"))
    }
}

/// Entries are written by the changes they record, never through the API.
impl Options for ActivityStream {
    const META: ResourceMeta = super::options::META;

    fn can_create(_: &Principal) -> bool {
        false
    }

    fn can_change(_: &mut Context<'_>, _: &Principal, _: i64) -> ApiResult<bool> {
        Ok(false)
    }
}

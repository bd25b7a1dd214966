//! `GET /api/v2/activity_stream/<id>/`.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};

use super::render::render_activity;
use crate::error::{ApiError, ApiResult};
use crate::handlers::frame::signed_in;
use crate::state::AppState;

/// One entry the caller may read (404 otherwise: entries are not objects a caller acts on, so
/// there is nothing to gain from telling "hidden" from "missing").
pub async fn get_activity(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in(&req, &state, StatusCode::OK, move |ctx, principal| {
        let visibility = super::visibility(principal);
        acs_storage::activity::find(ctx.conn()?, &visibility, id)?
            .map(|entry| render_activity(&entry, principal))
            .ok_or_else(|| ApiError::no_such("ActivityStream"))
    })
    .await
}

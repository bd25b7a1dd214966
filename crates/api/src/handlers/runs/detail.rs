//! `GET /api/v2/<runs>/<id>/`.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};

use super::{RunType, render_run, visible};
use crate::error::ApiResult;
use crate::handlers::frame::signed_in;
use crate::state::AppState;

/// One run.
pub async fn get_run<T: RunType>(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in(&req, &state, StatusCode::OK, move |ctx, principal| {
        let job = visible::<T>(ctx, principal, id)?;
        let credentials = acs_storage::unified_jobs::credential_ids(ctx.conn()?, id)?;
        Ok(render_run(principal, &job, &credentials))
    })
    .await
}

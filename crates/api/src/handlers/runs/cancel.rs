//! `GET` and `POST /api/v2/<runs>/<id>/cancel/`: whether a run can be canceled, and asking for
//! it. The request is stored, so the node running it stops it within about a second,
//! whichever node received the request.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::json;

use acs_authz::Denied;
use acs_storage::unified_jobs::UnifiedJob;

use super::{RunType, visible};
use crate::auth::Principal;
use crate::error::{ApiError, ApiResult};
use crate::handlers::frame::{signed_in_reply, signed_in_taking_post};
use crate::state::AppState;

/// `{"can_cancel": bool}`.
pub async fn can_cancel_run<T: RunType>(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in_taking_post(&req, &state, move |ctx, principal, page_wanted| {
        let job = visible::<T>(ctx, principal, id)?;
        let unfinished = !job.is_finished();
        let may_cancel = unfinished && page_wanted && may_cancel::<T>(principal, &job).is_ok();
        Ok((may_cancel, json!({ "can_cancel": unfinished })))
    })
    .await
}

/// Asks for the run to stop: 202, or 405 when it has already ended.
pub async fn cancel_run<T: RunType>(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    let reply = signed_in_reply(&req, &state, move |ctx, principal| {
        let job = visible::<T>(ctx, principal, id)?;
        may_cancel::<T>(principal, &job)?;
        let now = ctx.now;
        if !acs_storage::unified_jobs::request_cancel(ctx.conn()?, id, now)? {
            return Err(ApiError::MethodNotAllowed("POST".into()));
        }
        tracing::info!(actor = principal.user.id, run = id, "cancel requested");
        Ok(())
    })
    .await?;
    Ok(reply.empty(StatusCode::ACCEPTED))
}

/// Whether `principal` may cancel `run`: its launcher, or who administers its template,
/// project or inventory; a run with neither object nor organization, superusers only.
fn may_cancel<T: RunType>(principal: &Principal, run: &UnifiedJob) -> Result<(), Denied> {
    match super::governed_by(T::KIND, run) {
        Some(governed) => acs_authz::can_cancel_run(&principal.actor, &governed, run.launched_by),
        None => acs_authz::can_run_automation(&principal.actor, 0),
    }
}

//! `DELETE /api/v2/<runs>/<id>/`: removes a finished run (its output and recorded
//! environment with it); an unfinished one must be canceled first.

use actix_web::{HttpRequest, HttpResponse, web};

use super::{RunType, visible};
use crate::error::{ApiError, ApiResult};
use crate::handlers::frame::signed_in_no_content;
use crate::state::AppState;
use acs_app::activity::{self, Subject};

/// Deletes run `id`.
pub async fn delete_run<T: RunType>(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in_no_content(&req, &state, move |ctx, principal| {
        let job = visible::<T>(ctx, principal, id)?;
        acs_authz::can_run_automation(&principal.actor, job.organization_id.unwrap_or_default())?;
        let now = ctx.now;
        ctx.write(|conn| {
            if !acs_storage::unified_jobs::delete_finished(conn, id)? {
                return Err(ApiError::Forbidden(
                    "Cannot delete running job resource.".into(),
                ));
            }
            activity::record(
                conn,
                now,
                Some(&principal.user),
                "delete",
                &Subject::named(T::KIND.as_str(), id, &job.name),
                None,
                serde_json::Value::Null,
            )
            .map_err(Into::into)
        })
    })
    .await
}

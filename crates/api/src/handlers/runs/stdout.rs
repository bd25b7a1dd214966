//! `GET /api/v2/<runs>/<id>/stdout/?format=txt|ansi|json|txt_download|ansi_download`: the
//! output of a run's process (so far, while it runs).

use actix_web::http::StatusCode;
use actix_web::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::json;

use super::{RunType, visible};
use crate::error::{ApiError, ApiResult};
use crate::handlers::frame::signed_in_reply;
use crate::state::AppState;

/// How the output is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Text,
    Download,
    Json,
}

fn format_of(req: &HttpRequest) -> ApiResult<Format> {
    let query = web::Query::<Vec<(String, String)>>::from_query(req.query_string())
        .map_err(|_| ApiError::BadRequest("The query string does not parse.".into()))?;
    let asked = query
        .iter()
        .rev()
        .find(|(key, _)| key == "format")
        .map_or("txt", |(_, value)| value.as_str());
    match asked {
        "txt" | "ansi" => Ok(Format::Text),
        "txt_download" | "ansi_download" => Ok(Format::Download),
        "json" => Ok(Format::Json),
        other => Err(ApiError::BadRequest(format!(
            "Unknown format '{other}': use txt, ansi, json, txt_download or ansi_download."
        ))),
    }
}

/// The output of run `id`.
pub async fn get_stdout<T: RunType>(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let format = format_of(&req)?;
    let id = path.into_inner();
    let reply = signed_in_reply(&req, &state, move |ctx, principal| {
        visible::<T>(ctx, principal, id)?;
        Ok(acs_storage::unified_job_lines::text(ctx.conn()?, id)?)
    })
    .await?;
    let stdout = reply.value;
    Ok(match format {
        Format::Json => HttpResponse::Ok().json(json!({
            "range": { "start": 0, "end": stdout.len(), "absolute_end": stdout.len() },
            "content": stdout,
        })),
        Format::Text => HttpResponse::build(StatusCode::OK)
            .insert_header((CONTENT_TYPE, "text/plain; charset=utf-8"))
            .body(stdout),
        Format::Download => HttpResponse::build(StatusCode::OK)
            .insert_header((CONTENT_TYPE, "text/plain; charset=utf-8"))
            .insert_header((
                CONTENT_DISPOSITION,
                format!("attachment; filename=\"{}_{id}.txt\"", T::COLLECTION),
            ))
            .body(stdout),
    })
}

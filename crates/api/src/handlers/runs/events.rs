//! `GET /api/v2/jobs/<id>/job_events/` and `/api/v2/<updates>/<id>/events/`: the run's output
//! as one `verbose` event per line, in the reference's event shape (`counter`, `start_line`,
//! `end_line`, `stdout`), filterable by `start_line`. ACS keeps the output, not Ansible's
//! structured events; this is what awxkit's `--monitor` and `--wait` read.

use acs_storage::list::Lookup;
use acs_storage::unified_job_lines::LineFilter;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Value, json};

use super::{RunType, visible};
use crate::error::{ApiError, ApiResult};
use crate::handlers::frame::signed_in;
use crate::http::list::ListRequest;
use crate::state::AppState;

/// A line filter from `start_line`, `start_line__gte`, …
fn line_filter(list: &ListRequest) -> ApiResult<Vec<LineFilter>> {
    let mut filters = Vec::new();
    for filter in &list.params.filters {
        match filter.field.as_str() {
            "start_line" => {
                let line: usize = filter.value.trim().parse().map_err(|_| {
                    ApiError::field(
                        "start_line",
                        format!("'{}' is not a line number.", filter.value),
                    )
                })?;
                if !matches!(
                    filter.lookup,
                    Lookup::Exact | Lookup::Gt | Lookup::Gte | Lookup::Lt | Lookup::Lte
                ) {
                    return Err(ApiError::field(
                        "start_line",
                        "This lookup does not apply to a line number.",
                    ));
                }
                filters.push((filter.lookup, line));
            }
            // awxkit sends it; events are never truncated here.
            "no_truncate" => {}
            other => {
                return Err(ApiError::BadRequest(format!(
                    "{other} is not an allowed field name."
                )));
            }
        }
    }
    Ok(filters)
}

/// One output line as an event of the reference's shape.
fn event(kind: &str, line: i64, text: &str) -> Value {
    json!({
        "id": line + 1,
        "type": kind,
        "counter": line + 1,
        "event": "verbose",
        "start_line": line,
        "end_line": line + 1,
        "stdout": text.trim_end_matches('\n'),
    })
}

/// The events of run `id`.
pub async fn list_events<T: RunType>(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let list = ListRequest::from_request(&req)?;
    let filters = line_filter(&list)?;
    let descending = list
        .params
        .order
        .first()
        .is_some_and(|order| order.descending);
    let id = path.into_inner();
    signed_in(&req, &state, StatusCode::OK, move |ctx, principal| {
        let job = visible::<T>(ctx, principal, id)?;
        let kind = if T::COLLECTION == "jobs" {
            "job_event"
        } else {
            "event"
        };
        // Only the page's lines are read: a multi-megabyte output costs one page per request.
        let (count, lines) = acs_storage::unified_job_lines::page(
            ctx.conn()?,
            job.id,
            &filters,
            descending,
            list.params.offset,
            list.params.limit,
        )?;
        let page: Vec<Value> = lines
            .iter()
            .map(|(line, text)| event(kind, i64::from(*line), text))
            .collect();
        list.envelope(count, page)
    })
    .await
}

//! `OPTIONS` on the runs' collections and details (awxkit reads them to build `awx jobs …`).

use actix_web::{HttpRequest, HttpResponse, web};

use super::RunType;
use crate::error::ApiResult;
use crate::http::options::{FieldMeta, ResourceMeta, answer_read_only};
use crate::state::AppState;

/// What a run record says about its fields; runs are made by launches and updates, never
/// written directly.
pub const META: ResourceMeta = ResourceMeta {
    name: "Run List",
    description: "Jobs, project updates and inventory updates.",
    fields: &[
        FieldMeta::read_only("name", "string", "Name"),
        FieldMeta::read_only("status", "choice", "Status"),
        FieldMeta::read_only("failed", "boolean", "Failed"),
        FieldMeta::read_only("started", "datetime", "Started"),
        FieldMeta::read_only("finished", "datetime", "Finished"),
        FieldMeta::read_only("elapsed", "decimal", "Elapsed"),
        FieldMeta::read_only("job_explanation", "string", "Job explanation"),
        FieldMeta::read_only("launched_by", "id", "Launched by"),
    ],
};

/// Collection metadata.
pub async fn options_runs<T: RunType>(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    answer_read_only(req, state, &META, "GET, HEAD, OPTIONS").await
}

/// Detail metadata: a finished run can be deleted.
pub async fn options_run<T: RunType>(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    answer_read_only(req, state, &META, "GET, DELETE, HEAD, OPTIONS").await
}

/// What an event (one line of a run's output) says about its fields.
pub const EVENTS_META: ResourceMeta = ResourceMeta {
    name: "Event List",
    description: "A run's output, one verbose event per line.",
    fields: &[
        FieldMeta::read_only("counter", "integer", "Counter"),
        FieldMeta::read_only("event", "string", "Event"),
        FieldMeta::read_only("start_line", "integer", "Start line"),
        FieldMeta::read_only("end_line", "integer", "End line"),
        FieldMeta::read_only("stdout", "string", "Standard out"),
    ],
};

/// Metadata of a run's events (read only: a run writes them).
pub async fn options_events(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    answer_read_only(req, state, &EVENTS_META, "GET, HEAD, OPTIONS").await
}

//! Answers for paths and methods that nothing else serves.

use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::json;

use crate::context::run;
use crate::error::ApiError;
use crate::state::AppState;

/// Under `/api/o/` every error has RFC 6749's shape and every answer `Cache-Control:
/// no-store`, `Pragma: no-cache` (docs/decisions.md), also for paths and methods nothing
/// serves there.
fn oauth_error(status: StatusCode, description: String) -> HttpResponse {
    HttpResponse::build(status)
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::PRAGMA, "no-cache"))
        .json(json!({ "error": "invalid_request", "error_description": description }))
}

fn is_oauth(req: &HttpRequest) -> bool {
    req.path().starts_with("/api/o/")
}

/// 404 for unknown paths. A `GET` or `HEAD` of a path that exists with a trailing slash is
/// sent there (301), as the reference's `APPEND_SLASH` does: awxkit reads a record by its URL
/// without the slash (`awx users grant … --job_template 7` reads `/api/v2/job_templates/7`).
pub async fn not_found(req: HttpRequest) -> HttpResponse {
    const DETAIL: &str = "The requested resource could not be found.";
    if is_oauth(&req) {
        return oauth_error(StatusCode::NOT_FOUND, DETAIL.to_owned());
    }
    let path = req.path();
    let readable = matches!(
        *req.method(),
        actix_web::http::Method::GET | actix_web::http::Method::HEAD
    );
    if readable && !path.ends_with('/') && req.resource_map().has_resource(&format!("{path}/")) {
        let query = req.query_string();
        let location = if query.is_empty() {
            format!("{path}/")
        } else {
            format!("{path}/?{query}")
        };
        return HttpResponse::MovedPermanently()
            .insert_header((header::LOCATION, location))
            .finish();
    }
    HttpResponse::NotFound().json(json!({ "detail": DETAIL }))
}

/// 405 for a method a resource does not serve. A read-scoped token is refused with 403 first,
/// as on every other unsafe request (contract §3: before any other check).
pub async fn method_not_allowed(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let bearer = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| acs_oauth2::parse_bearer(value).is_some());
    if bearer && !crate::context::is_safe(req.method()) {
        run(&state, &req, |ctx| {
            if let Some(principal) = ctx.principal()? {
                acs_authz::check_method(&principal.actor, false)?;
            }
            Ok(())
        })
        .await?;
    }
    if is_oauth(&req) {
        return Ok(oauth_error(
            StatusCode::METHOD_NOT_ALLOWED,
            format!("Method \"{}\" not allowed.", req.method()),
        ));
    }
    Err(ApiError::MethodNotAllowed(req.method().to_string()))
}

/// Collections awxkit probes with `OPTIONS` that this version of ACS does not serve yet.
pub const UNSERVED_COLLECTIONS: &[&str] = &[
    "workflow_job_templates",
    "instance_groups",
    "notification_templates",
    "execution_environments",
    "schedules",
    "system_job_templates",
];

/// Collections awxkit probes with `OPTIONS` (to build role commands) that ACS does not serve:
/// they answer that probe with empty actions, and 404 to everything else (contract §2).
pub async fn unserved_collection_options() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("Allow", "OPTIONS"))
        .json(json!({
            "name": "Not served",
            "description": "ACS does not serve this collection.",
            "renders": ["application/json"],
            "parses": ["application/json"],
            "actions": {},
            "object_roles": [],
        }))
}

/// The stylesheet of the pages.
pub async fn stylesheet() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/css; charset=utf-8")
        .insert_header(("Cache-Control", "public, max-age=3600"))
        .body(crate::pages::STYLESHEET)
}

/// The pages' only script: progressive enhancement (copy buttons), nothing depends on it.
pub async fn script() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/javascript; charset=utf-8")
        .insert_header(("Cache-Control", "public, max-age=3600"))
        .body(crate::pages::SCRIPT)
}

/// The pages' icon (`/favicon.ico`, where browsers look for it without being told).
pub async fn favicon() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("image/x-icon")
        .insert_header(("Cache-Control", "public, max-age=86400"))
        .body(crate::pages::FAVICON)
}

//! Answers for paths and methods that nothing else serves.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::json;

use crate::context::run;
use crate::error::ApiError;
use crate::state::AppState;

/// 404 for unknown paths.
pub async fn not_found() -> HttpResponse {
    HttpResponse::NotFound().json(json!({ "detail": "The requested resource could not be found." }))
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
    Err(ApiError::MethodNotAllowed(req.method().to_string()))
}

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

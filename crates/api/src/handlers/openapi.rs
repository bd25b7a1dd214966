//! `GET /api/v2/openapi.json`: the OpenAPI document of every route (see [`crate::openapi`]).

use std::sync::OnceLock;

use actix_web::HttpResponse;
use actix_web::web::Bytes;

/// The document, serialized once: it depends on nothing but the code.
static DOCUMENT: OnceLock<Bytes> = OnceLock::new();

/// Serves the document.
pub async fn openapi_document() -> HttpResponse {
    let body = DOCUMENT.get_or_init(|| Bytes::from(crate::routes::openapi_document().to_string()));
    HttpResponse::Ok()
        .content_type("application/json")
        .body(body.clone())
}

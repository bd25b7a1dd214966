//! `GET /api/v2/openapi.json`: the OpenAPI document of every route (see [`crate::openapi`]).

use actix_web::{HttpResponse, web};

use crate::openapi::ServedDocument;

/// Serves the document, serialized once.
pub async fn openapi_document(document: web::Data<ServedDocument>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(document.json())
}

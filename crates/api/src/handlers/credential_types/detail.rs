//! `GET /api/v2/credential_types/<id>/`.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};

use super::find;
use super::render::render_credential_type;
use crate::error::ApiResult;
use crate::handlers::frame::signed_in;
use crate::state::AppState;

/// One credential type.
pub async fn get_credential_type(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in(&req, &state, StatusCode::OK, move |ctx, principal| {
        let credential_type = find(ctx, id)?;
        render_credential_type(principal, &credential_type)
    })
    .await
}

//! `GET /api/v2/applications/<id>/`.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};

use super::render::render_one;
use super::visible;
use crate::error::ApiResult;
use crate::handlers::frame::signed_in;
use crate::state::AppState;

/// One application (its secret masked).
pub async fn get_application(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in(&req, &state, StatusCode::OK, move |ctx, principal| {
        let app = visible(ctx, principal, id)?;
        render_one(ctx.conn()?, principal, &app, None)
    })
    .await
}

//! `GET /api/v2/tokens/<id>/`.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};

use super::render::render_one;
use super::visible;
use crate::error::ApiResult;
use crate::handlers::frame::signed_in;
use crate::state::AppState;

/// One token (values masked).
pub async fn get_token(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in(&req, &state, StatusCode::OK, move |ctx, principal| {
        let (token, _) = visible(ctx, principal, id)?;
        render_one(ctx.conn()?, token, None)
    })
    .await
}

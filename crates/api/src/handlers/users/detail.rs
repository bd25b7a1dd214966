//! `GET /api/v2/users/<id or username>/`.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};

use super::{render_user, visible};
use crate::error::ApiResult;
use crate::handlers::frame::signed_in;
use crate::state::AppState;

/// One user; 403 if it exists but the caller may not see it.
pub async fn get_user(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let segment = path.into_inner();
    signed_in(&req, &state, StatusCode::OK, move |ctx, principal| {
        let (user, memberships, _) = visible(ctx, principal, &segment)?;
        Ok(render_user(principal, &user, &memberships))
    })
    .await
}

//! `GET /api/v2/organizations/<id>/`.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};

use super::render::render_organization;
use super::visible;
use crate::error::ApiResult;
use crate::handlers::frame::signed_in;
use crate::state::AppState;

/// One organization.
pub async fn get_organization(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in(&req, &state, StatusCode::OK, move |ctx, principal| {
        let org = visible(ctx, principal, id)?;
        let counts = acs_storage::organizations::role_counts(ctx.conn()?, &[id])?;
        Ok(render_organization(
            principal,
            &org,
            counts.get(&id).copied().unwrap_or_default(),
        ))
    })
    .await
}

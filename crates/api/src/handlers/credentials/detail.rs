//! `GET /api/v2/credentials/<id>/`.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};

use super::render::render_one;
use super::visible;
use crate::error::ApiResult;
use crate::handlers::frame::signed_in;
use crate::state::AppState;

/// One credential, its secrets shown as `$encrypted$`.
pub async fn get_credential(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in(&req, &state, StatusCode::OK, move |ctx, principal| {
        let (credential, _) = visible(ctx, principal, id)?;
        let credential_type =
            acs_storage::credential_types::find(ctx.conn()?, credential.credential_type_id)?;
        render_one(ctx.conn()?, principal, &credential, &credential_type)
    })
    .await
}

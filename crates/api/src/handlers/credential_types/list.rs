//! `GET /api/v2/credential_types/`.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};

use super::render::render_credential_type;
use crate::context::run;
use crate::error::ApiResult;
use crate::http::list::ListRequest;
use crate::state::AppState;

/// Every credential type (every authenticated user sees them all), ordered by kind and name.
pub async fn list_credential_types(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    let list = ListRequest::from_request(&req)?;
    let reply = run(&state, &req, move |ctx| {
        let principal = ctx.require_user()?;
        let page = acs_storage::credential_types::list(ctx.conn()?, &list.params)??;
        let results = page
            .items
            .iter()
            .map(|item| render_credential_type(&principal, item))
            .collect::<ApiResult<Vec<_>>>()?;
        list.envelope(page.count, results)
    })
    .await?;
    Ok(reply.json(StatusCode::OK))
}

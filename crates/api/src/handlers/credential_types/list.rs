//! `GET /api/v2/credential_types/`.

use actix_web::{HttpRequest, HttpResponse, web};

use super::render::render_credential_type;
use crate::error::ApiResult;
use crate::handlers::frame::signed_in_list;
use crate::state::AppState;

/// Every credential type (every authenticated user sees them all), ordered by kind and name.
pub async fn list_credential_types(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    signed_in_list(&req, &state, move |ctx, principal, list| {
        let page = acs_storage::credential_types::list(ctx.conn()?, &list.params)??;
        let results = page
            .items
            .iter()
            .map(|item| render_credential_type(principal, item))
            .collect::<ApiResult<Vec<_>>>()?;
        list.envelope(page.count, results)
    })
    .await
}

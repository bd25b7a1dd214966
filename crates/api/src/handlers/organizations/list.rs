//! `GET /api/v2/organizations/`.

use actix_web::{HttpRequest, HttpResponse, web};

use super::render::render_organization;
use crate::error::ApiResult;
use crate::handlers::frame::signed_in_list;
use crate::state::AppState;

/// Lists the organizations the caller may see.
pub async fn list_organizations(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    signed_in_list(&req, &state, move |ctx, principal, list| {
        let visibility = acs_authz::visible_organizations(&principal.actor);
        let page = acs_storage::organizations::list(ctx.conn()?, &visibility, &list.params)??;
        let ids: Vec<i64> = page.items.iter().map(|o| o.id).collect();
        let counts = acs_storage::organizations::role_counts(ctx.conn()?, &ids)?;
        let results = page
            .items
            .iter()
            .map(|org| {
                render_organization(
                    principal,
                    org,
                    counts.get(&org.id).copied().unwrap_or_default(),
                )
            })
            .collect();
        list.envelope(page.count, results)
    })
    .await
}

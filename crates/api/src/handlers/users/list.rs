//! `GET /api/v2/users/`.

use actix_web::{HttpRequest, HttpResponse, web};

use super::render_user;
use crate::error::ApiResult;
use crate::handlers::frame::signed_in_list;
use crate::http::list::ListRequest;
use crate::state::AppState;

/// Lists the users the caller may see.
pub async fn list_users(req: HttpRequest, state: web::Data<AppState>) -> ApiResult<HttpResponse> {
    signed_in_list(&req, &state, move |ctx, principal, list| {
        let visibility = acs_authz::visible_users(&principal.actor);
        let page = acs_storage::users::list(ctx.conn()?, &visibility, None, &list.params)??;
        render_page(ctx, principal, list, page)
    })
    .await
}

/// Renders a page of users with their memberships (one query for the whole page).
pub fn render_page(
    ctx: &mut crate::context::Context<'_>,
    principal: &crate::auth::Principal,
    list: &ListRequest,
    page: acs_storage::list::Page<acs_storage::users::User>,
) -> ApiResult<crate::http::list::ListPage<super::UserRecord>> {
    let ids: Vec<i64> = page.items.iter().map(|u| u.id).collect();
    let mut memberships = acs_storage::users::memberships(ctx.conn()?, &ids)?;
    let results = page
        .items
        .iter()
        .map(|user| {
            render_user(
                principal,
                user,
                &memberships.remove(&user.id).unwrap_or_default(),
            )
        })
        .collect();
    list.envelope(page.count, results)
}

//! `GET /api/v2/applications/`, `/api/v2/users/<id>/applications/` and
//! `/api/v2/organizations/<id>/applications/`.

use acs_storage::applications::ApplicationScope;
use actix_web::{HttpRequest, HttpResponse, web};

use super::render::{ApplicationRecord, render_application};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::frame::signed_in_list;
use crate::http::list::{ListPage, ListRequest};
use crate::state::AppState;

/// Every application the caller may see.
pub async fn list_applications(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    signed_in_list(&req, &state, move |ctx, principal, list| {
        page(ctx, principal, ApplicationScope::default(), list)
    })
    .await
}

/// The applications owned by a user, among those the caller may see.
pub async fn list_user_applications(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let segment = path.into_inner();
    signed_in_list(&req, &state, move |ctx, principal, list| {
        let (user, _, _) = crate::handlers::users::visible(ctx, principal, &segment)?;
        let scope = ApplicationScope {
            user: Some(user.id),
            ..ApplicationScope::default()
        };
        page(ctx, principal, scope, list)
    })
    .await
}

/// The applications of an organization, among those the caller may see.
pub async fn list_organization_applications(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in_list(&req, &state, move |ctx, principal, list| {
        crate::handlers::organizations::visible(ctx, principal, id)?;
        let scope = ApplicationScope {
            organization: Some(id),
            ..ApplicationScope::default()
        };
        page(ctx, principal, scope, list)
    })
    .await
}

fn page(
    ctx: &mut Context<'_>,
    principal: &Principal,
    scope: ApplicationScope,
    list: &ListRequest,
) -> ApiResult<ListPage<ApplicationRecord>> {
    let visibility = acs_authz::visible_applications(&principal.actor);
    let page = acs_storage::applications::list(ctx.conn()?, &visibility, scope, &list.params)??;
    let mut summaries = acs_storage::applications::summaries(ctx.conn()?, &page.items)?;
    let results = page
        .items
        .iter()
        .map(|app| {
            let summary = summaries.remove(&app.id).unwrap_or_default();
            render_application(principal, app, &summary, None)
        })
        .collect();
    list.envelope(page.count, results)
}

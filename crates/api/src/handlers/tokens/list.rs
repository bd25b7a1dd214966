//! Token lists: `GET /api/v2/tokens/`, `/api/v2/users/<id>/tokens/`, `…/personal_tokens/`,
//! `…/authorized_tokens/` and `/api/v2/applications/<id>/tokens/`. Values are always masked.

use acs_storage::tokens::TokenScope;
use actix_web::{HttpRequest, HttpResponse, web};

use super::render::{TokenRecord, render_token};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::frame::signed_in_list;
use crate::http::list::{ListPage, ListRequest};
use crate::state::AppState;

/// Every token the caller may see.
pub async fn list_tokens(req: HttpRequest, state: web::Data<AppState>) -> ApiResult<HttpResponse> {
    signed_in_list(&req, &state, move |ctx, principal, list| {
        page(ctx, principal, TokenScope::default(), list)
    })
    .await
}

/// The tokens of the user in the path, among those the caller may see.
pub async fn list_user_tokens(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    under_user(req, state, path.into_inner(), |user, _| TokenScope {
        user: Some(user),
        ..TokenScope::default()
    })
    .await
}

/// The caller's own personal tokens (the user in the path only has to be visible, as in the
/// reference).
pub async fn list_personal_tokens(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    under_user(req, state, path.into_inner(), |_, caller| TokenScope {
        user: Some(caller),
        personal: Some(true),
        ..TokenScope::default()
    })
    .await
}

/// The caller's own application tokens.
pub async fn list_authorized_tokens(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    under_user(req, state, path.into_inner(), |_, caller| TokenScope {
        user: Some(caller),
        personal: Some(false),
        ..TokenScope::default()
    })
    .await
}

/// The tokens of an application, among those the caller may see.
pub async fn list_application_tokens(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in_list(&req, &state, move |ctx, principal, list| {
        crate::handlers::applications::visible(ctx, principal, id)?;
        let scope = TokenScope {
            application: Some(id),
            ..TokenScope::default()
        };
        page(ctx, principal, scope, list)
    })
    .await
}

async fn under_user(
    req: HttpRequest,
    state: web::Data<AppState>,
    segment: String,
    scope: impl FnOnce(i64, i64) -> TokenScope + Send + 'static,
) -> ApiResult<HttpResponse> {
    signed_in_list(&req, &state, move |ctx, principal, list| {
        let (user, _, _) = crate::handlers::users::visible(ctx, principal, &segment)?;
        page(ctx, principal, scope(user.id, principal.user.id), list)
    })
    .await
}

fn page(
    ctx: &mut Context<'_>,
    principal: &Principal,
    scope: TokenScope,
    list: &ListRequest,
) -> ApiResult<ListPage<TokenRecord>> {
    let visibility = acs_authz::visible_tokens(&principal.actor);
    let page = acs_storage::tokens::list(ctx.conn()?, &visibility, scope, &list.params)??;
    let rows = acs_storage::tokens::rows(ctx.conn()?, page.items)?;
    let results = rows.iter().map(|row| render_token(row, None)).collect();
    list.envelope(page.count, results)
}

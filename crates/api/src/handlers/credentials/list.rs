//! `GET /api/v2/credentials/` and `/api/v2/credential_types/<id>/credentials/`.

use acs_storage::credentials::CredentialScope;
use actix_web::{HttpRequest, HttpResponse, web};

use super::render::{CredentialRecord, render_page};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::frame::signed_in_list;
use crate::http::list::{ListPage, ListRequest};
use crate::state::AppState;

/// Every credential the caller may see.
pub async fn list_credentials(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    signed_in_list(&req, &state, move |ctx, principal, list| {
        page(ctx, principal, CredentialScope::default(), list)
    })
    .await
}

/// The credentials of one type, among those the caller may see.
pub async fn list_type_credentials(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in_list(&req, &state, move |ctx, principal, list| {
        crate::handlers::credential_types::find(ctx, id)?;
        let scope = CredentialScope {
            credential_type: Some(id),
        };
        page(ctx, principal, scope, list)
    })
    .await
}

fn page(
    ctx: &mut Context<'_>,
    principal: &Principal,
    scope: CredentialScope,
    list: &ListRequest,
) -> ApiResult<ListPage<CredentialRecord>> {
    let visibility = acs_authz::visible_credentials(&principal.actor);
    let page = acs_storage::credentials::list(ctx.conn()?, &visibility, scope, &list.params)??;
    let results = render_page(ctx.conn()?, principal, &page.items)?;
    list.envelope(page.count, results)
}

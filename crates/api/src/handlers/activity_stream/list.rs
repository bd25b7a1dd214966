//! `GET /api/v2/activity_stream/` and the per-object sub-lists. A sub-list needs the object to
//! be visible and then shows every entry about it.

use acs_storage::activity::{
    APPLICATION, ActivityVisibility, CREDENTIAL, CREDENTIAL_TYPE, ORGANIZATION, TOKEN, USER,
};
use actix_web::{HttpRequest, HttpResponse, web};

use super::render::{ActivityRecord, render_activity};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::frame::signed_in_list;
use crate::http::list::{ListPage, ListRequest};
use crate::state::AppState;

/// Every entry the caller may read.
pub async fn list_activity(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    signed_in_list(&req, &state, move |ctx, principal, list| {
        page(ctx, &super::visibility(principal), None, list)
    })
    .await
}

/// `GET /api/v2/users/<id>/activity_stream/`.
pub async fn list_user_activity(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    about_visible(req, state, USER, move |ctx, principal| {
        let (user, _, _) = crate::handlers::users::visible(ctx, principal, &path)?;
        Ok(user.id)
    })
    .await
}

/// `GET /api/v2/organizations/<id>/activity_stream/`.
pub async fn list_organization_activity(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    about_visible(req, state, ORGANIZATION, move |ctx, principal| {
        crate::handlers::organizations::visible(ctx, principal, id).map(|_| id)
    })
    .await
}

/// `GET /api/v2/applications/<id>/activity_stream/`.
pub async fn list_application_activity(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    about_visible(req, state, APPLICATION, move |ctx, principal| {
        crate::handlers::applications::visible(ctx, principal, id).map(|_| id)
    })
    .await
}

/// `GET /api/v2/tokens/<id>/activity_stream/`.
pub async fn list_token_activity(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    about_visible(req, state, TOKEN, move |ctx, principal| {
        crate::handlers::tokens::visible(ctx, principal, id).map(|_| id)
    })
    .await
}

/// `GET /api/v2/credential_types/<id>/activity_stream/` (every type is visible to everyone).
pub async fn list_credential_type_activity(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    about_visible(req, state, CREDENTIAL_TYPE, move |ctx, _| {
        crate::handlers::credential_types::find(ctx, id).map(|_| id)
    })
    .await
}

/// `GET /api/v2/credentials/<id>/activity_stream/`.
pub async fn list_credential_activity(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    about_visible(req, state, CREDENTIAL, move |ctx, principal| {
        crate::handlers::credentials::visible(ctx, principal, id).map(|_| id)
    })
    .await
}

/// Every entry about the object of `kind` that `visible` finds (or refuses: 404, 403).
async fn about_visible<F>(
    req: HttpRequest,
    state: web::Data<AppState>,
    kind: &'static str,
    visible: F,
) -> ApiResult<HttpResponse>
where
    F: FnOnce(&mut Context<'_>, &Principal) -> ApiResult<i64> + Send + 'static,
{
    signed_in_list(&req, &state, move |ctx, principal, list| {
        let id = visible(ctx, principal)?;
        about(ctx, kind, id, list)
    })
    .await
}

fn about(
    ctx: &mut Context<'_>,
    kind: &'static str,
    id: i64,
    list: &ListRequest,
) -> ApiResult<ListPage<ActivityRecord>> {
    page(ctx, &ActivityVisibility::All, Some((kind, id)), list)
}

fn page(
    ctx: &mut Context<'_>,
    visibility: &ActivityVisibility,
    object: Option<(&str, i64)>,
    list: &ListRequest,
) -> ApiResult<ListPage<ActivityRecord>> {
    let viewer = ctx.require_user()?;
    let page = acs_storage::activity::list(ctx.conn()?, visibility, object, &list.params)??;
    let results = page
        .items
        .iter()
        .map(|entry| render_activity(entry, &viewer))
        .collect();
    list.envelope(page.count, results)
}

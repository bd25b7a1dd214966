//! `GET /api/v2/activity_stream/` and the per-object sub-lists. A sub-list needs the object to
//! be visible and then shows every entry about it.

use acs_storage::activity::ActivityVisibility;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};

use super::render::{ActivityRecord, render_activity};
use crate::context::{Context, run};
use crate::error::ApiResult;
use crate::http::list::{ListPage, ListRequest};
use crate::state::AppState;

/// Every entry the caller may read.
pub async fn list_activity(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    let list = ListRequest::from_request(&req)?;
    let reply = run(&state, &req, move |ctx| {
        let principal = ctx.require_user()?;
        page(ctx, &super::visibility(&principal), None, &list)
    })
    .await?;
    Ok(reply.json(StatusCode::OK))
}

/// `GET /api/v2/users/<id>/activity_stream/`.
pub async fn list_user_activity(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let list = ListRequest::from_request(&req)?;
    let segment = path.into_inner();
    let reply = run(&state, &req, move |ctx| {
        let principal = ctx.require_user()?;
        let (user, _, _) = crate::handlers::users::visible(ctx, &principal, &segment)?;
        about(ctx, acs_storage::activity::USER, user.id, &list)
    })
    .await?;
    Ok(reply.json(StatusCode::OK))
}

/// `GET /api/v2/organizations/<id>/activity_stream/`.
pub async fn list_organization_activity(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let list = ListRequest::from_request(&req)?;
    let id = path.into_inner();
    let reply = run(&state, &req, move |ctx| {
        let principal = ctx.require_user()?;
        crate::handlers::organizations::visible(ctx, &principal, id)?;
        about(ctx, acs_storage::activity::ORGANIZATION, id, &list)
    })
    .await?;
    Ok(reply.json(StatusCode::OK))
}

/// `GET /api/v2/applications/<id>/activity_stream/`.
pub async fn list_application_activity(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let list = ListRequest::from_request(&req)?;
    let id = path.into_inner();
    let reply = run(&state, &req, move |ctx| {
        let principal = ctx.require_user()?;
        crate::handlers::applications::visible(ctx, &principal, id)?;
        about(ctx, acs_storage::activity::APPLICATION, id, &list)
    })
    .await?;
    Ok(reply.json(StatusCode::OK))
}

/// `GET /api/v2/tokens/<id>/activity_stream/`.
pub async fn list_token_activity(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let list = ListRequest::from_request(&req)?;
    let id = path.into_inner();
    let reply = run(&state, &req, move |ctx| {
        let principal = ctx.require_user()?;
        crate::handlers::tokens::visible(ctx, &principal, id)?;
        about(ctx, acs_storage::activity::TOKEN, id, &list)
    })
    .await?;
    Ok(reply.json(StatusCode::OK))
}

/// `GET /api/v2/credential_types/<id>/activity_stream/`.
pub async fn list_credential_type_activity(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let list = ListRequest::from_request(&req)?;
    let id = path.into_inner();
    let reply = run(&state, &req, move |ctx| {
        ctx.require_user()?;
        crate::handlers::credential_types::find(ctx, id)?;
        about(ctx, acs_storage::activity::CREDENTIAL_TYPE, id, &list)
    })
    .await?;
    Ok(reply.json(StatusCode::OK))
}

/// `GET /api/v2/credentials/<id>/activity_stream/`.
pub async fn list_credential_activity(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let list = ListRequest::from_request(&req)?;
    let id = path.into_inner();
    let reply = run(&state, &req, move |ctx| {
        let principal = ctx.require_user()?;
        crate::handlers::credentials::visible(ctx, &principal, id)?;
        about(ctx, acs_storage::activity::CREDENTIAL, id, &list)
    })
    .await?;
    Ok(reply.json(StatusCode::OK))
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

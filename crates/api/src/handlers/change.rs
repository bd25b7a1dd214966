//! `PUT` and `PATCH` of one record: the same request but for `full`, answered 200 with the
//! record as it is after the change. A resource says what a change does ([`Change`]); the two
//! handlers are these.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Map, Value};

use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::detail::Detail;
use crate::handlers::frame::signed_in;
use crate::http::body::JsonObject;
use crate::state::AppState;

/// One `PUT` or `PATCH` as its handler read it.
#[derive(Debug)]
pub struct Edit<'r, K> {
    /// The signed-in caller.
    pub principal: &'r Principal,
    /// The record's key in the path.
    pub key: K,
    /// The request's JSON object.
    pub body: &'r Map<String, Value>,
    /// Every field (`PUT`) rather than the given ones (`PATCH`).
    pub full: bool,
}

/// What a `PUT` or `PATCH` does to one record of a resource.
pub trait Change: Detail {
    /// Makes `edit` to its record: checks, writes and records the activity.
    fn change(ctx: &mut Context<'_>, edit: Edit<'_, Self::Key>) -> ApiResult<Self::Shown>;
}

/// `PUT`: a full update.
pub async fn put<C: Change>(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<C::Key>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    respond::<C>(req, state, path.into_inner(), body, true).await
}

/// `PATCH`: a partial update.
pub async fn patch<C: Change>(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<C::Key>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    respond::<C>(req, state, path.into_inner(), body, false).await
}

async fn respond<C: Change>(
    req: HttpRequest,
    state: web::Data<AppState>,
    key: C::Key,
    body: JsonObject,
    full: bool,
) -> ApiResult<HttpResponse> {
    signed_in(&req, &state, StatusCode::OK, move |ctx, principal| {
        let edit = Edit {
            principal,
            key,
            body: &body.0,
            full,
        };
        C::change(ctx, edit)
    })
    .await
}

//! The frame of every list endpoint: the list parameters read from the query string (a bad
//! one is a 400 before anything else), then the page computed inside the request's context
//! for the signed-in caller, answered 200.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Serialize;

use crate::auth::Principal;
use crate::context::{Context, run};
use crate::error::ApiResult;
use crate::http::list::{ListPage, ListRequest};
use crate::state::AppState;

/// Answers a list request with the page `page` computes for the signed-in caller.
pub async fn signed_in_list<T, F>(
    req: &HttpRequest,
    state: &web::Data<AppState>,
    page: F,
) -> ApiResult<HttpResponse>
where
    T: Serialize + Send + 'static,
    F: FnOnce(&mut Context<'_>, &Principal, &ListRequest) -> ApiResult<ListPage<T>>
        + Send
        + 'static,
{
    let list = ListRequest::from_request(req)?;
    let reply = run(state, req, move |ctx| {
        let principal = ctx.require_user()?;
        page(ctx, &principal, &list)
    })
    .await?;
    Ok(reply.json(StatusCode::OK))
}

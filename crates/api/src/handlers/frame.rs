//! The frame of an endpoint for signed-in callers: the work runs inside the request's context
//! once the caller is known (401 otherwise), and its value is the JSON body. A list endpoint
//! reads its list parameters from the query string first (a bad one is a 400 before anything
//! else).

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Serialize;

use crate::auth::Principal;
use crate::context::{Context, Reply, run};
use crate::error::ApiResult;
use crate::http::browsable::{Offer, is_page_request};
use crate::http::list::{ListPage, ListRequest};
use crate::state::AppState;

/// `work` run inside the request's context for the signed-in caller (401 otherwise); the
/// reply, for handlers that shape their answer themselves.
pub async fn signed_in_reply<T, F>(
    req: &HttpRequest,
    state: &web::Data<AppState>,
    work: F,
) -> ApiResult<Reply<T>>
where
    T: Send + 'static,
    F: FnOnce(&mut Context<'_>, &Principal) -> ApiResult<T> + Send + 'static,
{
    run(state, req, move |ctx| {
        let principal = ctx.require_user()?;
        work(ctx, &principal)
    })
    .await
}

/// Answers with `status` and what `work` returns for the signed-in caller.
pub async fn signed_in<T, F>(
    req: &HttpRequest,
    state: &web::Data<AppState>,
    status: StatusCode,
    work: F,
) -> ApiResult<HttpResponse>
where
    T: Serialize + Send + 'static,
    F: FnOnce(&mut Context<'_>, &Principal) -> ApiResult<T> + Send + 'static,
{
    Ok(signed_in_reply(req, state, work).await?.json(status))
}

/// Answers 204 once `work` is done for the signed-in caller.
pub async fn signed_in_no_content<F>(
    req: &HttpRequest,
    state: &web::Data<AppState>,
    work: F,
) -> ApiResult<HttpResponse>
where
    F: FnOnce(&mut Context<'_>, &Principal) -> ApiResult<()> + Send + 'static,
{
    Ok(signed_in_reply(req, state, work).await?.no_content())
}

/// Answers `OPTIONS` with the metadata and the `Allow` header `work` gives for the signed-in
/// caller.
pub async fn signed_in_options<F>(
    req: &HttpRequest,
    state: &web::Data<AppState>,
    work: F,
) -> ApiResult<HttpResponse>
where
    F: FnOnce(&mut Context<'_>, &Principal) -> ApiResult<(serde_json::Value, String)>
        + Send
        + 'static,
{
    Ok(signed_in_reply(req, state, work).await?.options())
}

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
    signed_in(req, state, StatusCode::OK, move |ctx, principal| {
        page(ctx, principal, &list)
    })
    .await
}

/// [`signed_in`] (200) for an answer a browser's page may offer changes on that the answer
/// does not name itself: `work` says, besides the answer, what the caller may do there
/// ([`Offer`]; asked only for page requests: `work`'s flag argument), which the page shows as
/// forms.
pub async fn signed_in_offering<T, F>(
    req: &HttpRequest,
    state: &web::Data<AppState>,
    work: F,
) -> ApiResult<HttpResponse>
where
    T: Serialize + Send + 'static,
    F: FnOnce(&mut Context<'_>, &Principal, bool) -> ApiResult<(Offer, T)> + Send + 'static,
{
    let page_wanted = is_page_request(req);
    let reply = signed_in_reply(req, state, move |ctx, principal| {
        work(ctx, principal, page_wanted)
    })
    .await?;
    let (offer, reply) = reply.split::<Offer, T>();
    let mut response = reply.json(StatusCode::OK);
    if page_wanted && offer != Offer::default() {
        response.extensions_mut().insert(offer);
    }
    Ok(response)
}

/// [`signed_in_offering`] for a resource that also takes `POST` (an action's status, as
/// `…/launch/`): `work` says, besides the answer, whether the caller may post there.
pub async fn signed_in_taking_post<T, F>(
    req: &HttpRequest,
    state: &web::Data<AppState>,
    work: F,
) -> ApiResult<HttpResponse>
where
    T: Serialize + Send + 'static,
    F: FnOnce(&mut Context<'_>, &Principal, bool) -> ApiResult<(bool, T)> + Send + 'static,
{
    signed_in_offering(req, state, move |ctx, principal, page_wanted| {
        let (post, value) = work(ctx, principal, page_wanted)?;
        let offer = Offer {
            post,
            ..Offer::default()
        };
        Ok((offer, value))
    })
    .await
}

/// [`signed_in_list`] for a list that also takes `POST`: `page` says, besides the page,
/// whether the caller may post there, which a browser's page shows as a form (asked only
/// for page requests: `page`'s flag argument).
pub async fn signed_in_list_taking_post<T, F>(
    req: &HttpRequest,
    state: &web::Data<AppState>,
    page: F,
) -> ApiResult<HttpResponse>
where
    T: Serialize + Send + 'static,
    F: FnOnce(&mut Context<'_>, &Principal, &ListRequest, bool) -> ApiResult<(bool, ListPage<T>)>
        + Send
        + 'static,
{
    let list = ListRequest::from_request(req)?;
    signed_in_taking_post(req, state, move |ctx, principal, page_wanted| {
        page(ctx, principal, &list, page_wanted)
    })
    .await
}

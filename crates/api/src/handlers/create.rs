//! `POST` on a resource's collection, and on the lists under other records that hold it
//! (`/api/v2/users/<user>/tokens/`): the same creation, with what the path fixes as the
//! list's scope once the record above is visible to the caller. A resource says what a
//! creation does ([`Create`]); the handlers are these.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Serialize;

use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::detail::Detail;
use crate::handlers::frame::signed_in_reply;
use crate::handlers::listing::{Listing, Parent, SubList};
use crate::http::body::JsonObject;
use crate::state::AppState;

/// One `POST` as its handler read it.
#[derive(Debug)]
pub struct Submission<'r, S> {
    /// The signed-in caller.
    pub principal: &'r Principal,
    /// The request's JSON object.
    pub body: JsonObject,
    /// What a list's path fixes (the default for the collection itself).
    pub scope: S,
}

/// A resource whose records are created by `POST`.
pub trait Create: Listing {
    /// The new record as the 201 response shows it.
    type Created: Serialize + Send + 'static;

    /// Creates the record `new` asks for: checks, writes and records the activity.
    fn create(ctx: &mut Context<'_>, new: Submission<'_, Self::Scope>) -> ApiResult<Self::Created>;

    /// The `Location` the 201 response gives for `created`, if the resource gives one.
    fn location(created: &Self::Created) -> Option<String>;
}

/// `POST` on a collection.
pub async fn create<C: Create>(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    respond::<C>(req, state, body, |_, _| Ok(C::Scope::default())).await
}

/// `POST` on a list under one record, once the caller may see that record.
pub async fn create_under<S>(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<<S::Parent as Detail>::Key>,
    body: JsonObject,
) -> ApiResult<HttpResponse>
where
    S: SubList,
    S::Of: Create,
{
    let key = path.into_inner();
    respond::<S::Of>(req, state, body, move |ctx, principal| {
        let parent = S::Parent::visible_id(ctx, principal, key)?;
        Ok(S::scope(parent, principal))
    })
    .await
}

/// Creates a `C` from `body` within the scope `scope` finds (or refuses) for the signed-in
/// caller: 201, with a `Location` where the resource gives one.
async fn respond<C: Create>(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: JsonObject,
    scope: impl FnOnce(&mut Context<'_>, &Principal) -> ApiResult<C::Scope> + Send + 'static,
) -> ApiResult<HttpResponse> {
    let reply = signed_in_reply(&req, &state, move |ctx, principal| {
        let scope = scope(ctx, principal)?;
        let new = Submission {
            principal,
            body,
            scope,
        };
        C::create(ctx, new)
    })
    .await?;
    Ok(match C::location(&reply.value) {
        Some(location) => reply.created(&location),
        None => reply.json(StatusCode::CREATED),
    })
}

//! `POST` on a resource's collection, and on the lists under other records that hold it
//! (`/api/v2/users/<user>/tokens/`): the same creation, with what the path fixes as the
//! list's scope once the record above is visible to the caller. A resource says what a
//! creation does ([`Create`]); the handlers are these.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Serialize;

use crate::auth::Principal;
use crate::context::{Context, Reply};
use crate::error::ApiResult;
use crate::handlers::detail::Detail;
use crate::handlers::frame::signed_in_reply;
use crate::handlers::listing::{Listing, Parent, SubList};
use crate::http::body::JsonObject;
use crate::state::AppState;

/// A resource whose records are created by `POST`.
pub trait Create: Listing {
    /// The new record as the 201 response shows it.
    type Created: Serialize + Send + 'static;

    /// Creates a record for the signed-in `principal` from `body`, within `scope` (what a
    /// list's path fixes: the default for the collection itself); checks, writes and records
    /// the activity.
    fn create(
        ctx: &mut Context<'_>,
        principal: &Principal,
        body: JsonObject,
        scope: Self::Scope,
    ) -> ApiResult<Self::Created>;

    /// The `Location` the 201 response gives for `created`, if the resource gives one.
    fn location(created: &Self::Created) -> Option<String>;
}

/// `POST` on a collection.
pub async fn create<C: Create>(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    let reply = signed_in_reply(&req, &state, move |ctx, principal| {
        C::create(ctx, principal, body, C::Scope::default())
    })
    .await?;
    Ok(created::<C>(reply))
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
    let reply = signed_in_reply(&req, &state, move |ctx, principal| {
        let parent = S::Parent::visible_id(ctx, principal, key)?;
        S::Of::create(ctx, principal, body, S::scope(parent, principal))
    })
    .await?;
    Ok(created::<S::Of>(reply))
}

fn created<C: Create>(reply: Reply<C::Created>) -> HttpResponse {
    match C::location(&reply.value) {
        Some(location) => reply.created(&location),
        None => reply.json(StatusCode::CREATED),
    }
}

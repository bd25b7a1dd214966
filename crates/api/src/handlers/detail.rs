//! One record of a resource at `/api/v2/<collection>/<key>/` (`GET`, `DELETE`, `OPTIONS`),
//! and `OPTIONS` of its collection. A resource says what it shows and who may do what
//! ([`Detail`], [`Delete`], [`Options`]; `PUT` and `PATCH` in [`crate::handlers::change`]);
//! the handlers are these.

use actix_web::{HttpRequest, HttpResponse, web};

use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::frame::{signed_in_no_content, signed_in_offering, signed_in_options};
use crate::http::browsable::Offer;
use crate::http::options::ResourceMeta;
use crate::state::AppState;
use acs_app::activity::Subject;

/// A resource whose records are read one at a time by key.
pub trait Detail: 'static {
    /// The record's key in the path (an id; a user's segment, which may be `me`).
    type Key: serde::de::DeserializeOwned + Send + 'static;
    /// The record as the response shows it.
    type Shown: serde::Serialize + Send + 'static;

    /// The record at `key` as the signed-in `principal` sees it: 404 when there is none, 403
    /// when they may not see it.
    fn get(ctx: &mut Context<'_>, principal: &Principal, key: Self::Key) -> ApiResult<Self::Shown>;

    /// [`Detail::get`], with what a browser's page of the record offers beyond its own
    /// `user_capabilities` (`page_wanted`: whether the answer becomes a page; nothing is
    /// offered otherwise). Most records say all in their capabilities: nothing more.
    fn get_offering(
        ctx: &mut Context<'_>,
        principal: &Principal,
        key: Self::Key,
        page_wanted: bool,
    ) -> ApiResult<(Offer, Self::Shown)> {
        let _ = page_wanted;
        Ok((Offer::default(), Self::get(ctx, principal, key)?))
    }
}

/// What `OPTIONS` of a resource's collection and records say: its fields, and whether the
/// caller may write.
pub trait Options: Detail {
    /// The resource's fields.
    const META: ResourceMeta;
    /// The kind whose role fields the records carry, listed as `object_roles` (clients check
    /// role names against it); `None` for records without roles.
    const ROLE_KIND: Option<acs_authz::roles::ResourceKind> = None;

    /// Whether `principal` may create records (`POST` in the collection's `OPTIONS`).
    fn can_create(principal: &Principal) -> bool;

    /// Whether `principal` may change the record at `key` (`PUT` and `PATCH` in its
    /// `OPTIONS`). Answers for a key with no record too: clients (awxkit) probe `OPTIONS` of
    /// a detail URL to learn the fields.
    fn can_change(ctx: &mut Context<'_>, principal: &Principal, key: Self::Key) -> ApiResult<bool>;
}

/// A resource whose records are deleted one at a time by key.
pub trait Delete: Detail {
    /// Deletes the record at `key` for the signed-in `principal`, with what goes with it and
    /// its activity-stream entry, or refuses; answers what it deleted, as the entry names it.
    fn remove(ctx: &mut Context<'_>, principal: &Principal, key: Self::Key) -> ApiResult<Subject>;

    /// [`Delete::remove`], and a log line saying what is gone.
    fn delete(ctx: &mut Context<'_>, principal: &Principal, key: Self::Key) -> ApiResult<()> {
        let gone = Self::remove(ctx, principal, key)?;
        let (kind, id) = (gone.kind, gone.id);
        tracing::info!(actor = principal.user.id, kind, id, "deleted");
        Ok(())
    }
}

/// `GET` of one record.
pub async fn get<D: Detail>(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<D::Key>,
) -> ApiResult<HttpResponse> {
    let key = path.into_inner();
    signed_in_offering(&req, &state, move |ctx, principal, page_wanted| {
        D::get_offering(ctx, principal, key, page_wanted)
    })
    .await
}

/// `DELETE` of one record: 204 once done.
pub async fn delete<D: Delete>(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<D::Key>,
) -> ApiResult<HttpResponse> {
    let key = path.into_inner();
    signed_in_no_content(&req, &state, move |ctx, principal| {
        D::delete(ctx, principal, key)
    })
    .await
}

/// `OPTIONS` of one record.
pub async fn options<D: Options>(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<D::Key>,
) -> ApiResult<HttpResponse> {
    let key = path.into_inner();
    signed_in_options(&req, &state, move |ctx, principal| {
        let (body, allow) = D::META.detail(D::can_change(ctx, principal, key)?);
        Ok((with_object_roles::<D>(body), allow))
    })
    .await
}

/// `body` with the role fields of `D`'s records, in declaration order, when they have any.
fn with_object_roles<D: Options>(mut body: serde_json::Value) -> serde_json::Value {
    if let Some(kind) = D::ROLE_KIND {
        let names: Vec<&str> = kind.fields().iter().map(|field| field.name()).collect();
        body["object_roles"] = serde_json::json!(names);
    }
    body
}

/// `OPTIONS` of the collection (and of the sub-collections that list the same records).
pub async fn options_collection<D: Options>(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    signed_in_options(&req, &state, move |_, principal| {
        let (body, allow) = D::META.collection(D::can_create(principal));
        Ok((with_object_roles::<D>(body), allow.to_owned()))
    })
    .await
}

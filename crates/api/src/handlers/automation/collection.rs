//! `GET`, `POST` and `OPTIONS` on a resource's collection, and on a parent's sub-collection
//! (`/api/v2/inventories/<id>/hosts/`).

use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Value, json};

use super::resource::{Resource, name_conflict};
use crate::auth::Principal;
use crate::context::{Context, run};
use crate::error::ApiResult;
use crate::handlers::automation::Inventories;
use crate::handlers::frame::signed_in_list;
use crate::http::body::JsonObject;
use crate::http::list::{ListPage, ListRequest};
use crate::state::AppState;
use acs_app::activity::{self, Subject};

/// Every row of `R` the caller may see.
pub async fn list_resource<R: Resource>(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    signed_in_list(&req, &state, move |ctx, principal, list| {
        page::<R>(ctx, principal, None, list)
    })
    .await
}

/// The rows of `R` within inventory `id` (the only parent so far).
pub async fn list_children<R: Resource>(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let parent = path.into_inner();
    signed_in_list(&req, &state, move |ctx, principal, list| {
        super::visible::<Inventories>(ctx, principal, parent)?;
        page::<R>(ctx, principal, Some(parent), list)
    })
    .await
}

fn page<R: Resource>(
    ctx: &mut Context<'_>,
    principal: &Principal,
    parent: Option<i64>,
    list: &ListRequest,
) -> ApiResult<ListPage<Value>> {
    let visibility = acs_authz::visible_automation(&principal.actor);
    let conn = ctx.conn()?;
    let page = R::list(conn, &visibility, parent, &list.params)??;
    let results = page
        .items
        .iter()
        .map(|row| R::render(conn, principal, row))
        .collect::<ApiResult<Vec<_>>>()?;
    list.envelope(page.count, results)
}

/// Creates a row of `R` from the body.
pub async fn create_resource<R: Resource>(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    create::<R>(req, state, body).await
}

/// Creates a row of `R` within inventory `id`: the body's parent field is set to it.
pub async fn create_child<R: Resource>(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
    mut body: JsonObject,
) -> ApiResult<HttpResponse> {
    if let Some(field) = R::PARENT_FIELD {
        body.0.insert(field.to_owned(), json!(path.into_inner()));
    }
    create::<R>(req, state, body).await
}

async fn create<R: Resource>(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    let reply = run(&state, &req, move |ctx| {
        let principal = ctx.require_user()?;
        let settings = ctx.settings()?;
        let now = ctx.now;
        ctx.write(|conn| {
            let (input, organization) =
                R::read(conn, &principal.actor, &settings, &body.0, None, true)?;
            acs_authz::can_change_automation(&principal.actor, organization)?;
            let row = R::insert(conn, input, principal.user.id, now).map_err(name_conflict::<R>)?;
            let record = R::render(conn, &principal, &row)?;
            activity::record_creation(
                conn,
                now,
                &principal.user,
                &Subject::named(R::KIND, R::id(&row), R::name(&row)),
                &record,
            )?;
            tracing::info!(
                actor = principal.user.id,
                kind = R::KIND,
                id = R::id(&row),
                "created"
            );
            Ok((R::url(R::id(&row)), record))
        })
    })
    .await?;
    let (location, reply) = reply.split::<String, Value>();
    Ok(reply.created(&location))
}

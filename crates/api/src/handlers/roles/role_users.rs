//! `GET /api/v2/roles/<id>/` and `/api/v2/roles/<id>/users/` (GET: the role's direct
//! members; POST `{"id"}` grants it, `{"id", "disassociate"}` revokes it).

use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Map, Value};

use acs_storage::roles::RoleRecord;

use super::owner::Owner;
use super::{refused, render, visible_role};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::handlers::frame::{signed_in, signed_in_list_taking_post, signed_in_no_content};
use crate::handlers::users::UserRecord;
use crate::http::body::JsonObject;
use crate::http::list::{ListPage, ListRequest};
use crate::state::AppState;

/// `GET /api/v2/roles/<id>/`.
pub async fn get_role(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    let reply = signed_in(
        &req,
        &state,
        actix_web::http::StatusCode::OK,
        move |ctx, principal| {
            let (role, owner) = visible_role(ctx, principal, id)?;
            Ok(render::role_record(&role, owner.as_ref()))
        },
    )
    .await?;
    Ok(deprecated(reply))
}

/// `GET /api/v2/roles/<id>/users/`: the users granted the role directly.
pub async fn list_role_users(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    let reply = signed_in_list_taking_post(&req, &state, move |ctx, principal, list, wanted| {
        let (role, owner) = visible_role(ctx, principal, id)?;
        members_page(ctx, principal, list, wanted, (&role, owner.as_ref()))
    })
    .await?;
    Ok(deprecated(reply))
}

/// The page of `role`'s direct members, and whether the caller may grant it (when `wanted`).
pub fn members_page(
    ctx: &mut Context<'_>,
    principal: &Principal,
    list: &ListRequest,
    wanted: bool,
    (role, owner): (&RoleRecord, Option<&Owner>),
) -> ApiResult<(bool, ListPage<UserRecord>)> {
    let page = acs_storage::users::list(
        ctx.conn()?,
        &acs_authz::UserVisibility::All,
        Some(acs_storage::users::Within::Role(role.id)),
        &list.params,
    )??;
    let may_change = wanted
        && (principal.actor.is_superuser
            || owner.is_some_and(|owner| owner.administered_by(&principal.actor).is_ok()));
    let page = crate::handlers::users::render_page(ctx, principal, list, page)?;
    Ok((may_change, page))
}

/// `POST /api/v2/roles/<id>/users/`: 204 once granted or revoked.
pub async fn change_role_users(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    let reply = signed_in_no_content(&req, &state, move |ctx, principal| {
        let (role, owner) = visible_role(ctx, principal, id)?;
        change_member(ctx, principal, (&role, owner.as_ref()), &body.0)
    })
    .await?;
    Ok(deprecated(reply))
}

/// Grants `role` to the user an association body names (revokes it with `disassociate`).
pub fn change_member(
    ctx: &mut Context<'_>,
    principal: &Principal,
    role: (&RoleRecord, Option<&Owner>),
    body: &Map<String, Value>,
) -> ApiResult<()> {
    let (user_id, disassociate) = association(body, "User")?;
    let user = match acs_storage::users::find(ctx.conn()?, user_id) {
        Ok(user) => user,
        Err(acs_storage::StorageError::NotFound) => {
            return Err(ApiError::BadRequest(
                "User matching query does not exist.".into(),
            ));
        }
        Err(other) => return Err(other.into()),
    };
    let writer = ctx.writer(principal);
    Ok(acs_app::role_grants::change_user(
        &writer,
        ctx.conn()?,
        role,
        &user,
        disassociate,
    )?)
}

/// The `id` and whether to revoke, from an association body, with the reference's 400s
/// (`model` names what `id` is). The `disassociate` key revokes whatever its value.
pub fn association(body: &Map<String, Value>, model: &str) -> ApiResult<(i64, bool)> {
    let id = match body.get("id") {
        None | Some(Value::Null | Value::Bool(false)) => {
            return Err(refused(&format!("{model} 'id' field is missing.")));
        }
        Some(Value::Number(number)) if number.as_i64() == Some(0) => {
            return Err(refused(&format!("{model} 'id' field is missing.")));
        }
        Some(Value::Number(number)) => number.as_i64(),
        Some(_) => None,
    };
    let id = id.ok_or_else(|| refused("\"id\" field must be an integer."))?;
    Ok((id, body.contains_key("disassociate")))
}

/// `response` with the reference's deprecation warning.
pub fn deprecated(mut response: HttpResponse) -> HttpResponse {
    response.headers_mut().insert(
        actix_web::http::header::WARNING,
        actix_web::http::header::HeaderValue::from_static(super::DEPRECATION),
    );
    response
}

//! `/api/v2/organizations/<id>/users/` and `admins/`: list, associate `{"id": n}`,
//! disassociate `{"id": n, "disassociate": true}`.

use acs_authz::OrganizationRole;
use actix_web::{HttpRequest, HttpResponse, web};

use super::visible;
use crate::error::{ApiError, ApiResult};
use crate::handlers::frame::{signed_in_list_taking_post, signed_in_no_content, signed_in_options};
use crate::http::body::JsonObject;
use crate::http::fields::FieldReader;
use crate::state::AppState;

/// `GET …/users/`: the direct members.
pub async fn list_members(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    list(req, state, path.into_inner(), OrganizationRole::Member).await
}

/// `GET …/admins/`: the admins.
pub async fn list_admins(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    list(req, state, path.into_inner(), OrganizationRole::Admin).await
}

/// `POST …/users/`.
pub async fn change_members(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    change(
        req,
        state,
        path.into_inner(),
        body,
        OrganizationRole::Member,
    )
    .await
}

/// `POST …/admins/`.
pub async fn change_admins(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    change(req, state, path.into_inner(), body, OrganizationRole::Admin).await
}

/// `OPTIONS` on either sub-list.
pub async fn options_members(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in_options(&req, &state, move |_ctx, principal| {
        let can_change = acs_authz::can_change_organization(&principal.actor, id).is_ok();
        let (body, allow) = crate::handlers::users::META_FOR_SUBLIST.collection(can_change);
        Ok((body, allow.to_owned()))
    })
    .await
}

async fn list(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: i64,
    role: OrganizationRole,
) -> ApiResult<HttpResponse> {
    signed_in_list_taking_post(&req, &state, move |ctx, principal, list, page_wanted| {
        visible(ctx, principal, id)?;
        // Everyone who can see the organization sees who belongs to it.
        let role_name = acs_storage::organizations::role_name(role);
        let page = acs_storage::users::list(
            ctx.conn()?,
            &acs_authz::UserVisibility::All,
            Some(acs_storage::users::Within::Organization(id, role_name)),
            &list.params,
        )??;
        let may_change =
            page_wanted && acs_authz::can_change_organization(&principal.actor, id).is_ok();
        let page = crate::handlers::users::render_page(ctx, principal, list, page)?;
        Ok((may_change, page))
    })
    .await
}

async fn change(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: i64,
    body: JsonObject,
    role: OrganizationRole,
) -> ApiResult<HttpResponse> {
    signed_in_no_content(&req, &state, move |ctx, principal| {
        let mut fields = FieldReader::new(&body.0, true);
        let user_id = fields.id("id", true);
        let disassociate = fields.boolean("disassociate").unwrap_or(false);
        fields.finish()?;
        let user_id = user_id.ok_or_else(|| ApiError::field("id", "This field is required."))?;
        let org = visible(ctx, principal, id)?;
        let user = match acs_storage::users::find(ctx.conn()?, user_id) {
            Ok(user) => user,
            Err(acs_storage::StorageError::NotFound) => {
                return Err(ApiError::field(
                    "id",
                    format!("Invalid pk \"{user_id}\" - object does not exist."),
                ));
            }
            Err(other) => return Err(other.into()),
        };
        let writer = ctx.writer(principal);
        let membership = (&org, role);
        acs_app::organizations::change_membership(
            &writer,
            ctx.conn()?,
            membership,
            &user,
            disassociate,
        )?;
        Ok(())
    })
    .await
}

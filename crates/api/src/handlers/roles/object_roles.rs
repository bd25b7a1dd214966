//! `/<resource>/<id>/object_roles/`: a role-bearing record's roles.

use acs_authz::roles::ResourceKind;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::Value;

use super::role_users::deprecated;
use super::{owner, render};
use crate::error::{ApiError, ApiResult};
use crate::handlers::frame::signed_in_list;
use crate::state::AppState;

/// `GET /api/v2/<resource>/<id>/object_roles/`: every role of the object, once the caller
/// may see it.
pub async fn list_object_roles(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    let kind = kind_of_path(req.path())?;
    let reply = signed_in_list(&req, &state, move |ctx, principal, list| {
        let owner = owner::find(ctx, kind, id)?;
        if !owner.visible_to(&principal.actor) {
            return Err(ApiError::permission_denied());
        }
        let roles: Vec<Value> = acs_storage::roles::of_objects(ctx.conn()?, kind, &[id])?
            .iter()
            .map(|role| render::role_record(role, Some(&owner)))
            .collect();
        list.envelope_of(roles)
    })
    .await?;
    Ok(deprecated(reply))
}

/// The kind whose collection starts `path` (`/api/v2/job_templates/7/object_roles/`).
pub(super) fn kind_of_path(path: &str) -> ApiResult<ResourceKind> {
    let collection = path
        .strip_prefix("/api/v2/")
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_default();
    super::SERVED_KINDS
        .into_iter()
        .find(|kind| super::collection(*kind) == collection)
        .ok_or_else(|| ApiError::NotFound("Not found.".into()))
}

//! A role-bearing record's roles: `summary_fields.object_roles` (in declaration order, which
//! clients show and check role names against) and `/<resource>/<id>/object_roles/`.

use acs_authz::roles::{ResourceKind, RoleField};
use std::collections::HashMap;

use acs_storage::DbConnection;
use acs_storage::roles::RoleRecord;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Map, Value, json};

use super::role_users::deprecated;
use super::{owner, render};
use crate::error::{ApiError, ApiResult};
use crate::handlers::frame::signed_in_list;
use crate::state::AppState;

/// `summary_fields.object_roles` of object `id` of `kind`: each role field's name,
/// description and role id; an organization's admin and member roles are `user_only`.
pub fn summary_of(conn: &mut DbConnection, kind: ResourceKind, id: i64) -> ApiResult<Value> {
    let records = acs_storage::roles::of_objects(conn, kind, &[id])?;
    Ok(summary(kind, &records))
}

/// [`summary_of`] for each of the objects `ids` of `kind`, in one query (a list's page).
pub fn summaries_of(
    conn: &mut DbConnection,
    kind: ResourceKind,
    ids: &[i64],
) -> ApiResult<HashMap<i64, Value>> {
    let records = acs_storage::roles::of_objects(conn, kind, ids)?;
    let mut by_object: HashMap<i64, Vec<RoleRecord>> = HashMap::new();
    for record in records {
        if let Some(object) = record.object_id {
            by_object.entry(object).or_default().push(record);
        }
    }
    Ok(by_object
        .into_iter()
        .map(|(object, records)| (object, summary(kind, &records)))
        .collect())
}

/// The summary of one object's role records (in declaration order, as stored).
fn summary(kind: ResourceKind, records: &[RoleRecord]) -> Value {
    let mut roles = Map::new();
    for role in records {
        let (name, description) = render::name_and_description(role);
        let mut entry = json!({ "description": description, "name": name, "id": role.id });
        let participation = kind == ResourceKind::Organization
            && matches!(
                RoleField::parse(&role.field),
                Some(RoleField::Admin | RoleField::Member)
            );
        if participation {
            entry["user_only"] = json!(true);
        }
        roles.insert(role.field.clone(), entry);
    }
    Value::Object(roles)
}

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

//! `summary_fields.object_roles` of a role-bearing record (in declaration order, which
//! clients show and check role names against), and a role's display name and description.
//! A leaf of the handlers: every resource renders it, so it imports none of them.

use std::collections::HashMap;

use acs_authz::roles::{ResourceKind, RoleField};
use acs_storage::DbConnection;
use acs_storage::roles::RoleRecord;
use serde_json::{Map, Value, json};

use crate::error::ApiResult;

/// The display name and description of a system role.
fn system_role(field: &str) -> (&'static str, &'static str) {
    match field {
        "system_administrator" => (
            "System Administrator",
            "Can manage all aspects of the system",
        ),
        _ => ("System Auditor", "Can view all aspects of the system"),
    }
}

/// `role`'s display name and description.
pub fn name_and_description(role: &RoleRecord) -> (String, String) {
    match (
        ResourceKind::parse(&role.kind),
        RoleField::parse(&role.field),
    ) {
        (Some(kind), Some(field)) => (field.display_name().to_owned(), field.description(kind)),
        _ => {
            let (name, description) = system_role(&role.field);
            (name.to_owned(), description.to_owned())
        }
    }
}

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
        let (name, description) = name_and_description(role);
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

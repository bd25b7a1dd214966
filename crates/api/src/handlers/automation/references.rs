//! The checks a write makes on the records its body names and on path-like text fields: the
//! record exists (400 naming the field otherwise) and the caller may use it (403 otherwise).

use acs_authz::Actor;
use acs_authz::roles::{Resource, ResourceKind, RoleField};
use acs_storage::credential_types::CredentialType;
use acs_storage::credentials::Credential;
use acs_storage::inventories::Inventory;
use acs_storage::projects::Project;
use acs_storage::{DbConnection, StorageError, StorageResult};
use serde_json::Value;

pub use acs_app::automation::{parse_variables, relative_path_problem};

use crate::error::{ApiError, ApiResult};
use crate::http::fields::FieldReader;

fn exists<T>(result: StorageResult<T>, field: &str, id: i64) -> ApiResult<T> {
    result.map_err(|error| match error {
        StorageError::NotFound => ApiError::field(
            field,
            format!("Invalid pk \"{id}\" - object does not exist."),
        ),
        other => other.into(),
    })
}

/// The organization a body gives (`given`), which must exist, and the one the written row
/// will belong to: the given one, else the one it belonged to (`before`). Whether the writer
/// may create there ([`super::Resource::may_create`]) or move the row there (the
/// organization's admins) is the caller's check.
pub fn organization(
    conn: &mut DbConnection,
    given: Option<i64>,
    before: Option<i64>,
) -> ApiResult<(Option<i64>, i64)> {
    let Some(id) = given else {
        return Ok((None, before.unwrap_or_default()));
    };
    exists(
        acs_storage::organizations::find(conn, id),
        "organization",
        id,
    )?;
    Ok((Some(id), id))
}

/// Project `id`, which `actor` must be able to use (hold its `use` role).
pub fn project(conn: &mut DbConnection, actor: &Actor, field: &str, id: i64) -> ApiResult<Project> {
    let project = exists(acs_storage::projects::find(conn, id), field, id)?;
    let governed = Resource::of(ResourceKind::Project, id, Some(project.organization_id));
    acs_authz::can_act_on_object(actor, &governed, RoleField::Use)?;
    Ok(project)
}

/// Inventory `id`, which `actor` must be able to use (hold its `use` role).
pub fn inventory(conn: &mut DbConnection, actor: &Actor, id: i64) -> ApiResult<Inventory> {
    let inventory = exists(acs_storage::inventories::find(conn, id), "inventory", id)?;
    let governed = Resource::of(ResourceKind::Inventory, id, Some(inventory.organization_id));
    acs_authz::can_act_on_object(actor, &governed, RoleField::Use)?;
    Ok(inventory)
}

/// Credential `id` with its type, which `actor` must be able to use.
pub fn credential(
    conn: &mut DbConnection,
    actor: &Actor,
    field: &str,
    id: i64,
) -> ApiResult<(Credential, CredentialType)> {
    let credential = exists(acs_storage::credentials::find(conn, id), field, id)?;
    let target = acs_app::credentials::target_of(conn, &credential)?;
    acs_authz::can_use_credential(actor, &target)?;
    let credential_type = acs_storage::credential_types::find(conn, credential.credential_type_id)?;
    Ok((credential, credential_type))
}

/// The inventory of a row that lives in one (a host, an inventory source): the one `given`
/// on create, and on update the one it has (`before`), which `given` may only repeat.
pub fn fixed_inventory(given: Option<i64>, before: Option<i64>, what: &str) -> ApiResult<i64> {
    match (given, before) {
        (Some(id), Some(current)) if id != current => Err(ApiError::field(
            "inventory",
            format!("{what} cannot move to another inventory."),
        )),
        (Some(id), _) | (None, Some(id)) => Ok(id),
        (None, None) => Err(ApiError::field("inventory", "This field is required.")),
    }
}

/// Reads a text field that must be a relative path, adding the reason to `fields` if not.
pub fn relative_path(
    fields: &mut FieldReader<'_>,
    field: &str,
    value: Option<String>,
) -> Option<String> {
    let value = value?;
    match relative_path_problem(&value) {
        Some(reason) => {
            fields.error(field, reason);
            None
        }
        None => Some(value),
    }
}

/// Reads a variables field: a JSON object, or text holding a YAML or JSON mapping (stored as
/// given, so comments and layout survive); adds the reason to `fields` if it is not one.
pub fn variables(
    fields: &mut FieldReader<'_>,
    body: &serde_json::Map<String, Value>,
    field: &str,
) -> Option<String> {
    let value = body.get(field)?;
    let text = match value {
        Value::Object(_) => serde_json::to_string(value).unwrap_or_default(),
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        _ => {
            fields.error(field, "Must be a JSON object or a YAML or JSON mapping.");
            return None;
        }
    };
    match parse_variables(&text) {
        Ok(_) => Some(text),
        Err(reason) => {
            fields.error(field, reason);
            None
        }
    }
}

//! The checks a write makes on the records its body names and on path-like text fields: the
//! record exists (400 naming the field otherwise) and the caller may use it (403 otherwise).

use acs_authz::Actor;
use acs_storage::credential_types::CredentialType;
use acs_storage::credentials::Credential;
use acs_storage::inventories::Inventory;
use acs_storage::projects::Project;
use acs_storage::{DbConnection, StorageError, StorageResult};
use serde_json::Value;

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

/// Organization `id`, which `actor` must administer.
pub fn organization(conn: &mut DbConnection, actor: &Actor, id: i64) -> ApiResult<i64> {
    exists(
        acs_storage::organizations::find(conn, id),
        "organization",
        id,
    )?;
    acs_authz::can_change_automation(actor, id)?;
    Ok(id)
}

/// Project `id`, which `actor` must be able to use.
pub fn project(conn: &mut DbConnection, actor: &Actor, field: &str, id: i64) -> ApiResult<Project> {
    let project = exists(acs_storage::projects::find(conn, id), field, id)?;
    acs_authz::can_change_automation(actor, project.organization_id)?;
    Ok(project)
}

/// Inventory `id`, which `actor` must be able to use.
pub fn inventory(conn: &mut DbConnection, actor: &Actor, id: i64) -> ApiResult<Inventory> {
    let inventory = exists(acs_storage::inventories::find(conn, id), "inventory", id)?;
    acs_authz::can_change_automation(actor, inventory.organization_id)?;
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
    let target = crate::handlers::credentials::target_of(conn, &credential)?;
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

/// Why `text` is not a plain relative path inside a directory (no root, no `.` or `..`, no
/// empty segments, no backslashes), if it is not. Checked on the raw text, because
/// `Path::components` quietly drops inner `.` and doubled separators.
pub fn relative_path_problem(text: &str) -> Option<&'static str> {
    if text.is_empty() {
        return Some("This field may not be blank.");
    }
    if text.starts_with('/') {
        return Some("Must be a path relative to the project directory.");
    }
    let plain = text
        .split('/')
        .all(|segment| !matches!(segment, "" | "." | ".."));
    if !plain || text.contains('\\') {
        return Some("Must not contain '..', '.', empty segments or backslashes.");
    }
    None
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

/// Parses variables text into an object (`{}` for blank text).
pub fn parse_variables(text: &str) -> Result<serde_json::Map<String, Value>, String> {
    match acs_credential_types::parse_document(&Value::String(text.to_owned())) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err("Must be a YAML or JSON mapping.".to_owned()),
        Err(error) => Err(format!("Cannot parse as YAML or JSON: {error}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_stay_inside() {
        for good in [
            "site.yml",
            "playbooks/site.yml",
            "a b/c.yaml",
            "inventory.py",
        ] {
            assert_eq!(relative_path_problem(good), None, "{good}");
        }
        for bad in [
            "",
            "/etc/passwd",
            "../x.yml",
            "a/../../x",
            "./x",
            "a//b",
            "a/",
            "a\\b",
            "a/./b",
        ] {
            assert!(relative_path_problem(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn variables_must_be_a_mapping() {
        assert_eq!(parse_variables("").map(|m| m.len()), Ok(0));
        assert_eq!(parse_variables("a: 1\nb: [x]").map(|m| m.len()), Ok(2));
        assert_eq!(parse_variables("{\"a\": 1}").map(|m| m.len()), Ok(1));
        assert!(parse_variables("- a\n- b").is_err());
        assert!(parse_variables("a: [").is_err());
    }
}

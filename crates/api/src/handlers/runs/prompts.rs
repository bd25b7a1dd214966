//! A launch's prompts (the reference's `ask_*_on_launch`): the values a launch body may give
//! in place of its template's, each only where the template prompts for it. A value given
//! where it does not is not an error: it is answered in `ignored_fields`, as the reference
//! does, and the template's own value is used.

use acs_authz::Actor;
use acs_storage::DbConnection;
use acs_storage::credentials::Credential;
use acs_storage::job_templates::JobTemplate;
use serde_json::{Map, Value};

use crate::error::{ApiError, ApiResult};
use crate::handlers::automation::references;
use crate::handlers::automation::run_options::{self, RunOptions};
use crate::http::fields::{FieldReader, Text};

/// What a launch body gives that its template prompts for, read and shaped (the records it
/// names are checked later, with the caller's rights).
#[derive(Debug, Default)]
pub struct Given {
    /// `limit`, with `ask_limit_on_launch`.
    pub limit: Option<String>,
    /// `inventory`, with `ask_inventory_on_launch`.
    pub inventory: Option<i64>,
    /// `credentials`, with `ask_credential_on_launch`.
    pub credentials: Option<Vec<i64>>,
    /// `extra_vars` (YAML or JSON text), with `ask_variables_on_launch`.
    pub extra_vars: Option<String>,
    /// `scm_branch`, with `ask_scm_branch_on_launch` (which the project's `allow_override`
    /// lets a template have).
    pub scm_branch: Option<String>,
    /// How ansible-playbook runs, each with its own prompt.
    pub options: RunOptions,
    /// Everything else the body holds, as given.
    pub ignored: Map<String, Value>,
}

/// Reads `body` against `template`'s prompts.
pub fn read(template: &JobTemplate, body: &Map<String, Value>) -> ApiResult<Given> {
    let prompted = |field: &str| match field {
        "limit" => template.ask_limit_on_launch,
        "inventory" => template.ask_inventory_on_launch,
        "credentials" => template.ask_credential_on_launch,
        "extra_vars" => template.ask_variables_on_launch,
        "scm_branch" => template.ask_scm_branch_on_launch,
        other => run_options::prompts_for(template, other),
    };
    let mut fields = FieldReader::new(body, false);
    let mut given = Given::default();
    for (field, value) in body {
        if !prompted(field) {
            given.ignored.insert(field.clone(), value.clone());
            continue;
        }
        match field.as_str() {
            "limit" => given.limit = fields.text("limit", Text::optional(1024)),
            "inventory" => given.inventory = fields.id("inventory", false),
            "credentials" => given.credentials = ids(&mut fields, value),
            "extra_vars" => {
                given.extra_vars = references::variables(&mut fields, body, "extra_vars");
            }
            "scm_branch" => {
                given.scm_branch = fields.text("scm_branch", Text::optional(1024));
                let problem = given
                    .scm_branch
                    .as_deref()
                    .and_then(crate::handlers::automation::git_argument_problem);
                if let Some(problem) = problem {
                    fields.error("scm_branch", problem);
                }
            }
            other => given.options.read(&mut fields, other),
        }
    }
    fields.finish()?;
    Ok(given)
}

/// A list of record ids.
fn ids(fields: &mut FieldReader<'_>, value: &Value) -> Option<Vec<i64>> {
    let ids = value
        .as_array()
        .and_then(|items| items.iter().map(Value::as_i64).collect::<Option<Vec<_>>>());
    if ids.is_none() {
        fields.error("credentials", "Expected a list of credential ids.");
    }
    ids
}

/// The credentials a launch runs with when it gives `ids` in place of the template's
/// `defaults`: each must be one `actor` may use, and every credential type of the defaults
/// must still have one (a launch replaces a template's credential, it does not remove it, as
/// in the reference).
pub fn credentials(
    conn: &mut DbConnection,
    actor: &Actor,
    defaults: &[Credential],
    ids: &[i64],
) -> ApiResult<Vec<i64>> {
    let mut types = Vec::new();
    for id in ids {
        let (credential, _) = references::credential(conn, actor, "credentials", *id)?;
        types.push(credential.credential_type_id);
    }
    let lacking: Vec<&str> = defaults
        .iter()
        .filter(|default| !types.contains(&default.credential_type_id))
        .map(|default| default.name.as_str())
        .collect();
    if !lacking.is_empty() {
        return Err(ApiError::field(
            "credentials",
            format!(
                "Removing a credential at launch time without replacement is not supported. Provided list lacked credential(s): {}.",
                lacking.join(", ")
            ),
        ));
    }
    let mut unique = ids.to_vec();
    unique.dedup();
    Ok(unique)
}

/// The template's extra variables with the launch's over them, as JSON text.
pub fn merged_variables(template: &str, given: &str) -> ApiResult<String> {
    let parse = |text: &str| {
        if text.trim().is_empty() {
            return Ok(Map::new());
        }
        acs_app::automation::parse_variables(text)
            .map_err(|reason| ApiError::field("extra_vars", reason))
    };
    let mut variables = parse(template)?;
    variables.extend(parse(given)?);
    Ok(Value::Object(variables).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_variables_go_over_the_templates() {
        let merged = merged_variables("a: 1\nb: 2", r#"{"b": 3, "c": 4}"#).expect("merged");
        assert_eq!(
            serde_json::from_str::<Value>(&merged).expect("JSON"),
            serde_json::json!({"a": 1, "b": 3, "c": 4})
        );
        assert_eq!(
            merged_variables("", "x: y").expect("merged"),
            r#"{"x":"y"}"#
        );
        assert!(merged_variables("", "- a list").is_err());
    }
}

//! Reading and validating a credential type body (create, PUT, PATCH).
//!
//! `inputs` and `injectors` arrive as JSON objects or as strings holding YAML or JSON. The
//! injectors are re-validated on every write against the inputs the type will have, so a
//! change that drops a field an injector uses is refused.

use acs_credential_types::{InputConfiguration, parse_document};
use acs_storage::credential_types::CredentialType;
use serde_json::{Map, Value, json};

use crate::error::ApiResult;
use crate::http::fields::{FieldReader, Text};

/// Validated credential type fields; `None` means "not given" (PATCH).
#[derive(Debug)]
pub struct CredentialTypeInput {
    /// New name.
    pub name: Option<String>,
    /// New description.
    pub description: Option<String>,
    /// New kind (`cloud` or `net`).
    pub kind: Option<String>,
    /// The normalised input configuration, when given.
    pub inputs: Option<Value>,
    /// The injector configuration, when given.
    pub injectors: Option<Value>,
}

/// Reads `body`. `stored` is the type being updated (`None` on create): absent
/// configurations keep its values, and its inputs are what the injectors are checked against
/// when only the injectors change.
pub fn read(
    body: &Map<String, Value>,
    full: bool,
    stored: Option<&CredentialType>,
) -> ApiResult<CredentialTypeInput> {
    let mut fields = FieldReader::new(body, full);
    let name = fields.text("name", Text::required(512));
    let description = fields.text("description", Text::optional(8192));
    let kind = fields.text("kind", Text::required(32)).and_then(|text| {
        match acs_credential_types::check_custom_kind(&text) {
            Ok(kind) => Some(kind.as_str().to_owned()),
            Err(message) => {
                fields.error("kind", message);
                None
            }
        }
    });
    let mut shaped = Map::new();
    let inputs_document = document(body, "inputs", full, &mut shaped);
    let injectors_document = document(body, "injectors", full, &mut shaped);

    // The configuration the type will have: the new one, or the stored one.
    let stored_json = |text: &str| serde_json::from_str::<Value>(text).unwrap_or(json!({}));
    let mut inputs = None;
    let mut config: Option<InputConfiguration> = None;
    match inputs_document {
        Some(value) => match acs_credential_types::validate_inputs_config(&value, false) {
            Ok((parsed, normalized)) => match acs_credential_types::check_unique_labels(&parsed) {
                Ok(()) => {
                    config = Some(parsed);
                    inputs = Some(normalized);
                }
                Err(error) => {
                    shaped.insert("inputs".into(), json!([error]));
                }
            },
            Err(errors) => {
                shaped.insert("inputs".into(), json!(errors));
            }
        },
        None if !shaped.contains_key("inputs") => {
            let current = stored.map_or(json!({}), |t| stored_json(&t.inputs));
            let managed = stored.is_some_and(|t| t.managed);
            config = acs_credential_types::validate_inputs_config(&current, managed)
                .ok()
                .map(|(parsed, _)| parsed);
        }
        None => {}
    }
    let mut injectors = None;
    if let Some(config) = &config {
        let current = match injectors_document {
            Some(value) => Some(value),
            None if shaped.contains_key("injectors") => None,
            None => Some(stored.map_or(json!({}), |t| stored_json(&t.injectors))),
        };
        let given = body.get("injectors").is_some();
        if let Some(value) = current {
            let ids = config.field_ids();
            let managed = stored.is_some_and(|t| t.managed);
            match acs_credential_types::injectors::validate_injectors(&value, &ids, managed) {
                Ok(_) if given || full => injectors = Some(value),
                Ok(_) => {}
                Err(errors) => {
                    shaped.insert("injectors".into(), json!(errors));
                }
            }
        }
    }
    fields.finish_with(shaped)?;
    let blank = |v: Option<String>| if full { Some(v.unwrap_or_default()) } else { v };
    Ok(CredentialTypeInput {
        name,
        description: blank(description),
        kind,
        inputs,
        injectors,
    })
}

/// The parsed document of `key`: `Some` when given (or defaulted to `{}` on a full write),
/// `None` when absent from a PATCH or invalid (the error is added to `shaped`).
fn document(
    body: &Map<String, Value>,
    key: &str,
    full: bool,
    shaped: &mut Map<String, Value>,
) -> Option<Value> {
    match body.get(key) {
        None if full => Some(json!({})),
        None => None,
        Some(Value::Null) => {
            shaped.insert(key.into(), json!(["This field may not be null."]));
            None
        }
        Some(raw) => match parse_document(raw) {
            Ok(value) => Some(value),
            Err(error) => {
                shaped.insert(key.into(), json!([error.to_string()]));
                None
            }
        },
    }
}

impl CredentialTypeInput {
    /// Whether the inputs differ from `stored`'s (after normalisation, so re-sending the same
    /// fields without their `type` is no change).
    pub fn changes_inputs(&self, stored: &CredentialType) -> bool {
        match &self.inputs {
            Some(new) => serde_json::from_str::<Value>(&stored.inputs).ok().as_ref() != Some(new),
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ApiError;

    /// The body of a 400, or `"ok"`.
    fn shape(result: ApiResult<CredentialTypeInput>) -> Value {
        match result {
            Err(ApiError::Invalid(body)) => Value::Object(body),
            Err(other) => json!({ "other": other.to_string() }),
            Ok(_) => json!("ok"),
        }
    }

    fn create(body: Value) -> Value {
        shape(read(body.as_object().expect("object"), true, None))
    }

    #[test]
    fn create_needs_name_and_kind() {
        let errors = create(json!({}));
        assert_eq!(errors["name"], json!(["This field is required."]));
        assert_eq!(errors["kind"], json!(["This field is required."]));
    }

    #[test]
    fn custom_kinds_are_cloud_or_net() {
        let errors = create(json!({"name": "x", "kind": "ssh"}));
        assert_eq!(errors["kind"], json!(["Must be 'cloud' or 'net', not ssh"]));
        assert_eq!(create(json!({"name": "x", "kind": "net"})), json!("ok"));
    }

    #[test]
    fn inputs_and_injectors_may_be_yaml_strings() {
        let body = json!({
            "name": "x", "kind": "cloud",
            "inputs": "fields:\n  - id: api_token\n    label: Token\n    secret: true\n",
            "injectors": "env:\n  MY_TOKEN: '{{ api_token }}'\n",
        });
        let input = read(body.as_object().expect("object"), true, None).expect("valid");
        assert_eq!(input.inputs.expect("inputs")["fields"][0]["type"], "string");
        assert_eq!(
            input.injectors.expect("injectors")["env"]["MY_TOKEN"],
            "{{ api_token }}"
        );
    }

    #[test]
    fn injectors_are_checked_against_the_inputs() {
        let errors = create(json!({
            "name": "x", "kind": "cloud",
            "inputs": {"fields": [{"id": "a", "label": "A"}]},
            "injectors": {"env": {"X": "{{ b }}"}},
        }));
        assert_eq!(
            errors["injectors"],
            json!(["X uses an undefined field ('b' is undefined)"])
        );
    }

    #[test]
    fn bad_documents_name_their_key() {
        let errors =
            create(json!({"name": "x", "kind": "cloud", "inputs": "a: [", "injectors": null}));
        assert!(
            errors["inputs"][0]
                .as_str()
                .expect("message")
                .starts_with("Invalid")
        );
        assert_eq!(errors["injectors"], json!(["This field may not be null."]));
    }
}

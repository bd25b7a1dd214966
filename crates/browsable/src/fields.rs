//! The typed fields of a page's forms, beside the JSON text area: built from the body schema
//! the OpenAPI document gives the operation (the same field tables `OPTIONS` serves: names,
//! labels, help, types, choices, what is required), and read back into the JSON body.
//!
//! An empty input is left out of the body (the JSON form sends an empty value); an unticked
//! box is `false`; a number or a JSON field that does not parse goes as the text typed, for
//! the API to refuse with its own message.

use serde::Serialize;
use serde_json::{Map, Value};

/// The prefix of a field's input name, so no field can pose as the form's own inputs.
pub const PREFIX: &str = "field.";

/// How a field is typed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Text,
    Number,
    Checkbox,
    Select,
    Json,
}

/// One field of an operation's body.
#[derive(Debug, Clone)]
pub struct FieldSpec {
    name: String,
    label: String,
    help: String,
    kind: Kind,
    choices: Vec<String>,
    required: bool,
}

impl FieldSpec {
    /// The fields of the JSON body schema `schema` (an object schema), in its order.
    pub fn from_schema(schema: &Value) -> Vec<FieldSpec> {
        let required: Vec<&str> = schema["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        schema["properties"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(name, property)| {
                let choices: Vec<String> = property["enum"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|c| c.as_str().map(str::to_owned))
                    .collect();
                let kind = match property["type"].as_str() {
                    _ if !choices.is_empty() => Kind::Select,
                    Some("boolean") => Kind::Checkbox,
                    Some("integer" | "number") => Kind::Number,
                    Some("string") => Kind::Text,
                    _ => Kind::Json,
                };
                FieldSpec {
                    name: name.clone(),
                    label: property["title"].as_str().unwrap_or(name).to_owned(),
                    help: property["description"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned(),
                    kind,
                    choices,
                    required: required.contains(&name.as_str()),
                }
            })
            .collect()
    }
}

/// One field as the form shows it.
#[derive(Debug, Serialize)]
pub struct FormField {
    /// The input's name (`field.<name>`) and its element id.
    input: String,
    id: String,
    label: String,
    help: String,
    kind: Kind,
    choices: Vec<Choice>,
    required: bool,
    /// What the input holds; for a box, whether it is ticked.
    value: String,
    checked: bool,
}

#[derive(Debug, Serialize)]
struct Choice {
    value: String,
    selected: bool,
}

/// The inputs of `specs` in form `form`, holding `values` (a record, or the body sent): a
/// secret's mask is not shown, so that sending the form keeps the secret.
pub fn form_fields(specs: &[FieldSpec], form: &str, values: &Value) -> Vec<FormField> {
    specs
        .iter()
        .map(|spec| {
            let current = &values[&spec.name];
            let value = match current {
                Value::Null => String::new(),
                Value::String(text) if text == acs_credential_types::ENCRYPTED_PLACEHOLDER => {
                    String::new()
                }
                Value::String(text) => text.clone(),
                Value::Object(_) | Value::Array(_) => {
                    serde_json::to_string_pretty(current).unwrap_or_default()
                }
                other => other.to_string(),
            };
            FormField {
                input: format!("{PREFIX}{}", spec.name),
                id: format!("{form}-{}", spec.name),
                label: spec.label.clone(),
                help: spec.help.clone(),
                kind: spec.kind,
                choices: spec
                    .choices
                    .iter()
                    .map(|choice| Choice {
                        value: choice.clone(),
                        selected: *choice == value,
                    })
                    .collect(),
                required: spec.required,
                checked: *current == Value::Bool(true),
                value,
            }
        })
        .collect()
}

/// The JSON body the inputs `posted` (name and value, as sent) stand for.
pub fn body_from_fields(specs: &[FieldSpec], posted: &[(String, String)]) -> Value {
    let sent = |name: &str| {
        posted
            .iter()
            .find(|(input, _)| input.strip_prefix(PREFIX) == Some(name))
            .map(|(_, value)| value.as_str())
    };
    let mut body = Map::new();
    for spec in specs {
        let value = match (spec.kind, sent(&spec.name)) {
            (Kind::Checkbox, sent) => Value::Bool(sent.is_some()),
            (_, None | Some("")) => continue,
            (Kind::Number, Some(text)) => serde_json::from_str::<serde_json::Number>(text.trim())
                .map_or_else(|_| Value::from(text), Value::Number),
            (Kind::Json, Some(text)) => {
                serde_json::from_str(text).unwrap_or_else(|_| Value::from(text))
            }
            (Kind::Text | Kind::Select, Some(text)) => Value::from(text),
        };
        body.insert(spec.name.clone(), value);
    }
    Value::Object(body)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn specs() -> Vec<FieldSpec> {
        FieldSpec::from_schema(&json!({
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string", "title": "Name", "description": "Unique."},
                "client_type": {"type": "string", "enum": ["confidential", "public"]},
                "skip_authorization": {"type": "boolean"},
                "organization": {"type": "integer"},
                "inputs": {},
                "password": {"type": "string"},
            }
        }))
    }

    #[test]
    fn inputs_follow_the_schema_and_hide_secrets() {
        let fields = form_fields(
            &specs(),
            "edit",
            &json!({"name": "a", "client_type": "public", "skip_authorization": true,
                    "organization": 3, "inputs": {"k": 1}, "password": "$encrypted$"}),
        );
        let by_name = |name: &str| {
            fields
                .iter()
                .find(|f| f.input == format!("field.{name}"))
                .expect(name)
        };
        assert_eq!(by_name("name").kind, Kind::Text);
        assert!(by_name("name").required);
        assert_eq!(by_name("name").label, "Name");
        assert_eq!(by_name("client_type").kind, Kind::Select);
        assert!(by_name("client_type").choices[1].selected);
        assert!(by_name("skip_authorization").checked);
        assert_eq!(by_name("organization").value, "3");
        assert_eq!(by_name("inputs").kind, Kind::Json);
        assert_eq!(
            by_name("password").value,
            "",
            "the mask is not a value to send"
        );
        assert_eq!(by_name("name").id, "edit-name");
    }

    #[test]
    fn posted_inputs_become_the_body() {
        let posted: Vec<(String, String)> = [
            ("field.name", "n"),
            ("field.client_type", "public"),
            ("field.organization", "7"),
            ("field.inputs", "{\"k\": [1]}"),
            ("field.password", ""),
            ("_method", "POST"),
        ]
        .iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect();
        assert_eq!(
            body_from_fields(&specs(), &posted),
            json!({"name": "n", "client_type": "public", "skip_authorization": false,
                   "organization": 7, "inputs": {"k": [1]}})
        );
        let typo = [("field.organization".to_owned(), "seven".to_owned())];
        assert_eq!(
            body_from_fields(&specs(), &typo)["organization"],
            json!("seven")
        );
    }
}

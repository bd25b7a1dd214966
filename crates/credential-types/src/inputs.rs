//! The input configuration of a credential type and its validation.
//!
//! A credential type's `inputs` document declares the fields its credentials hold:
//!
//! ```json
//! {
//!   "fields": [
//!     {"id": "username", "label": "Username"},
//!     {"id": "token", "label": "Token", "secret": true}
//!   ],
//!   "required": ["username"]
//! }
//! ```
//!
//! [`validate_inputs_config`] checks such a document exactly as the reference system does (the
//! same JSON schema, the same post-schema checks, the same messages) with two ACS changes: the
//! reserved field id is `svc` (the template namespace), and custom types may not use ids
//! starting with `AUTOMATION_`. On success it returns the typed [`InputConfiguration`] and the
//! normalised document to store, in which every field carries an explicit `"type"`.

use std::collections::{BTreeMap, HashSet};
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::schema_messages::{py_str, schema_error_messages};

/// The id no input field may have: it names the template namespace (`{{ svc.filename }}`).
pub const RESERVED_FIELD_ID: &str = "svc";

/// The prefix reserved for the service itself: custom types may not start field ids with it.
pub const RESERVED_PREFIX: &str = "AUTOMATION_";

/// The type of an input field's value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FieldType {
    /// A text value (the default when a field declares no type).
    #[default]
    String,
    /// `true` or `false`.
    Boolean,
}

impl FieldType {
    /// The name used in documents and messages (`string`, `boolean`).
    pub fn as_str(self) -> &'static str {
        match self {
            FieldType::String => "string",
            FieldType::Boolean => "boolean",
        }
    }
}

/// A format check applied to a string field's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// One or more PEM blocks holding at least one private key (see [`crate::ssh_key`]).
    SshPrivateKey,
    /// An absolute URL with a scheme and a host.
    Url,
    /// An Ansible Vault id; `@` is not allowed. Only the managed vault type uses it.
    VaultId,
}

impl Format {
    /// The name used in documents (`ssh_private_key`, `url`, `vault_id`).
    pub fn as_str(self) -> &'static str {
        match self {
            Format::SshPrivateKey => "ssh_private_key",
            Format::Url => "url",
            Format::VaultId => "vault_id",
        }
    }
}

/// One declared input field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputField {
    /// The key of the value in a credential's `inputs`, and its name in templates.
    pub id: String,
    /// The human label.
    pub label: String,
    /// Optional help shown with the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help_text: Option<String>,
    /// The type of the value (`"type"` in documents; always written).
    #[serde(rename = "type", default)]
    pub field_type: FieldType,
    /// A format check for string values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<Format>,
    /// The allowed values of a string field; the first one is used for an empty value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choices: Option<Vec<String>>,
    /// Whether the value is encrypted at rest and masked when shown.
    #[serde(default, skip_serializing_if = "is_false")]
    pub secret: bool,
    /// Whether the value is shown as multi-line text.
    #[serde(default, skip_serializing_if = "is_false")]
    pub multiline: bool,
    /// Whether the value may be `ASK`, to be prompted for at launch (managed types only).
    #[serde(default, skip_serializing_if = "is_false")]
    pub ask_at_runtime: bool,
    /// A default value offered to clients (never injected); its type matches `field_type`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
}

// `skip_serializing_if` passes a reference.
#[expect(clippy::trivially_copy_pass_by_ref)]
fn is_false(value: &bool) -> bool {
    !*value
}

/// A validated input configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputConfiguration {
    /// The declared fields, in declaration order.
    #[serde(default)]
    pub fields: Vec<InputField>,
    /// Ids of the fields a credential must provide. Ids that name no field are allowed and
    /// ignored.
    #[serde(default)]
    pub required: Vec<String>,
    /// Managed types only: a field id mapped to the ids of the fields that must be set when it
    /// is set (the network type's `authorize_password` needs `authorize`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub dependencies: BTreeMap<String, Vec<String>>,
    /// Whether this is the configuration of a managed (built-in) type. Managed-only rules (the
    /// SSH key unlock rules) apply only then. Set by [`validate_inputs_config`]; not part of the
    /// document.
    #[serde(skip)]
    pub managed: bool,
}

impl InputConfiguration {
    /// The field with id `id`.
    pub fn field(&self, id: &str) -> Option<&InputField> {
        self.fields.iter().find(|field| field.id == id)
    }

    /// The ids of every field, in declaration order.
    pub fn field_ids(&self) -> Vec<&str> {
        self.fields.iter().map(|field| field.id.as_str()).collect()
    }

    /// Whether `id` names a secret field.
    pub fn is_secret(&self, id: &str) -> bool {
        self.field(id).is_some_and(|field| field.secret)
    }
}

/// The JSON schema of input configurations (draft 4), as in the reference system.
///
/// Managed types additionally allow `format: vault_id` and the `dependencies` key. The `error`
/// keyword is not a JSON-schema keyword: it is the message for a failing `pattern`, read by the
/// error formatter.
fn inputs_schema(managed: bool) -> Value {
    let formats: &[&str] = if managed {
        &["ssh_private_key", "url", "vault_id"]
    } else {
        &["ssh_private_key", "url"]
    };
    let mut properties = json!({
        "required": {"type": "array", "items": {"type": "string"}},
        "fields": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": false,
                "required": ["id", "label"],
                "properties": {
                    "id": {
                        "type": "string",
                        "pattern": "^[a-zA-Z_]+[a-zA-Z0-9_]*$",
                        "error": "{instance} is an invalid variable name"
                    },
                    "label": {"type": "string"},
                    "help_text": {"type": "string"},
                    "type": {"enum": ["string", "boolean"]},
                    "format": {"enum": formats},
                    "choices": {
                        "type": "array",
                        "minItems": 1,
                        "uniqueItems": true,
                        "items": {"type": "string"}
                    },
                    "multiline": {"type": "boolean"},
                    "secret": {"type": "boolean"},
                    "ask_at_runtime": {"type": "boolean"},
                    "default": {}
                }
            }
        }
    });
    if managed && let Some(properties) = properties.as_object_mut() {
        properties.insert(
            "dependencies".to_owned(),
            json!({
                "type": "object",
                "additionalProperties": {"type": "array", "items": {"type": "string"}}
            }),
        );
    }
    json!({
        "type": "object",
        "additionalProperties": false,
        "properties": properties
    })
}

/// A compiled schema together with its source (the error formatter reads the source).
struct CompiledSchema {
    schema: Value,
    validator: jsonschema::Validator,
}

impl CompiledSchema {
    fn new(schema: Value) -> CompiledSchema {
        // The schemas are constants of this module; a unit test compiles both.
        let validator = jsonschema::draft4::new(&schema)
            .unwrap_or_else(|error| panic!("the inputs schema is invalid: {error}"));
        CompiledSchema { schema, validator }
    }

    fn errors(&self, instance: &Value) -> Vec<String> {
        schema_error_messages(&self.validator, &self.schema, instance)
    }
}

static CUSTOM_SCHEMA: LazyLock<CompiledSchema> =
    LazyLock::new(|| CompiledSchema::new(inputs_schema(false)));
static MANAGED_SCHEMA: LazyLock<CompiledSchema> =
    LazyLock::new(|| CompiledSchema::new(inputs_schema(true)));

/// Checks that no two fields of `config` share a label (specification §2.4: a label names one
/// field of its type; forms and the CLI show labels). Applied when a type is written, not when
/// a stored one is read, so a type stored before the rule stays usable.
///
/// # Errors
///
/// `field labels must be unique (<label>)`, for the API's `{"inputs": [...]}`.
pub fn check_unique_labels(config: &InputConfiguration) -> Result<(), String> {
    let mut labels: HashSet<&str> = HashSet::new();
    match config
        .fields
        .iter()
        .find(|field| !labels.insert(field.label.as_str()))
    {
        Some(field) => Err(format!("field labels must be unique ({})", field.label)),
        None => Ok(()),
    }
}

/// Validates an input configuration document.
///
/// `value` is the document as a JSON value (see [`crate::document::parse_document`] for text).
/// `managed` selects the rules of managed (built-in) types; API-written types are custom.
///
/// The checks, as in the reference system:
///
/// 1. custom types: a `dependencies` key gives
///    `'dependencies' is not supported for custom credentials.`;
/// 2. the JSON schema; every schema error is reported (see the crate's schema message rules),
///    and nothing else runs when there is one;
/// 3. field by field, stopping at the first failure: the reserved id (`"svc" is a reserved
///    field name`), the reserved prefix on custom types (`AUTOMATION_X uses the reserved prefix
///    AUTOMATION_ and is not allowed in credentials.`), duplicate ids (`field IDs must be unique
///    (<id>)`), the type of `default` (`None is not a string`, `True is not a string`, `some
///    default string is not a boolean`), keys a boolean field may not have (`choices not allowed
///    for boolean type (<id>)`, likewise `multiline`, `format`, `secret`);
/// 4. custom types: any `ask_at_runtime: true` gives
///    `'ask_at_runtime' is not supported for custom credentials.`
///
/// # Returns
///
/// The typed configuration and the normalised document: `value` with `"type": "string"` added
/// to every field that declares no type, otherwise unchanged (key order included).
///
/// # Errors
///
/// The messages, for the API's `{"inputs": [...]}`.
pub fn validate_inputs_config(
    value: &Value,
    managed: bool,
) -> Result<(InputConfiguration, Value), Vec<String>> {
    if !managed
        && value
            .as_object()
            .is_some_and(|object| object.contains_key("dependencies"))
    {
        return Err(vec![
            "'dependencies' is not supported for custom credentials.".to_owned(),
        ]);
    }
    let schema = if managed {
        &*MANAGED_SCHEMA
    } else {
        &*CUSTOM_SCHEMA
    };
    let errors = schema.errors(value);
    if !errors.is_empty() {
        return Err(errors);
    }

    check_fields(value, managed).map_err(|message| vec![message])?;

    if !managed
        && field_objects(value).any(|field| field.get("ask_at_runtime") == Some(&Value::Bool(true)))
    {
        return Err(vec![
            "'ask_at_runtime' is not supported for custom credentials.".to_owned(),
        ]);
    }

    let normalised = normalise(value);
    let mut configuration: InputConfiguration = serde_json::from_value(normalised.clone())
        .map_err(|error| vec![format!("Invalid input configuration: {error}")])?;
    configuration.managed = managed;
    Ok((configuration, normalised))
}

/// The field objects of a schema-valid document.
fn field_objects(value: &Value) -> impl Iterator<Item = &Map<String, Value>> {
    value
        .get("fields")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(Value::as_object)
}

/// The post-schema checks, field by field, stopping at the first failure.
fn check_fields(value: &Value, managed: bool) -> Result<(), String> {
    let mut seen: HashSet<&str> = HashSet::new();
    for field in field_objects(value) {
        let id = field.get("id").and_then(Value::as_str).unwrap_or_default();
        if id == RESERVED_FIELD_ID {
            return Err(format!("\"{RESERVED_FIELD_ID}\" is a reserved field name"));
        }
        if !managed && id.starts_with(RESERVED_PREFIX) {
            return Err(format!(
                "{id} uses the reserved prefix {RESERVED_PREFIX} and is not allowed in credentials."
            ));
        }
        if !seen.insert(id) {
            return Err(format!("field IDs must be unique ({id})"));
        }
        let field_type = field
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(FieldType::String.as_str());
        if let Some(default) = field.get("default") {
            let matches = match field_type {
                "boolean" => default.is_boolean(),
                _ => default.is_string(),
            };
            if !matches {
                return Err(format!("{} is not a {field_type}", py_str(default)));
            }
        }
        if field_type == FieldType::Boolean.as_str() {
            for key in ["choices", "multiline", "format", "secret"] {
                if field.contains_key(key) {
                    return Err(format!("{key} not allowed for boolean type ({id})"));
                }
            }
        }
    }
    Ok(())
}

/// `value` with `"type": "string"` added to every field object that has no `type`.
fn normalise(value: &Value) -> Value {
    let mut normalised = value.clone();
    if let Some(fields) = normalised.get_mut("fields").and_then(Value::as_array_mut) {
        for field in fields.iter_mut().filter_map(Value::as_object_mut) {
            if !field.contains_key("type") {
                field.insert("type".to_owned(), Value::from(FieldType::String.as_str()));
            }
        }
    }
    normalised
}

#[cfg(test)]
mod tests {
    use super::*;

    fn custom(value: Value) -> Result<(InputConfiguration, Value), Vec<String>> {
        validate_inputs_config(&value, false)
    }

    fn errors(value: Value) -> Vec<String> {
        custom(value).expect_err("should be refused")
    }

    fn field(extra: Value) -> Value {
        let mut field = json!({"id": "field", "label": "Field"});
        if let (Some(field), Value::Object(extra)) = (field.as_object_mut(), extra) {
            field.extend(extra);
        }
        json!({"fields": [field]})
    }

    #[test]
    fn both_schemas_compile() {
        assert!(CUSTOM_SCHEMA.validator.is_valid(&json!({})));
        assert!(
            MANAGED_SCHEMA
                .validator
                .is_valid(&json!({"dependencies": {}}))
        );
    }

    #[test]
    fn accepted_examples() {
        for value in [
            json!({}),
            json!({"fields": []}),
            json!({"fields": [{"id": "username", "label": "Username"}]}),
            field(json!({"format": "ssh_private_key"})),
            field(json!({"format": "url"})),
            field(json!({"type": "boolean"})),
            field(json!({"multiline": true})),
            field(json!({"secret": true})),
            field(json!({"ask_at_runtime": false})),
            field(json!({"choices": ["su", "sudo"]})),
            field(json!({"help_text": "Help"})),
            field(json!({"type": "string", "default": "x"})),
            field(json!({"type": "boolean", "default": true})),
            json!({"fields": [{"id": "Tower", "label": "Capital"}], "required": ["unknown"]}),
        ] {
            assert!(
                custom(value.clone()).is_ok(),
                "{value}: {:?}",
                custom(value.clone())
            );
        }
    }

    #[test]
    fn normalisation_adds_type_and_keeps_the_rest() {
        let value = json!({
            "required": ["a"],
            "fields": [
                {"id": "a", "label": "A", "secret": true},
                {"label": "B", "id": "b", "type": "boolean"}
            ]
        });
        let (configuration, normalised) = custom(value).expect("valid");
        assert_eq!(
            normalised,
            json!({
                "required": ["a"],
                "fields": [
                    {"id": "a", "label": "A", "secret": true, "type": "string"},
                    {"label": "B", "id": "b", "type": "boolean"}
                ]
            })
        );
        let keys: Vec<&String> = normalised["fields"][0]
            .as_object()
            .expect("object")
            .keys()
            .collect();
        assert_eq!(keys, ["id", "label", "secret", "type"]);
        assert_eq!(configuration.field_ids(), ["a", "b"]);
        assert!(configuration.is_secret("a"));
        assert!(!configuration.is_secret("b"));
        assert!(!configuration.is_secret("missing"));
        assert_eq!(
            configuration.field("b").map(|field| field.field_type),
            Some(FieldType::Boolean)
        );
        assert!(!configuration.managed);
    }

    #[test]
    fn typed_model_serialises_to_the_document_shape() {
        let (configuration, _) = custom(json!({
            "fields": [
                {"id": "a", "label": "A", "format": "url", "choices": ["x"], "default": "x"},
                {"id": "b", "label": "B", "type": "boolean"}
            ]
        }))
        .expect("valid");
        assert_eq!(
            serde_json::to_value(&configuration).expect("serialises"),
            json!({
                "fields": [
                    {"id": "a", "label": "A", "type": "string", "format": "url",
                     "choices": ["x"], "default": "x"},
                    {"id": "b", "label": "B", "type": "boolean"}
                ],
                "required": []
            })
        );
    }

    #[test]
    fn root_type_errors() {
        assert_eq!(errors(json!(true)), ["bool provided, expected dict"]);
        assert_eq!(errors(json!(100)), ["int provided, expected dict"]);
        assert_eq!(
            errors(json!([1, 2, 3, 4])),
            ["list provided, expected dict"]
        );
        assert_eq!(errors(json!("malformed")), ["str provided, expected dict"]);
        assert_eq!(errors(json!(null)), ["NoneType provided, expected dict"]);
        assert_eq!(errors(json!(1.5)), ["float provided, expected dict"]);
    }

    #[test]
    fn reference_schema_messages() {
        let cases = [
            (
                json!({"fields": {}}),
                "dict provided in relative path ['fields'], expected array",
            ),
            (
                json!({"fields": 123}),
                "int provided in relative path ['fields'], expected array",
            ),
            (
                field(json!({"foo": "bar"})),
                "Schema validation error in relative path ['fields', 0] (Additional properties are not allowed ('foo' was unexpected))",
            ),
            (
                field(json!({"help_text": 1})),
                "int provided in relative path ['fields', 0, 'help_text'], expected string",
            ),
            (
                json!({"fields": [{"id": "$invalid$", "label": "L"}]}),
                "$invalid$ is an invalid variable name",
            ),
            (
                json!({"fields": [{"id": "9x", "label": "L"}]}),
                "9x is an invalid variable name",
            ),
            (
                json!({"fields": [{"id": "x-y", "label": "L"}]}),
                "x-y is an invalid variable name",
            ),
            (
                field(json!({"type": "invalid-type"})),
                "'invalid-type' is not one of ['string', 'boolean']",
            ),
            (
                field(json!({"format": "vault_id"})),
                "'vault_id' is not one of ['ssh_private_key', 'url']",
            ),
            (
                field(json!({"choices": "not-a-list"})),
                "str provided in relative path ['fields', 0, 'choices'], expected array",
            ),
            (field(json!({"choices": []})), "[] should be non-empty"),
            (
                field(json!({"choices": ["dup", "dup"]})),
                "['dup', 'dup'] has non-unique elements",
            ),
            (
                field(json!({"choices": [1]})),
                "int provided in relative path ['fields', 0, 'choices', 0], expected string",
            ),
            (
                field(json!({"multiline": "bad"})),
                "str provided in relative path ['fields', 0, 'multiline'], expected boolean",
            ),
            (
                field(json!({"secret": "bad"})),
                "str provided in relative path ['fields', 0, 'secret'], expected boolean",
            ),
            (
                field(json!({"ask_at_runtime": "bad"})),
                "str provided in relative path ['fields', 0, 'ask_at_runtime'], expected boolean",
            ),
            (
                json!({"fields": [{"id": "username"}]}),
                "'label' is a required property",
            ),
            (
                json!({"fields": [{"label": "Username"}]}),
                "'id' is a required property",
            ),
            (
                json!({"feelds": {}}),
                "Schema validation error in relative path [] (Additional properties are not allowed ('feelds' was unexpected))",
            ),
            (
                json!({"required": "x"}),
                "str provided in relative path ['required'], expected array",
            ),
            (
                json!({"metadata": []}),
                "Schema validation error in relative path [] (Additional properties are not allowed ('metadata' was unexpected))",
            ),
        ];
        for (value, expected) in cases {
            assert_eq!(errors(value.clone()), [expected], "{value}");
        }
    }

    #[test]
    fn every_schema_error_is_reported() {
        assert_eq!(
            errors(json!({"fields": [123, 234, 345]})),
            [
                "int provided in relative path ['fields', 0], expected dict",
                "int provided in relative path ['fields', 1], expected dict",
                "int provided in relative path ['fields', 2], expected dict",
            ]
        );
    }

    #[test]
    fn dependencies_are_for_managed_types_only() {
        let value = json!({
            "fields": [
                {"id": "authorize", "label": "Authorize", "type": "boolean"},
                {"id": "authorize_password", "label": "Password", "secret": true}
            ],
            "dependencies": {"authorize_password": ["authorize"]}
        });
        assert_eq!(
            errors(value.clone()),
            ["'dependencies' is not supported for custom credentials."]
        );
        let (configuration, _) = validate_inputs_config(&value, true).expect("managed");
        assert_eq!(
            configuration.dependencies.get("authorize_password"),
            Some(&vec!["authorize".to_owned()])
        );
        assert!(configuration.managed);
        assert_eq!(
            validate_inputs_config(&json!({"dependencies": {"a": "b"}}), true)
                .expect_err("bad dependencies"),
            ["str provided in relative path ['dependencies', 'a'], expected array"]
        );
    }

    #[test]
    fn vault_id_format_is_for_managed_types_only() {
        let value = field(json!({"format": "vault_id"}));
        assert!(validate_inputs_config(&value, true).is_ok());
        assert_eq!(
            validate_inputs_config(&field(json!({"format": "other"})), true)
                .expect_err("unknown format"),
            ["'other' is not one of ['ssh_private_key', 'url', 'vault_id']"]
        );
    }

    #[test]
    fn reserved_names() {
        assert_eq!(
            errors(json!({"fields": [{"id": "svc", "label": "S"}]})),
            ["\"svc\" is a reserved field name"]
        );
        assert!(custom(json!({"fields": [{"id": "Svc", "label": "S"}]})).is_ok());
        assert!(custom(json!({"fields": [{"id": "tower", "label": "T"}]})).is_ok());
        assert_eq!(
            errors(json!({"fields": [{"id": "AUTOMATION_TOKEN", "label": "T"}]})),
            [
                "AUTOMATION_TOKEN uses the reserved prefix AUTOMATION_ and is not allowed in credentials."
            ]
        );
        assert!(
            validate_inputs_config(
                &json!({"fields": [{"id": "AUTOMATION_TOKEN", "label": "T"}]}),
                true
            )
            .is_ok()
        );
        assert_eq!(
            validate_inputs_config(&json!({"fields": [{"id": "svc", "label": "S"}]}), true)
                .expect_err("reserved for managed too"),
            ["\"svc\" is a reserved field name"]
        );
    }

    #[test]
    fn duplicate_ids() {
        assert_eq!(
            errors(json!({"fields": [
                {"id": "a", "label": "A"},
                {"id": "b", "label": "B"},
                {"id": "a", "label": "Again"}
            ]})),
            ["field IDs must be unique (a)"]
        );
    }

    #[test]
    fn duplicate_labels() {
        let config = |fields: Value| {
            validate_inputs_config(&json!({ "fields": fields }), false)
                .expect("valid otherwise")
                .0
        };
        let twice = config(json!([
            {"id": "a", "label": "Token"},
            {"id": "b", "label": "B"},
            {"id": "c", "label": "Token"}
        ]));
        assert_eq!(
            check_unique_labels(&twice),
            Err("field labels must be unique (Token)".to_owned())
        );
        let once = config(json!([{"id": "a", "label": "A"}, {"id": "b", "label": "B"}]));
        assert_eq!(check_unique_labels(&once), Ok(()));
    }

    #[test]
    fn defaults_must_match_the_type() {
        let cases = [
            (json!({"default": null}), "None is not a string"),
            (json!({"default": true}), "True is not a string"),
            (json!({"default": false}), "False is not a string"),
            (json!({"default": 1}), "1 is not a string"),
            (json!({"default": ["a"]}), "['a'] is not a string"),
            (
                json!({"type": "boolean", "default": "some default string"}),
                "some default string is not a boolean",
            ),
            (
                json!({"type": "boolean", "default": null}),
                "None is not a boolean",
            ),
            (
                json!({"type": "boolean", "default": {"a": 1}}),
                "{'a': 1} is not a boolean",
            ),
        ];
        for (extra, expected) in cases {
            assert_eq!(errors(field(extra.clone())), [expected], "{extra}");
        }
    }

    #[test]
    fn boolean_fields_refuse_string_options() {
        for key in ["choices", "multiline", "format", "secret"] {
            let value = match key {
                "choices" => json!(["a"]),
                "format" => json!("url"),
                _ => json!(false),
            };
            let mut extra = json!({"type": "boolean"});
            extra[key] = value;
            let mut document = field(extra);
            document["fields"][0]["id"] = json!("flag");
            assert_eq!(
                errors(document),
                [format!("{key} not allowed for boolean type (flag)")]
            );
        }
    }

    #[test]
    fn checks_run_field_by_field_and_stop_at_the_first() {
        // The boolean error of the first field comes before the reserved id of the second.
        assert_eq!(
            errors(json!({"fields": [
                {"id": "flag", "label": "F", "type": "boolean", "secret": true},
                {"id": "svc", "label": "S"}
            ]})),
            ["secret not allowed for boolean type (flag)"]
        );
        // Schema errors hide the post-schema checks.
        assert_eq!(
            errors(json!({"fields": [
                {"id": "svc", "label": "S"},
                {"id": "x", "label": 1}
            ]})),
            ["int provided in relative path ['fields', 1, 'label'], expected string"]
        );
    }

    #[test]
    fn ask_at_runtime_is_for_managed_types_only() {
        let value = field(json!({"ask_at_runtime": true}));
        assert_eq!(
            errors(value.clone()),
            ["'ask_at_runtime' is not supported for custom credentials."]
        );
        let (configuration, _) = validate_inputs_config(&value, true).expect("managed");
        assert!(configuration.fields[0].ask_at_runtime);
    }
}

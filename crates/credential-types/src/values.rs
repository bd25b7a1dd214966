//! A credential's inputs checked against its type, and their display form.
//!
//! [`validate_credential_inputs`] turns the `inputs` a client sends into the plaintext values
//! to store, following the reference system's rules with the product contract's changes
//! (required fields are checked on save; `$encrypted$` for a never-stored secret is dropped
//! rather than crashing; format checks skip empty values). [`encrypted_fields`] tells the
//! caller which of the resulting values to encrypt, and [`masked`] renders stored values for
//! display.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Map, Value};

use crate::inputs::{FieldType, Format, InputConfiguration, InputField};
use crate::schema_messages::{py_repr, py_str_repr, py_type_name};
use crate::ssh_key::{KeyInfo, check_private_key};

/// What a client sends back for a stored secret, and how stored secrets are shown.
pub const ENCRYPTED_PLACEHOLDER: &str = "$encrypted$";

/// The value of an `ask_at_runtime` field whose value is prompted for at launch.
pub const ASK: &str = "ASK";

/// The id of the SSH private key field of the managed types.
const SSH_KEY_FIELD: &str = "ssh_key_data";

/// The id of the SSH key passphrase field of the managed types.
const SSH_KEY_UNLOCK_FIELD: &str = "ssh_key_unlock";

/// Why a credential's inputs were refused.
///
/// Either general errors (not tied to one field: the inputs are not an object, carry unknown
/// keys, misuse `$encrypted$`), which stop validation at once, or errors per field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InputErrors {
    /// Errors about the inputs as a whole.
    pub general: Vec<String>,
    /// Errors per field id.
    pub fields: BTreeMap<String, Vec<String>>,
}

impl InputErrors {
    fn general(message: String) -> InputErrors {
        InputErrors {
            general: vec![message],
            fields: BTreeMap::new(),
        }
    }

    /// Records `message` for `field` unless the field already has an error (one message per
    /// field, the first found, as in the reference system).
    fn add(&mut self, field: &str, message: String) {
        self.fields
            .entry(field.to_owned())
            .or_insert_with(|| vec![message]);
    }

    fn has(&self, field: &str) -> bool {
        self.fields.contains_key(field)
    }

    /// The API body under `inputs`: `["message", …]` for general errors, else
    /// `{"field": ["message"], …}`.
    pub fn to_value(&self) -> Value {
        if self.general.is_empty() {
            Value::Object(
                self.fields
                    .iter()
                    .map(|(field, messages)| (field.clone(), Value::from(messages.clone())))
                    .collect(),
            )
        } else {
            Value::from(self.general.clone())
        }
    }
}

impl fmt::Display for InputErrors {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        let mut separate = |formatter: &mut fmt::Formatter<'_>| {
            let result = if first {
                Ok(())
            } else {
                formatter.write_str("; ")
            };
            first = false;
            result
        };
        for message in &self.general {
            separate(formatter)?;
            formatter.write_str(message)?;
        }
        for (field, messages) in &self.fields {
            for message in messages {
                separate(formatter)?;
                write!(formatter, "{field}: {message}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for InputErrors {}

/// Validates the `inputs` a client submits for a credential of the type `config` describes.
///
/// `previous` holds the stored plaintext values when an existing credential is updated and is
/// `None` on creation. The rules, in order:
///
/// 1. `submitted` must be an object: else `<pytype> provided, expected dict` (general);
/// 2. every key must be a defined field: else
///    `Additional properties are not allowed ('a', 'b' were unexpected)` (general, sorted);
/// 3. a secret field's value must be a string (or empty): else
///    `secret values must be of type string, not <pytype>` (general);
/// 4. `$encrypted$` for a secret field: on creation it is refused
///    (`$encrypted$ is a reserved keyword, and cannot be used for <field>.`, general); on update
///    it stands for the stored value, and is dropped when nothing is stored;
/// 5. falsy values (`""`, `null`, `false`, `0`, `[]`, `{}`) become the field's empty value: the
///    first choice, else `""` for strings and `false` for booleans;
/// 6. per field: the type (`1 is not of type 'string'`, `'x' is not of type 'boolean'`), the
///    choices (`'asia' is not one of ['us', 'eu']`) and the format of non-empty values (`url`,
///    `vault_id`, `ssh_private_key`); `ASK` on an `ask_at_runtime` field is kept as is;
/// 7. the type's dependencies: a set field whose dependency is not set gets
///    `cannot be set unless "<dependency label>" is set`;
/// 8. managed types with an `ssh_key_unlock` field: an encrypted key needs it
///    (`must be set when SSH key is encrypted.`), an unencrypted one must not have it
///    (`should not be set when SSH key is not encrypted.`); skipped when the key is invalid;
/// 9. empty secrets are removed;
/// 10. every required id that names a field must have a value other than `""`:
///     `This field is required.`
///
/// # Returns
///
/// The plaintext values to store (secrets still in clear; see [`encrypted_fields`]).
///
/// # Errors
///
/// [`InputErrors`]: the first general error alone, or every field error.
pub fn validate_credential_inputs(
    config: &InputConfiguration,
    submitted: &Value,
    previous: Option<&Map<String, Value>>,
) -> Result<Map<String, Value>, InputErrors> {
    let Value::Object(submitted) = submitted else {
        return Err(InputErrors::general(format!(
            "{} provided, expected dict",
            py_type_name(submitted)
        )));
    };

    let mut unknown: Vec<&str> = submitted
        .keys()
        .map(String::as_str)
        .filter(|key| config.field(key).is_none())
        .collect();
    if !unknown.is_empty() {
        unknown.sort_unstable();
        let verb = if unknown.len() == 1 { "was" } else { "were" };
        let joined = unknown
            .iter()
            .map(|key| py_str_repr(key))
            .collect::<Vec<_>>()
            .join(", ");
        return Err(InputErrors::general(format!(
            "Additional properties are not allowed ({joined} {verb} unexpected)"
        )));
    }

    for (key, value) in submitted {
        if config.is_secret(key) && !value.is_string() && !is_falsy(value) {
            return Err(InputErrors::general(format!(
                "secret values must be of type string, not {}",
                py_type_name(value)
            )));
        }
    }

    if previous.is_none()
        && let Some(field) = config.fields.iter().find(|field| {
            field.secret
                && submitted.get(&field.id).and_then(Value::as_str) == Some(ENCRYPTED_PLACEHOLDER)
        })
    {
        return Err(InputErrors::general(format!(
            "{ENCRYPTED_PLACEHOLDER} is a reserved keyword, and cannot be used for {}.",
            field.id
        )));
    }

    let mut values = Map::new();
    for (key, value) in submitted {
        let Some(field) = config.field(key) else {
            continue;
        };
        if field.secret && value.as_str() == Some(ENCRYPTED_PLACEHOLDER) {
            if let Some(stored) = previous.and_then(|previous| previous.get(key)) {
                values.insert(key.clone(), stored.clone());
            }
            continue;
        }
        let value = if is_falsy(value) {
            empty_value(field)
        } else {
            value.clone()
        };
        values.insert(key.clone(), value);
    }

    let mut errors = InputErrors::default();
    let mut ssh_key: Option<KeyInfo> = None;
    for (key, value) in &values {
        let Some(field) = config.field(key) else {
            continue;
        };
        match check_value(field, value) {
            Ok(info) => {
                if key == SSH_KEY_FIELD && is_set(Some(value)) {
                    ssh_key = info;
                }
            }
            Err(message) => errors.add(key, message),
        }
    }

    for (field_id, dependencies) in &config.dependencies {
        if errors.has(field_id) || !is_set(values.get(field_id)) {
            continue;
        }
        if let Some(missing) = dependencies
            .iter()
            .find(|dependency| !is_set(values.get(dependency.as_str())))
        {
            let label = config
                .field(missing)
                .map_or(missing.as_str(), |field| field.label.as_str());
            errors.add(field_id, format!("cannot be set unless \"{label}\" is set"));
        }
    }

    if config.managed
        && config.field(SSH_KEY_UNLOCK_FIELD).is_some()
        && !errors.has(SSH_KEY_FIELD)
        && !errors.has(SSH_KEY_UNLOCK_FIELD)
    {
        let unlock_set = is_set(values.get(SSH_KEY_UNLOCK_FIELD));
        match ssh_key {
            Some(KeyInfo { encrypted: true }) if !unlock_set => errors.add(
                SSH_KEY_UNLOCK_FIELD,
                "must be set when SSH key is encrypted.".to_owned(),
            ),
            Some(KeyInfo { encrypted: false }) if unlock_set => errors.add(
                SSH_KEY_UNLOCK_FIELD,
                "should not be set when SSH key is not encrypted.".to_owned(),
            ),
            _ => {}
        }
    }

    values.retain(|key, value| !(config.is_secret(key) && value.as_str() == Some("")));

    for id in &config.required {
        if config.field(id).is_some() && !errors.has(id) && !has_value(values.get(id)) {
            errors.add(id, "This field is required.".to_owned());
        }
    }

    if errors.fields.is_empty() {
        Ok(values)
    } else {
        Err(errors)
    }
}

/// Python truthiness of a JSON value: `""`, `null`, `false`, `0`, `[]` and `{}` are falsy.
fn is_falsy(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(flag) => !flag,
        Value::Number(number) => number.as_f64() == Some(0.0),
        Value::String(text) => text.is_empty(),
        Value::Array(items) => items.is_empty(),
        Value::Object(map) => map.is_empty(),
    }
}

/// What a falsy value of `field` becomes: the first choice, else `""` or `false`.
fn empty_value(field: &InputField) -> Value {
    if let Some(first) = field.choices.as_ref().and_then(|choices| choices.first()) {
        return Value::from(first.as_str());
    }
    match field.field_type {
        FieldType::String => Value::from(""),
        FieldType::Boolean => Value::Bool(false),
    }
}

/// Whether a value counts as set for dependencies and unlock rules: `true` or non-empty text.
fn is_set(value: Option<&Value>) -> bool {
    match value {
        Some(Value::Bool(flag)) => *flag,
        Some(Value::String(text)) => !text.is_empty(),
        _ => false,
    }
}

/// Whether a required field has a value: present and neither `""` nor `null`.
fn has_value(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => false,
        Some(Value::String(text)) => !text.is_empty(),
        Some(_) => true,
    }
}

/// Checks one normalised value against its field; returns what was learnt about an SSH key.
fn check_value(field: &InputField, value: &Value) -> Result<Option<KeyInfo>, String> {
    match field.field_type {
        FieldType::Boolean => {
            if value.is_boolean() {
                Ok(None)
            } else {
                Err(format!("{} is not of type 'boolean'", py_repr(value)))
            }
        }
        FieldType::String => {
            let Some(text) = value.as_str() else {
                return Err(format!("{} is not of type 'string'", py_repr(value)));
            };
            if field.ask_at_runtime && text == ASK {
                return Ok(None);
            }
            if let Some(choices) = &field.choices
                && !choices.iter().any(|choice| choice == text)
            {
                let choices = Value::from(choices.clone());
                return Err(format!(
                    "{} is not one of {}",
                    py_repr(value),
                    py_repr(&choices)
                ));
            }
            if text.is_empty() {
                return Ok(None);
            }
            match field.format {
                None => Ok(None),
                Some(Format::Url) => check_url(text).map(|()| None),
                Some(Format::VaultId) => {
                    if text.contains('@') {
                        Err("@ is not an allowed character".to_owned())
                    } else {
                        Ok(None)
                    }
                }
                Some(Format::SshPrivateKey) => check_private_key(text).map(Some),
            }
        }
    }
}

/// The `url` format: a scheme and a host, as the reference system's check (Python's
/// `urlparse`) reports, confirmed by a full parse.
fn check_url(value: &str) -> Result<(), String> {
    let invalid = || format!("Invalid URL: {value}");
    let trimmed = value.trim_matches(|ch: char| ch <= ' ');
    let scheme_end = trimmed.find(':').filter(|&end| {
        let scheme = &trimmed[..end];
        scheme.starts_with(|ch: char| ch.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '+' | '-' | '.'))
    });
    let Some(scheme_end) = scheme_end else {
        return Err("Invalid URL: Missing url scheme (http, https, etc.)".to_owned());
    };
    let after_scheme = &trimmed[scheme_end + 1..];
    let netloc = after_scheme.strip_prefix("//").map_or("", |rest| {
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        &rest[..end]
    });
    if netloc.contains('[') != netloc.contains(']') {
        return Err("Invalid IPv6 URL".to_owned());
    }
    if netloc.is_empty() {
        return Err(invalid());
    }
    match url::Url::parse(trimmed) {
        Ok(parsed) if parsed.host_str().is_some_and(|host| !host.is_empty()) => Ok(()),
        _ => Err(invalid()),
    }
}

/// The ids, among `values`' keys, whose values must be encrypted before they are stored: every
/// secret field, except the literal `ASK` of an `ask_at_runtime` field (stored as is so that
/// launch can tell a prompt is needed).
pub fn encrypted_fields<'a>(
    config: &'a InputConfiguration,
    values: &'a Map<String, Value>,
) -> impl Iterator<Item = &'a str> + 'a {
    values.iter().filter_map(move |(key, value)| {
        let field = config.field(key)?;
        let asked = field.ask_at_runtime && value.as_str() == Some(ASK);
        (field.secret && !asked).then_some(key.as_str())
    })
}

/// The display form of stored inputs: every secret value (and any value starting with
/// `$encrypted$`) is shown as exactly `$encrypted$`; `ASK` on an `ask_at_runtime` field and
/// other values are shown as stored.
pub fn masked(config: &InputConfiguration, stored: &Map<String, Value>) -> Map<String, Value> {
    stored
        .iter()
        .map(|(key, value)| {
            let looks_encrypted = value
                .as_str()
                .is_some_and(|text| text.starts_with(ENCRYPTED_PLACEHOLDER));
            let hidden = looks_encrypted
                || config.field(key).is_some_and(|field| {
                    field.secret
                        && value.as_str() != Some("")
                        && !(field.ask_at_runtime && value.as_str() == Some(ASK))
                });
            let shown = if hidden {
                Value::from(ENCRYPTED_PLACEHOLDER)
            } else {
                value.clone()
            };
            (key.clone(), shown)
        })
        .collect()
}

/// The values managed types' injector templates are rendered with: `values` plus, for a managed
/// type, the declared `default` of every field that has no value.
///
/// The reference system's built-in injectors fall back on declared defaults (OpenStack's
/// `verify_ssl` is true unless stored as false); its custom types never inject defaults, so for
/// a custom type `values` is returned unchanged.
pub fn with_declared_defaults(
    config: &InputConfiguration,
    values: &Map<String, Value>,
) -> Map<String, Value> {
    let mut completed = values.clone();
    if config.managed {
        for field in &config.fields {
            if let Some(default) = &field.default
                && !completed.contains_key(&field.id)
            {
                completed.insert(field.id.clone(), default.clone());
            }
        }
    }
    completed
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::inputs::validate_inputs_config;
    use crate::managed::managed_type;
    use crate::ssh_key::test_keys::{ED25519_ENCRYPTED, ED25519_PLAIN, RSA_ENCRYPTED};

    /// The type of the reference examples: `username` (string), `flag` (boolean), `region`
    /// (choices us/eu), `url` (format url), `key` (format ssh_private_key, secret), plus a
    /// secret `password` and a `vault` id.
    fn example_type() -> InputConfiguration {
        let (configuration, _) = validate_inputs_config(
            &json!({
                "fields": [
                    {"id": "username", "label": "Username"},
                    {"id": "flag", "label": "Flag", "type": "boolean"},
                    {"id": "region", "label": "Region", "choices": ["us", "eu"]},
                    {"id": "url", "label": "URL", "format": "url"},
                    {"id": "key", "label": "Key", "format": "ssh_private_key", "secret": true},
                    {"id": "password", "label": "Password", "secret": true},
                    {"id": "vault", "label": "Vault", "format": "vault_id"}
                ],
                "required": ["username", "ghost"]
            }),
            true,
        )
        .expect("valid");
        configuration
    }

    fn managed(namespace: &str) -> InputConfiguration {
        managed_type(namespace)
            .expect("registered")
            .input_configuration()
    }

    fn create(
        config: &InputConfiguration,
        inputs: Value,
    ) -> Result<Map<String, Value>, InputErrors> {
        validate_credential_inputs(config, &inputs, None)
    }

    fn update(
        config: &InputConfiguration,
        inputs: Value,
        previous: Value,
    ) -> Result<Map<String, Value>, InputErrors> {
        let previous = previous.as_object().cloned().expect("object");
        validate_credential_inputs(config, &inputs, Some(&previous))
    }

    fn field_error(result: Result<Map<String, Value>, InputErrors>) -> Value {
        let errors = result.expect_err("should be refused");
        assert!(errors.general.is_empty(), "{errors:?}");
        errors.to_value()
    }

    fn general_error(result: Result<Map<String, Value>, InputErrors>) -> Value {
        let errors = result.expect_err("should be refused");
        assert!(errors.fields.is_empty(), "{errors:?}");
        errors.to_value()
    }

    #[test]
    fn valid_inputs_are_returned() {
        let values = create(
            &example_type(),
            json!({"username": "joe", "flag": true, "region": "eu", "url": "http://foo.com",
                   "key": ED25519_PLAIN, "password": "pw", "vault": "dev"}),
        )
        .expect("valid");
        assert_eq!(values["username"], "joe");
        assert_eq!(values["flag"], true);
        assert_eq!(values["key"], ED25519_PLAIN);
        assert_eq!(values.len(), 7);
    }

    #[test]
    fn non_objects_are_refused() {
        let config = example_type();
        assert_eq!(
            general_error(create(&config, json!(["must-be-a-dict"]))),
            json!(["list provided, expected dict"])
        );
        assert_eq!(
            general_error(create(&config, json!("text"))),
            json!(["str provided, expected dict"])
        );
        assert_eq!(
            general_error(create(&config, json!(null))),
            json!(["NoneType provided, expected dict"])
        );
    }

    #[test]
    fn unknown_keys_are_refused_and_hide_field_errors() {
        let config = example_type();
        assert_eq!(
            general_error(create(&config, json!({"invalid_field": "foo"}))),
            json!(["Additional properties are not allowed ('invalid_field' was unexpected)"])
        );
        assert_eq!(
            general_error(create(&config, json!({"username": 1, "zzz": 1, "yyy": 2}))),
            json!(["Additional properties are not allowed ('yyy', 'zzz' were unexpected)"])
        );
    }

    #[test]
    fn secret_values_must_be_strings() {
        let config = example_type();
        assert_eq!(
            general_error(create(&config, json!({"username": "u", "password": 1}))),
            json!(["secret values must be of type string, not int"])
        );
        assert_eq!(
            general_error(create(&config, json!({"username": "u", "password": ["x"]}))),
            json!(["secret values must be of type string, not list"])
        );
        // Falsy non-strings are normalised to "" (and then removed) instead.
        let values = create(&config, json!({"username": "u", "password": null})).expect("valid");
        assert!(!values.contains_key("password"));
    }

    #[test]
    fn encrypted_placeholder_on_create_is_refused() {
        let config = example_type();
        assert_eq!(
            general_error(create(
                &config,
                json!({"username": "u", "password": "$encrypted$"})
            )),
            json!(["$encrypted$ is a reserved keyword, and cannot be used for password."])
        );
        // Non-secret fields may hold the text.
        let values =
            create(&config, json!({"username": "$encrypted$"})).expect("not a secret field");
        assert_eq!(values["username"], "$encrypted$");
    }

    #[test]
    fn encrypted_placeholder_on_update_keeps_the_stored_value() {
        let config = example_type();
        let values = update(
            &config,
            json!({"username": "u", "password": "$encrypted$", "key": "$encrypted$"}),
            json!({"username": "old", "password": "stored", "key": ED25519_PLAIN}),
        )
        .expect("valid");
        assert_eq!(values["username"], "u");
        assert_eq!(values["password"], "stored");
        assert_eq!(values["key"], ED25519_PLAIN);
        // Nothing stored: the key is dropped (the reference system fails with a 500).
        let values = update(
            &config,
            json!({"username": "u", "password": "$encrypted$"}),
            json!({"username": "old"}),
        )
        .expect("valid");
        assert!(!values.contains_key("password"));
        // A new value replaces the stored one; a left-out key is dropped.
        let values = update(
            &config,
            json!({"username": "u", "password": "new"}),
            json!({"username": "old", "password": "stored", "key": ED25519_PLAIN}),
        )
        .expect("valid");
        assert_eq!(values["password"], "new");
        assert!(!values.contains_key("key"));
    }

    #[test]
    fn falsy_values_are_normalised() {
        let config = example_type();
        for falsy in [
            json!(""),
            json!(null),
            json!(false),
            json!(0),
            json!([]),
            json!({}),
        ] {
            let values = create(
                &config,
                json!({"username": "u", "flag": falsy, "region": falsy, "url": falsy,
                       "vault": falsy}),
            )
            .unwrap_or_else(|errors| panic!("{falsy}: {errors:?}"));
            assert_eq!(values["flag"], false, "{falsy}");
            assert_eq!(values["region"], "us", "{falsy}");
            assert_eq!(values["url"], "", "{falsy}");
            assert_eq!(values["vault"], "", "{falsy}");
        }
        let values = create(&config, json!({"username": "u", "vault": null})).expect("valid");
        assert_eq!(values["vault"], "");
    }

    #[test]
    fn type_and_choice_errors() {
        let config = example_type();
        let cases = [
            (
                json!({"username": 1}),
                json!({"username": ["1 is not of type 'string'"]}),
            ),
            (
                json!({"username": 1.5}),
                json!({"username": ["1.5 is not of type 'string'"]}),
            ),
            (
                json!({"username": ["a", "b", "c"]}),
                json!({"username": ["['a', 'b', 'c'] is not of type 'string'"]}),
            ),
            (
                json!({"username": {"a": 1}}),
                json!({"username": ["{'a': 1} is not of type 'string'"]}),
            ),
            (
                json!({"username": "u", "flag": "some-string"}),
                json!({"flag": ["'some-string' is not of type 'boolean'"]}),
            ),
            (
                json!({"username": "u", "flag": "true"}),
                json!({"flag": ["'true' is not of type 'boolean'"]}),
            ),
            (
                json!({"username": "u", "flag": 1}),
                json!({"flag": ["1 is not of type 'boolean'"]}),
            ),
            (
                json!({"username": "u", "region": "asia"}),
                json!({"region": ["'asia' is not one of ['us', 'eu']"]}),
            ),
            (
                json!({"username": "u", "vault": "a@b"}),
                json!({"vault": ["@ is not an allowed character"]}),
            ),
            (
                json!({"username": "u", "key": "invalid-key"}),
                json!({"key": ["Invalid certificate or key: invalid-key..."]}),
            ),
        ];
        for (inputs, expected) in cases {
            assert_eq!(
                field_error(create(&config, inputs.clone())),
                expected,
                "{inputs}"
            );
        }
    }

    #[test]
    fn several_field_errors_are_reported_together() {
        let config = example_type();
        assert_eq!(
            field_error(create(&config, json!({"username": 1, "flag": "x"}))),
            json!({
                "flag": ["'x' is not of type 'boolean'"],
                "username": ["1 is not of type 'string'"]
            })
        );
    }

    #[test]
    fn url_format() {
        let config = example_type();
        let cases = [
            (
                "foo.com",
                "Invalid URL: Missing url scheme (http, https, etc.)",
            ),
            ("https://[dead:beef", "Invalid IPv6 URL"),
            ("http:domain:8080", "Invalid URL: http:domain:8080"),
            ("http:/domain:8080", "Invalid URL: http:/domain:8080"),
            ("http://", "Invalid URL: http://"),
            ("file:///etc/passwd", "Invalid URL: file:///etc/passwd"),
            ("http://exa mple.com", "Invalid URL: http://exa mple.com"),
            (
                "1http://x",
                "Invalid URL: Missing url scheme (http, https, etc.)",
            ),
        ];
        for (url, message) in cases {
            assert_eq!(
                field_error(create(&config, json!({"username": "u", "url": url}))),
                json!({"url": [message]}),
                "{url}"
            );
        }
        for url in [
            "http://foo.com",
            "https://user:pass@example.org:8443/path?q=1#f",
            "https://[::1]:8080/",
            "git+ssh://host/repo",
        ] {
            assert!(
                create(&config, json!({"username": "u", "url": url})).is_ok(),
                "{url}"
            );
        }
    }

    #[test]
    fn network_dependency() {
        let net = managed("net");
        assert_eq!(
            field_error(create(
                &net,
                json!({"username": "u", "authorize_password": "pw"})
            )),
            json!({"authorize_password": ["cannot be set unless \"Authorize\" is set"]})
        );
        assert_eq!(
            field_error(create(
                &net,
                json!({"username": "u", "authorize": false, "authorize_password": "pw"})
            )),
            json!({"authorize_password": ["cannot be set unless \"Authorize\" is set"]})
        );
        let values = create(
            &net,
            json!({"username": "u", "authorize": true, "authorize_password": "pw"}),
        )
        .expect("valid");
        assert_eq!(values["authorize"], true);
        let values = create(
            &net,
            json!({"username": "u", "authorize": "", "authorize_password": ""}),
        )
        .expect("empty password needs nothing");
        assert_eq!(values["authorize"], false);
        assert!(!values.contains_key("authorize_password"));
    }

    #[test]
    fn unlock_rules() {
        let ssh = managed("ssh");
        assert_eq!(
            field_error(create(&ssh, json!({"ssh_key_data": ED25519_ENCRYPTED}))),
            json!({"ssh_key_unlock": ["must be set when SSH key is encrypted."]})
        );
        assert_eq!(
            field_error(create(
                &ssh,
                json!({"ssh_key_data": RSA_ENCRYPTED, "ssh_key_unlock": ""})
            )),
            json!({"ssh_key_unlock": ["must be set when SSH key is encrypted."]})
        );
        assert_eq!(
            field_error(create(
                &ssh,
                json!({"ssh_key_data": ED25519_PLAIN, "ssh_key_unlock": "pass"})
            )),
            json!({"ssh_key_unlock": ["should not be set when SSH key is not encrypted."]})
        );
        assert!(
            create(
                &ssh,
                json!({"ssh_key_data": ED25519_ENCRYPTED, "ssh_key_unlock": "secret"})
            )
            .is_ok()
        );
        assert!(
            create(
                &ssh,
                json!({"ssh_key_data": ED25519_ENCRYPTED, "ssh_key_unlock": "ASK"})
            )
            .is_ok()
        );
        assert!(create(&ssh, json!({"ssh_key_data": ED25519_PLAIN})).is_ok());
        // No key at all: an unlock passphrase is not checked.
        assert!(create(&ssh, json!({"ssh_key_unlock": "pass"})).is_ok());
    }

    #[test]
    fn unlock_rules_use_the_stored_key_and_skip_invalid_keys() {
        let scm = managed("scm");
        assert_eq!(
            field_error(update(
                &scm,
                json!({"ssh_key_data": "$encrypted$"}),
                json!({"ssh_key_data": ED25519_ENCRYPTED})
            )),
            json!({"ssh_key_unlock": ["must be set when SSH key is encrypted."]})
        );
        assert!(
            update(
                &scm,
                json!({"ssh_key_data": "$encrypted$", "ssh_key_unlock": "$encrypted$"}),
                json!({"ssh_key_data": ED25519_ENCRYPTED, "ssh_key_unlock": "secret"})
            )
            .is_ok()
        );
        assert_eq!(
            field_error(create(
                &scm,
                json!({"ssh_key_data": "invalid-key", "ssh_key_unlock": "pass"})
            )),
            json!({"ssh_key_data": ["Invalid certificate or key: invalid-key..."]})
        );
    }

    #[test]
    fn unlock_rules_are_for_managed_types_only() {
        let (custom, _) = validate_inputs_config(
            &json!({"fields": [
                {"id": "ssh_key_data", "label": "Key", "format": "ssh_private_key", "secret": true},
                {"id": "ssh_key_unlock", "label": "Unlock", "secret": true}
            ]}),
            false,
        )
        .expect("valid");
        assert!(create(&custom, json!({"ssh_key_data": ED25519_ENCRYPTED})).is_ok());
    }

    #[test]
    fn empty_secrets_are_removed() {
        let config = example_type();
        let values = create(
            &config,
            json!({"username": "joe", "password": "", "key": null}),
        )
        .expect("valid");
        assert_eq!(
            values,
            json!({"username": "joe"})
                .as_object()
                .cloned()
                .expect("map")
        );
    }

    #[test]
    fn required_fields_are_checked_on_save() {
        let aws = managed("aws");
        assert_eq!(
            field_error(create(&aws, json!({}))),
            json!({
                "password": ["This field is required."],
                "username": ["This field is required."]
            })
        );
        assert_eq!(
            field_error(create(&aws, json!({"username": "", "password": null}))),
            json!({
                "password": ["This field is required."],
                "username": ["This field is required."]
            })
        );
        assert!(create(&aws, json!({"username": "AKIA", "password": "s"})).is_ok());
        // Ids that name no field ("ghost") are ignored; other errors are kept alongside.
        let config = example_type();
        assert_eq!(
            field_error(create(&config, json!({"flag": "x"}))),
            json!({
                "flag": ["'x' is not of type 'boolean'"],
                "username": ["This field is required."]
            })
        );
        // A required boolean set to false is present.
        let (flagged, _) = validate_inputs_config(
            &json!({"fields": [{"id": "on", "label": "On", "type": "boolean"}], "required": ["on"]}),
            false,
        )
        .expect("valid");
        assert!(create(&flagged, json!({"on": false})).is_ok());
        assert_eq!(
            field_error(create(&flagged, json!({}))),
            json!({"on": ["This field is required."]})
        );
    }

    #[test]
    fn ask_is_kept_for_ask_at_runtime_fields() {
        let ssh = managed("ssh");
        let values = create(
            &ssh,
            json!({"username": "u", "password": "ASK", "become_password": "ASK"}),
        )
        .expect("valid");
        assert_eq!(values["password"], "ASK");
        let encrypted: Vec<&str> = encrypted_fields(&ssh, &values).collect();
        assert!(encrypted.is_empty(), "{encrypted:?}");
        let vault = managed("vault");
        let values =
            create(&vault, json!({"vault_password": "ASK", "vault_id": "dev"})).expect("valid");
        assert_eq!(encrypted_fields(&vault, &values).count(), 0);
    }

    #[test]
    fn encrypted_fields_lists_secrets() {
        let ssh = managed("ssh");
        let values = create(
            &ssh,
            json!({"username": "u", "password": "pw", "ssh_key_data": ED25519_ENCRYPTED,
                   "ssh_key_unlock": "ASK"}),
        )
        .expect("valid");
        let encrypted: Vec<&str> = encrypted_fields(&ssh, &values).collect();
        assert_eq!(encrypted, ["password", "ssh_key_data"]);
        // `ASK` is only special on ask_at_runtime fields.
        let aws = managed("aws");
        let values = create(&aws, json!({"username": "u", "password": "ASK"})).expect("valid");
        assert_eq!(
            encrypted_fields(&aws, &values).collect::<Vec<_>>(),
            ["password"]
        );
    }

    #[test]
    fn masked_hides_secrets() {
        let ssh = managed("ssh");
        let stored = json!({
            "username": "u",
            "password": "$encrypted$AESGCM$abc",
            "become_password": "ASK",
            "ssh_key_data": "plain-text-secret",
            "become_method": "$encrypted$UTF8$AESCBC$legacy"
        });
        let shown = masked(&ssh, stored.as_object().expect("object"));
        assert_eq!(
            Value::Object(shown),
            json!({
                "username": "u",
                "password": "$encrypted$",
                "become_password": "ASK",
                "ssh_key_data": "$encrypted$",
                "become_method": "$encrypted$"
            })
        );
    }

    #[test]
    fn declared_defaults_fill_managed_values_only() {
        let openstack = managed("openstack");
        let values = Map::new();
        assert_eq!(
            with_declared_defaults(&openstack, &values).get("verify_ssl"),
            Some(&Value::Bool(true))
        );
        let mut stored = Map::new();
        stored.insert("verify_ssl".to_owned(), Value::Bool(false));
        assert_eq!(
            with_declared_defaults(&openstack, &stored).get("verify_ssl"),
            Some(&Value::Bool(false))
        );
        let (custom, _) = validate_inputs_config(
            &json!({"fields": [{"id": "on", "label": "On", "type": "boolean", "default": true}]}),
            false,
        )
        .expect("valid");
        assert!(with_declared_defaults(&custom, &values).is_empty());
    }

    #[test]
    fn error_rendering() {
        let general = InputErrors::general("oops".to_owned());
        assert_eq!(general.to_value(), json!(["oops"]));
        assert_eq!(general.to_string(), "oops");
        let mut fields = InputErrors::default();
        fields.add("b", "second".to_owned());
        fields.add("a", "first".to_owned());
        fields.add("a", "ignored".to_owned());
        assert_eq!(fields.to_value(), json!({"a": ["first"], "b": ["second"]}));
        assert_eq!(fields.to_string(), "a: first; b: second");
    }
}

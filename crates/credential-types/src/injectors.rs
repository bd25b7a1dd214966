//! The injector configuration of a credential type and its validation.
//!
//! A credential type's `injectors` document says how a credential's inputs reach a job:
//!
//! ```json
//! {
//!   "file": {"template.cert": "{{ cert }}"},
//!   "env": {"MY_CLOUD_TOKEN": "{{ token }}", "MY_CLOUD_CERT": "{{ svc.filename.cert }}"},
//!   "extra_vars": {"cloud": {"user": "{{ username }}", "hosts": ["{{ host }}", "static"]}}
//! }
//! ```
//!
//! Every string in it (and every `extra_vars` key) is a template in the language of
//! [`acs_injectors`]. [`validate_injectors`] checks such a document exactly as the reference system
//! does, with the same JSON schema, the same post-schema checks in the same order and the same
//! messages, with the ACS changes of the product contract:
//!
//! * the template namespace is `svc` and templates are Handlebars;
//! * custom types may not write env names, file names or `extra_vars` keys (at any depth) starting
//!   with `AUTOMATION_`, nor env names that change how a job's process runs
//!   ([`env_name_allowed`]);
//! * an `extra_vars` list may hold only strings, lists and objects of those.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use acs_injectors::{CheckNamespace, FileNames, TemplateError};
use jsonschema::error::ValidationErrorKind;
use jsonschema::paths::LocationSegment;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value, json};

use crate::inputs::RESERVED_PREFIX;
use crate::schema_messages::{py_repr, py_type_name, schema_error_message};

/// The key of the unnamed file injector; named ones are `template.<name>`.
const FILE_TEMPLATE: &str = "template";

/// The env name prefix reserved for Ansible's own configuration.
const ANSIBLE_PREFIX: &str = "ANSIBLE_";

/// The env name prefix of the dynamic linker's configuration.
const LINKER_PREFIX: &str = "LD_";

/// Env names a credential may never set: those that change how a job's process runs and those
/// the job runner sets itself.
pub const ENV_BLOCKLIST: &[&str] = &[
    "PATH",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONSTARTUP",
    "PYTHONUNBUFFERED",
    "BASH_ENV",
    "ENV",
    "HOME",
    "SHELL",
    "VIRTUAL_ENV",
    "JOB_ID",
    "INVENTORY_ID",
    "INVENTORY_SOURCE_ID",
    "INVENTORY_UPDATE_ID",
    "AD_HOC_COMMAND_ID",
    "REST_API_URL",
    "REST_API_TOKEN",
    "MAX_EVENT_RES",
    "CALLBACK_QUEUE",
    "CALLBACK_CONNECTION",
    "CACHE",
    "JOB_CALLBACK_DEBUG",
    "INVENTORY_HOSTVARS",
    "AWX_HOST",
    "PROJECT_REVISION",
    "SUPERVISOR_CONFIG_PATH",
    "PWD",
    "TMPDIR",
    "LANG",
    "LC_ALL",
    "PRIVATE_DATA_DIR",
    "PROJECT_ID",
    "PROJECT_UPDATE_ID",
    "ACS_JOB_ID",
];

/// A validated injector configuration.
///
/// The templates are kept as their source strings; they are known to parse and to reference
/// only names the credential type defines.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InjectorConfiguration {
    /// The file injectors.
    pub file: Files,
    /// The env injectors, name and template, in the order of the document.
    pub env: Vec<(String, String)>,
    /// The `extra_vars` injectors: an object whose keys and string leaves are templates and whose
    /// values are strings, lists or objects of those.
    pub extra_vars: Map<String, Value>,
}

/// The file injectors of a configuration.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Files {
    /// No file injector.
    #[default]
    None,
    /// The unnamed file injector (key `template`), referenced as `svc.filename`: its template.
    Single(String),
    /// Named file injectors (keys `template.<name>`), referenced as `svc.filename.<name>`: the
    /// template of each name.
    Multi(BTreeMap<String, String>),
}

impl Files {
    /// The file names templates may reference, for [`acs_injectors::check`].
    #[must_use]
    pub fn names(&self) -> FileNames {
        match self {
            Files::None => FileNames::None,
            Files::Single(_) => FileNames::Single,
            Files::Multi(templates) => FileNames::Multi(templates.keys().cloned().collect()),
        }
    }
}

impl InjectorConfiguration {
    /// The configuration as an `injectors` document, with the shape it was validated from:
    /// `file` (`template` or `template.<name>` keys), `env` and `extra_vars`, each present when
    /// it holds at least one entry. Named files are listed by name.
    #[must_use]
    pub fn to_value(&self) -> Value {
        let mut document = Map::new();
        match &self.file {
            Files::None => {}
            Files::Single(template) => {
                document.insert("file".to_owned(), json!({ FILE_TEMPLATE: template }));
            }
            Files::Multi(templates) => {
                let files = templates
                    .iter()
                    .map(|(name, template)| {
                        (
                            format!("{FILE_TEMPLATE}.{name}"),
                            Value::String(template.clone()),
                        )
                    })
                    .collect();
                document.insert("file".to_owned(), Value::Object(files));
            }
        }
        if !self.env.is_empty() {
            let env = self
                .env
                .iter()
                .map(|(name, template)| (name.clone(), Value::String(template.clone())))
                .collect();
            document.insert("env".to_owned(), Value::Object(env));
        }
        if !self.extra_vars.is_empty() {
            document.insert(
                "extra_vars".to_owned(),
                Value::Object(self.extra_vars.clone()),
            );
        }
        Value::Object(document)
    }
}

impl Serialize for InjectorConfiguration {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(serializer)
    }
}

/// Checks an env name against the names credentials may not set.
///
/// The rules, in order: the reserved `AUTOMATION_` prefix, the `ANSIBLE_` prefix, then the `LD_`
/// prefix and the [`ENV_BLOCKLIST`]. Validation applies them to custom types when they are saved;
/// a job runner applies them again when it injects a custom credential.
///
/// # Errors
///
/// The message naming the variable, e.g.
/// `Environment variable JOB_ID is not allowed to be used in credentials.`
pub fn env_name_allowed(name: &str) -> Result<(), String> {
    if name.starts_with(RESERVED_PREFIX) {
        return Err(format!(
            "Environment variable {name} uses the reserved prefix {RESERVED_PREFIX} and is not \
             allowed in credentials."
        ));
    }
    if name.starts_with(ANSIBLE_PREFIX) {
        return Err(format!(
            "Environment variable {name} may affect Ansible configuration so its use is not \
             allowed in credentials."
        ));
    }
    if name.starts_with(LINKER_PREFIX) || ENV_BLOCKLIST.contains(&name) {
        return Err(format!(
            "Environment variable {name} is not allowed to be used in credentials."
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Schema
// ---------------------------------------------------------------------------------------------

/// The regular expression file injector keys must match.
const FILE_KEY_PATTERN: &str = r"^template(\.[a-zA-Z_]+[a-zA-Z0-9_]*)?$";
/// The regular expression env names must match.
const ENV_KEY_PATTERN: &str = r"^[a-zA-Z_]+[a-zA-Z0-9_]*$";
/// The regular expression env values must match: ASCII only. It holds the characters U+0000 and
/// U+007F themselves, as the reference system's schema does, so that its message reads
/// `'^[\x00-\x7f]*$'`.
const ENV_VALUE_PATTERN: &str = "^[\u{0}-\u{7f}]*$";
/// The regular expression `extra_vars` keys must match (braces allow templated keys).
const EXTRA_VARS_KEY_PATTERN: &str = r"^[a-zA-Z_\{\}]+[a-zA-Z0-9_\{\}]*$";

/// The JSON schema (draft 4) of an `injectors` document.
///
/// It is the reference system's schema with one change: an `extra_vars` list may only hold
/// strings, lists and objects of those (the reference leaves list items unconstrained and then
/// fails on them).
fn injectors_schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "file": {
                "type": "object",
                "patternProperties": {FILE_KEY_PATTERN: {"type": "string"}},
                "additionalProperties": false
            },
            "env": {
                "type": "object",
                "patternProperties": {
                    ENV_KEY_PATTERN: {"type": "string", "pattern": ENV_VALUE_PATTERN}
                },
                "additionalProperties": false
            },
            "extra_vars": {
                "type": "object",
                "patternProperties": {
                    EXTRA_VARS_KEY_PATTERN: {"$ref": "#/definitions/extra_var"}
                },
                "additionalProperties": false
            }
        },
        "definitions": {
            "extra_var": {
                "anyOf": [
                    {"type": "string"},
                    {"type": "array"},
                    {"$ref": "#/properties/extra_vars"}
                ],
                "items": {"$ref": "#/definitions/extra_var"}
            }
        }
    })
}

/// The schema and its compiled validator (the message formatter reads the schema itself).
struct InjectorsSchema {
    schema: Value,
    validator: jsonschema::Validator,
}

static SCHEMA: LazyLock<InjectorsSchema> = LazyLock::new(|| {
    let schema = injectors_schema();
    // The schema is a constant of this module; a unit test compiles it.
    let validator = jsonschema::draft4::new(&schema)
        .unwrap_or_else(|error| panic!("the injectors schema is invalid: {error}"));
    InjectorsSchema { schema, validator }
});

/// Every schema error of `value`, formatted and ordered as the reference system reports them.
///
/// The reference validator walks the schema's keywords in the order they are written: at the top
/// level `additionalProperties` before `properties` (whose sections come in the order `file`,
/// `env`, `extra_vars`), and inside a section the values (`patternProperties`, in document order)
/// before the section's own `additionalProperties`. The `jsonschema` crate reports the same
/// errors in another order, so they are sorted (stably) into that one.
fn schema_errors(value: &Value) -> Vec<String> {
    let mut errors: Vec<((u8, bool), String)> = SCHEMA
        .validator
        .iter_errors(value)
        .map(|error| {
            let mut segments = error.instance_path().segments();
            let section = match segments.next() {
                None => 0,
                Some(LocationSegment::Property(name)) => match name.as_ref() {
                    "file" => 1,
                    "env" => 2,
                    "extra_vars" => 3,
                    _ => 4,
                },
                Some(_) => 4,
            };
            let section_keys = section > 0
                && segments.next().is_none()
                && matches!(
                    error.kind(),
                    ValidationErrorKind::AdditionalProperties { .. }
                );
            (
                (section, section_keys),
                schema_error_message(&SCHEMA.schema, &error),
            )
        })
        .collect();
    errors.sort_by_key(|(rank, _)| *rank);
    errors.into_iter().map(|(_, message)| message).collect()
}

// ---------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------

/// Validates an injector configuration document.
///
/// `value` is the document as a JSON value (text is parsed by the caller), `field_ids` are the
/// ids of the credential type's input fields, and `managed` relaxes the reserved-name rules for
/// managed (built-in) types; API-written types are custom.
///
/// The checks, in the reference system's order:
///
/// 1. the JSON schema; every schema error is reported, e.g.
///    `int provided in relative path ['env', 'X'], expected string`;
/// 2. a `template` file key together with `template.<name>` keys gives
///    `Must use multi-file syntax when injecting multiple files`;
/// 3. the sections, in the order of the document, stopping at the first failure:
///    * `env`: every name against [`env_name_allowed`] (custom types), then every template;
///    * `file`: per file, a name starting `AUTOMATION_` (custom types), then the template;
///    * `extra_vars`, depth first: per key, a key starting `AUTOMATION_` (custom types), the key
///      as a template (labelled `a key`), then the value (labelled `parent.child` or
///      `parent[i]` below the top level).
///
///    A template that references an unknown name gives
///    `<label> uses an undefined field (<reason>)`, one that does not parse gives
///    `Syntax error rendering template for <label> inside of <section> (<reason>)` and one
///    using a construct outside the template language gives
///    `Unsupported template construct for <label> inside of <section> (<reason>)`.
///
/// # Errors
///
/// The messages to report under `injectors`: every schema error, or the single first failure of
/// the later checks.
pub fn validate_injectors(
    value: &Value,
    field_ids: &[&str],
    managed: bool,
) -> Result<InjectorConfiguration, Vec<String>> {
    let errors = schema_errors(value);
    if !errors.is_empty() {
        return Err(errors);
    }
    let Some(document) = value.as_object() else {
        // The schema requires an object; this only guards against a schema change.
        return Err(vec![format!(
            "{} provided, expected dict",
            py_type_name(value)
        )]);
    };
    let configuration = configuration_from(document)?;
    let validation = Validation {
        namespace: CheckNamespace {
            fields: field_ids.iter().map(|id| (*id).to_owned()).collect(),
            files: configuration.file.names(),
        },
        managed,
    };
    for (section, content) in document {
        let Some(content) = content.as_object() else {
            continue;
        };
        let checked = match section.as_str() {
            "env" => validation.env(content),
            "file" => validation.file(content),
            "extra_vars" => validation.extra_vars(content),
            _ => Ok(()),
        };
        checked.map_err(|message| vec![message])?;
    }
    Ok(configuration)
}

/// Builds the configuration from a schema-valid document, rejecting mixed file syntax.
fn configuration_from(document: &Map<String, Value>) -> Result<InjectorConfiguration, Vec<String>> {
    let section = |name: &str| document.get(name).and_then(Value::as_object);
    let string_entries = |name: &str| -> Vec<(String, String)> {
        section(name)
            .into_iter()
            .flatten()
            .filter_map(|(key, value)| Some((key.clone(), value.as_str()?.to_owned())))
            .collect()
    };

    let mut single = None;
    let mut named = BTreeMap::new();
    for (key, template) in string_entries("file") {
        match key.strip_prefix(FILE_TEMPLATE) {
            Some("") => single = Some(template),
            Some(name) => {
                let name = name.strip_prefix('.').unwrap_or(name);
                named.insert(name.to_owned(), template);
            }
            // Unreachable after the schema: file keys match FILE_KEY_PATTERN.
            None => {}
        }
    }
    let file = match (single, named.is_empty()) {
        (Some(_), false) => {
            return Err(vec![
                "Must use multi-file syntax when injecting multiple files".to_owned(),
            ]);
        }
        (Some(template), true) => Files::Single(template),
        (None, false) => Files::Multi(named),
        (None, true) => Files::None,
    };
    Ok(InjectorConfiguration {
        file,
        env: string_entries("env"),
        extra_vars: section("extra_vars").cloned().unwrap_or_default(),
    })
}

/// The text of a template position; the schema guarantees a string (an empty template is
/// assumed otherwise).
fn string_of(value: &Value) -> &str {
    value.as_str().unwrap_or_default()
}

/// The post-schema checks of one document.
struct Validation {
    namespace: CheckNamespace,
    managed: bool,
}

impl Validation {
    fn env(&self, env: &Map<String, Value>) -> Result<(), String> {
        if !self.managed {
            env.keys().try_for_each(|name| env_name_allowed(name))?;
        }
        for (name, template) in env {
            self.template("env", name, string_of(template))?;
        }
        Ok(())
    }

    fn file(&self, files: &Map<String, Value>) -> Result<(), String> {
        for (key, template) in files {
            let name = key
                .strip_prefix(FILE_TEMPLATE)
                .and_then(|name| name.strip_prefix('.'));
            if !self.managed
                && let Some(name) = name
                && name.starts_with(RESERVED_PREFIX)
            {
                return Err(format!(
                    "File name {name} uses the reserved prefix {RESERVED_PREFIX} and is not \
                     allowed in credentials."
                ));
            }
            self.template("file", key, string_of(template))?;
        }
        Ok(())
    }

    fn extra_vars(&self, extra_vars: &Map<String, Value>) -> Result<(), String> {
        self.extra_vars_object(None, extra_vars)
    }

    /// Checks the keys and values of an `extra_vars` object; `parent` is the label of the object
    /// itself (`None` at the top level).
    fn extra_vars_object(
        &self,
        parent: Option<&str>,
        object: &Map<String, Value>,
    ) -> Result<(), String> {
        for (key, value) in object {
            if !self.managed && key.starts_with(RESERVED_PREFIX) {
                return Err(format!(
                    "Extra variable {key} uses the reserved prefix {RESERVED_PREFIX} and is not \
                     allowed in credentials."
                ));
            }
            self.template("extra_vars", "a key", key)?;
            let label = match parent {
                None => key.clone(),
                Some(parent) => format!("{parent}.{key}"),
            };
            self.extra_var(&label, value)?;
        }
        Ok(())
    }

    fn extra_var(&self, label: &str, value: &Value) -> Result<(), String> {
        match value {
            Value::Object(object) => self.extra_vars_object(Some(label), object),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .try_for_each(|(index, item)| self.extra_var(&format!("{label}[{index}]"), item)),
            Value::String(template) => self.template("extra_vars", label, template),
            // Unreachable after the schema: extra_vars leaves are strings.
            other => Err(format!(
                "{} is not valid under any of the given schemas",
                py_repr(other)
            )),
        }
    }

    /// Parses and checks one template, labelled `label` in messages.
    fn template(&self, section: &str, label: &str, source: &str) -> Result<(), String> {
        let parsed = acs_injectors::parse(source).map_err(|error| match error {
            TemplateError::Syntax(reason) => format!(
                "Syntax error rendering template for {label} inside of {section} ({reason})"
            ),
            TemplateError::Unsupported(reason) => {
                format!("Unsupported template construct for {label} inside of {section} ({reason})")
            }
        })?;
        acs_injectors::check(&parsed, &self.namespace)
            .map_err(|undefined| format!("{label} uses an undefined field ({undefined})"))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The input fields of the reference system's examples.
    const FIELDS: [&str; 4] = ["username", "pass", "awx_secret", "host"];

    fn custom(value: &Value) -> Result<InjectorConfiguration, Vec<String>> {
        validate_injectors(value, &FIELDS, false)
    }

    fn managed(value: &Value) -> Result<InjectorConfiguration, Vec<String>> {
        validate_injectors(value, &FIELDS, true)
    }

    #[track_caller]
    fn assert_valid(value: Value) -> InjectorConfiguration {
        match custom(&value) {
            Ok(configuration) => configuration,
            Err(errors) => panic!("{value} should be valid, got {errors:?}"),
        }
    }

    #[track_caller]
    fn assert_errors(value: Value, expected: &[&str]) {
        let expected: Vec<String> = expected
            .iter()
            .map(|message| (*message).to_owned())
            .collect();
        assert_eq!(custom(&value).err(), Some(expected), "{value}");
    }

    #[track_caller]
    fn assert_error(value: Value, expected: &str) {
        assert_errors(value, &[expected]);
    }

    // ----- the reference examples (tower → svc) -------------------------------------------------

    #[test]
    fn schema_compiles() {
        assert!(SCHEMA.validator.is_valid(&json!({})));
    }

    #[test]
    fn empty_configuration_is_valid() {
        assert_eq!(assert_valid(json!({})), InjectorConfiguration::default());
    }

    #[test]
    fn unknown_top_level_keys_are_rejected() {
        assert_error(
            json!({"invalid-injector": {}}),
            "Schema validation error in relative path [] (Additional properties are not allowed ('invalid-injector' was unexpected))",
        );
        assert_error(
            json!({"zzz": 1, "yyy": {}, "env": {}}),
            "Schema validation error in relative path [] (Additional properties are not allowed ('yyy', 'zzz' were unexpected))",
        );
    }

    #[test]
    fn sections_must_be_objects() {
        assert_error(
            json!({"file": 123}),
            "int provided in relative path ['file'], expected dict",
        );
        for section in ["file", "env", "extra_vars"] {
            assert_error(
                json!({section: true}),
                &format!("bool provided in relative path ['{section}'], expected dict"),
            );
            assert_error(
                json!({section: [1, 2, 3]}),
                &format!("list provided in relative path ['{section}'], expected dict"),
            );
        }
    }

    #[test]
    fn the_document_must_be_an_object() {
        assert_error(json!(true), "bool provided, expected dict");
        assert_error(json!(100), "int provided, expected dict");
        assert_error(json!(1.5), "float provided, expected dict");
        assert_error(json!([1, 2, 3, 4]), "list provided, expected dict");
        assert_error(json!("malformed"), "str provided, expected dict");
        assert_error(json!(null), "NoneType provided, expected dict");
    }

    #[test]
    fn single_and_multiple_files_are_valid() {
        let single = assert_valid(json!({"file": {"template": "{{username}}"}}));
        assert_eq!(single.file, Files::Single("{{username}}".to_owned()));
        let multi = assert_valid(json!({"file": {
            "template.username": "{{username}}",
            "template.password": "{{pass}}"
        }}));
        assert_eq!(
            multi.file,
            Files::Multi(BTreeMap::from([
                ("password".to_owned(), "{{pass}}".to_owned()),
                ("username".to_owned(), "{{username}}".to_owned()),
            ]))
        );
    }

    #[test]
    fn single_and_multi_file_syntax_are_exclusive() {
        assert_error(
            json!({"file": {"template": "{{username}}", "template.password": "{{pass}}"}}),
            "Must use multi-file syntax when injecting multiple files",
        );
    }

    #[test]
    fn file_references_need_matching_file_injectors() {
        assert_error(
            json!({"env": {"FROM_FILE": "{{svc.filename}}"}}),
            "FROM_FILE uses an undefined field (Must define unnamed file injector in order to reference `svc.filename`.)",
        );
        assert_error(
            json!({"env": {"FROM_FILE": "{{svc.filename.cert}}"}}),
            "FROM_FILE uses an undefined field ('svc.filename' has no attribute 'cert')",
        );
        assert_error(
            json!({"env": {"FROM_FILE": "{{svc}}"}}),
            "FROM_FILE uses an undefined field (Cannot directly reference reserved `svc` namespace container.)",
        );
        assert_valid(json!({
            "file": {"template.cert": "{{username}}"},
            "env": {"FROM_FILE": "{{svc.filename.cert}}"}
        }));
        assert_error(
            json!({
                "file": {"template.cert": "{{username}}"},
                "env": {"FROM_FILE": "{{svc.filename}}"}
            }),
            "FROM_FILE uses an undefined field (Must define unnamed file injector in order to reference `svc.filename`.)",
        );
        assert_valid(json!({
            "file": {"template": "{{username}}"},
            "env": {"FROM_FILE": "{{svc.filename}}"}
        }));
        // The file section may come after the sections that use it.
        assert_valid(json!({
            "env": {"FROM_FILE": "{{svc.filename}}"},
            "file": {"template": "{{username}}"}
        }));
    }

    #[test]
    fn file_keys_and_values_follow_the_schema() {
        assert_error(
            json!({"file": {"foo": "bar"}}),
            r"Schema validation error in relative path ['file'] ('foo' does not match any of the regexes: '^template(\\.[a-zA-Z_]+[a-zA-Z0-9_]*)?$')",
        );
        assert_error(
            json!({"file": {"template": 5}}),
            "int provided in relative path ['file', 'template'], expected string",
        );
        assert_error(
            json!({"file": {"template.x-y": "a", "template.": "b"}}),
            r"Schema validation error in relative path ['file'] ('template.', 'template.x-y' do not match any of the regexes: '^template(\\.[a-zA-Z_]+[a-zA-Z0-9_]*)?$')",
        );
    }

    #[test]
    fn env_names_follow_the_schema() {
        assert_valid(json!({"env": {"AWX_SECRET": "{{awx_secret}}"}}));
        assert_valid(json!({"env": {"AWX_SECRET_99": "{{awx_secret}}"}}));
        for name in ["99", "AWX_SECRET=", "🐉"] {
            assert_error(
                json!({"env": {name: "{{awx_secret}}"}}),
                &format!(
                    "Schema validation error in relative path ['env'] ('{name}' does not match any of the regexes: '^[a-zA-Z_]+[a-zA-Z0-9_]*$')"
                ),
            );
        }
    }

    #[test]
    fn env_values_are_ascii_strings() {
        assert_error(
            json!({"env": {"DRAGON": "🐉"}}),
            r"'🐉' does not match '^[\x00-\x7f]*$'",
        );
        assert_error(
            json!({"env": {"X": 123}}),
            "int provided in relative path ['env', 'X'], expected string",
        );
        assert_valid(json!({"env": {"X": "tab\tand \u{7f} are ASCII"}}));
    }

    #[test]
    fn tower_style_env_names_are_not_reserved() {
        assert_valid(json!({"env": {"TOWER_HOST": "{{host}}"}}));
    }

    #[test]
    fn undefined_fields_are_reported_with_the_env_name() {
        assert_error(
            json!({"env": {"X": "{{ nope }}"}}),
            "X uses an undefined field ('nope' is undefined)",
        );
        assert_error(
            json!({"env": {"AWX_MY_CLOUD_TOKEN": "{{api_tolkien}}"}}),
            "AWX_MY_CLOUD_TOKEN uses an undefined field ('api_tolkien' is undefined)",
        );
        assert_error(
            json!({"env": {"X": "{{ username.foo }}"}}),
            "X uses an undefined field ('str object' has no attribute 'foo')",
        );
        assert_error(
            json!({"env": {"X": "{{#if nope}}y{{/if}}"}}),
            "X uses an undefined field ('nope' is undefined)",
        );
    }

    #[test]
    fn syntax_errors_name_the_key_and_section() {
        assert_error(
            json!({"env": {"X": "{{ username"}}),
            "Syntax error rendering template for X inside of env (unexpected end of template, expected `}}` to close the expression)",
        );
        assert_error(
            json!({"file": {"template": "{{#if username}}x"}}),
            "Syntax error rendering template for template inside of file (unexpected end of template, expected `{{/if}}` to close the `if` block)",
        );
        assert_error(
            json!({"extra_vars": {"a": ["ok", "{{ host"]}}),
            "Syntax error rendering template for a[1] inside of extra_vars (unexpected end of template, expected `}}` to close the expression)",
        );
        // Jinja's call syntax and filters are not Handlebars.
        assert_error(
            json!({"env": {"X": "{{ username.foo() }}"}}),
            "Syntax error rendering template for X inside of env (expected `}}` to close the expression at line 1, column 16, found `(`)",
        );
    }

    #[test]
    fn unsupported_constructs_name_the_key_and_section() {
        assert_error(
            json!({"env": {"X": "{{#each username}}x{{/each}}"}}),
            "Unsupported template construct for X inside of env (helper `each` is not supported; use `if`, `unless` or `json`)",
        );
        assert_error(
            json!({"file": {"template.cert": "{{> partial}}"}}),
            "Unsupported template construct for template.cert inside of file (partials are not supported)",
        );
        assert_error(
            json!({"extra_vars": {"a": {"b": "{{ ../host }}"}}}),
            "Unsupported template construct for a.b inside of extra_vars (parent paths (`../`) are not supported)",
        );
    }

    #[test]
    fn extra_vars_keys_follow_the_schema() {
        assert_valid(json!({"extra_vars": {"hostname": "{{host}}"}}));
        assert_valid(json!({"extra_vars": {"hostname_99": "{{host}}"}}));
        for key in ["99", "99=", "{{ host }}_x", "a.b", "a-b"] {
            assert_error(
                json!({"extra_vars": {key: "{{host}}"}}),
                &format!(
                    r"Schema validation error in relative path ['extra_vars'] ('{key}' does not match any of the regexes: '^[a-zA-Z_\\{{\\}}]+[a-zA-Z0-9_\\{{\\}}]*$')"
                ),
            );
        }
    }

    #[test]
    fn extra_vars_keys_are_templates() {
        assert_valid(json!({"extra_vars": {"{{host}}_x": "a"}}));
        assert_error(
            json!({"extra_vars": {"{{nope}}_x": "a"}}),
            "a key uses an undefined field ('nope' is undefined)",
        );
        assert_error(
            json!({"extra_vars": {"auth": {"{{nope}}": "a"}}}),
            "a key uses an undefined field ('nope' is undefined)",
        );
    }

    #[test]
    fn extra_vars_labels_follow_nesting() {
        assert_error(
            json!({"extra_vars": {"auth": "{{nope}}"}}),
            "auth uses an undefined field ('nope' is undefined)",
        );
        assert_error(
            json!({"extra_vars": {"auth": {"user": "{{nope}}"}}}),
            "auth.user uses an undefined field ('nope' is undefined)",
        );
        assert_error(
            json!({"extra_vars": {"auth": ["{{host}}", "{{nope}}"]}}),
            "auth[1] uses an undefined field ('nope' is undefined)",
        );
        assert_error(
            json!({"extra_vars": {"a": {"b": [["x", {"c": "{{nope}}"}]]}}}),
            "a.b[0][1].c uses an undefined field ('nope' is undefined)",
        );
    }

    #[test]
    fn extra_vars_values_are_strings_lists_or_objects() {
        assert_error(
            json!({"extra_vars": {"auth": {"x-y": "a"}}}),
            "{'x-y': 'a'} is not valid under any of the given schemas",
        );
        assert_error(
            json!({"extra_vars": {"n": 5}}),
            "5 is not valid under any of the given schemas",
        );
        assert_error(
            json!({"extra_vars": {"n": true}}),
            "True is not valid under any of the given schemas",
        );
        assert_error(
            json!({"extra_vars": {"n": null}}),
            "None is not valid under any of the given schemas",
        );
        assert_valid(
            json!({"extra_vars": {"l": ["a", ["b"], {"c": "d"}], "o": {"p": {"q": "r"}}}}),
        );
    }

    #[test]
    fn extra_vars_list_items_must_be_strings_lists_or_objects() {
        assert_errors(
            json!({"extra_vars": {"l": [1, 2]}}),
            &[
                "1 is not valid under any of the given schemas",
                "2 is not valid under any of the given schemas",
            ],
        );
        assert_error(
            json!({"extra_vars": {"l": ["a", ["b", 1.5]]}}),
            "1.5 is not valid under any of the given schemas",
        );
        assert_error(
            json!({"extra_vars": {"l": [{"k": false}]}}),
            "{'k': False} is not valid under any of the given schemas",
        );
    }

    #[test]
    fn ansible_prefix_is_allowed_in_extra_vars() {
        assert_valid(json!({"extra_vars": {"ANSIBLE_X": "a"}}));
    }

    #[test]
    fn every_schema_error_is_reported_in_reference_order() {
        assert_errors(
            json!({"env": {"ENV_VAR": 123}, "mal": "formed"}),
            &[
                "Schema validation error in relative path [] (Additional properties are not allowed ('mal' was unexpected))",
                "int provided in relative path ['env', 'ENV_VAR'], expected string",
            ],
        );
        assert_errors(
            json!({
                "extra_vars": {"n": 1},
                "env": {"A": 1, "b-c": "x", "B": "🐉"},
                "file": {"template": 2},
                "zzz": 0
            }),
            &[
                "Schema validation error in relative path [] (Additional properties are not allowed ('zzz' was unexpected))",
                "int provided in relative path ['file', 'template'], expected string",
                "int provided in relative path ['env', 'A'], expected string",
                r"'🐉' does not match '^[\x00-\x7f]*$'",
                "Schema validation error in relative path ['env'] ('b-c' does not match any of the regexes: '^[a-zA-Z_]+[a-zA-Z0-9_]*$')",
                "1 is not valid under any of the given schemas",
            ],
        );
    }

    #[test]
    fn schema_errors_come_before_template_checks() {
        assert_errors(
            json!({"env": {"X": "{{ nope }}", "Y": 1}}),
            &["int provided in relative path ['env', 'Y'], expected string"],
        );
    }

    // ----- reserved names -----------------------------------------------------------------------

    #[test]
    fn reserved_prefix_is_rejected_in_env_names() {
        assert_error(
            json!({"env": {"AUTOMATION_X": "{{host}}"}}),
            "Environment variable AUTOMATION_X uses the reserved prefix AUTOMATION_ and is not allowed in credentials.",
        );
    }

    #[test]
    fn ansible_prefix_is_rejected_in_env_names() {
        assert_error(
            json!({"env": {"ANSIBLE_SETTING": "{{awx_secret}}"}}),
            "Environment variable ANSIBLE_SETTING may affect Ansible configuration so its use is not allowed in credentials.",
        );
    }

    #[test]
    fn blocklisted_env_names_are_rejected() {
        assert_error(
            json!({"env": {"JOB_ID": "x"}}),
            "Environment variable JOB_ID is not allowed to be used in credentials.",
        );
        for name in ENV_BLOCKLIST
            .iter()
            .copied()
            .chain(["LD_PRELOAD", "LD_LIBRARY_PATH"])
        {
            assert_eq!(
                env_name_allowed(name),
                Err(format!(
                    "Environment variable {name} is not allowed to be used in credentials."
                ))
            );
            assert_error(
                json!({"env": {name: "x"}}),
                &format!("Environment variable {name} is not allowed to be used in credentials."),
            );
        }
    }

    #[test]
    fn env_name_rules_are_exact() {
        for name in [
            "PATHS",
            "MY_PATH",
            "HOME_DIR",
            "TOWER_HOST",
            "AWX_SECRET",
            "LDX",
            "ansible_x",
            "automation_x",
        ] {
            assert_eq!(env_name_allowed(name), Ok(()), "{name}");
        }
        assert!(env_name_allowed("AUTOMATION_").is_err());
        assert!(env_name_allowed("ANSIBLE_").is_err());
        assert!(env_name_allowed("LD_").is_err());
    }

    #[test]
    fn env_names_are_checked_before_env_templates() {
        assert_error(
            json!({"env": {"X": "{{ nope }}", "JOB_ID": "x"}}),
            "Environment variable JOB_ID is not allowed to be used in credentials.",
        );
    }

    #[test]
    fn reserved_prefix_is_rejected_in_file_names() {
        assert_error(
            json!({"file": {"template.AUTOMATION_X": "{{host}}"}}),
            "File name AUTOMATION_X uses the reserved prefix AUTOMATION_ and is not allowed in credentials.",
        );
    }

    #[test]
    fn reserved_prefix_is_rejected_in_extra_vars_keys_at_any_depth() {
        let message = "Extra variable AUTOMATION_X uses the reserved prefix AUTOMATION_ and is not allowed in credentials.";
        assert_error(json!({"extra_vars": {"AUTOMATION_X": "a"}}), message);
        assert_error(json!({"extra_vars": {"a": {"AUTOMATION_X": "a"}}}), message);
        assert_error(
            json!({"extra_vars": {"a": ["x", {"b": {"AUTOMATION_X": ["a"]}}]}}),
            message,
        );
    }

    #[test]
    fn managed_types_skip_the_reserved_name_rules() {
        let value = json!({
            "file": {"template.AUTOMATION_X": "{{host}}"},
            "env": {
                "AUTOMATION_X": "{{host}}",
                "ANSIBLE_NET_USERNAME": "{{username}}",
                "JOB_ID": "x",
                "LD_PRELOAD": "x"
            },
            "extra_vars": {"AUTOMATION_X": {"AUTOMATION_Y": "{{pass}}"}}
        });
        assert!(custom(&value).is_err());
        let configuration = managed(&value).expect("managed types may use reserved names");
        assert_eq!(configuration.env.len(), 4);
    }

    #[test]
    fn managed_types_still_check_templates() {
        assert_eq!(
            managed(&json!({"env": {"ANSIBLE_X": "{{ nope }}"}})),
            Err(vec![
                "ANSIBLE_X uses an undefined field ('nope' is undefined)".to_owned()
            ])
        );
    }

    // ----- order of the later checks ------------------------------------------------------------

    #[test]
    fn sections_are_checked_in_document_order() {
        let env_first = json!({
            "env": {"X": "{{ nope_env }}"},
            "extra_vars": {"y": "{{ nope_extra }}"}
        });
        assert_error(
            env_first,
            "X uses an undefined field ('nope_env' is undefined)",
        );
        let extra_first = json!({
            "extra_vars": {"y": "{{ nope_extra }}"},
            "env": {"X": "{{ nope_env }}"}
        });
        assert_error(
            extra_first,
            "y uses an undefined field ('nope_extra' is undefined)",
        );
        let file_first = json!({
            "file": {"template": "{{ nope_file }}"},
            "env": {"JOB_ID": "x"}
        });
        assert_error(
            file_first,
            "template uses an undefined field ('nope_file' is undefined)",
        );
    }

    #[test]
    fn multi_file_syntax_is_checked_before_the_sections() {
        assert_error(
            json!({
                "env": {"JOB_ID": "x"},
                "file": {"template": "a", "template.b": "b"}
            }),
            "Must use multi-file syntax when injecting multiple files",
        );
    }

    // ----- the model ----------------------------------------------------------------------------

    #[test]
    fn configuration_keeps_env_order_and_extra_vars_tree() {
        let configuration = assert_valid(json!({
            "env": {"Z": "{{host}}", "A": "{{username}}"},
            "extra_vars": {"b": ["{{host}}"], "a": {"c": "d"}}
        }));
        assert_eq!(
            configuration.env,
            [
                ("Z".to_owned(), "{{host}}".to_owned()),
                ("A".to_owned(), "{{username}}".to_owned())
            ]
        );
        assert_eq!(
            Value::Object(configuration.extra_vars),
            json!({"b": ["{{host}}"], "a": {"c": "d"}})
        );
    }

    #[test]
    fn configuration_serialises_back_to_the_document() {
        for document in [
            json!({}),
            json!({"file": {"template": "{{username}}"}}),
            json!({
                "file": {"template.a": "{{username}}", "template.b": "{{pass}}"},
                "env": {"Z": "{{svc.filename.a}}", "A": "x"},
                "extra_vars": {"k": {"n": ["{{host}}", {"m": "v"}]}}
            }),
        ] {
            let configuration = assert_valid(document.clone());
            assert_eq!(configuration.to_value(), document);
            assert_eq!(serde_json::to_value(&configuration).unwrap(), document);
            assert_eq!(custom(&configuration.to_value()), Ok(configuration));
        }
    }

    #[test]
    fn files_report_their_names() {
        assert_eq!(Files::None.names(), FileNames::None);
        assert_eq!(Files::Single(String::new()).names(), FileNames::Single);
        assert_eq!(
            Files::Multi(BTreeMap::from([("cert".to_owned(), String::new())])).names(),
            FileNames::Multi(["cert".to_owned()].into())
        );
    }

    // ----- properties ---------------------------------------------------------------------------

    fn json_value() -> impl Strategy<Value = Value> {
        let key = prop_oneof![
            Just("file".to_owned()),
            Just("env".to_owned()),
            Just("extra_vars".to_owned()),
            Just("template".to_owned()),
            Just("template.cert".to_owned()),
            Just("AUTOMATION_X".to_owned()),
            Just("JOB_ID".to_owned()),
            "[a-zA-Z_{}]{1,6}",
            any::<String>(),
        ];
        let text = prop_oneof![
            Just("{{ username }}".to_owned()),
            Just("{{ svc.filename }}".to_owned()),
            Just("{{ svc.filename.cert }}".to_owned()),
            Just("{{#if host}}x{{else}}{{ nope }}{{/if}}".to_owned()),
            Just("{{ username".to_owned()),
            Just("{{> p}}".to_owned()),
            any::<String>(),
        ];
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            text.prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 48, 6, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec((key.clone(), inner), 0..6)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    fn section() -> impl Strategy<Value = Value> {
        json_value().prop_map(|value| match value {
            Value::Object(map) => {
                let mut document = Map::new();
                for (index, (_, content)) in map.into_iter().enumerate() {
                    let name = ["file", "env", "extra_vars"][index % 3];
                    document.insert(name.to_owned(), content);
                }
                Value::Object(document)
            }
            other => other,
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

        #[test]
        fn validation_never_panics(value in json_value(), managed in any::<bool>()) {
            let _ = validate_injectors(&value, &FIELDS, managed);
        }

        #[test]
        fn validation_of_section_shaped_documents_never_panics(
            value in section(),
            managed in any::<bool>(),
        ) {
            if let Ok(configuration) = validate_injectors(&value, &FIELDS, managed) {
                // A valid configuration round-trips.
                let again = validate_injectors(&configuration.to_value(), &FIELDS, managed);
                prop_assert_eq!(again, Ok(configuration));
            }
        }
    }
}

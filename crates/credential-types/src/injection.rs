//! From a stored credential to what `acs_injectors::plan` renders for a run.
//!
//! A runner holds, per credential, its type's injector configuration, its input configuration
//! and its decrypted inputs. This module turns them into an [`acs_injectors::CredentialInjection`]:
//!
//! * the templates: [`InjectorTemplates::from`] an [`InjectorConfiguration`] (for a managed type,
//!   [`crate::ManagedType::injector_configuration`] validates its document first);
//! * the values templates see: [`injection_fields`], the reference system's namespace rules;
//! * whether the type is managed, which changes how env variables are planned.
//!
//! The runner passes [`crate::injectors::env_name_allowed`] as
//! [`acs_injectors::PlanOptions::env_allowed`].

use std::collections::BTreeSet;

use acs_injectors::{CredentialInjection, FileTemplates, InjectorTemplates};
use serde_json::{Map, Value};

use crate::injectors::{Files, InjectorConfiguration};
use crate::inputs::{FieldType, Format, InputConfiguration};
use crate::values::with_declared_defaults;

impl From<&InjectorConfiguration> for InjectorTemplates {
    fn from(configuration: &InjectorConfiguration) -> Self {
        let files = match &configuration.file {
            Files::None => FileTemplates::None,
            Files::Single(template) => FileTemplates::Single(template.clone()),
            Files::Multi(templates) => FileTemplates::Multi(templates.clone()),
        };
        InjectorTemplates {
            files,
            env: configuration.env.clone(),
            extra_vars: configuration.extra_vars.clone(),
        }
    }
}

/// The values a credential's templates are rendered with, and the ids among them that are
/// secret.
///
/// `decrypted` holds the credential's stored inputs with secrets decrypted (and `ASK` values
/// already replaced by what was prompted for). Following the reference system:
///
/// * a managed type's fields without a value take their declared default (OpenStack's
///   `verify_ssl` is true); a custom type's never do;
/// * empty strings are left out, so they render as unset;
/// * a boolean field without a value is `false`;
/// * a `format: ssh_private_key` value not ending with a newline gets one, as key parsers
///   expect;
/// * only declared fields are kept.
#[must_use]
pub fn injection_fields(
    config: &InputConfiguration,
    decrypted: &Map<String, Value>,
) -> (Map<String, Value>, BTreeSet<String>) {
    let values = with_declared_defaults(config, decrypted);
    let mut fields = Map::new();
    for field in &config.fields {
        let value = match values.get(&field.id) {
            None | Some(Value::Null) if field.field_type == FieldType::Boolean => {
                Value::Bool(false)
            }
            None | Some(Value::Null) => continue,
            Some(Value::String(text)) if text.is_empty() => continue,
            Some(Value::String(text))
                if field.format == Some(Format::SshPrivateKey) && !text.ends_with('\n') =>
            {
                Value::String(format!("{text}\n"))
            }
            Some(value) => value.clone(),
        };
        fields.insert(field.id.clone(), value);
    }
    let secrets = fields
        .keys()
        .filter(|id| config.is_secret(id))
        .cloned()
        .collect();
    (fields, secrets)
}

/// The injection of one credential: `templates` (its type's), the values of
/// [`injection_fields`], and `managed` from `config`.
#[must_use]
pub fn credential_injection<'a>(
    label: &'a str,
    templates: &'a InjectorTemplates,
    config: &InputConfiguration,
    decrypted: &Map<String, Value>,
) -> CredentialInjection<'a> {
    let (fields, secret_fields) = injection_fields(config, decrypted);
    CredentialInjection {
        label,
        templates,
        fields,
        secret_fields,
        managed: config.managed,
    }
}

#[cfg(test)]
mod tests;

//! The credentials of a run, opened for injection: each one's type, decrypted inputs and
//! injector templates, checked for what a run needs (every required input present, no input
//! left to be asked at launch).

use acs_credential_types::{InputConfiguration, values::ASK};
use acs_injectors::InjectorTemplates;
use acs_storage::DbConnection;
use acs_storage::credential_types::CredentialType;
use acs_storage::credentials::Credential;
use serde_json::{Map, Value};

use super::Explained;
use crate::Host;

/// One credential ready to inject. Its `Debug` output leaves the inputs out.
pub struct OpenedCredential {
    /// The stored credential.
    pub credential: Credential,
    /// Its type.
    pub credential_type: CredentialType,
    /// The type's input configuration.
    pub config: InputConfiguration,
    /// The type's injector templates.
    pub templates: InjectorTemplates,
    /// The inputs with secrets decrypted.
    pub inputs: Map<String, Value>,
}

impl std::fmt::Debug for OpenedCredential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenedCredential")
            .field("id", &self.credential.id)
            .field("kind", &self.credential_type.kind)
            .finish_non_exhaustive()
    }
}

impl OpenedCredential {
    /// The text value of input `field`, when set and not empty.
    pub fn text(&self, field: &str) -> Option<&str> {
        self.inputs
            .get(field)
            .and_then(Value::as_str)
            .filter(|text| !text.is_empty())
    }

    /// The boolean value of input `field` (false when unset).
    pub fn flag(&self, field: &str) -> bool {
        self.inputs
            .get(field)
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }
}

/// Every secret input value of `credentials` (longest first), for scrubbing the output.
pub fn secret_values(credentials: &[OpenedCredential]) -> Vec<String> {
    let mut secrets: Vec<String> = credentials
        .iter()
        .flat_map(|opened| {
            opened.inputs.iter().filter_map(|(field, value)| {
                let text = value.as_str()?;
                (opened.config.is_secret(field) && text.len() >= MIN_SCRUBBED_LEN)
                    .then(|| text.to_owned())
            })
        })
        .collect();
    secrets.sort_by_key(|secret| std::cmp::Reverse(secret.len()));
    secrets.dedup();
    secrets
}

/// Secrets shorter than this are not scrubbed from output: masking every `a` or `ok` would
/// make the output unreadable while hiding nothing worth hiding.
const MIN_SCRUBBED_LEN: usize = 3;

/// Opens credentials `ids` for a run.
pub fn open(
    conn: &mut DbConnection,
    host: &dyn Host,
    ids: &[i64],
) -> Result<Vec<OpenedCredential>, Explained> {
    ids.iter().map(|id| open_one(conn, host, *id)).collect()
}

fn open_one(
    conn: &mut DbConnection,
    host: &dyn Host,
    id: i64,
) -> Result<OpenedCredential, Explained> {
    let credential = acs_storage::credentials::find(conn, id)
        .map_err(|_| Explained::new(format!("Credential {id} no longer exists.")))?;
    let credential_type = acs_storage::credential_types::find(conn, credential.credential_type_id)?;
    let config = acs_app::credential_inputs::input_configuration(
        &credential_type.inputs,
        credential_type.managed,
    )
    .map_err(|reason| {
        Explained::new(format!(
            "The input fields of credential type '{}' cannot be read: {reason}",
            credential_type.name
        ))
    })?;
    let document: Value = serde_json::from_str(&credential_type.injectors).unwrap_or_default();
    let field_ids = config.field_ids();
    let injectors =
        acs_credential_types::validate_injectors(&document, &field_ids, credential_type.managed)
            .map_err(|errors| {
                Explained::new(format!(
                    "The injectors of credential type '{}' are invalid: {}",
                    credential_type.name,
                    errors.join("; ")
                ))
            })?;
    let opened = acs_app::credential_inputs::open(&host.cipher(), &config, &credential.inputs)
        .ok_or_else(|| {
            Explained::new(format!(
                "The stored inputs of credential '{}' are not a JSON object.",
                credential.name
            ))
        })?;
    if let Some(field) = opened.unreadable.first() {
        return Err(Explained::new(format!(
            "Credential '{}': the stored value of input '{field}' cannot be opened with this \
             server's secret key (was the key file replaced?). Send the secret again.",
            credential.name
        )));
    }
    let inputs = opened.values;
    let missing: Vec<&str> = config
        .required
        .iter()
        .map(String::as_str)
        .filter(|field| {
            inputs
                .get(*field)
                .is_none_or(|value| value.is_null() || value.as_str() == Some(""))
        })
        .collect();
    if !missing.is_empty() {
        return Err(Explained::new(format!(
            "Credential '{}' is missing required input(s): {}.",
            credential.name,
            missing.join(", ")
        )));
    }
    let asked = inputs.iter().find(|(field, value)| {
        value.as_str() == Some(ASK) && config.field(field).is_some_and(|f| f.ask_at_runtime)
    });
    if let Some((field, _)) = asked {
        return Err(Explained::new(format!(
            "Credential '{}' asks for '{field}' at launch, and ACS does not prompt for inputs.",
            credential.name
        )));
    }
    Ok(OpenedCredential {
        templates: InjectorTemplates::from(&injectors),
        credential,
        credential_type,
        config,
        inputs,
    })
}

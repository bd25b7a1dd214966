//! A credential's inputs as they are stored and read back: its type's input fields, its
//! secret values sealed on every write (API and management commands) and opened for the API
//! and the runner. Values are sealed with AES-256-GCM under a key derived from the
//! deployment's secret key, each with its own nonce and bound to its field id; plaintext
//! exists only in memory while a request or a job's start needs it.

use acs_credential_types::cipher::{KeyId, is_sealed};
use acs_credential_types::{InputCipher, InputConfiguration};
use acs_storage::DbConnection;
use acs_storage::credential_types::CredentialType;
use ring::rand::SecureRandom;
use serde_json::{Map, Value};

use crate::secret_key::SealRefused;
use crate::{AppError, AppResult};

/// What a stored secret that does not open says, for the field that holds it.
pub const UNREADABLE: &str = "The stored value cannot be opened with this server's secret key \
    (was the key file replaced?). Send the secret again.";

/// The input fields of a stored credential type, from its `inputs` JSON text; the reason when
/// they cannot be read (types are validated on write, so that is a damaged row).
pub fn input_configuration(inputs: &str, managed: bool) -> Result<InputConfiguration, String> {
    let document: Value = serde_json::from_str(inputs).map_err(|error| error.to_string())?;
    acs_credential_types::validate_inputs_config(&document, managed)
        .map(|(config, _)| config)
        .map_err(|errors| errors.join("; "))
}

/// The stored `inputs` JSON of validated plaintext `values`, the secret fields of `config`
/// sealed, and the key that sealed them (`None` when there was no secret to seal): that key
/// goes to [`confirm_key`] in the write that stores the inputs.
pub fn seal(
    cipher: &InputCipher,
    rng: &dyn SecureRandom,
    config: &InputConfiguration,
    mut values: Map<String, Value>,
) -> AppResult<(String, Option<KeyId>)> {
    let secret: Vec<String> = acs_credential_types::encrypted_fields(config, &values)
        .map(str::to_owned)
        .collect();
    let key = (!secret.is_empty()).then(|| cipher.current_key_id());
    for field in secret {
        if let Some(Value::String(plain)) = values.get(&field) {
            let sealed = cipher.seal(rng, &field, plain)?;
            values.insert(field, Value::String(sealed));
        }
    }
    Ok((Value::Object(values).to_string(), key))
}

/// The input fields of the stored `credential_type` (checked when the type was written, so a
/// failure is a damaged row).
pub fn type_configuration(credential_type: &CredentialType) -> AppResult<InputConfiguration> {
    input_configuration(&credential_type.inputs, credential_type.managed).map_err(|reason| {
        AppError::Damaged(format!(
            "stored credential type {} inputs: {reason}",
            credential_type.id
        ))
    })
}

/// `submitted` validated against the inputs of `credential_type` (refused under `inputs`,
/// each input named with its reasons) and [`seal`]ed. `previous` holds the opened stored
/// values on update (`$encrypted$` keeps one).
pub fn sealed_inputs(
    cipher: &InputCipher,
    rng: &dyn SecureRandom,
    credential_type: &CredentialType,
    submitted: &Value,
    previous: Option<&Map<String, Value>>,
) -> AppResult<(String, Option<KeyId>)> {
    let config = type_configuration(credential_type)?;
    let values = acs_credential_types::validate_credential_inputs(&config, submitted, previous)
        .map_err(|errors| {
            AppError::Rejected(Map::from_iter([("inputs".to_owned(), errors.to_value())]))
        })?;
    seal(cipher, rng, &config, values)
}

/// The stored inputs as a JSON object, secrets still sealed; a damaged row otherwise.
pub fn stored_object(inputs: &str) -> AppResult<Map<String, Value>> {
    stored(inputs).ok_or_else(not_an_object)
}

/// [`open`], a damaged row when the stored inputs are not a JSON object.
pub fn opened(
    cipher: &InputCipher,
    config: &InputConfiguration,
    inputs: &str,
) -> AppResult<Opened> {
    open(cipher, config, inputs).ok_or_else(not_an_object)
}

fn not_an_object() -> AppError {
    AppError::Damaged("stored credential inputs are not an object".into())
}

/// After the write that stored inputs sealed under `key`, in its transaction: refused (and the
/// write rolled back) when a rotation retired that key meanwhile (see
/// [`crate::secret_key::refuse_retired`]).
pub fn confirm_key(conn: &mut DbConnection, key: Option<KeyId>) -> Result<(), SealRefused> {
    match key {
        Some(key) => crate::secret_key::refuse_retired(conn, key),
        None => Ok(()),
    }
}

/// Stored inputs, their secrets opened.
#[derive(Debug, Default)]
pub struct Opened {
    /// Every input, secrets in clear, except those that do not open.
    pub values: Map<String, Value>,
    /// The secret fields whose stored value does not open under the server's keys (sealed
    /// under a key it does not hold, or altered): they can be replaced, never used.
    pub unreadable: Vec<String>,
}

/// The stored inputs as a JSON object, secrets still sealed; `None` when they are not one.
pub fn stored(inputs: &str) -> Option<Map<String, Value>> {
    match serde_json::from_str(inputs) {
        Ok(Value::Object(map)) => Some(map),
        _ => None,
    }
}

/// The stored inputs with every sealed secret opened: the previous values an update may keep,
/// the values a job gets. Only the secret fields of `config` (the stored credential's type)
/// hold sealed values; a non-secret field holds exactly what the client typed, even text
/// shaped like a sealed value. `None` when the stored inputs are not a JSON object.
pub fn open(cipher: &InputCipher, config: &InputConfiguration, inputs: &str) -> Option<Opened> {
    let mut opened = Opened {
        values: stored(inputs)?,
        unreadable: Vec::new(),
    };
    opened.values.retain(|field, value| match value {
        Value::String(text) if config.is_secret(field) && is_sealed(text) => {
            match cipher.open(field, text) {
                Ok(plain) => {
                    *text = plain;
                    true
                }
                Err(error) => {
                    let what = format!("the stored secret input '{field}'");
                    crate::secret_key::log_unopened(&what, text, error);
                    opened.unreadable.push(field.clone());
                    false
                }
            }
        }
        _ => true,
    });
    Some(opened)
}

#[cfg(test)]
mod tests {
    use ring::rand::SystemRandom;
    use serde_json::json;

    use super::*;

    #[test]
    fn secrets_open_and_those_that_do_not_are_named() {
        let config = input_configuration(
            &json!({"fields": [
                {"id": "user", "label": "User"},
                {"id": "token", "label": "Token", "secret": true},
                {"id": "key", "label": "Key", "secret": true},
            ]})
            .to_string(),
            false,
        )
        .expect("fields");
        let rng = SystemRandom::new();
        let ours = InputCipher::from_secret_key(&[1; 32]);
        let theirs = InputCipher::from_secret_key(&[2; 32]);
        let lookalike = ours.seal(&rng, "user", "u").expect("sealed");
        let inputs = json!({
            "user": lookalike,
            "token": ours.seal(&rng, "token", "t0k3n").expect("sealed"),
            "key": theirs.seal(&rng, "key", "k3y").expect("sealed"),
        });
        let opened = open(&ours, &config, &inputs.to_string()).expect("an object");
        assert_eq!(
            Value::Object(opened.values),
            json!({"user": lookalike, "token": "t0k3n"})
        );
        assert_eq!(opened.unreadable, ["key"]);
        assert!(open(&ours, &config, "[]").is_none());
    }
}

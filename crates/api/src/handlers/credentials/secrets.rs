//! Sealing and opening the secret inputs of a credential. Values are sealed with
//! AES-256-GCM under a key derived from the deployment's secret key, each with its own nonce
//! and bound to its field id; plaintext exists only in memory during a request.

use acs_credential_types::{InputCipher, InputConfiguration, cipher::is_sealed};
use ring::rand::SecureRandom;
use serde_json::{Map, Value};

use crate::error::{ApiError, ApiResult};

/// The stored `inputs` JSON of validated plaintext `values`: secret fields sealed.
pub fn seal(
    cipher: &InputCipher,
    rng: &dyn SecureRandom,
    config: &InputConfiguration,
    mut values: Map<String, Value>,
) -> ApiResult<String> {
    let secret: Vec<String> = acs_credential_types::encrypted_fields(config, &values)
        .map(str::to_owned)
        .collect();
    for field in secret {
        if let Some(Value::String(plain)) = values.get(&field) {
            let sealed = cipher
                .seal(rng, &field, plain)
                .map_err(|e| ApiError::Internal(format!("sealing an input: {e}")))?;
            values.insert(field, Value::String(sealed));
        }
    }
    Ok(Value::Object(values).to_string())
}

/// The stored inputs as a JSON object, secrets still sealed.
pub fn stored(inputs: &str) -> ApiResult<Map<String, Value>> {
    match serde_json::from_str(inputs) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(ApiError::Internal(
            "stored credential inputs are not an object".into(),
        )),
    }
}

/// What a stored secret that does not open says, for the field that holds it.
pub const UNREADABLE: &str = "The stored value cannot be opened with this server's secret key \
    (was the key file replaced?). Send the secret again.";

/// Stored inputs, their secrets opened.
#[derive(Debug, Default)]
pub struct Opened {
    /// Every input, secrets in clear, except those that do not open.
    pub values: Map<String, Value>,
    /// The secret fields whose stored value does not open under the server's keys (sealed
    /// under a key it does not hold, or altered): they can be replaced, never used.
    pub unreadable: Vec<String>,
}

/// The stored inputs with every sealed secret opened: the previous values an update may keep,
/// the values a job gets. Only the secret fields of `config` (the stored credential's type)
/// hold sealed values; a non-secret field holds exactly what the client typed, even text
/// shaped like a sealed value.
pub fn open(cipher: &InputCipher, config: &InputConfiguration, inputs: &str) -> ApiResult<Opened> {
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
                    tracing::error!(field = %field, %error, "a stored secret input cannot be opened");
                    opened.unreadable.push(field.clone());
                    false
                }
            }
        }
        _ => true,
    });
    Ok(opened)
}

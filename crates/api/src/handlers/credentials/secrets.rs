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

/// The stored inputs with every sealed secret opened: the previous values an update may keep.
/// Only the secret fields of `config` (the stored credential's type) hold sealed values; a
/// non-secret field holds exactly what the client typed, even text shaped like a sealed value.
pub fn open(
    cipher: &InputCipher,
    config: &InputConfiguration,
    inputs: &str,
) -> ApiResult<Map<String, Value>> {
    let mut values = stored(inputs)?;
    for (field, value) in values.iter_mut() {
        if let Value::String(text) = value
            && config.is_secret(field)
            && is_sealed(text)
        {
            let plain = cipher.open(field, text).map_err(|e| {
                ApiError::Internal(format!(
                    "a stored secret input cannot be opened ({e}); was the secret key replaced?"
                ))
            })?;
            *value = Value::String(plain);
        }
    }
    Ok(values)
}

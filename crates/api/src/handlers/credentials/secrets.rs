//! Sealing and opening the secret inputs of a credential. Values are sealed with
//! AES-256-GCM under a key derived from the deployment's secret key, each with its own nonce
//! and bound to its field id; plaintext exists only in memory during a request.

use acs_credential_types::cipher::KeyId;
use acs_credential_types::{InputCipher, InputConfiguration};
use acs_storage::DbConnection;
use ring::rand::SecureRandom;
use serde_json::{Map, Value};

use crate::error::{ApiError, ApiResult};

/// The stored `inputs` JSON of validated plaintext `values`, secret fields sealed, and the key
/// that sealed them (`None` when there was no secret to seal).
pub fn seal(
    cipher: &InputCipher,
    rng: &dyn SecureRandom,
    config: &InputConfiguration,
    mut values: Map<String, Value>,
) -> ApiResult<(String, Option<KeyId>)> {
    let secret: Vec<String> = acs_credential_types::encrypted_fields(config, &values)
        .map(str::to_owned)
        .collect();
    let key = (!secret.is_empty()).then(|| cipher.current_key_id());
    for field in secret {
        if let Some(Value::String(plain)) = values.get(&field) {
            let sealed = cipher
                .seal(rng, &field, plain)
                .map_err(|e| ApiError::Internal(format!("sealing an input: {e}")))?;
            values.insert(field, Value::String(sealed));
        }
    }
    Ok((Value::Object(values).to_string(), key))
}

/// After the write that stored inputs sealed under `key`, in its transaction: refused (and the
/// write rolled back) when a rotation retired that key.
pub fn confirm_key(conn: &mut DbConnection, key: Option<KeyId>) -> ApiResult<()> {
    match key {
        Some(key) => Ok(acs_app::secret_key::refuse_retired(conn, key)?),
        None => Ok(()),
    }
}

pub use acs_app::credential_inputs::{Opened, UNREADABLE};

/// The stored inputs as a JSON object, secrets still sealed.
pub fn stored(inputs: &str) -> ApiResult<Map<String, Value>> {
    acs_app::credential_inputs::stored(inputs).ok_or_else(not_an_object)
}

/// The stored inputs with every sealed secret opened (see
/// [`acs_app::credential_inputs::open`]).
pub fn open(cipher: &InputCipher, config: &InputConfiguration, inputs: &str) -> ApiResult<Opened> {
    acs_app::credential_inputs::open(cipher, config, inputs).ok_or_else(not_an_object)
}

fn not_an_object() -> ApiError {
    ApiError::Internal("stored credential inputs are not an object".into())
}

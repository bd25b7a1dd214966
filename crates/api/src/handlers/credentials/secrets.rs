//! A credential's stored inputs as the API reads them: sealing and opening are
//! `acs_app::credential_inputs`; what this adds is the API's answer when stored inputs are
//! damaged (not a JSON object).

use acs_credential_types::{InputCipher, InputConfiguration};
use serde_json::{Map, Value};

use crate::error::{ApiError, ApiResult};

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

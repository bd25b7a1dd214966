//! Settings: every named setting lives in the database, is read and written by superusers
//! through `/api/v2/settings/<category>/`, and is seen by every server on its next request.

pub mod cache;
pub mod directory;
pub mod directory_groups;
pub mod registry;
mod shown_path;
mod snapshot;
pub mod social_maps;
pub mod sso;

pub use cache::SettingsCache;
pub use shown_path::ShownPath;
pub use snapshot::Settings;

use acs_credential_types::InputCipher;
use acs_credential_types::cipher::is_sealed;
use ring::rand::SecureRandom;
use serde_json::Value;

/// The associated data a secret setting is sealed under, so a sealed setting can never be
/// opened as a credential input or as another setting.
fn sealing_label(name: &str) -> String {
    format!("setting:{name}")
}

/// The JSON text stored for a validated `value` of setting `def`: a secret setting's non-empty
/// text is sealed (AES-256-GCM, as secret credential inputs are), so no secret setting is ever
/// stored in clear; so are the client secrets inside `OIDC_PROVIDERS`, where `$encrypted$`
/// keeps the one in `previous` (the stored value).
pub fn stored_text(
    def: &registry::Definition,
    value: &Value,
    previous: &Value,
    cipher: &InputCipher,
    rng: &dyn SecureRandom,
) -> Result<String, String> {
    if def.name == sso::SETTING {
        return sso::seal(value, previous, cipher, rng).map(|sealed| sealed.to_string());
    }
    match value {
        Value::String(plain) if def.secret && !plain.is_empty() => {
            let sealed = cipher
                .seal(rng, &sealing_label(def.name), plain)
                .map_err(|error| format!("sealing {}: {error}", def.name))?;
            Ok(Value::String(sealed).to_string())
        }
        _ => Ok(value.to_string()),
    }
}

/// The rules between settings, over the values they would have after a change (`value` gives
/// each, changed or stored) and for the settings it `written`: each refusal names a setting
/// the change names, with the reason. Checked before a change is stored, after each value
/// passed its own validation.
pub fn check_together(
    value: &dyn Fn(&str) -> Value,
    written: &dyn Fn(&str) -> bool,
) -> Vec<(&'static str, String)> {
    directory_groups::check_together(value, written)
}

/// Whether storing setting `name` may seal a value: a secret setting, or `OIDC_PROVIDERS`.
pub fn may_seal(name: &str) -> bool {
    name == sso::SETTING || registry::find(name).is_some_and(|def| def.secret)
}

/// The sealed texts inside the stored value of setting `name`, each with the label it is
/// sealed under: a secret setting's text, or the client secrets of `OIDC_PROVIDERS`.
pub fn sealed_parts<'v>(name: &str, value: &'v mut Value) -> Vec<(String, &'v mut String)> {
    if name == sso::SETTING {
        return sso::sealed_secrets(value);
    }
    match (registry::find(name), value) {
        (Some(def), Value::String(text)) if def.secret && is_sealed(text) => {
            vec![(sealing_label(name), text)]
        }
        _ => Vec::new(),
    }
}

/// The clear text of secret setting `name` as stored (`stored` is the snapshot's value):
/// `None` when it cannot be opened (a replaced secret key).
pub fn open_secret(cipher: &InputCipher, name: &str, stored: &str) -> Option<String> {
    if !is_sealed(stored) {
        return Some(stored.to_owned());
    }
    cipher
        .open(&sealing_label(name), stored)
        .map_err(|error| {
            let what = format!("the secret setting {name}");
            crate::secret_key::log_unopened(&what, stored, error);
        })
        .ok()
}

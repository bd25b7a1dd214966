//! `OIDC_PROVIDERS` (category `oidc`, contract §3): the OpenID Connect providers users may
//! sign in with. Each provider's `client_secret` is sealed at rest and shown as
//! `$encrypted$`; sending `$encrypted$` back keeps the stored one.

use acs_credential_types::InputCipher;
use acs_mapping::GroupClaimMaps;
use ring::rand::SecureRandom;
use serde_json::{Map, Value, json};

use super::Settings;

/// The setting's name.
pub const SETTING: &str = "OIDC_PROVIDERS";

/// The mask of a stored secret.
const MASK: &str = "$encrypted$";

/// One configured provider, with its client secret opened.
#[derive(Clone, PartialEq, Eq)]
pub struct ProviderConfig {
    /// URL-safe name (`/sso/login/<name>/`).
    pub name: String,
    /// Button text.
    pub label: String,
    /// Issuer URL (discovery at `<issuer>/.well-known/openid-configuration`).
    pub issuer: String,
    /// OAuth 2 client id.
    pub client_id: String,
    /// OAuth 2 client secret.
    pub client_secret: String,
    /// Scopes asked for (`openid` always among them).
    pub scopes: Vec<String>,
    /// What the groups claim of its ID tokens gives (`groups`), if anything.
    pub groups: Option<GroupClaimMaps>,
}

impl std::fmt::Debug for ProviderConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderConfig")
            .field("name", &self.name)
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

fn sealing_label(name: &str) -> String {
    format!("setting:{SETTING}:{name}")
}

/// `(name, label)` of every provider, for the login page's buttons.
pub fn buttons(settings: &Settings) -> Vec<(String, String)> {
    providers(&settings.value(SETTING))
        .map(|p| (text(p, "name"), text(p, "label")))
        .collect()
}

/// Provider `name`, its secret opened; `None` if there is no such provider.
pub fn provider(settings: &Settings, name: &str, cipher: &InputCipher) -> Option<ProviderConfig> {
    let stored = settings.value(SETTING);
    let entry = providers(&stored).find(|p| text(p, "name") == name)?;
    let secret = text(entry, "client_secret");
    let client_secret = if acs_credential_types::cipher::is_sealed(&secret) {
        cipher
            .open(&sealing_label(name), &secret)
            .map_err(|error| {
                let what = format!("the client secret of provider {name}");
                crate::secret_key::log_unopened(&what, &secret, error);
            })
            .ok()?
    } else {
        secret
    };
    let mut scopes: Vec<String> = entry
        .get("scopes")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_else(|| vec!["openid".into(), "profile".into(), "email".into()]);
    if !scopes.iter().any(|scope| scope == "openid") {
        scopes.insert(0, "openid".into());
    }
    // Stored around the validator (by `ACS_*` variables) and unreadable: nobody signs in
    // there, rather than without the maps that could take access away.
    let groups = GroupClaimMaps::parse(entry.get("groups").unwrap_or(&Value::Null))
        .map_err(|error| {
            tracing::error!(provider = name, %error, "the provider's groups mapping cannot be read");
        })
        .ok()?;
    Some(ProviderConfig {
        groups,
        name: name.to_owned(),
        label: text(entry, "label"),
        issuer: text(entry, "issuer"),
        client_id: text(entry, "client_id"),
        client_secret,
        scopes,
    })
}

/// The user flags the groups mapping of a provider with `issuer` sets at every sign-in
/// (`is_superuser`, `is_system_auditor`), with that provider's name: its users' are the
/// provider's, not an admin's to change by hand.
pub fn flags_owned_by_provider(settings: &Settings, issuer: &str) -> Vec<(&'static str, String)> {
    let stored = settings.value(SETTING);
    let mut owned = Vec::new();
    for entry in providers(&stored).filter(|entry| text(entry, "issuer") == issuer) {
        let groups = GroupClaimMaps::parse(entry.get("groups").unwrap_or(&Value::Null));
        let Ok(Some(groups)) = groups else { continue };
        for (flag, set) in [
            ("is_superuser", groups.flags.superuser.is_some()),
            ("is_system_auditor", groups.flags.system_auditor.is_some()),
        ] {
            if set {
                owned.push((flag, text(entry, "name")));
            }
        }
    }
    owned
}

fn providers(value: &Value) -> impl Iterator<Item = &Map<String, Value>> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
}

fn text(entry: &Map<String, Value>, key: &str) -> String {
    entry
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// Validates the list: each provider has a unique URL-safe `name`, an `issuer` that is an
/// http(s) URL, a `client_id`, a string `client_secret`, optional `label` and `scopes`, and
/// an optional `groups` mapping of a groups claim ([`GroupClaimMaps`]).
pub fn validate(value: &Value) -> Result<Value, String> {
    let items = value.as_array().ok_or("Expected a list of providers.")?;
    let mut names = Vec::new();
    let mut normalised = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let entry = item
            .as_object()
            .ok_or_else(|| format!("Provider {index}: expected an object."))?;
        let field = |key: &str| {
            entry
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .trim()
                .to_owned()
        };
        let name = field("name");
        let valid_name = !name.is_empty()
            && name.len() <= 64
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !valid_name {
            return Err(format!(
                "Provider {index}: name must be 1 to 64 letters, digits, '-' or '_'."
            ));
        }
        if names.contains(&name) {
            return Err(format!("Provider {index}: the name {name} is used twice."));
        }
        let issuer = field("issuer");
        let parsed = url::Url::parse(&issuer)
            .map_err(|_| format!("Provider {name}: issuer '{issuer}' is not a URL."))?;
        if !matches!(parsed.scheme(), "https" | "http") || parsed.host_str().is_none() {
            return Err(format!("Provider {name}: issuer must be an http(s) URL."));
        }
        let client_id = field("client_id");
        if client_id.is_empty() {
            return Err(format!("Provider {name}: client_id is required."));
        }
        let secret = entry.get("client_secret").cloned().unwrap_or(json!(""));
        if !secret.is_string() {
            return Err(format!("Provider {name}: client_secret must be a string."));
        }
        let scopes = match entry.get("scopes") {
            None | Some(Value::Null) => json!(["openid", "profile", "email"]),
            Some(Value::Array(items))
                if items.iter().all(|s| {
                    s.as_str()
                        .is_some_and(|s| !s.is_empty() && !s.contains(' '))
                }) =>
            {
                Value::Array(items.clone())
            }
            Some(_) => return Err(format!("Provider {name}: scopes must be a list of words.")),
        };
        let label = match field("label") {
            label if label.is_empty() => name.clone(),
            label => label,
        };
        let groups = GroupClaimMaps::parse(entry.get("groups").unwrap_or(&Value::Null))
            .map_err(|error| format!("Provider {name}: groups: {error}"))?
            .map_or(Value::Null, |maps| maps.json());
        normalised.push(json!({
            "name": name, "label": label, "issuer": issuer.trim_end_matches('/'),
            "client_id": client_id, "client_secret": secret, "scopes": scopes,
            "groups": groups,
        }));
        names.push(name);
    }
    Ok(Value::Array(normalised))
}

/// The stored form of a validated list: secrets sealed; `$encrypted$` keeps the secret of the
/// provider of the same name in `previous` (what is stored now).
pub fn seal(
    value: &Value,
    previous: &Value,
    cipher: &InputCipher,
    rng: &dyn SecureRandom,
) -> Result<Value, String> {
    let mut sealed = Vec::new();
    for entry in providers(value) {
        let name = text(entry, "name");
        let secret = text(entry, "client_secret");
        let stored = if secret == MASK {
            providers(previous)
                .find(|p| text(p, "name") == name)
                .map(|p| text(p, "client_secret"))
                .ok_or_else(|| {
                    format!("Provider {name}: there is no stored client_secret to keep.")
                })?
        } else if secret.is_empty() {
            secret
        } else {
            cipher
                .seal(rng, &sealing_label(&name), &secret)
                .map_err(|error| format!("sealing {name}: {error}"))?
        };
        let mut entry = entry.clone();
        entry.insert("client_secret".into(), json!(stored));
        sealed.push(Value::Object(entry));
    }
    Ok(Value::Array(sealed))
}

/// The sealed client secrets in a stored list, each with the label it is sealed under.
pub(super) fn sealed_secrets(value: &mut Value) -> Vec<(String, &mut String)> {
    let Value::Array(entries) = value else {
        return Vec::new();
    };
    entries
        .iter_mut()
        .filter_map(|entry| {
            let entry = entry.as_object_mut()?;
            let label = sealing_label(entry.get("name")?.as_str()?);
            match entry.get_mut("client_secret")? {
                Value::String(secret) if acs_credential_types::cipher::is_sealed(secret) => {
                    Some((label, secret))
                }
                _ => None,
            }
        })
        .collect()
}

/// The list as the API shows it: every stored secret as `$encrypted$`.
pub fn masked(value: &Value) -> Value {
    Value::Array(
        providers(value)
            .map(|entry| {
                let mut entry = entry.clone();
                if entry
                    .get("client_secret")
                    .and_then(Value::as_str)
                    .is_some_and(|s| !s.is_empty())
                {
                    entry.insert("client_secret".into(), json!(MASK));
                }
                Value::Object(entry)
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(extra: Value) -> Value {
        let mut entry = json!({"name": "corp", "issuer": "https://id.example.com/", "client_id": "acs", "client_secret": "s"});
        for (key, value) in extra.as_object().into_iter().flatten() {
            entry[key] = value.clone();
        }
        json!([entry])
    }

    #[test]
    fn providers_are_validated() {
        let ok = validate(&one(json!({}))).expect("valid");
        assert_eq!(ok[0]["label"], "corp");
        assert_eq!(ok[0]["issuer"], "https://id.example.com");
        assert!(validate(&one(json!({"name": ""}))).is_err());
        assert!(validate(&one(json!({"name": "a b"}))).is_err());
        assert!(validate(&one(json!({"issuer": "not a url"}))).is_err());
        assert!(validate(&one(json!({"issuer": "ftp://x"}))).is_err());
        assert!(validate(&one(json!({"client_id": ""}))).is_err());
        assert!(validate(&one(json!({"scopes": "openid"}))).is_err());
        assert_eq!(
            validate(&one(json!({"groups": {"organizations": {}}}))),
            Err("Provider corp: groups: claim: This field is required.".to_owned())
        );
        let mapped = validate(&one(
            json!({"groups": {"claim": "groups", "flags": {"is_superuser": "root"}}}),
        ))
        .expect("a mapping");
        assert_eq!(
            mapped[0]["groups"]["flags"]["is_superuser"],
            json!(["root"])
        );
        assert_eq!(ok[0]["groups"], Value::Null);
        let twice = json!([one(json!({}))[0], one(json!({}))[0]]);
        assert!(validate(&twice).unwrap_err().contains("used twice"));
    }

    #[test]
    fn secrets_are_sealed_kept_and_masked() {
        let rng = ring::rand::SystemRandom::new();
        let cipher = InputCipher::from_secret_key(&[7u8; 32]);
        let value = validate(&one(json!({"client_secret": "top-secret"}))).expect("valid");
        let stored = seal(&value, &Value::Null, &cipher, &rng).expect("sealed");
        assert!(!stored.to_string().contains("top-secret"));
        assert_eq!(masked(&stored)[0]["client_secret"], MASK);
        let again = validate(&one(json!({"client_secret": MASK}))).expect("valid");
        let kept = seal(&again, &stored, &cipher, &rng).expect("kept");
        assert_eq!(kept, stored);
        assert!(seal(&again, &Value::Null, &cipher, &rng).is_err());
    }
}

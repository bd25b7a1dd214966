//! The `ldap` settings (contract §3, the reference's names): their validation and the typed
//! configuration directory login reads from a settings snapshot.

use serde_json::{Value, json};

use super::Settings;
use super::directory_groups::DirectoryGroups;

/// Where and how users are looked up in the directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UserLookup {
    /// `AUTH_LDAP_USER_DN_TEMPLATE`: the DN is the template with `%(user)s` replaced.
    Template(String),
    /// `AUTH_LDAP_USER_SEARCH`: a search under `base` with `filter` (`%(user)s` replaced).
    Search {
        /// Base DN.
        base: String,
        /// Whole subtree (`SCOPE_SUBTREE`) or one level (`SCOPE_ONELEVEL`).
        subtree: bool,
        /// Filter template.
        filter: String,
    },
}

/// The directory login configuration; `None` from [`DirectoryConfig::of`] when it is off.
#[derive(Clone, PartialEq, Eq)]
pub struct DirectoryConfig {
    /// `AUTH_LDAP_SERVER_URI`.
    pub uri: String,
    /// `AUTH_LDAP_BIND_DN` (empty: search anonymously).
    pub bind_dn: String,
    /// `AUTH_LDAP_BIND_PASSWORD`, opened.
    pub bind_password: String,
    /// `AUTH_LDAP_START_TLS`.
    pub start_tls: bool,
    /// How users are found.
    pub lookup: UserLookup,
    /// Directory attribute of each user field (`first_name`, `last_name`, `email`).
    pub attributes: Vec<(String, String)>,
    /// What the user's groups decide, when a group search is set.
    pub groups: Option<DirectoryGroups>,
}

impl std::fmt::Debug for DirectoryConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DirectoryConfig")
            .field("uri", &self.uri)
            .field("bind_dn", &self.bind_dn)
            .field("lookup", &self.lookup)
            .field("groups", &self.groups)
            .finish_non_exhaustive()
    }
}

impl DirectoryConfig {
    /// The configuration in `settings`, or `None` when directory login is off (no server URI,
    /// or neither a DN template nor a search, or group settings it cannot use: refused
    /// rather than ignored, as ignoring a required group would let everyone in). `open` turns the stored bind password into
    /// clear text.
    pub fn of(settings: &Settings, open: impl Fn(&str) -> Option<String>) -> Option<Self> {
        let uri = settings.text("AUTH_LDAP_SERVER_URI");
        if uri.trim().is_empty() {
            return None;
        }
        let template = settings.text("AUTH_LDAP_USER_DN_TEMPLATE");
        let search = settings.value("AUTH_LDAP_USER_SEARCH");
        let lookup = if !template.is_empty() {
            UserLookup::Template(template)
        } else {
            let parts: Vec<&str> = search
                .as_array()?
                .iter()
                .filter_map(Value::as_str)
                .collect();
            let [base, scope, filter] = parts[..] else {
                return None;
            };
            UserLookup::Search {
                base: base.to_owned(),
                subtree: scope == "SCOPE_SUBTREE",
                filter: filter.to_owned(),
            }
        };
        let attributes = settings
            .value("AUTH_LDAP_USER_ATTR_MAP")
            .as_object()
            .map(|map| {
                map.iter()
                    .filter_map(|(field, attribute)| {
                        Some((field.clone(), attribute.as_str()?.to_owned()))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let groups = match DirectoryGroups::of(settings) {
            Ok(groups) => groups,
            Err(error) => {
                tracing::error!(%error, "directory login is off: its group settings cannot be used");
                return None;
            }
        };
        Some(DirectoryConfig {
            uri: uri.trim().to_owned(),
            bind_dn: settings.text("AUTH_LDAP_BIND_DN"),
            bind_password: open(&settings.text("AUTH_LDAP_BIND_PASSWORD")).unwrap_or_default(),
            start_tls: settings.value("AUTH_LDAP_START_TLS").as_bool() == Some(true),
            lookup,
            attributes,
            groups,
        })
    }
}

/// The user fields an attribute map may fill.
const MAPPED_FIELDS: [&str; 3] = ["first_name", "last_name", "email"];

/// `AUTH_LDAP_SERVER_URI`: empty, or an `ldap://` or `ldaps://` URL.
pub fn server_uri(value: &Value) -> Result<Value, String> {
    let text = value.as_str().ok_or("Not a valid string.")?.trim();
    if text.is_empty() {
        return Ok(json!(""));
    }
    let url = url::Url::parse(text).map_err(|_| format!("'{text}' is not a valid LDAP URI."))?;
    if !matches!(url.scheme(), "ldap" | "ldaps") || url.host_str().is_none() {
        return Err(format!(
            "'{text}' is not a valid LDAP URI: use ldap://host[:port] or ldaps://host[:port]."
        ));
    }
    Ok(json!(text))
}

/// A DN or DN-shaped text: any string without NUL; empty allowed.
pub fn dn(value: &Value) -> Result<Value, String> {
    let text = value.as_str().ok_or("Not a valid string.")?;
    if text.contains('\0') {
        return Err("Null characters are not allowed.".into());
    }
    Ok(value.clone())
}

/// `AUTH_LDAP_USER_DN_TEMPLATE`: empty, or a DN holding `%(user)s`.
pub fn dn_template(value: &Value) -> Result<Value, String> {
    let text = dn(value)?;
    let template = text.as_str().unwrap_or_default();
    if !template.is_empty() && !template.contains("%(user)s") {
        return Err("The template must contain %(user)s.".into());
    }
    Ok(text)
}

/// `AUTH_LDAP_USER_SEARCH`: `[]`, or `[base_dn, "SCOPE_SUBTREE"|"SCOPE_ONELEVEL", filter]` with
/// `%(user)s` in a parenthesised filter.
pub fn user_search(value: &Value) -> Result<Value, String> {
    let items = value.as_array().ok_or("Expected a list of items.")?;
    if items.is_empty() {
        return Ok(value.clone());
    }
    let [base, scope, filter] = items.as_slice() else {
        return Err("Expected [base DN, scope, filter].".into());
    };
    let (Some(base), Some(scope), Some(filter)) = (base.as_str(), scope.as_str(), filter.as_str())
    else {
        return Err("Expected three strings: [base DN, scope, filter].".into());
    };
    if base.trim().is_empty() {
        return Err("The base DN may not be blank.".into());
    }
    if !matches!(scope, "SCOPE_SUBTREE" | "SCOPE_ONELEVEL") {
        return Err(format!(
            "'{scope}' is not a valid search scope: use SCOPE_SUBTREE or SCOPE_ONELEVEL."
        ));
    }
    if !filter.starts_with('(') || !filter.ends_with(')') || !filter.contains("%(user)s") {
        return Err("The filter must be parenthesised and contain %(user)s.".into());
    }
    Ok(value.clone())
}

/// `AUTH_LDAP_USER_ATTR_MAP`: user field to directory attribute.
pub fn attribute_map(value: &Value) -> Result<Value, String> {
    let map = value.as_object().ok_or("Expected a dictionary of items.")?;
    for (field, attribute) in map {
        if !MAPPED_FIELDS.contains(&field.as_str()) {
            return Err(format!(
                "'{field}' is not a user field: use first_name, last_name or email."
            ));
        }
        let name = attribute
            .as_str()
            .ok_or_else(|| format!("{field}: the attribute name must be a string."))?;
        let valid = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == ';');
        if !valid {
            return Err(format!("{field}: '{name}' is not an attribute name."));
        }
    }
    Ok(value.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_validated() {
        assert_eq!(
            server_uri(&json!("ldap://127.0.0.1:389")),
            Ok(json!("ldap://127.0.0.1:389"))
        );
        assert_eq!(server_uri(&json!("")), Ok(json!("")));
        assert!(server_uri(&json!("http://example.com")).is_err());
        assert!(server_uri(&json!("ldap:/nohost")).is_err());
        assert!(user_search(&json!([])).is_ok());
        assert!(
            user_search(&json!([
                "ou=people,dc=x",
                "SCOPE_SUBTREE",
                "(uid=%(user)s)"
            ]))
            .is_ok()
        );
        assert!(user_search(&json!(["ou=people,dc=x", "SCOPE_BASE", "(uid=%(user)s)"])).is_err());
        assert!(user_search(&json!(["ou=people,dc=x", "SCOPE_SUBTREE", "uid=%(user)s"])).is_err());
        assert!(user_search(&json!(["", "SCOPE_SUBTREE", "(uid=%(user)s)"])).is_err());
        assert!(dn_template(&json!("uid=%(user)s,ou=people,dc=x")).is_ok());
        assert!(dn_template(&json!("uid=x,ou=people,dc=x")).is_err());
        assert!(attribute_map(&json!({"email": "mail"})).is_ok());
        assert!(attribute_map(&json!({"is_superuser": "x"})).is_err());
        assert!(attribute_map(&json!({"email": "ma il"})).is_err());
    }
}

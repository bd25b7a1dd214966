//! The recorded (safe) form of a job's environment.
//!
//! A job records the environment it ran with so that users can see it later; secrets must not
//! appear there. Custom credential types are masked field by field (their secret inputs render
//! as [`HIDDEN_VALUE`]); the environment a job runner builds itself and the variables of managed
//! types are additionally masked by name and shape, following the reference system's rules:
//!
//! * `AWS_ACCESS_KEY_ID` stays visible;
//! * names starting `ANSIBLE_` stay visible, except `ANSIBLE_NET*` and `ANSIBLE_GALAXY_SERVER*`;
//! * otherwise a name containing `API`, `TOKEN`, `KEY`, `SECRET` or `PASS` (in any case,
//!   anywhere: `monkey` and `bypass` too) has its value replaced by [`HIDDEN_VALUE`];
//! * otherwise a value shaped `scheme://user:password@host…` is replaced entirely.

use std::collections::BTreeMap;

/// What a masked value is recorded as: exactly ten asterisks.
pub const HIDDEN_VALUE: &str = "**********";

/// The name fragments that mark a variable as secret (compared case-insensitively).
const SENSITIVE_FRAGMENTS: [&str; 5] = ["API", "TOKEN", "KEY", "SECRET", "PASS"];

/// Whether the value of the environment variable `name` is masked in the recorded environment
/// because of its name (see the module documentation for the exceptions).
#[must_use]
pub fn is_sensitive_env_name(name: &str) -> bool {
    if is_exempt(name) {
        return false;
    }
    let upper = name.to_ascii_uppercase();
    SENSITIVE_FRAGMENTS
        .iter()
        .any(|fragment| upper.contains(fragment))
}

/// Names left visible whatever they contain: the AWS access key id (an identifier, not a
/// secret) and Ansible's own settings, except the network and galaxy server ones, which carry
/// passwords and tokens.
fn is_exempt(name: &str) -> bool {
    name == "AWS_ACCESS_KEY_ID"
        || (name.starts_with("ANSIBLE_")
            && !name.starts_with("ANSIBLE_NET")
            && !name.starts_with("ANSIBLE_GALAXY_SERVER"))
}

/// Whether `value` holds a URL with a password: `://`, then a user of at least one character,
/// `:`, and later an `@`. Over-matching only masks more.
fn has_url_password(value: &str) -> bool {
    value.match_indices("://").any(|(at, separator)| {
        let rest = &value[at + separator.len()..];
        rest.find(':')
            .is_some_and(|colon| colon > 0 && rest[colon + 1..].contains('@'))
    })
}

/// The recorded value of the variable `name` whose real value is `value`.
#[must_use]
pub fn redact_env_value(name: &str, value: &str) -> String {
    if !is_exempt(name) && (is_sensitive_env_name(name) || has_url_password(value)) {
        HIDDEN_VALUE.to_owned()
    } else {
        value.to_owned()
    }
}

/// A new map with every value of `env` replaced by its recorded form ([`redact_env_value`]).
#[must_use]
pub fn redact_recorded_env(env: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    env.iter()
        .map(|(name, value)| (name.clone(), redact_env_value(name, value)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_with_sensitive_fragments_are_masked() {
        for name in [
            "REST_API_TOKEN",
            "SECRET_KEY",
            "VMWARE_PASSWORD",
            "API_SECRET",
            "ANSIBLE_GALAXY_SERVER_PRIMARY_GALAXY_TOKEN",
            "ANSIBLE_NET_PASSWORD",
            "AWS_SECRET_ACCESS_KEY",
            "monkey",
            "bypass",
            "my_api",
        ] {
            assert!(is_sensitive_env_name(name), "{name}");
            assert_eq!(redact_env_value(name, "value"), HIDDEN_VALUE, "{name}");
        }
    }

    #[test]
    fn exempt_and_plain_names_stay_visible() {
        for name in [
            "AWS_ACCESS_KEY_ID",
            "ANSIBLE_FORCE_COLOR",
            "ANSIBLE_SSH_PASS_PROMPT",
            "ANSIBLE_KEY_FILE",
            "VMWARE_HOST",
            "GCE_EMAIL",
            "ANSIBLE_GALAXY_SERVER_SERVER0_URL",
        ] {
            assert!(!is_sensitive_env_name(name), "{name}");
        }
        assert_eq!(redact_env_value("VMWARE_HOST", "vc.example"), "vc.example");
    }

    #[test]
    fn urls_with_passwords_are_masked_entirely() {
        assert_eq!(
            redact_env_value("PROXY", "https://user:pass@proxy.example:3128/x"),
            HIDDEN_VALUE
        );
        assert_eq!(
            redact_env_value(
                "ANSIBLE_GALAXY_SERVER_SERVER0_URL",
                "https://u:p@galaxy.example/"
            ),
            HIDDEN_VALUE
        );
        for visible in [
            "https://galaxy.ansible.com/",
            "https://host:8443/path",
            "https://user@host/",
            "https://:p@host/",
            "not a url: a@b",
        ] {
            assert_eq!(redact_env_value("URL", visible), visible, "{visible}");
        }
        // Exempt names are never masked, as in the reference system.
        assert_eq!(
            redact_env_value("ANSIBLE_CONFIG_URL", "https://u:p@h/"),
            "https://u:p@h/"
        );
    }

    #[test]
    fn redaction_returns_a_new_map() {
        let env = BTreeMap::from([
            ("SECRET_KEY".to_owned(), "s".to_owned()),
            ("HOME_DIR".to_owned(), "/h".to_owned()),
        ]);
        let recorded = redact_recorded_env(&env);
        assert_eq!(recorded["SECRET_KEY"], HIDDEN_VALUE);
        assert_eq!(recorded["HOME_DIR"], "/h");
        assert_eq!(env["SECRET_KEY"], "s");
    }
}

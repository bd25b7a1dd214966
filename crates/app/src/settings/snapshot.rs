//! A validated, typed view of all settings at one revision.

use std::collections::HashMap;

use serde_json::Value;

use super::registry::{self, OAUTH2_PROVIDER_KEYS};

/// All settings at one revision, with defaults filled in.
#[derive(Debug, Clone)]
pub struct Settings {
    values: HashMap<&'static str, Value>,
    auth_basic_enabled: bool,
    session_cookie_age: i64,
    sessions_per_user: i64,
    session_cookie_name: String,
    allow_oauth2_for_external_users: bool,
    oauth2_provider: acs_oauth2::Lifetimes,
    trusted_proxies: Vec<std::net::IpAddr>,
    cleanup_tokens_interval_seconds: u64,
    cors_allowed_origins: Vec<regex::Regex>,
}

impl Settings {
    /// Builds the snapshot from stored `(name, JSON text)` rows. A stored value that no longer
    /// validates (written by an older version) falls back to the default, with a warning.
    pub fn from_rows(rows: &[(String, String)]) -> Self {
        let mut values: HashMap<&'static str, Value> = registry::SETTINGS
            .iter()
            .map(|def| (def.name, (def.default)()))
            .collect();
        for (name, text) in rows {
            let Some(def) = registry::find(name) else {
                continue;
            };
            match serde_json::from_str::<Value>(text)
                .map_err(|e| e.to_string())
                .and_then(|v| (def.validate)(&v))
            {
                Ok(value) => {
                    values.insert(def.name, value);
                }
                Err(reason) => {
                    tracing::warn!(setting = def.name, %reason, "ignoring invalid stored setting")
                }
            }
        }
        let get = |name: &str| values.get(name).cloned().unwrap_or(Value::Null);
        let provider = get("OAUTH2_PROVIDER");
        let lifetime = |key: &str| {
            provider
                .get(key)
                .and_then(Value::as_i64)
                .unwrap_or_else(|| {
                    OAUTH2_PROVIDER_KEYS
                        .iter()
                        .find(|(known, _)| *known == key)
                        .map_or(0, |(_, default)| *default)
                })
        };
        let access = lifetime("ACCESS_TOKEN_EXPIRE_SECONDS");
        let oauth2_provider = acs_oauth2::Lifetimes {
            access_token_seconds: access,
            // The personal lifetime follows the access-token lifetime unless set on its own.
            personal_access_token_seconds: provider
                .get("PERSONAL_ACCESS_TOKEN_EXPIRE_SECONDS")
                .and_then(Value::as_i64)
                .unwrap_or(access),
            refresh_token_seconds: lifetime("REFRESH_TOKEN_EXPIRE_SECONDS"),
            authorization_code_seconds: lifetime("AUTHORIZATION_CODE_EXPIRE_SECONDS"),
            refresh_token_reuse_grace_seconds: lifetime("REFRESH_TOKEN_REUSE_GRACE_SECONDS"),
        };
        let mut settings = Settings {
            auth_basic_enabled: get("AUTH_BASIC_ENABLED").as_bool().unwrap_or(true),
            session_cookie_age: get("SESSION_COOKIE_AGE").as_i64().unwrap_or(1800),
            sessions_per_user: get("SESSIONS_PER_USER").as_i64().unwrap_or(-1),
            session_cookie_name: get("SESSION_COOKIE_NAME")
                .as_str()
                .unwrap_or("acs_sessionid")
                .to_owned(),
            allow_oauth2_for_external_users: get("ALLOW_OAUTH2_FOR_EXTERNAL_USERS")
                .as_bool()
                .unwrap_or(false),
            trusted_proxies: get("PROXY_IP_ALLOWED_LIST")
                .as_array()
                .map(|items| {
                    items
                        .iter()
                        .filter_map(|v| v.as_str()?.parse().ok())
                        .collect()
                })
                .unwrap_or_default(),
            cleanup_tokens_interval_seconds: get("CLEANUP_TOKENS_INTERVAL_SECONDS")
                .as_u64()
                .unwrap_or(3600),
            // Validated on write, so every stored pattern compiles.
            cors_allowed_origins: get("CORS_ALLOWED_ORIGIN_REGEXES")
                .as_array()
                .map(|patterns| {
                    patterns
                        .iter()
                        .filter_map(|p| regex::Regex::new(p.as_str()?).ok())
                        .collect()
                })
                .unwrap_or_default(),
            oauth2_provider,
            values,
        };
        // Show the effective lifetimes, defaults included, rather than only what was stored.
        settings.values.insert(
            "OAUTH2_PROVIDER",
            serde_json::json!({
                "ACCESS_TOKEN_EXPIRE_SECONDS": settings.oauth2_provider.access_token_seconds,
                "PERSONAL_ACCESS_TOKEN_EXPIRE_SECONDS": settings.oauth2_provider.personal_access_token_seconds,
                "REFRESH_TOKEN_EXPIRE_SECONDS": settings.oauth2_provider.refresh_token_seconds,
                "AUTHORIZATION_CODE_EXPIRE_SECONDS": settings.oauth2_provider.authorization_code_seconds,
                "REFRESH_TOKEN_REUSE_GRACE_SECONDS": settings.oauth2_provider.refresh_token_reuse_grace_seconds,
            }),
        );
        settings
    }

    /// The effective value of a setting (stored or default).
    pub fn value(&self, name: &str) -> Value {
        self.values.get(name).cloned().unwrap_or(Value::Null)
    }

    /// The effective value of a text setting; `""` for a setting that is not text.
    pub fn text(&self, name: &str) -> String {
        self.values
            .get(name)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    }

    /// `AUTH_BASIC_ENABLED`.
    pub fn auth_basic_enabled(&self) -> bool {
        self.auth_basic_enabled
    }

    /// `SESSION_COOKIE_AGE` in seconds.
    pub fn session_cookie_age(&self) -> i64 {
        self.session_cookie_age
    }

    /// `SESSIONS_PER_USER`; -1 means unlimited.
    pub fn sessions_per_user(&self) -> i64 {
        self.sessions_per_user
    }

    /// `SESSION_COOKIE_NAME`.
    pub fn session_cookie_name(&self) -> &str {
        &self.session_cookie_name
    }

    /// `ALLOW_OAUTH2_FOR_EXTERNAL_USERS`.
    pub fn allow_oauth2_for_external_users(&self) -> bool {
        self.allow_oauth2_for_external_users
    }

    /// `OAUTH2_PROVIDER` with defaults filled in.
    pub fn oauth2_provider(&self) -> acs_oauth2::Lifetimes {
        self.oauth2_provider
    }

    /// `CLEANUP_TOKENS_INTERVAL_SECONDS`: how often each server cleans up expired tokens and
    /// sessions; `None` when it is 0 (off).
    pub fn cleanup_tokens_interval(&self) -> Option<std::time::Duration> {
        (self.cleanup_tokens_interval_seconds > 0)
            .then(|| std::time::Duration::from_secs(self.cleanup_tokens_interval_seconds))
    }

    /// Whether `CORS_ALLOWED_ORIGIN_REGEXES` allows `origin`: a pattern must match from the
    /// origin's first character, as Python's `re.match` in django-cors-headers does, so
    /// configurations carried over from AWX mean the same here. (Like there, a pattern without
    /// `$` also allows longer origins: `https://a\.example` allows `https://a.example.evil`.)
    pub fn cors_allows(&self, origin: &str) -> bool {
        self.cors_allowed_origins
            .iter()
            .any(|pattern| pattern.find(origin).is_some_and(|found| found.start() == 0))
    }

    /// `PROXY_IP_ALLOWED_LIST`.
    pub fn trusted_proxies(&self) -> &[std::net::IpAddr] {
        &self.trusted_proxies
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cors_patterns_match_from_the_start() {
        let rows = [(
            "CORS_ALLOWED_ORIGIN_REGEXES".to_owned(),
            r#"["https://app\\.example\\.com$", "http://localhost:\\d+"]"#.to_owned(),
        )];
        let settings = Settings::from_rows(&rows);
        assert!(settings.cors_allows("https://app.example.com"));
        assert!(settings.cors_allows("http://localhost:3000"));
        assert!(!settings.cors_allows("https://app.example.com.evil"));
        assert!(!settings.cors_allows("https://evil.example/https://app.example.com"));
        assert!(!settings.cors_allows("x-http://localhost:1"));
        assert!(!Settings::from_rows(&[]).cors_allows("http://localhost:3000"));
    }

    #[test]
    fn defaults_apply_without_rows() {
        let settings = Settings::from_rows(&[]);
        assert!(settings.auth_basic_enabled());
        assert_eq!(settings.session_cookie_age(), 1800);
        assert_eq!(settings.session_cookie_name(), "acs_sessionid");
        assert_eq!(settings.oauth2_provider().access_token_seconds, 31_536_000);
        assert_eq!(settings.oauth2_provider().authorization_code_seconds, 600);
        assert_eq!(
            settings.cleanup_tokens_interval(),
            Some(std::time::Duration::from_secs(3600))
        );
    }

    #[test]
    fn cleanup_interval_zero_turns_it_off() {
        let rows = [("CLEANUP_TOKENS_INTERVAL_SECONDS".to_owned(), "0".to_owned())];
        assert_eq!(Settings::from_rows(&rows).cleanup_tokens_interval(), None);
    }

    #[test]
    fn personal_lifetime_follows_access_lifetime_unless_set() {
        let rows = [(
            "OAUTH2_PROVIDER".to_owned(),
            r#"{"ACCESS_TOKEN_EXPIRE_SECONDS": 60}"#.to_owned(),
        )];
        let provider = Settings::from_rows(&rows).oauth2_provider();
        assert_eq!(provider.personal_access_token_seconds, 60);
        assert_eq!(provider.refresh_token_seconds, 2_628_000);
    }

    #[test]
    fn invalid_stored_values_fall_back_to_defaults() {
        let rows = [("SESSION_COOKIE_AGE".to_owned(), "\"x\"".to_owned())];
        assert_eq!(Settings::from_rows(&rows).session_cookie_age(), 1800);
    }
}

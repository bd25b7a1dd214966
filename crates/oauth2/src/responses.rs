//! Success bodies of the token endpoint (RFC 6749 §5.1) and the
//! introspection endpoint (RFC 7662 §2.2).

use chrono::NaiveDateTime;
use serde::{Serialize, Serializer};

use crate::scope::Scope;
use crate::secret::PlainSecret;

/// The `token_type` of every ACS access token.
pub const BEARER: &str = "Bearer";

/// The body of a successful token response, serialized in AWX's key order:
/// `access_token, expires_in, token_type, scope, refresh_token`.
///
/// Holds the secrets as [`PlainSecret`], so `Debug` redacts them; only
/// serialization writes them out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TokenResponse {
    /// The new access token.
    #[serde(serialize_with = "expose")]
    pub access_token: PlainSecret,
    /// Seconds until the access token expires.
    pub expires_in: i64,
    /// Always [`BEARER`].
    pub token_type: &'static str,
    /// The granted scope, in the words the new token records (see
    /// [`crate::granted_scope_words`]).
    pub scope: String,
    /// The new refresh token.
    #[serde(serialize_with = "expose")]
    pub refresh_token: PlainSecret,
}

impl TokenResponse {
    /// The response for a new pair whose access token records `scope`
    /// (the words of [`crate::granted_scope_words`]), issued at `now` and
    /// expiring at `expires` (as stored, so `expires_in` agrees with what
    /// introspection will later say); an expiry in the past gives 0.
    ///
    /// The response says the scope the token records, so the two never
    /// disagree (RFC 6749 §5.1 only requires the field when the scope
    /// differs from the request; oauthlib compares it word by word).
    pub fn new(
        access_token: PlainSecret,
        refresh_token: PlainSecret,
        scope: String,
        now: NaiveDateTime,
        expires: NaiveDateTime,
    ) -> Self {
        Self {
            access_token,
            expires_in: (expires - now).num_seconds().max(0),
            token_type: BEARER,
            scope,
            refresh_token,
        }
    }
}

/// Writes a secret's value.
fn expose<S: Serializer>(secret: &PlainSecret, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(secret.expose())
}

/// The facts of an active token, shown by introspection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ActiveToken {
    /// The token's scope, in the words it records (read leniently: words
    /// that do not parse strictly show as the canonical word of what they
    /// allow).
    pub scope: String,
    /// The `client_id` of the token's application.
    pub client_id: String,
    /// The username of the token's owner.
    pub username: String,
    /// Always [`BEARER`].
    pub token_type: &'static str,
    /// Expiry, seconds since the Unix epoch.
    pub exp: i64,
    /// Creation, seconds since the Unix epoch.
    pub iat: i64,
}

impl ActiveToken {
    /// The facts of a token with the stored scope `scope`, created at
    /// `created` and expiring at `expires` (both UTC, as stored).
    pub fn new(
        scope: &str,
        client_id: String,
        username: String,
        created: NaiveDateTime,
        expires: NaiveDateTime,
    ) -> Self {
        Self {
            scope: Scope::from_stored(scope).words(Some(scope)),
            client_id,
            username,
            token_type: BEARER,
            exp: expires.and_utc().timestamp(),
            iat: created.and_utc().timestamp(),
        }
    }
}

/// The body of an introspection response: `{"active": true, …facts}` or
/// exactly `{"active": false}`, which RFC 7662 §2.2 prescribes for every
/// token that is unknown, expired, revoked or not the caller's to see, so
/// the answer reveals nothing else.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IntrospectionResponse {
    /// Whether the token is currently usable.
    pub active: bool,
    /// The facts, for an active token only.
    #[serde(flatten)]
    pub token: Option<ActiveToken>,
}

impl IntrospectionResponse {
    /// `{"active": true, …}` for an active token.
    pub fn active(token: ActiveToken) -> Self {
        Self {
            active: true,
            token: Some(token),
        }
    }

    /// `{"active": false}`.
    pub fn inactive() -> Self {
        Self {
            active: false,
            token: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f").unwrap()
    }

    fn secret(s: &str) -> PlainSecret {
        PlainSecret::new(s.to_owned())
    }

    #[test]
    fn token_response_in_awx_order() {
        let response = TokenResponse::new(
            secret("acc"),
            secret("ref"),
            "write".into(),
            at("2024-06-01T12:00:00.500"),
            at("2025-06-01T12:00:00"),
        );
        assert_eq!(
            serde_json::to_string(&response).unwrap(),
            r#"{"access_token":"acc","expires_in":31535999,"token_type":"Bearer","scope":"write","refresh_token":"ref"}"#
        );
        let shown = format!("{response:?}");
        assert!(
            !shown.contains("acc\"") && !shown.contains("ref\""),
            "{shown}"
        );
    }

    #[test]
    fn expires_in_cases() {
        let now = at("2024-06-01T12:00:00");
        let cases = [
            ("one year", "2025-06-01T12:00:00", 31_536_000),
            ("now", "2024-06-01T12:00:00", 0),
            ("past", "2024-06-01T11:00:00", 0),
            ("year 9999", "9999-12-31T23:59:59", 251_685_057_599),
        ];
        for (name, expires, seconds) in cases {
            let response =
                TokenResponse::new(secret("a"), secret("r"), "read".into(), now, at(expires));
            assert_eq!(response.expires_in, seconds, "{name}");
        }
    }

    #[test]
    fn introspection_shows_the_recorded_words() {
        let cases = [
            ("read", "read"),
            ("read write", "read write"),
            ("write", "write"),
            // Rows imported or written by hand: what they allow, canonically.
            ("rainbow write", "write"),
            ("", "read"),
        ];
        for (stored, shown) in cases {
            let token = ActiveToken::new(
                stored,
                "cid".into(),
                "alice".into(),
                at("1970-01-01T00:00:10"),
                at("1970-01-02T00:00:00"),
            );
            assert_eq!(token.scope, shown, "{stored:?}");
        }
    }

    #[test]
    fn introspection_bodies() {
        let active = IntrospectionResponse::active(ActiveToken::new(
            "read",
            "cid".into(),
            "alice".into(),
            at("1970-01-01T00:00:10"),
            at("1970-01-02T00:00:00"),
        ));
        assert_eq!(
            serde_json::to_string(&active).unwrap(),
            r#"{"active":true,"scope":"read","client_id":"cid","username":"alice","token_type":"Bearer","exp":86400,"iat":10}"#
        );
        assert_eq!(
            serde_json::to_string(&IntrospectionResponse::inactive()).unwrap(),
            r#"{"active":false}"#
        );
    }
}

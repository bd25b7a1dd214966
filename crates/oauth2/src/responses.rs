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
    /// The granted scope: the words the client asked for when it got what
    /// it asked, else the canonical `"read"` or `"write"` (see
    /// [`TokenResponse::new`]).
    pub scope: String,
    /// The new refresh token.
    #[serde(serialize_with = "expose")]
    pub refresh_token: PlainSecret,
}

impl TokenResponse {
    /// The response for a new pair with scope `granted`, issued at `now`,
    /// whose access token expires at `expires` (as stored, so `expires_in`
    /// agrees with what introspection will later say); an expiry in the past
    /// gives 0.
    ///
    /// `requested` is the `scope` parameter of the request. When it means
    /// exactly `granted`, the response repeats its words (whitespace
    /// collapsed), so a client that asked for `"read write"` reads back
    /// `"read write"`: OAuth clients such as oauthlib compare the returned
    /// scope word by word with the requested one and fail on a difference
    /// (RFC 6749 §5.1 only requires the field when the scope differs).
    /// Otherwise it is the canonical [`Scope::as_str`].
    pub fn new(
        access_token: PlainSecret,
        refresh_token: PlainSecret,
        granted: Scope,
        requested: Option<&str>,
        now: NaiveDateTime,
        expires: NaiveDateTime,
    ) -> Self {
        let scope = match requested {
            Some(words) if Scope::parse(words) == Ok(granted) => {
                words.split_whitespace().collect::<Vec<_>>().join(" ")
            }
            _ => granted.as_str().to_owned(),
        };
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

/// Writes a scope as its word.
fn scope_word<S: Serializer>(scope: &Scope, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(scope.as_str())
}

/// The facts of an active token, shown by introspection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ActiveToken {
    /// The token's scope.
    #[serde(serialize_with = "scope_word")]
    pub scope: Scope,
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
    /// The facts of a token created at `created` and expiring at
    /// `expires` (both UTC, as stored).
    pub fn new(
        scope: Scope,
        client_id: String,
        username: String,
        created: NaiveDateTime,
        expires: NaiveDateTime,
    ) -> Self {
        Self {
            scope,
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
            Scope::WRITE,
            None,
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
    fn scope_repeats_the_request_when_granted_as_asked() {
        let now = at("2024-06-01T12:00:00");
        let cases = [
            (Scope::WRITE, Some("read  write"), "read write"),
            (Scope::WRITE, Some("write read"), "write read"),
            (Scope::WRITE, Some("write"), "write"),
            (Scope::READ, Some("read"), "read"),
            // Narrowed or defaulted: the canonical word.
            (Scope::READ, Some("read write"), "read"),
            (Scope::WRITE, None, "write"),
            (Scope::READ, Some("bogus"), "read"),
        ];
        for (granted, requested, shown) in cases {
            let response =
                TokenResponse::new(secret("a"), secret("r"), granted, requested, now, now);
            assert_eq!(response.scope, shown, "{requested:?}");
        }
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
            let response = TokenResponse::new(
                secret("a"),
                secret("r"),
                Scope::READ,
                None,
                now,
                at(expires),
            );
            assert_eq!(response.expires_in, seconds, "{name}");
        }
    }

    #[test]
    fn introspection_bodies() {
        let active = IntrospectionResponse::active(ActiveToken::new(
            Scope::READ,
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

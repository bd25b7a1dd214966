//! Errors of the OAuth 2 protocol endpoints (`/api/o/`), in the shape of
//! RFC 6749 §5.2 (token endpoint), §4.1.2.1 (authorization endpoint) and
//! RFC 7009 §2.2.1 (revocation).
//!
//! One type serves all endpoints because they share the error registry and
//! the body `{"error": …, "error_description": …}`; the caller decides how it
//! travels (a JSON body, a redirect, an error page). Descriptions are
//! oauthlib's (hence AWX's) word for word where the reference quotes them, so
//! clients matching on them keep working; every other error gets a
//! description of ours, because the contract asks for both keys in every
//! error body and a bare code helps nobody.

use serde::Serialize;

use crate::external::ExternalUserDenied;
use crate::secret::RandomnessError;

/// The `error` code of an OAuth 2 error response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// A parameter is missing, repeated, malformed or not allowed.
    InvalidRequest,
    /// Client authentication failed (unknown client, wrong or missing
    /// secret, unsupported authentication method).
    InvalidClient,
    /// The grant (password, authorization code, refresh token) is invalid,
    /// expired, revoked or was issued to another client.
    InvalidGrant,
    /// The client may not use this grant or response type.
    UnauthorizedClient,
    /// The token endpoint does not offer this `grant_type`.
    UnsupportedGrantType,
    /// The scope is malformed, unknown or wider than what was granted.
    InvalidScope,
    /// The resource owner or the server refused the request.
    AccessDenied,
    /// The authorization endpoint does not offer this `response_type`.
    UnsupportedResponseType,
    /// The revocation endpoint cannot revoke this kind of token (RFC 7009).
    UnsupportedTokenType,
    /// The server failed; never caused by bad input.
    ServerError,
    /// The server is overloaded or in maintenance.
    TemporarilyUnavailable,
}

impl ErrorCode {
    /// The registered value sent in `error`, e.g. `"invalid_grant"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidRequest => "invalid_request",
            ErrorCode::InvalidClient => "invalid_client",
            ErrorCode::InvalidGrant => "invalid_grant",
            ErrorCode::UnauthorizedClient => "unauthorized_client",
            ErrorCode::UnsupportedGrantType => "unsupported_grant_type",
            ErrorCode::InvalidScope => "invalid_scope",
            ErrorCode::AccessDenied => "access_denied",
            ErrorCode::UnsupportedResponseType => "unsupported_response_type",
            ErrorCode::UnsupportedTokenType => "unsupported_token_type",
            ErrorCode::ServerError => "server_error",
            ErrorCode::TemporarilyUnavailable => "temporarily_unavailable",
        }
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// `WWW-Authenticate` value sent with `invalid_client` (AWX sends the
/// `Bearer` scheme even to Basic-authenticated clients; kept for
/// compatibility).
pub const INVALID_CLIENT_CHALLENGE: &str = "Bearer error=\"invalid_client\"";

/// Longest parameter name echoed in a "Duplicate … parameter." description;
/// longer or non-printable names are not echoed, so a hostile request cannot
/// fill error bodies and logs with its junk.
const MAX_ECHOED_NAME: usize = 64;

/// An OAuth 2 error: a registered code and a human-readable description.
///
/// Serializes to `{"error": "<code>", "error_description": "<text>"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{} ({description})", code.as_str())]
pub struct OAuthError {
    /// The registered error code.
    #[serde(rename = "error")]
    pub code: ErrorCode,
    /// What went wrong, for the developer of the client.
    #[serde(rename = "error_description")]
    pub description: String,
}

impl OAuthError {
    /// An error with the given code and description.
    pub fn new(code: ErrorCode, description: impl Into<String>) -> Self {
        Self {
            code,
            description: description.into(),
        }
    }

    /// `invalid_request` with the given description.
    pub fn invalid_request(description: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidRequest, description)
    }

    /// `invalid_request` for a parameter sent more than once (RFC 6749
    /// §3.1, §3.2); oauthlib's wording. The name is echoed only when it is a
    /// short printable ASCII word.
    pub fn duplicate_parameter(name: &str) -> Self {
        let printable = name.len() <= MAX_ECHOED_NAME && name.bytes().all(|b| b.is_ascii_graphic());
        if printable && !name.is_empty() {
            Self::invalid_request(format!("Duplicate {name} parameter."))
        } else {
            Self::invalid_request("Duplicate parameter.")
        }
    }

    /// `invalid_request` for a body that is not a form (contract §4: the
    /// `/api/o/` endpoints read `application/x-www-form-urlencoded` only).
    pub fn unsupported_content_type() -> Self {
        Self::invalid_request(
            "The request body must be application/x-www-form-urlencoded; no other content type is accepted.",
        )
    }

    /// `invalid_request` for a POST carrying a query string (oauthlib's
    /// wording): credentials in URLs end up in logs.
    pub fn query_parameters_not_allowed() -> Self {
        Self::invalid_request("URL query parameters are not allowed")
    }

    /// `invalid_client`: unknown client, wrong or missing secret, malformed
    /// Basic credentials. Deliberately one description for all, so the
    /// response does not tell which client ids exist.
    pub fn invalid_client() -> Self {
        Self::new(ErrorCode::InvalidClient, "Client authentication failed.")
    }

    /// `unauthorized_client`: the application's grant type does not allow
    /// this grant or response type.
    pub fn unauthorized_client() -> Self {
        Self::new(
            ErrorCode::UnauthorizedClient,
            "The application is not allowed to use this grant type.",
        )
    }

    /// `invalid_scope` for a scope that is not `read`, `write` or both.
    pub fn invalid_scope() -> Self {
        Self::new(
            ErrorCode::InvalidScope,
            crate::scope::ScopeError::Invalid.to_string(),
        )
    }

    /// `invalid_grant` for a refresh token that is unknown, used, revoked or
    /// another client's: one description for all, so the answer tells a
    /// caller nothing about the token beyond "not usable".
    pub fn invalid_refresh_token() -> Self {
        Self::new(ErrorCode::InvalidGrant, "The refresh token is invalid.")
    }

    /// `invalid_grant` for an authorization code that is unknown, already
    /// exchanged, expired or another client's: one description for all, so
    /// a client cannot probe other clients' codes.
    pub fn invalid_authorization_code() -> Self {
        Self::new(
            ErrorCode::InvalidGrant,
            "The authorization code is invalid or has expired.",
        )
    }

    /// `unsupported_token_type` for a personal access token presented to
    /// the revocation endpoint (contract §4).
    pub fn personal_token() -> Self {
        Self::new(
            ErrorCode::UnsupportedTokenType,
            "Personal access tokens are not revoked here; use DELETE /api/v2/tokens/<id>/.",
        )
    }

    /// HTTP status of a JSON error response carrying this error.
    ///
    /// 401 for `invalid_client`, always (RFC 6749 §5.2 requires it when the
    /// client used the `Authorization` header and allows it otherwise; AWX
    /// answers 401 in every case, even without any client information);
    /// 403 for `access_denied` (contract §3: an external user at the token
    /// endpoint); 500 for `server_error` and 503 for
    /// `temporarily_unavailable`; 400 for everything else.
    pub fn status(&self) -> u16 {
        match self.code {
            ErrorCode::InvalidClient => 401,
            ErrorCode::AccessDenied => 403,
            ErrorCode::ServerError => 500,
            ErrorCode::TemporarilyUnavailable => 503,
            _ => 400,
        }
    }

    /// The `WWW-Authenticate` header a JSON error response must carry:
    /// [`INVALID_CLIENT_CHALLENGE`] for `invalid_client`, else none.
    pub fn www_authenticate(&self) -> Option<&'static str> {
        (self.code == ErrorCode::InvalidClient).then_some(INVALID_CLIENT_CHALLENGE)
    }
}

impl From<ExternalUserDenied> for OAuthError {
    /// `access_denied` with AWX's message as the description (contract §3).
    fn from(denied: ExternalUserDenied) -> Self {
        Self::new(ErrorCode::AccessDenied, denied.to_string())
    }
}

impl From<RandomnessError> for OAuthError {
    /// `server_error`: no token can be issued without randomness.
    fn from(_: RandomnessError) -> Self {
        Self::new(
            ErrorCode::ServerError,
            "The server could not generate a token.",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [(ErrorCode, &str, u16); 11] = [
        (ErrorCode::InvalidRequest, "invalid_request", 400),
        (ErrorCode::InvalidClient, "invalid_client", 401),
        (ErrorCode::InvalidGrant, "invalid_grant", 400),
        (ErrorCode::UnauthorizedClient, "unauthorized_client", 400),
        (
            ErrorCode::UnsupportedGrantType,
            "unsupported_grant_type",
            400,
        ),
        (ErrorCode::InvalidScope, "invalid_scope", 400),
        (ErrorCode::AccessDenied, "access_denied", 403),
        (
            ErrorCode::UnsupportedResponseType,
            "unsupported_response_type",
            400,
        ),
        (
            ErrorCode::UnsupportedTokenType,
            "unsupported_token_type",
            400,
        ),
        (ErrorCode::ServerError, "server_error", 500),
        (
            ErrorCode::TemporarilyUnavailable,
            "temporarily_unavailable",
            503,
        ),
    ];

    #[test]
    fn codes_statuses_and_challenges() {
        for (code, text, status) in ALL {
            let error = OAuthError::new(code, "d");
            assert_eq!(code.as_str(), text);
            assert_eq!(error.status(), status, "{text}");
            let challenge = error.www_authenticate();
            assert_eq!(
                challenge.is_some(),
                code == ErrorCode::InvalidClient,
                "{text}"
            );
        }
        assert_eq!(
            OAuthError::invalid_client().www_authenticate(),
            Some("Bearer error=\"invalid_client\"")
        );
    }

    #[test]
    fn serializes_to_rfc_6749_shape_in_order() {
        let error = OAuthError::invalid_request("Missing code parameter.");
        assert_eq!(
            serde_json::to_string(&error).unwrap(),
            r#"{"error":"invalid_request","error_description":"Missing code parameter."}"#
        );
        let odd = OAuthError::invalid_request("quote \" and é\n");
        let value: serde_json::Value = serde_json::to_value(&odd).unwrap();
        assert_eq!(value["error_description"], "quote \" and é\n");
    }

    #[test]
    fn display_names_code_and_description() {
        assert_eq!(
            OAuthError::invalid_client().to_string(),
            "invalid_client (Client authentication failed.)"
        );
    }

    #[test]
    fn duplicate_parameter_cases() {
        let long = "a".repeat(65);
        let cases: &[(&str, &str, &str)] = &[
            ("known name", "code", "Duplicate code parameter."),
            ("64 characters", &"a".repeat(64), ""),
            ("65 characters", &long, "Duplicate parameter."),
            ("empty", "", "Duplicate parameter."),
            ("space", "a b", "Duplicate parameter."),
            ("non-ASCII", "scopé", "Duplicate parameter."),
            ("control", "a\nb", "Duplicate parameter."),
        ];
        for (name, param, expected) in cases {
            let error = OAuthError::duplicate_parameter(param);
            assert_eq!(error.code, ErrorCode::InvalidRequest, "{name}");
            let expected = if expected.is_empty() {
                format!("Duplicate {param} parameter.")
            } else {
                (*expected).to_owned()
            };
            assert_eq!(error.description, expected, "{name}");
        }
    }

    #[test]
    fn constructors() {
        let cases = [
            (
                OAuthError::unsupported_content_type(),
                ErrorCode::InvalidRequest,
                "application/x-www-form-urlencoded",
            ),
            (
                OAuthError::query_parameters_not_allowed(),
                ErrorCode::InvalidRequest,
                "URL query parameters are not allowed",
            ),
            (
                OAuthError::unauthorized_client(),
                ErrorCode::UnauthorizedClient,
                "not allowed",
            ),
            (
                OAuthError::invalid_scope(),
                ErrorCode::InvalidScope,
                "allowed scopes ['read', 'write']",
            ),
            (
                OAuthError::personal_token(),
                ErrorCode::UnsupportedTokenType,
                "DELETE /api/v2/tokens/<id>/",
            ),
            (
                OAuthError::from(RandomnessError),
                ErrorCode::ServerError,
                "could not generate",
            ),
        ];
        for (error, code, fragment) in cases {
            assert_eq!(error.code, code);
            assert!(error.description.contains(fragment), "{error}");
        }
    }

    #[test]
    fn external_user_refusal_is_access_denied_403() {
        let error = OAuthError::from(ExternalUserDenied {
            provider: "ldap".to_owned(),
        });
        assert_eq!(error.code, ErrorCode::AccessDenied);
        assert_eq!(error.status(), 403);
        assert_eq!(
            error.description,
            "(access_denied) OAuth2 Tokens cannot be created by users associated with an external authentication provider (ldap)"
        );
    }
}

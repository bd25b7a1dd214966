//! The paths of the OAuth 2 endpoints and the authorization server metadata
//! document (RFC 8414) served at `/.well-known/oauth-authorization-server`.
//!
//! The document only advertises what ACS does: the code flow with S256
//! PKCE, the password and refresh grants, `read`/`write` scopes, and the
//! three ways a client authenticates ([`crate::client_auth`]).

use serde::Serialize;
use url::Url;

/// Path of the authorization endpoint.
pub const AUTHORIZE_PATH: &str = "/api/o/authorize/";
/// Path of the token endpoint.
pub const TOKEN_PATH: &str = "/api/o/token/";
/// Path of the revocation endpoint (also answered at `/api/o/revoke-token/`).
pub const REVOKE_PATH: &str = "/api/o/revoke_token/";
/// Path of the introspection endpoint.
pub const INTROSPECT_PATH: &str = "/api/o/introspect/";

/// Client authentication methods accepted at every client-authenticated
/// endpoint.
const AUTH_METHODS: &[&str] = &["client_secret_basic", "client_secret_post", "none"];

/// The RFC 8414 metadata document, serialized in this field order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AuthorizationServerMetadata {
    /// The issuer: the service's base URL, without a trailing slash.
    pub issuer: String,
    /// `<issuer>/api/o/authorize/`.
    pub authorization_endpoint: String,
    /// `<issuer>/api/o/token/`.
    pub token_endpoint: String,
    /// `<issuer>/api/o/revoke_token/`.
    pub revocation_endpoint: String,
    /// `<issuer>/api/o/introspect/`.
    pub introspection_endpoint: String,
    /// `["code"]`: no implicit grant.
    pub response_types_supported: &'static [&'static str],
    /// `["authorization_code", "password", "refresh_token"]`.
    pub grant_types_supported: &'static [&'static str],
    /// `["S256"]`: no `plain`.
    pub code_challenge_methods_supported: &'static [&'static str],
    /// `["client_secret_basic", "client_secret_post", "none"]`.
    pub token_endpoint_auth_methods_supported: &'static [&'static str],
    /// As for the token endpoint.
    pub revocation_endpoint_auth_methods_supported: &'static [&'static str],
    /// As for the token endpoint.
    pub introspection_endpoint_auth_methods_supported: &'static [&'static str],
    /// `["read", "write"]`.
    pub scopes_supported: &'static [&'static str],
}

/// A base URL that cannot be an issuer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IssuerError {
    /// Not an absolute `http`/`https` URL with a host, or it has a query or
    /// fragment (RFC 8414 §2 forbids both in an issuer).
    #[error("the issuer must be an http or https URL with a host and no query or fragment: {0}")]
    Invalid(String),
}

impl AuthorizationServerMetadata {
    /// The document for the service at `base_url` (the `BASE_URL` setting,
    /// or the request's scheme and host), e.g. `https://acs.example.com` or
    /// `https://example.com/acs/`; trailing slashes are dropped.
    ///
    /// `http` is accepted besides the `https` RFC 8414 asks for, so
    /// development servers on plain HTTP can be discovered too.
    pub fn for_issuer(base_url: &str) -> Result<Self, IssuerError> {
        let invalid = || IssuerError::Invalid(base_url.to_owned());
        let url = Url::parse(base_url).map_err(|_| invalid())?;
        let usable = matches!(url.scheme(), "http" | "https")
            && url.host_str().is_some_and(|h| !h.is_empty())
            && url.query().is_none()
            && url.fragment().is_none()
            && !base_url.contains(char::is_whitespace);
        if !usable {
            return Err(invalid());
        }
        let issuer = base_url.trim_end_matches('/').to_owned();
        let at = |path: &str| format!("{issuer}{path}");
        Ok(Self {
            authorization_endpoint: at(AUTHORIZE_PATH),
            token_endpoint: at(TOKEN_PATH),
            revocation_endpoint: at(REVOKE_PATH),
            introspection_endpoint: at(INTROSPECT_PATH),
            issuer,
            response_types_supported: &["code"],
            grant_types_supported: &["authorization_code", "password", "refresh_token"],
            code_challenge_methods_supported: &["S256"],
            token_endpoint_auth_methods_supported: AUTH_METHODS,
            revocation_endpoint_auth_methods_supported: AUTH_METHODS,
            introspection_endpoint_auth_methods_supported: AUTH_METHODS,
            scopes_supported: &["read", "write"],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn document_for_a_host() {
        let metadata = AuthorizationServerMetadata::for_issuer("https://acs.example.com/").unwrap();
        let json = serde_json::to_value(&metadata).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "issuer": "https://acs.example.com",
                "authorization_endpoint": "https://acs.example.com/api/o/authorize/",
                "token_endpoint": "https://acs.example.com/api/o/token/",
                "revocation_endpoint": "https://acs.example.com/api/o/revoke_token/",
                "introspection_endpoint": "https://acs.example.com/api/o/introspect/",
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", "password", "refresh_token"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
                "revocation_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
                "introspection_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
                "scopes_supported": ["read", "write"],
            })
        );
        let text = serde_json::to_string(&metadata).unwrap();
        assert!(
            text.starts_with(r#"{"issuer":"https://acs.example.com","authorization_endpoint""#)
        );
    }

    #[test]
    fn issuer_cases() {
        let cases = [
            (
                "no slash",
                "https://acs.example.com",
                Some("https://acs.example.com"),
            ),
            (
                "http with port",
                "http://127.0.0.1:8013/",
                Some("http://127.0.0.1:8013"),
            ),
            (
                "path prefix",
                "https://example.com/acs/",
                Some("https://example.com/acs"),
            ),
            (
                "several slashes",
                "https://example.com//",
                Some("https://example.com"),
            ),
            ("empty", "", None),
            ("relative", "/api/", None),
            ("ftp", "ftp://example.com", None),
            ("query", "https://example.com/?a=1", None),
            ("fragment", "https://example.com/#x", None),
            ("space", "https://exa mple.com", None),
            (
                "non-ASCII host",
                "https://exämple.com",
                Some("https://exämple.com"),
            ),
        ];
        for (name, base, expected) in cases {
            let got = AuthorizationServerMetadata::for_issuer(base).map(|m| m.issuer);
            match expected {
                Some(issuer) => assert_eq!(got.as_deref(), Ok(issuer), "{name}"),
                None => assert_eq!(got, Err(IssuerError::Invalid(base.to_owned())), "{name}"),
            }
        }
    }
}

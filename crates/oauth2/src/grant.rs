//! The grant of a `POST /api/o/token/` request: which grant type, with
//! which parameters, parsed and checked before anything is looked up.
//!
//! Errors and descriptions are oauthlib's (so AWX's), from the reference
//! §4.2, except where the contract decides otherwise: the implicit grant is
//! explained rather than merely unsupported. Client authentication is not
//! done here ([`crate::client_auth`]); the caller authenticates the client
//! first, as AWX does for the password grant, so a request with a bad
//! client learns nothing about its grant parameters.

use crate::application::GrantType;
use crate::form::FormParams;
use crate::pkce::validate_verifier;
use crate::protocol_error::{ErrorCode, OAuthError};
use crate::scope::Scope;
use crate::secret::PlainSecret;

/// Scope of a token issued by the password or authorization code grant when
/// the request names none: every scope (django-oauth-toolkit's default in
/// AWX), recorded and answered as [`DEFAULT_GRANT_SCOPE_WORDS`].
pub const DEFAULT_GRANT_SCOPE: Scope = Scope::WRITE;

/// The words of [`DEFAULT_GRANT_SCOPE`], as AWX records and answers them.
pub const DEFAULT_GRANT_SCOPE_WORDS: &str = "read write";

/// The scope words a grant records and answers for a token of scope
/// `granted`, given the words that asked for it ([`Scope::words`]); when
/// nothing was asked, the default grant scope's words,
/// [`DEFAULT_GRANT_SCOPE_WORDS`].
pub fn granted_scope_words(granted: Scope, asked: Option<&str>) -> String {
    match asked {
        None if granted == DEFAULT_GRANT_SCOPE => DEFAULT_GRANT_SCOPE_WORDS.to_owned(),
        asked => granted.words(asked),
    }
}

/// A parsed token request.
///
/// Secret values are [`PlainSecret`]s, so `Debug` never shows them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GrantRequest {
    /// `grant_type=password` (RFC 6749 §4.3).
    Password {
        /// The resource owner's username, as sent.
        username: String,
        /// The resource owner's password.
        password: PlainSecret,
        /// The requested scope; `None` means [`DEFAULT_GRANT_SCOPE`].
        scope: Option<Scope>,
    },
    /// `grant_type=authorization_code` (RFC 6749 §4.1.3, RFC 7636 §4.5).
    AuthorizationCode {
        /// The authorization code.
        code: PlainSecret,
        /// The redirect URI, required when the authorization request sent
        /// one (see [`crate::code::check_exchange`]).
        redirect_uri: Option<String>,
        /// The PKCE verifier, already checked to be well-formed.
        code_verifier: Option<String>,
    },
    /// `grant_type=refresh_token` (RFC 6749 §6).
    RefreshToken {
        /// The refresh token.
        refresh_token: PlainSecret,
        /// A narrower scope, or `None` for the original one.
        scope: Option<Scope>,
    },
}

impl GrantRequest {
    /// Parses the grant of a token request form (already free of repeated
    /// parameters, see [`FormParams::parse`]; empty values count as
    /// missing).
    ///
    /// - `grant_type` missing or unknown: `unsupported_grant_type`;
    ///   `implicit` (or `token`): the same code with a pointer to the
    ///   authorization code grant with PKCE (contract §4);
    ///   `client_credentials`: `unauthorized_client`, as AWX answers, since
    ///   no application can have that grant type.
    /// - password: "Request is missing username parameter." (then
    ///   `password`), `invalid_request`.
    /// - authorization code: "Missing code parameter.", `invalid_request`; a
    ///   malformed `code_verifier` is `invalid_request` too.
    /// - refresh: "Missing refresh token parameter.", `invalid_request`.
    /// - a `scope` that is not `read`, `write` or both: `invalid_scope`.
    ///
    /// Unknown parameters are ignored (RFC 6749 §3.2).
    pub fn from_form(form: &FormParams) -> Result<GrantRequest, OAuthError> {
        match form.get("grant_type") {
            Some("password") => {
                let username = required(form, "username")?;
                let password = required(form, "password")?;
                Ok(GrantRequest::Password {
                    username: username.to_owned(),
                    password: PlainSecret::new(password.to_owned()),
                    scope: scope(form)?,
                })
            }
            Some("authorization_code") => {
                let code = form
                    .get("code")
                    .ok_or_else(|| OAuthError::invalid_request("Missing code parameter."))?;
                let code_verifier = form.get("code_verifier");
                if let Some(verifier) = code_verifier {
                    validate_verifier(verifier)?;
                }
                Ok(GrantRequest::AuthorizationCode {
                    code: PlainSecret::new(code.to_owned()),
                    redirect_uri: form.get("redirect_uri").map(str::to_owned),
                    code_verifier: code_verifier.map(str::to_owned),
                })
            }
            Some("refresh_token") => {
                let token = form.get("refresh_token").ok_or_else(|| {
                    OAuthError::invalid_request("Missing refresh token parameter.")
                })?;
                Ok(GrantRequest::RefreshToken {
                    refresh_token: PlainSecret::new(token.to_owned()),
                    scope: scope(form)?,
                })
            }
            Some("client_credentials") => Err(OAuthError::unauthorized_client()),
            Some("implicit" | "token") => Err(OAuthError::new(
                ErrorCode::UnsupportedGrantType,
                "The implicit grant is not offered (RFC 9700 forbids it); use the authorization_code grant with PKCE.",
            )),
            Some(_) => Err(OAuthError::new(
                ErrorCode::UnsupportedGrantType,
                "Unsupported grant_type; use password, authorization_code or refresh_token.",
            )),
            None => Err(OAuthError::new(
                ErrorCode::UnsupportedGrantType,
                "Missing grant_type parameter.",
            )),
        }
    }

    /// The `grant_type` value of this request.
    pub fn grant_type(&self) -> &'static str {
        match self {
            GrantRequest::Password { .. } => "password",
            GrantRequest::AuthorizationCode { .. } => "authorization_code",
            GrantRequest::RefreshToken { .. } => "refresh_token",
        }
    }

    /// Whether an application of grant type `application` may use this
    /// grant: the password grant only for `password` applications, the
    /// authorization code grant only for `authorization-code` ones (else
    /// `unauthorized_client`, contract §4); refreshing is open to both,
    /// since both receive refresh tokens.
    pub fn check_application(&self, application: GrantType) -> Result<(), OAuthError> {
        let allowed = match self {
            GrantRequest::Password { .. } => application == GrantType::Password,
            GrantRequest::AuthorizationCode { .. } => application == GrantType::AuthorizationCode,
            GrantRequest::RefreshToken { .. } => true,
        };
        if allowed {
            Ok(())
        } else {
            Err(OAuthError::unauthorized_client())
        }
    }
}

/// A required parameter, or `invalid_request` with oauthlib's
/// `"Request is missing <name> parameter."`.
fn required<'a>(form: &'a FormParams, name: &str) -> Result<&'a str, OAuthError> {
    form.get(name)
        .ok_or_else(|| OAuthError::invalid_request(format!("Request is missing {name} parameter.")))
}

/// The optional `scope`, parsed strictly.
fn scope(form: &FormParams) -> Result<Option<Scope>, OAuthError> {
    form.get("scope")
        .map(|text| Scope::parse(text).map_err(|_| OAuthError::invalid_scope()))
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decoded request parameters, in order.
    type Pairs<'a> = Vec<(&'a str, &'a str)>;

    const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";

    fn parse(pairs: &[(&str, &str)]) -> Result<GrantRequest, OAuthError> {
        GrantRequest::from_form(&FormParams::parse(pairs.iter().copied()).unwrap())
    }

    fn secret(s: &str) -> PlainSecret {
        PlainSecret::new(s.to_owned())
    }

    #[test]
    fn valid_grants() {
        let cases: Vec<(&str, Pairs<'_>, GrantRequest)> = vec![
            (
                "password without scope",
                vec![
                    ("grant_type", "password"),
                    ("username", "alice"),
                    ("password", "pw"),
                ],
                GrantRequest::Password {
                    username: "alice".into(),
                    password: secret("pw"),
                    scope: None,
                },
            ),
            (
                "password, empty scope is omitted, extra params ignored",
                vec![
                    ("grant_type", "password"),
                    ("username", "ü ser"),
                    ("password", "p w"),
                    ("scope", ""),
                    ("client_id", "x"),
                    ("unknown", "y"),
                ],
                GrantRequest::Password {
                    username: "ü ser".into(),
                    password: secret("p w"),
                    scope: None,
                },
            ),
            (
                "password with read",
                vec![
                    ("grant_type", "password"),
                    ("username", "a"),
                    ("password", "b"),
                    ("scope", "read"),
                ],
                GrantRequest::Password {
                    username: "a".into(),
                    password: secret("b"),
                    scope: Some(Scope::READ),
                },
            ),
            (
                "authorization code, minimal",
                vec![("grant_type", "authorization_code"), ("code", "c")],
                GrantRequest::AuthorizationCode {
                    code: secret("c"),
                    redirect_uri: None,
                    code_verifier: None,
                },
            ),
            (
                "authorization code, full",
                vec![
                    ("grant_type", "authorization_code"),
                    ("code", "c"),
                    ("redirect_uri", "https://a/cb"),
                    ("code_verifier", VERIFIER),
                ],
                GrantRequest::AuthorizationCode {
                    code: secret("c"),
                    redirect_uri: Some("https://a/cb".into()),
                    code_verifier: Some(VERIFIER.into()),
                },
            ),
            (
                "refresh",
                vec![("grant_type", "refresh_token"), ("refresh_token", "r")],
                GrantRequest::RefreshToken {
                    refresh_token: secret("r"),
                    scope: None,
                },
            ),
            (
                "refresh, narrower scope",
                vec![
                    ("grant_type", "refresh_token"),
                    ("refresh_token", "r"),
                    ("scope", "read"),
                ],
                GrantRequest::RefreshToken {
                    refresh_token: secret("r"),
                    scope: Some(Scope::READ),
                },
            ),
        ];
        for (name, pairs, expected) in cases {
            assert_eq!(parse(&pairs), Ok(expected), "{name}");
        }
    }

    #[test]
    fn refused_grants() {
        use ErrorCode::{InvalidRequest, InvalidScope, UnauthorizedClient, UnsupportedGrantType};
        let huge = "x".repeat(100_000);
        let cases: Vec<(&str, Pairs<'_>, ErrorCode, &str)> = vec![
            (
                "no parameters",
                vec![],
                UnsupportedGrantType,
                "Missing grant_type parameter.",
            ),
            (
                "empty grant_type",
                vec![("grant_type", "")],
                UnsupportedGrantType,
                "Missing",
            ),
            (
                "unknown",
                vec![("grant_type", "magic")],
                UnsupportedGrantType,
                "Unsupported",
            ),
            (
                "huge",
                vec![("grant_type", huge.as_str())],
                UnsupportedGrantType,
                "Unsupported",
            ),
            (
                "non-ASCII",
                vec![("grant_type", "pässword")],
                UnsupportedGrantType,
                "Unsupported",
            ),
            (
                "case-sensitive",
                vec![("grant_type", "Password")],
                UnsupportedGrantType,
                "Unsupported",
            ),
            (
                "hyphenated app spelling",
                vec![("grant_type", "authorization-code")],
                UnsupportedGrantType,
                "Unsupported",
            ),
            (
                "implicit",
                vec![("grant_type", "implicit")],
                UnsupportedGrantType,
                "PKCE",
            ),
            (
                "token",
                vec![("grant_type", "token")],
                UnsupportedGrantType,
                "PKCE",
            ),
            (
                "client credentials",
                vec![("grant_type", "client_credentials")],
                UnauthorizedClient,
                "",
            ),
            (
                "password, no username",
                vec![("grant_type", "password"), ("password", "p")],
                InvalidRequest,
                "Request is missing username parameter.",
            ),
            (
                "password, nothing: username first",
                vec![("grant_type", "password")],
                InvalidRequest,
                "Request is missing username parameter.",
            ),
            (
                "password, empty password",
                vec![
                    ("grant_type", "password"),
                    ("username", "u"),
                    ("password", ""),
                ],
                InvalidRequest,
                "Request is missing password parameter.",
            ),
            (
                "password, bad scope",
                vec![
                    ("grant_type", "password"),
                    ("username", "u"),
                    ("password", "p"),
                    ("scope", "admin"),
                ],
                InvalidScope,
                "allowed scopes",
            ),
            (
                "password, blank scope",
                vec![
                    ("grant_type", "password"),
                    ("username", "u"),
                    ("password", "p"),
                    ("scope", "  "),
                ],
                InvalidScope,
                "",
            ),
            (
                "code missing",
                vec![
                    ("grant_type", "authorization_code"),
                    ("redirect_uri", "https://a/cb"),
                ],
                InvalidRequest,
                "Missing code parameter.",
            ),
            (
                "code verifier too short",
                vec![
                    ("grant_type", "authorization_code"),
                    ("code", "c"),
                    ("code_verifier", "abc"),
                ],
                InvalidRequest,
                "code_verifier",
            ),
            (
                "code verifier huge",
                vec![
                    ("grant_type", "authorization_code"),
                    ("code", "c"),
                    ("code_verifier", huge.as_str()),
                ],
                InvalidRequest,
                "code_verifier",
            ),
            (
                "refresh token missing",
                vec![("grant_type", "refresh_token")],
                InvalidRequest,
                "Missing refresh token parameter.",
            ),
            (
                "refresh, bad scope",
                vec![
                    ("grant_type", "refresh_token"),
                    ("refresh_token", "r"),
                    ("scope", "read read"),
                ],
                InvalidScope,
                "",
            ),
        ];
        for (name, pairs, code, fragment) in cases {
            let error = parse(&pairs).unwrap_err();
            assert_eq!(error.code, code, "{name}");
            assert!(error.description.contains(fragment), "{name}: {error}");
        }
    }

    #[test]
    fn check_application_cases() {
        let password = parse(&[
            ("grant_type", "password"),
            ("username", "u"),
            ("password", "p"),
        ])
        .unwrap();
        let code = parse(&[("grant_type", "authorization_code"), ("code", "c")]).unwrap();
        let refresh = parse(&[("grant_type", "refresh_token"), ("refresh_token", "r")]).unwrap();
        use GrantType::{AuthorizationCode, Password};
        let cases = [
            ("password on password app", &password, Password, true),
            ("password on code app", &password, AuthorizationCode, false),
            ("code on code app", &code, AuthorizationCode, true),
            ("code on password app", &code, Password, false),
            ("refresh on password app", &refresh, Password, true),
            ("refresh on code app", &refresh, AuthorizationCode, true),
        ];
        for (name, grant, app, ok) in cases {
            let result = grant.check_application(app);
            assert_eq!(result.is_ok(), ok, "{name}");
            if let Err(error) = result {
                assert_eq!(error.code, ErrorCode::UnauthorizedClient, "{name}");
            }
        }
        assert_eq!(password.grant_type(), "password");
        assert_eq!(code.grant_type(), "authorization_code");
        assert_eq!(refresh.grant_type(), "refresh_token");
    }

    #[test]
    fn debug_hides_secrets() {
        let grant = parse(&[
            ("grant_type", "password"),
            ("username", "u"),
            ("password", "hunter2"),
        ])
        .unwrap();
        assert!(!format!("{grant:?}").contains("hunter2"));
    }

    #[test]
    fn default_scope_is_every_scope_in_awx_words() {
        assert_eq!(DEFAULT_GRANT_SCOPE, Scope::WRITE);
        assert_eq!(
            Scope::parse(DEFAULT_GRANT_SCOPE_WORDS),
            Ok(DEFAULT_GRANT_SCOPE)
        );
        let cases = [
            (Scope::WRITE, None, "read write"),
            (Scope::WRITE, Some("write"), "write"),
            (Scope::WRITE, Some("write  read"), "write read"),
            (Scope::READ, Some("read"), "read"),
            (Scope::READ, None, "read"),
        ];
        for (granted, asked, words) in cases {
            assert_eq!(granted_scope_words(granted, asked), words, "{asked:?}");
        }
    }
}

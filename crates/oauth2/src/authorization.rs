//! The authorization request of the authorization code grant
//! (`/api/o/authorize/`, RFC 6749 §4.1.1, RFC 7636 §4.3): its validation
//! against the application, and the redirects that answer it.
//!
//! The split that matters is between errors shown to the user and errors
//! sent to the client. Until the client and its redirect URI are known to be
//! genuine, nothing may be redirected (RFC 6749 §4.1.2.1), or the endpoint
//! becomes an open redirector that phishing pages can bounce through. After
//! that, errors go back to the client with `error` and `state`, so it can
//! react.

use url::Url;

use crate::application::{ClientType, GrantType, redirect_uri_allowed};
use crate::form::FormParams;
use crate::grant::{DEFAULT_GRANT_SCOPE, granted_scope_words};
use crate::pkce::{ChallengeMethod, CodeChallenge};
use crate::protocol_error::{ErrorCode, OAuthError};
use crate::scope::Scope;
use crate::secret::PlainSecret;

/// What the authorization endpoint needs to know about the application
/// named by `client_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuthorizeClient<'a> {
    /// Public clients must use PKCE.
    pub client_type: ClientType,
    /// Only `authorization-code` applications may be authorized here.
    pub grant_type: GrantType,
    /// The registered redirect URIs as stored: whitespace-separated, each
    /// validated by [`crate::application::validate_redirect_uris`].
    pub redirect_uris: &'a str,
    /// Whether the consent page is skipped.
    pub skip_authorization: bool,
}

/// A refused authorization request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthorizeError {
    /// Shown to the user on an error page (HTTP 400), never redirected: a
    /// missing or unknown client, a missing, unregistered or unusable
    /// redirect URI, repeated parameters, the implicit grant.
    Page(OAuthError),
    /// Sent back to the client's (verified) redirect URI.
    Redirect {
        /// Where to send the user, the registered URI as parsed (boxed:
        /// a `Url` is large and errors travel by value).
        target: Box<Url>,
        /// The error, becoming `error` and `error_description`.
        error: OAuthError,
        /// The client's `state`, echoed unchanged.
        state: Option<String>,
    },
}

impl AuthorizeError {
    /// The error itself, whichever way it travels.
    pub fn error(&self) -> &OAuthError {
        match self {
            AuthorizeError::Page(error) | AuthorizeError::Redirect { error, .. } => error,
        }
    }

    /// The `Location` of the redirect for [`AuthorizeError::Redirect`]:
    /// the target with `error`, `error_description` and `state` (when sent)
    /// added to its query; `None` for a page error.
    pub fn redirect_url(&self) -> Option<String> {
        match self {
            AuthorizeError::Page(_) => None,
            AuthorizeError::Redirect {
                target,
                error,
                state,
            } => Some(error_redirect(target, error, state.as_deref())),
        }
    }
}

impl From<OAuthError> for AuthorizeError {
    /// A page error, e.g. from [`FormParams::parse`] refusing a repeated
    /// parameter: before the redirect URI is verified nothing may redirect.
    fn from(error: OAuthError) -> Self {
        AuthorizeError::Page(error)
    }
}

/// A valid authorization request, waiting for the user's consent (or not,
/// with [`skip_consent`](Self::skip_consent)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizeRequest {
    /// The client's `client_id`.
    pub client_id: String,
    /// The redirect URI the code is bound to: the one sent, or the only one
    /// registered. Store it with the code.
    pub redirect_uri: String,
    /// Whether `redirect_uri` was sent; if so the token request must repeat
    /// it (RFC 6749 §4.1.3). Store it with the code.
    pub redirect_uri_sent: bool,
    /// The scope asked for, or [`DEFAULT_GRANT_SCOPE`].
    pub scope: Scope,
    /// Its words, as the code and then the token record them
    /// ([`granted_scope_words`]): `"read write"` when none was asked for.
    pub scope_words: String,
    /// The client's `state`, echoed unchanged.
    pub state: Option<String>,
    /// The PKCE challenge (S256), to store with the code.
    pub code_challenge: Option<CodeChallenge>,
    /// True when the application has `skip_authorization`: issue the code
    /// without showing the consent page.
    pub skip_consent: bool,
    /// [`redirect_uri`](Self::redirect_uri) parsed, to build redirects on.
    target: Url,
}

/// The `client_id` of an authorization request, to look the application
/// up by. Missing: a page error "Missing client_id parameter." (oauthlib's
/// wording).
pub fn authorize_client_id(form: &FormParams) -> Result<&str, AuthorizeError> {
    form.get("client_id").ok_or_else(|| {
        AuthorizeError::Page(OAuthError::invalid_request("Missing client_id parameter."))
    })
}

/// The page error for a `client_id` that names no application (oauthlib's
/// wording).
pub fn unknown_client() -> AuthorizeError {
    AuthorizeError::Page(OAuthError::new(
        ErrorCode::InvalidClient,
        "Invalid client_id parameter value.",
    ))
}

impl AuthorizeRequest {
    /// Validates the parameters of an authorization request (the query of
    /// the GET, or the consent form posted back) for `client`, the
    /// application [`authorize_client_id`] named.
    ///
    /// Page errors, in order: the redirect URI is sent but not registered
    /// exactly ("Mismatching redirect URI."), or not sent while the
    /// application has other than exactly one ("Missing redirect URI."), or
    /// the registered one does not parse; `response_type=token` (the
    /// implicit grant, answered 400 as contract §4 says, pointing to the
    /// authorization code grant with PKCE).
    ///
    /// Redirected errors, in order: `response_type` missing
    /// (`invalid_request` "Missing response_type parameter.") or other than
    /// `code` (`unsupported_response_type`); a password application
    /// (`unauthorized_client`, as AWX); a bad scope (`invalid_scope`); PKCE:
    /// a challenge without the `S256` method ("Transform algorithm not
    /// supported."), a malformed challenge, a method without a challenge, a
    /// public client without a challenge ("Code challenge required.").
    pub fn validate(
        form: &FormParams,
        client: &AuthorizeClient<'_>,
    ) -> Result<AuthorizeRequest, AuthorizeError> {
        let client_id = authorize_client_id(form)?.to_owned();
        let sent = form.get("redirect_uri");
        let redirect_uri = resolve_redirect_uri(client.redirect_uris, sent)?;
        let target = Url::parse(&redirect_uri)
            .map_err(|_| OAuthError::invalid_request("Invalid redirect URI."))?;
        let state = form.get("state").map(str::to_owned);
        if form.get("response_type") == Some("token") {
            return Err(AuthorizeError::Page(OAuthError::new(
                ErrorCode::UnsupportedResponseType,
                "The implicit grant (response_type=token) is not offered (RFC 9700 forbids it); use response_type=code with PKCE.",
            )));
        }
        let redirect = |error: OAuthError| AuthorizeError::Redirect {
            target: Box::new(target.clone()),
            error,
            state: state.clone(),
        };
        match form.get("response_type") {
            Some("code") => {}
            None => {
                return Err(redirect(OAuthError::invalid_request(
                    "Missing response_type parameter.",
                )));
            }
            Some(_) => {
                return Err(redirect(OAuthError::new(
                    ErrorCode::UnsupportedResponseType,
                    "Unsupported response_type; only code is offered.",
                )));
            }
        }
        if client.grant_type != GrantType::AuthorizationCode {
            return Err(redirect(OAuthError::unauthorized_client()));
        }
        let scope = match form.get("scope").map(Scope::parse).transpose() {
            Ok(scope) => scope.unwrap_or(DEFAULT_GRANT_SCOPE),
            Err(_) => return Err(redirect(OAuthError::invalid_scope())),
        };
        let code_challenge = pkce_challenge(form, client.client_type).map_err(redirect)?;
        Ok(AuthorizeRequest {
            client_id,
            redirect_uri,
            redirect_uri_sent: sent.is_some(),
            scope,
            scope_words: granted_scope_words(scope, form.get("scope")),
            state,
            code_challenge,
            skip_consent: client.skip_authorization,
            target,
        })
    }

    /// The `Location` granting the code: the redirect URI with `code` and
    /// (when sent) `state` added to its query, any query it already has kept
    /// (RFC 6749 §3.1.2).
    pub fn code_redirect(&self, code: &PlainSecret) -> String {
        let mut params = vec![("code", code.expose())];
        params.extend(self.state.as_deref().map(|state| ("state", state)));
        with_query(&self.target, &params)
    }

    /// The `Location` after the user denied consent: `error=access_denied`
    /// with a description and the `state`.
    pub fn denied_redirect(&self) -> String {
        let error = OAuthError::new(
            ErrorCode::AccessDenied,
            "The user denied the authorization request.",
        );
        self.refused_redirect(&error)
    }

    /// The `Location` refusing this valid request for another reason (an
    /// external user under `ALLOW_OAUTH2_FOR_EXTERNAL_USERS`, say): `error`,
    /// `error_description` and the `state`.
    pub fn refused_redirect(&self, error: &OAuthError) -> String {
        error_redirect(&self.target, error, self.state.as_deref())
    }
}

/// The redirect URI to use: the one sent, if registered exactly; else the
/// only registered one.
fn resolve_redirect_uri(registered: &str, sent: Option<&str>) -> Result<String, OAuthError> {
    match sent {
        Some(uri) if redirect_uri_allowed(registered, uri) => Ok(uri.to_owned()),
        Some(_) => Err(OAuthError::invalid_request("Mismatching redirect URI.")),
        None => {
            let mut uris = registered.split_whitespace();
            match (uris.next(), uris.next()) {
                (Some(only), None) => Ok(only.to_owned()),
                _ => Err(OAuthError::invalid_request("Missing redirect URI.")),
            }
        }
    }
}

/// The PKCE part of an authorization request; see
/// [`AuthorizeRequest::validate`].
fn pkce_challenge(
    form: &FormParams,
    client_type: ClientType,
) -> Result<Option<CodeChallenge>, OAuthError> {
    let method = form.get("code_challenge_method");
    match form.get("code_challenge") {
        Some(challenge) => {
            ChallengeMethod::parse(method)?;
            CodeChallenge::parse(challenge).map(Some)
        }
        None if method.is_some() => Err(OAuthError::invalid_request(
            "Missing code_challenge parameter.",
        )),
        None if client_type == ClientType::Public => {
            Err(OAuthError::invalid_request("Code challenge required."))
        }
        None => Ok(None),
    }
}

/// `target` with `error`, `error_description` and `state` (when sent)
/// appended to its query.
fn error_redirect(target: &Url, error: &OAuthError, state: Option<&str>) -> String {
    let mut params = vec![
        ("error", error.code.as_str()),
        ("error_description", error.description.as_str()),
    ];
    params.extend(state.map(|state| ("state", state)));
    with_query(target, &params)
}

/// `target` with `params` form-urlencoded and appended to its query, which
/// is otherwise kept byte for byte.
fn with_query(target: &Url, params: &[(&str, &str)]) -> String {
    let mut url = target.clone();
    url.query_pairs_mut().extend_pairs(params);
    url.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decoded request parameters, in order.
    type Pairs<'a> = Vec<(&'a str, &'a str)>;

    const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

    fn client(uris: &str) -> AuthorizeClient<'_> {
        AuthorizeClient {
            client_type: ClientType::Confidential,
            grant_type: GrantType::AuthorizationCode,
            redirect_uris: uris,
            skip_authorization: false,
        }
    }

    fn form(pairs: &[(&str, &str)]) -> FormParams {
        FormParams::parse(pairs.iter().copied()).unwrap()
    }

    fn validate(
        pairs: &[(&str, &str)],
        client: &AuthorizeClient<'_>,
    ) -> Result<AuthorizeRequest, AuthorizeError> {
        AuthorizeRequest::validate(&form(pairs), client)
    }

    const ONE: &str = "https://app.example/cb";
    const TWO: &str = "https://app.example/cb https://other.example/cb?x=1";

    #[test]
    fn valid_request_with_defaults() {
        let request = validate(
            &[("response_type", "code"), ("client_id", "id")],
            &client(ONE),
        )
        .unwrap();
        assert_eq!(request.client_id, "id");
        assert_eq!(request.redirect_uri, ONE);
        assert!(!request.redirect_uri_sent);
        assert_eq!(request.scope, Scope::WRITE);
        assert_eq!(request.scope_words, "read write");
        assert_eq!(request.state, None);
        assert_eq!(request.code_challenge, None);
        assert!(!request.skip_consent);
    }

    #[test]
    fn valid_request_with_everything() {
        let public = AuthorizeClient {
            client_type: ClientType::Public,
            skip_authorization: true,
            ..client(TWO)
        };
        let request = validate(
            &[
                ("response_type", "code"),
                ("client_id", "id"),
                ("redirect_uri", "https://other.example/cb?x=1"),
                ("scope", "read"),
                ("state", "s t&a=te é"),
                ("code_challenge", CHALLENGE),
                ("code_challenge_method", "S256"),
            ],
            &public,
        )
        .unwrap();
        assert_eq!(request.redirect_uri, "https://other.example/cb?x=1");
        assert!(request.redirect_uri_sent);
        assert_eq!(request.scope, Scope::READ);
        assert_eq!(request.scope_words, "read");
        assert_eq!(request.state.as_deref(), Some("s t&a=te é"));
        assert_eq!(
            request.code_challenge.as_ref().map(CodeChallenge::as_str),
            Some(CHALLENGE)
        );
        assert!(request.skip_consent);
        let code = PlainSecret::new("abc-_123".to_owned());
        assert_eq!(
            request.code_redirect(&code),
            "https://other.example/cb?x=1&code=abc-_123&state=s+t%26a%3Dte+%C3%A9"
        );
        assert_eq!(
            request.denied_redirect(),
            "https://other.example/cb?x=1&error=access_denied&error_description=The+user+denied+the+authorization+request.&state=s+t%26a%3Dte+%C3%A9"
        );
    }

    #[test]
    fn redirects_without_state_and_with_empty_query() {
        let request = validate(
            &[
                ("response_type", "code"),
                ("client_id", "id"),
                ("redirect_uri", "http://localhost:8013/cb?"),
            ],
            &client("http://localhost:8013/cb?"),
        )
        .unwrap();
        let code = PlainSecret::new("c".to_owned());
        assert_eq!(
            request.code_redirect(&code),
            "http://localhost:8013/cb?code=c"
        );
        assert!(request.denied_redirect().ends_with("request."));
    }

    #[test]
    fn page_errors() {
        use ErrorCode::{InvalidRequest, UnsupportedResponseType};
        let cases: Vec<(&str, &str, Pairs<'_>, ErrorCode, &str)> = vec![
            (
                "no client_id",
                ONE,
                vec![("response_type", "code")],
                InvalidRequest,
                "Missing client_id parameter.",
            ),
            (
                "unregistered redirect URI",
                ONE,
                vec![
                    ("client_id", "id"),
                    ("response_type", "code"),
                    ("redirect_uri", "https://evil.example/cb"),
                ],
                InvalidRequest,
                "Mismatching redirect URI.",
            ),
            (
                "prefix of a registered URI",
                ONE,
                vec![
                    ("client_id", "id"),
                    ("response_type", "code"),
                    ("redirect_uri", "https://app.example/cb/x"),
                ],
                InvalidRequest,
                "Mismatching redirect URI.",
            ),
            (
                "omitted with two registered",
                TWO,
                vec![("client_id", "id"), ("response_type", "code")],
                InvalidRequest,
                "Missing redirect URI.",
            ),
            (
                "omitted with none registered",
                "",
                vec![("client_id", "id"), ("response_type", "code")],
                InvalidRequest,
                "Missing redirect URI.",
            ),
            (
                "unparsable registered URI",
                "not-a-url",
                vec![("client_id", "id"), ("response_type", "code")],
                InvalidRequest,
                "Invalid redirect URI.",
            ),
            (
                "implicit",
                ONE,
                vec![
                    ("client_id", "id"),
                    ("response_type", "token"),
                    ("state", "s"),
                ],
                UnsupportedResponseType,
                "PKCE",
            ),
        ];
        for (name, uris, pairs, code, description) in cases {
            let error = validate(&pairs, &client(uris)).unwrap_err();
            assert_eq!(error.redirect_url(), None, "{name}");
            let AuthorizeError::Page(error) = error else {
                panic!("{name}: not a page error");
            };
            assert_eq!(error.code, code, "{name}");
            assert!(error.description.contains(description), "{name}: {error}");
        }
    }

    #[test]
    fn redirected_errors() {
        let public = AuthorizeClient {
            client_type: ClientType::Public,
            ..client(ONE)
        };
        let password = AuthorizeClient {
            grant_type: GrantType::Password,
            ..client(ONE)
        };
        let confidential = client(ONE);
        fn with<'a>(extra: &[(&'a str, &'a str)]) -> Pairs<'a> {
            let mut pairs = vec![("client_id", "id"), ("state", "xyz")];
            pairs.extend_from_slice(extra);
            pairs
        }
        let huge = "r".repeat(50_000);
        let cases: Vec<(&str, &AuthorizeClient<'_>, Pairs<'_>, &str)> = vec![
            (
                "missing response_type",
                &confidential,
                with(&[]),
                "error=invalid_request&error_description=Missing+response_type+parameter.&state=xyz",
            ),
            (
                "unknown response_type",
                &confidential,
                with(&[("response_type", "code token")]),
                "error=unsupported_response_type&",
            ),
            (
                "huge response_type",
                &confidential,
                with(&[("response_type", huge.as_str())]),
                "error=unsupported_response_type&",
            ),
            (
                "password application",
                &password,
                with(&[("response_type", "code")]),
                "error=unauthorized_client&",
            ),
            (
                "bad scope",
                &confidential,
                with(&[("response_type", "code"), ("scope", "admin")]),
                "error=invalid_scope&",
            ),
            (
                "non-ASCII scope",
                &confidential,
                with(&[("response_type", "code"), ("scope", "réad")]),
                "error=invalid_scope&",
            ),
            (
                "public client without PKCE",
                &public,
                with(&[("response_type", "code")]),
                "error=invalid_request&error_description=Code+challenge+required.&state=xyz",
            ),
            (
                "challenge without method (plain)",
                &public,
                with(&[("response_type", "code"), ("code_challenge", CHALLENGE)]),
                "error_description=Transform+algorithm+not+supported.",
            ),
            (
                "plain method",
                &confidential,
                with(&[
                    ("response_type", "code"),
                    ("code_challenge", CHALLENGE),
                    ("code_challenge_method", "plain"),
                ]),
                "error_description=Transform+algorithm+not+supported.",
            ),
            (
                "malformed challenge",
                &public,
                with(&[
                    ("response_type", "code"),
                    ("code_challenge", "short"),
                    ("code_challenge_method", "S256"),
                ]),
                "error=invalid_request&error_description=code_challenge",
            ),
            (
                "method without challenge",
                &confidential,
                with(&[("response_type", "code"), ("code_challenge_method", "S256")]),
                "error_description=Missing+code_challenge+parameter.",
            ),
        ];
        for (name, client, pairs, fragment) in cases {
            let error = validate(&pairs, client).unwrap_err();
            let url = error
                .redirect_url()
                .unwrap_or_else(|| panic!("{name}: {error:?}"));
            assert!(
                url.starts_with("https://app.example/cb?error="),
                "{name}: {url}"
            );
            assert!(url.contains(fragment), "{name}: {url}");
        }
    }

    #[test]
    fn redirect_without_state_has_no_state() {
        let error = validate(&[("client_id", "id")], &client(ONE)).unwrap_err();
        assert_eq!(
            error.redirect_url().as_deref(),
            Some(
                "https://app.example/cb?error=invalid_request&error_description=Missing+response_type+parameter."
            )
        );
        assert_eq!(error.error().code, ErrorCode::InvalidRequest);
    }

    #[test]
    fn confidential_client_may_skip_pkce() {
        let request = validate(
            &[("client_id", "id"), ("response_type", "code")],
            &client(ONE),
        )
        .unwrap();
        assert_eq!(request.code_challenge, None);
    }

    #[test]
    fn helpers() {
        let error = authorize_client_id(&form(&[("client_id", "")])).unwrap_err();
        assert_eq!(error.error().description, "Missing client_id parameter.");
        assert_eq!(
            authorize_client_id(&form(&[("client_id", "abc")])).ok(),
            Some("abc")
        );
        let unknown = unknown_client();
        assert_eq!(unknown.redirect_url(), None);
        assert_eq!(unknown.error().code, ErrorCode::InvalidClient);
        let duplicate = FormParams::parse([("state", "a"), ("state", "b")]).unwrap_err();
        assert!(matches!(
            AuthorizeError::from(duplicate),
            AuthorizeError::Page(_)
        ));
    }
}

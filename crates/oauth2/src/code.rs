//! Authorization codes: their values, and the checks of exchanging one at
//! the token endpoint (RFC 6749 §4.1.3, RFC 7636 §4.6).
//!
//! Single use is the storage's job (the code is consumed in the same
//! transaction that issues the tokens, so a second exchange finds nothing);
//! what remains here is whether the code may be exchanged by this request.

use chrono::NaiveDateTime;
use ring::rand::SecureRandom;

use crate::pkce::{self, CodeChallenge};
use crate::protocol_error::OAuthError;
use crate::scope::Scope;
use crate::secret::{PlainSecret, RandomnessError, generate_secret};

/// Generates a new authorization code: 256 random bits, URL-safe base64
/// without padding (43 characters), like every ACS bearer secret
/// ([`generate_secret`]). Only its [`digest`](PlainSecret::digest) is
/// stored.
pub fn generate_authorization_code(rng: &dyn SecureRandom) -> Result<PlainSecret, RandomnessError> {
    generate_secret(rng)
}

/// What was stored with an authorization code when it was issued.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizationCodeFacts {
    /// The application the code was issued to.
    pub application_id: i64,
    /// The redirect URI of the authorization request (sent or defaulted).
    pub redirect_uri: String,
    /// Whether the authorization request sent `redirect_uri` explicitly.
    pub redirect_uri_sent: bool,
    /// When the code stops being exchangeable
    /// ([`Lifetimes::authorization_code_expires`](crate::Lifetimes::authorization_code_expires)).
    pub expires: NaiveDateTime,
    /// The PKCE challenge of the authorization request.
    pub code_challenge: Option<CodeChallenge>,
    /// The scope the user approved.
    pub scope: Scope,
}

/// The code-exchange part of a token request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeExchange<'a> {
    /// The application of the authenticated client.
    pub application_id: i64,
    /// The `redirect_uri` of the token request.
    pub redirect_uri: Option<&'a str>,
    /// The `code_verifier` of the token request.
    pub code_verifier: Option<&'a str>,
}

/// Decides whether `code` may be exchanged by `request` at `now`; on
/// success the tokens get the code's scope.
///
/// In order: a code of another application, or expired (`now >= expires`),
/// is `invalid_grant` with one description for both, so a client cannot
/// probe other clients' codes; a redirect URI that the authorization
/// request sent must be repeated identically, and one that it did not send
/// may only be repeated as the defaulted one ("Mismatching redirect URI.",
/// `invalid_request`, as AWX); then PKCE ([`pkce::check_exchange`]).
pub fn check_exchange(
    code: &AuthorizationCodeFacts,
    request: &CodeExchange<'_>,
    now: NaiveDateTime,
) -> Result<Scope, OAuthError> {
    if code.application_id != request.application_id || now >= code.expires {
        return Err(OAuthError::invalid_authorization_code());
    }
    let redirect_ok = match request.redirect_uri {
        Some(uri) => uri == code.redirect_uri,
        None => !code.redirect_uri_sent,
    };
    if !redirect_ok {
        return Err(OAuthError::invalid_request("Mismatching redirect URI."));
    }
    pkce::check_exchange(code.code_challenge.as_ref(), request.code_verifier)?;
    Ok(code.scope)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol_error::ErrorCode;

    /// The scope expected, or the error code.
    type Expected = Result<Scope, ErrorCode>;
    use ring::rand::SystemRandom;

    const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    const URI: &str = "https://app.example/cb";

    fn at(text: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S").unwrap()
    }

    fn facts() -> AuthorizationCodeFacts {
        AuthorizationCodeFacts {
            application_id: 7,
            redirect_uri: URI.to_owned(),
            redirect_uri_sent: true,
            expires: at("2024-06-01T12:10:00"),
            code_challenge: Some(CodeChallenge::s256_of(VERIFIER)),
            scope: Scope::READ,
        }
    }

    fn exchange<'a>(uri: Option<&'a str>, verifier: Option<&'a str>) -> CodeExchange<'a> {
        CodeExchange {
            application_id: 7,
            redirect_uri: uri,
            code_verifier: verifier,
        }
    }

    #[test]
    fn generated_codes_are_url_safe_and_long_enough() {
        let rng = SystemRandom::new();
        let a = generate_authorization_code(&rng).unwrap();
        let b = generate_authorization_code(&rng).unwrap();
        assert_ne!(a, b);
        assert_eq!(a.expose().len(), 43, "256 bits");
        assert!(
            a.expose()
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
        );
    }

    #[test]
    fn check_exchange_cases() {
        let now = at("2024-06-01T12:05:00");
        let unsent = AuthorizationCodeFacts {
            redirect_uri_sent: false,
            code_challenge: None,
            ..facts()
        };
        let other_app = CodeExchange {
            application_id: 8,
            ..exchange(Some(URI), Some(VERIFIER))
        };
        let wrong = "a".repeat(43);
        use ErrorCode::{InvalidGrant, InvalidRequest};
        let cases: Vec<(
            &str,
            AuthorizationCodeFacts,
            CodeExchange<'_>,
            NaiveDateTime,
            Expected,
        )> = vec![
            (
                "valid",
                facts(),
                exchange(Some(URI), Some(VERIFIER)),
                now,
                Ok(Scope::READ),
            ),
            (
                "other application",
                facts(),
                other_app,
                now,
                Err(InvalidGrant),
            ),
            (
                "expires now",
                facts(),
                exchange(Some(URI), Some(VERIFIER)),
                at("2024-06-01T12:10:00"),
                Err(InvalidGrant),
            ),
            (
                "one second before expiry",
                facts(),
                exchange(Some(URI), Some(VERIFIER)),
                at("2024-06-01T12:09:59"),
                Ok(Scope::READ),
            ),
            (
                "redirect URI omitted but was sent",
                facts(),
                exchange(None, Some(VERIFIER)),
                now,
                Err(InvalidRequest),
            ),
            (
                "redirect URI differs",
                facts(),
                exchange(Some("https://app.example/cb/"), Some(VERIFIER)),
                now,
                Err(InvalidRequest),
            ),
            (
                "redirect URI omitted, was defaulted",
                unsent.clone(),
                exchange(None, None),
                now,
                Ok(Scope::READ),
            ),
            (
                "defaulted URI repeated",
                unsent.clone(),
                exchange(Some(URI), None),
                now,
                Ok(Scope::READ),
            ),
            (
                "other URI after default",
                unsent.clone(),
                exchange(Some("https://x/cb"), None),
                now,
                Err(InvalidRequest),
            ),
            (
                "verifier missing",
                facts(),
                exchange(Some(URI), None),
                now,
                Err(InvalidRequest),
            ),
            (
                "verifier wrong",
                facts(),
                exchange(Some(URI), Some(wrong.as_str())),
                now,
                Err(InvalidGrant),
            ),
            (
                "verifier without challenge",
                unsent,
                exchange(None, Some(VERIFIER)),
                now,
                Err(InvalidGrant),
            ),
        ];
        for (name, code, request, now, expected) in cases {
            assert_eq!(
                check_exchange(&code, &request, now).map_err(|e| e.code),
                expected,
                "{name}"
            );
        }
    }

    #[test]
    fn mismatch_descriptions() {
        let now = at("2024-06-01T12:05:00");
        let error = check_exchange(
            &facts(),
            &exchange(Some("https://x/cb"), Some(VERIFIER)),
            now,
        )
        .unwrap_err();
        assert_eq!(error.description, "Mismatching redirect URI.");
        let expired = check_exchange(
            &facts(),
            &exchange(Some(URI), Some(VERIFIER)),
            at("2030-01-01T00:00:00"),
        )
        .unwrap_err();
        let foreign = CodeExchange {
            application_id: 1,
            ..exchange(Some(URI), Some(VERIFIER))
        };
        let other = check_exchange(&facts(), &foreign, now).unwrap_err();
        assert_eq!(expired, other, "expired and foreign codes look the same");
    }
}

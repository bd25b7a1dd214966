//! The token parameter of the revocation (RFC 7009 §2.1) and introspection
//! (RFC 7662 §2.1) endpoints, which name a token the same way, and what
//! revocation does with the token found.

use crate::form::FormParams;
use crate::protocol_error::OAuthError;
use crate::secret::PlainSecret;

/// A `token_type_hint` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenTypeHint {
    /// `access_token`.
    AccessToken,
    /// `refresh_token`.
    RefreshToken,
}

/// The token a revocation or introspection request names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenReference {
    /// The token value.
    pub token: PlainSecret,
    /// Where to look first; a hint only: a token not found as hinted is
    /// still searched as the other type (RFC 7009 §2.1).
    pub hint: Option<TokenTypeHint>,
}

impl TokenReference {
    /// Reads `token` and `token_type_hint` from the form.
    ///
    /// A missing (or empty) `token` is `invalid_request` "Missing token
    /// parameter." (oauthlib's wording). An unknown hint is ignored rather
    /// than refused, as RFC 7009 §2.1 and oauthlib do, since a hint cannot
    /// change the outcome.
    pub fn from_form(form: &FormParams) -> Result<TokenReference, OAuthError> {
        let token = form
            .get("token")
            .ok_or_else(|| OAuthError::invalid_request("Missing token parameter."))?;
        let hint = match form.get("token_type_hint") {
            Some("access_token") => Some(TokenTypeHint::AccessToken),
            Some("refresh_token") => Some(TokenTypeHint::RefreshToken),
            _ => None,
        };
        Ok(TokenReference {
            token: PlainSecret::new(token.to_owned()),
            hint,
        })
    }
}

/// Whose a token found by value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenOwner {
    /// A personal access token (no application).
    Personal,
    /// A token issued to the application with this id.
    Application(i64),
}

/// What the revocation endpoint does with the token named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RevocationDecision {
    /// Revoke the token and its partner (the access token of a refresh
    /// token and vice versa), then answer 200.
    Revoke,
    /// Change nothing and answer 200, as for a revoked token.
    Ignore,
    /// Answer with this error.
    Refuse(OAuthError),
}

/// Decides a revocation by the client of application `client_application`
/// of the token found (`None` when no token has that value).
///
/// Contract §4: unknown tokens and tokens of another client answer 200 and
/// change nothing (so the endpoint reveals nothing about others' tokens, and
/// one client cannot log out another's users, which AWX allowed); a personal
/// token is `unsupported_token_type`, as it is revoked through the API.
pub fn decide_revocation(found: Option<TokenOwner>, client_application: i64) -> RevocationDecision {
    match found {
        Some(TokenOwner::Application(id)) if id == client_application => RevocationDecision::Revoke,
        Some(TokenOwner::Personal) => RevocationDecision::Refuse(OAuthError::personal_token()),
        Some(TokenOwner::Application(_)) | None => RevocationDecision::Ignore,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decoded request parameters, in order.
    type Pairs<'a> = Vec<(&'a str, &'a str)>;

    /// The token and hint expected, or `None` for the missing-token error.
    type Expected<'a> = Option<(&'a str, Option<TokenTypeHint>)>;
    use crate::protocol_error::ErrorCode;

    fn parse(pairs: &[(&str, &str)]) -> Result<TokenReference, OAuthError> {
        TokenReference::from_form(&FormParams::parse(pairs.iter().copied()).unwrap())
    }

    #[test]
    fn from_form_cases() {
        let huge = "t".repeat(100_000);
        let cases: Vec<(&str, Pairs<'_>, Expected<'_>)> = vec![
            ("token only", vec![("token", "abc")], Some(("abc", None))),
            (
                "access hint",
                vec![("token", "abc"), ("token_type_hint", "access_token")],
                Some(("abc", Some(TokenTypeHint::AccessToken))),
            ),
            (
                "refresh hint",
                vec![("token", "abc"), ("token_type_hint", "refresh_token")],
                Some(("abc", Some(TokenTypeHint::RefreshToken))),
            ),
            (
                "unknown hint ignored",
                vec![("token", "abc"), ("token_type_hint", "id_token")],
                Some(("abc", None)),
            ),
            (
                "non-ASCII token kept",
                vec![("token", "é")],
                Some(("é", None)),
            ),
            (
                "huge token kept",
                vec![("token", huge.as_str())],
                Some((huge.as_str(), None)),
            ),
            ("no token", vec![("token_type_hint", "access_token")], None),
            ("empty token", vec![("token", "")], None),
            ("nothing", vec![], None),
        ];
        for (name, pairs, expected) in cases {
            match (parse(&pairs), expected) {
                (Ok(reference), Some((token, hint))) => {
                    assert_eq!(reference.token.expose(), token, "{name}");
                    assert_eq!(reference.hint, hint, "{name}");
                }
                (Err(error), None) => {
                    assert_eq!(error.code, ErrorCode::InvalidRequest, "{name}");
                    assert_eq!(error.description, "Missing token parameter.", "{name}");
                }
                (got, _) => panic!("{name}: {got:?}"),
            }
        }
    }

    #[test]
    fn decide_revocation_cases() {
        let cases = [
            (
                "own token",
                Some(TokenOwner::Application(3)),
                RevocationDecision::Revoke,
            ),
            (
                "other client's token",
                Some(TokenOwner::Application(4)),
                RevocationDecision::Ignore,
            ),
            ("unknown token", None, RevocationDecision::Ignore),
            (
                "personal token",
                Some(TokenOwner::Personal),
                RevocationDecision::Refuse(OAuthError::personal_token()),
            ),
        ];
        for (name, found, expected) in cases {
            assert_eq!(decide_revocation(found, 3), expected, "{name}");
        }
    }
}

//! Property tests over every parser of the OAuth 2 crate that reads what a client sends:
//! whatever arrives, nothing panics, every refusal is a 4xx `OAuthError` with a message, and
//! what is accepted keeps the promises the callers rely on.

use acs_oauth2::application::{
    ClientType, GrantType, redirect_uri_allowed, validate_redirect_uris,
};
use acs_oauth2::client_auth::ClientCredentials;
use acs_oauth2::form::FormParams;
use acs_oauth2::grant::GrantRequest;
use acs_oauth2::pkce::validate_verifier;
use acs_oauth2::revocation::TokenReference;
use acs_oauth2::{ChallengeMethod, CodeChallenge, OAuthError, Scope, parse_bearer};
use proptest::prelude::*;

/// Text that is sometimes arbitrary and sometimes close to what the parser looks for.
fn text(near: &'static str) -> impl Strategy<Value = String> {
    prop_oneof![any::<String>(), near]
}

/// A form body: names that mean something to the grants, values of any kind, repeats allowed.
fn form_pairs() -> impl Strategy<Value = Vec<(String, String)>> {
    prop::collection::vec(
        (
            prop_oneof![
                any::<String>(),
                "(grant_type|username|password|scope|code|redirect_uri|code_verifier|refresh_token|client_id|client_secret|token|token_type_hint)",
            ],
            prop_oneof![
                any::<String>(),
                "(password|authorization_code|refresh_token|client_credentials|implicit|read|write|read write|access_token)",
                "[A-Za-z0-9._~-]{0,130}",
            ],
        ),
        0..8,
    )
}

fn assert_refusal(error: &OAuthError) -> Result<(), TestCaseError> {
    prop_assert!(
        (400..500).contains(&error.status()),
        "status {}",
        error.status()
    );
    prop_assert!(!error.description.is_empty());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn an_accepted_bearer_token_is_one_visible_word(header in text("(?i)(bearer|basic)[ \t]{0,2}[!-~]{0,20}[ ]?[a-z]{0,3}")) {
        if let Some(token) = parse_bearer(&header) {
            let token = token.expose();
            prop_assert!((1..=512).contains(&token.len()));
            prop_assert!(token.bytes().all(|b| b.is_ascii_graphic()));
            prop_assert!(header.contains(token));
        }
    }

    #[test]
    fn a_bearer_token_round_trips(token in "[!-~]{1,512}") {
        let parsed = parse_bearer(&format!("Bearer {token}"));
        prop_assert_eq!(parsed.as_ref().map(|t| t.expose()), Some(token.as_str()));
    }

    #[test]
    fn scopes_are_read_or_write(text in text("(read|write|Read| |\t){0,4}")) {
        if let Ok(scope) = Scope::parse(&text) {
            prop_assert!(matches!(scope.as_str(), "read" | "write"));
        }
    }

    #[test]
    fn pkce_parsers_refuse_with_a_message(
        method in prop::option::of(text("(S256|plain|s256)")),
        challenge in text("[A-Za-z0-9_~.-]{0,130}"),
        verifier in text("[A-Za-z0-9_~.-]{0,130}"),
    ) {
        if let Err(error) = ChallengeMethod::parse(method.as_deref()) {
            assert_refusal(&error)?;
        }
        match CodeChallenge::parse(&challenge) {
            // Checking any verifier against an accepted challenge is a plain answer.
            Ok(parsed) => {
                let _ = parsed.verify(&verifier);
            }
            Err(error) => assert_refusal(&error)?,
        }
        match validate_verifier(&verifier) {
            Ok(()) => prop_assert!((43..=128).contains(&verifier.len())),
            Err(error) => assert_refusal(&error)?,
        }
    }

    #[test]
    fn form_bodies_parse_into_grants_or_refusals(pairs in form_pairs()) {
        match FormParams::parse(pairs.clone()) {
            Ok(form) => {
                if let Err(error) = GrantRequest::from_form(&form) {
                    assert_refusal(&error)?;
                }
                if let Err(error) = TokenReference::from_form(&form) {
                    assert_refusal(&error)?;
                }
            }
            Err(error) => {
                assert_refusal(&error)?;
                let mut names: Vec<&str> = pairs.iter().map(|(name, _)| name.as_str()).collect();
                names.sort_unstable();
                let before = names.len();
                names.dedup();
                prop_assert!(names.len() < before, "refused a form without repeated names");
            }
        }
    }

    #[test]
    fn client_credentials_come_from_one_place(
        authorization in prop::option::of(text("(?i)(basic|bearer) [A-Za-z0-9+/=%:]{0,40}")),
        pairs in form_pairs(),
    ) {
        if let Ok(form) = FormParams::parse(pairs) {
            match ClientCredentials::extract(authorization.as_deref(), &form) {
                Ok(credentials) => prop_assert!(!credentials.client_id.is_empty()),
                Err(error) => assert_refusal(&error)?,
            }
        }
    }

    #[test]
    fn accepted_redirect_uris_are_absolute_web_urls(
        text in text("((https?|HTTP|ftp|javascript):(//)?[a-z0-9.:@\\\\/#?-]{0,20}[ \t\n]?){0,3}"),
        presented in text("https?://[a-z.]{1,10}/[a-z]{0,5}"),
    ) {
        for grant in [GrantType::Password, GrantType::AuthorizationCode] {
            if let Ok(normalized) = validate_redirect_uris(&text, grant) {
                for uri in normalized.split(' ').filter(|uri| !uri.is_empty()) {
                    let lower = uri.to_ascii_lowercase();
                    prop_assert!(lower.starts_with("http://") || lower.starts_with("https://"), "{uri}");
                    prop_assert!(!uri.contains('#') && !uri.contains('\\'), "{uri}");
                }
                if redirect_uri_allowed(&normalized, &presented) {
                    prop_assert!(normalized.split(' ').any(|uri| uri == presented));
                }
            }
        }
        let _ = GrantType::parse(&text);
        let _ = ClientType::parse(&text);
    }
}

//! AWX's `ALLOW_OAUTH2_FOR_EXTERNAL_USERS` rule: users who log in through an
//! external provider (LDAP, OIDC, …) may not create OAuth 2 tokens unless the
//! setting allows it.
//!
//! The reason is revocation: such users are disabled at the provider, which
//! ACS cannot see, and a long-lived token would outlive the account. Users
//! with a local password are unaffected.

/// A user from an external authentication provider tried to create a token
/// while `ALLOW_OAUTH2_FOR_EXTERNAL_USERS` is off.
///
/// The message is AWX's (oauthlib's `AccessDeniedError` rendered as
/// `(error) description`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "(access_denied) OAuth2 Tokens cannot be created by users associated with an external authentication provider ({provider})"
)]
pub struct ExternalUserDenied {
    /// The user's provider as AWX names it, e.g. `ldap` or `oidc`.
    pub provider: String,
}

/// Checks whether a user may create OAuth 2 tokens.
///
/// `external_account` is the user's source (`"ldap"`, `"oidc"`) or `None`
/// for local users; `allow_external` is `ALLOW_OAUTH2_FOR_EXTERNAL_USERS`.
/// Like AWX, any `Some` counts as external, even an empty string.
pub fn check_token_creation(
    external_account: Option<&str>,
    allow_external: bool,
) -> Result<(), ExternalUserDenied> {
    match external_account {
        Some(provider) if !allow_external => Err(ExternalUserDenied {
            provider: provider.to_owned(),
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn denied(provider: &str) -> Result<(), ExternalUserDenied> {
        Err(ExternalUserDenied {
            provider: provider.to_owned(),
        })
    }

    #[test]
    fn check_token_creation_cases() {
        let cases = [
            ("local user, setting off", None, false, Ok(())),
            ("local user, setting on", None, true, Ok(())),
            (
                "ldap user, setting off",
                Some("ldap"),
                false,
                denied("ldap"),
            ),
            (
                "oidc user, setting off",
                Some("oidc"),
                false,
                denied("oidc"),
            ),
            ("ldap user, setting on", Some("ldap"), true, Ok(())),
            ("oidc user, setting on", Some("oidc"), true, Ok(())),
            (
                "empty provider counts as external",
                Some(""),
                false,
                denied(""),
            ),
        ];
        for (name, account, allow, expected) in cases {
            assert_eq!(check_token_creation(account, allow), expected, "{name}");
        }
    }

    #[test]
    fn message_is_awx_s() {
        assert_eq!(
            ExternalUserDenied {
                provider: "ldap".to_owned()
            }
            .to_string(),
            "(access_denied) OAuth2 Tokens cannot be created by users associated with an external authentication provider (ldap)"
        );
    }
}

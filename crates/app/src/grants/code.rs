//! The authorization-code grant (RFC 6749 §4.1, RFC 7636): the code issued once the user
//! consents, then exchanged for the token pair.

use acs_oauth2::code::check_exchange;
use acs_oauth2::{
    AuthorizationCodeFacts, AuthorizeRequest, CodeChallenge, CodeExchange, OAuthError, PlainSecret,
    Scope, generate_authorization_code,
};
use acs_storage::DbConnection;
use acs_storage::authorization_codes::NewAuthorizationCode;
use acs_storage::users::User;

use super::{GrantError, Grantor, active_user};
use crate::AppError;
use crate::tokens::Issued;

/// Issues a code for `user` to the grantor's application, as `request` (validated) asks, and
/// stores its digest. Refused for an external user while their tokens are not allowed:
/// checked here already, so they are not sent back to the client with a code that cannot be
/// exchanged.
pub fn issue_code(
    grantor: &Grantor<'_>,
    conn: &mut DbConnection,
    user: &User,
    request: &AuthorizeRequest,
) -> Result<PlainSecret, GrantError> {
    acs_oauth2::check_token_creation(
        user.external_account.as_deref(),
        grantor.settings.allow_oauth2_for_external_users(),
    )
    .map_err(OAuthError::from)?;
    let code = generate_authorization_code(grantor.rng).map_err(|_| AppError::Random)?;
    let now = grantor.now;
    let digest = code.digest();
    let stored = NewAuthorizationCode {
        digest: digest.as_bytes(),
        application_id: grantor.application.id,
        user_id: user.id,
        redirect_uri: &request.redirect_uri,
        redirect_uri_sent: request.redirect_uri_sent,
        scope: &request.scope_words,
        code_challenge: request.code_challenge.as_ref().map(|c| c.as_str()),
        created: now,
        expires: grantor
            .settings
            .oauth2_provider()
            .authorization_code_expires(now),
    };
    grantor.pool.transaction(conn, |conn| {
        acs_storage::authorization_codes::insert(conn, &stored).map_err(GrantError::from)
    })?;
    Ok(code)
}

/// `grant_type=authorization_code`: consumes `code` and issues the pair in one transaction. A code that fails its checks is
/// consumed anyway (the transaction commits the deletion), so a stolen code cannot be retried
/// with guessed verifiers or redirect URIs.
pub fn authorization_code(
    grantor: &Grantor<'_>,
    conn: &mut DbConnection,
    code: &PlainSecret,
    redirect_uri: Option<&str>,
    code_verifier: Option<&str>,
) -> Result<Issued, GrantError> {
    let exchange = CodeExchange {
        application_id: grantor.application.id,
        redirect_uri,
        code_verifier,
    };
    let outcome = grantor.pool.transaction(conn, |conn| {
        let Some(stored) = acs_storage::authorization_codes::take(conn, code.digest().as_bytes())?
        else {
            return Ok(Err(OAuthError::invalid_authorization_code()));
        };
        let facts = AuthorizationCodeFacts {
            application_id: stored.application_id,
            redirect_uri: stored.redirect_uri,
            redirect_uri_sent: stored.redirect_uri_sent,
            expires: stored.expires,
            code_challenge: stored.code_challenge.map(CodeChallenge::from_stored),
            scope: Scope::from_stored(&stored.scope),
        };
        let scope = match check_exchange(&facts, &exchange, grantor.now) {
            Ok(scope) => scope,
            Err(refused) => return Ok(Err(refused)),
        };
        let Some(owner) = active_user(conn, stored.user_id)? else {
            return Ok(Err(OAuthError::invalid_authorization_code()));
        };
        // The token records the code's words ("read write" when the client asked for none).
        let words = scope.words(Some(&stored.scope));
        grantor
            .pair(conn, &owner, &words, "", None)
            .map(Ok)
            .map_err(GrantError::App)
    })?;
    Ok(outcome?)
}

//! What a client does with one of its tokens by value: asks whether it is active (RFC 7662)
//! or revokes it (RFC 7009). The token is looked up as an access token or a refresh token,
//! the hinted kind first (RFC 7009 §2.1). Only the client's own application tokens are ever
//! shown active or revoked; another client's token or an unknown value answers as if inactive
//! and changes nothing, so neither reveals anything; a personal token is refused revocation
//! (contract §4).

use acs_oauth2::{
    ActiveToken, IntrospectionResponse, RevocationDecision, TokenOwner, TokenReference,
    TokenTypeHint, decide_revocation,
};
use acs_storage::applications::Application;
use acs_storage::refresh_tokens::RefreshToken;
use acs_storage::tokens::AccessToken;
use acs_storage::{DbConnection, Pool, Timestamp};

use crate::AppResult;
use crate::activity::{self, Subject};
use crate::grants::GrantError;
use crate::settings::Settings;

/// A stored token found by value.
#[derive(Debug)]
pub enum FoundToken {
    /// An access token (personal or of an application).
    Access(AccessToken),
    /// A refresh token.
    Refresh(RefreshToken),
}

impl FoundToken {
    /// Whose token it is.
    pub fn owner(&self) -> TokenOwner {
        match self {
            FoundToken::Access(token) => token
                .application_id
                .map_or(TokenOwner::Personal, TokenOwner::Application),
            FoundToken::Refresh(token) => TokenOwner::Application(token.application_id),
        }
    }

    /// The application it was issued to, `None` for a personal token.
    pub fn application_id(&self) -> Option<i64> {
        match self.owner() {
            TokenOwner::Application(id) => Some(id),
            TokenOwner::Personal => None,
        }
    }
}

/// The token with the referenced value, looked up as the hinted kind first.
pub fn find(conn: &mut DbConnection, reference: &TokenReference) -> AppResult<Option<FoundToken>> {
    let digest = reference.token.digest();
    let digest = digest.as_bytes();
    let access = |conn: &mut DbConnection| -> AppResult<Option<FoundToken>> {
        Ok(acs_storage::tokens::find_by_digest(conn, digest)?.map(FoundToken::Access))
    };
    let refresh = |conn: &mut DbConnection| -> AppResult<Option<FoundToken>> {
        Ok(acs_storage::refresh_tokens::find_by_digest(conn, digest)?.map(FoundToken::Refresh))
    };
    if reference.hint == Some(TokenTypeHint::RefreshToken) {
        match refresh(conn)? {
            Some(found) => Ok(Some(found)),
            None => access(conn),
        }
    } else {
        match access(conn)? {
            Some(found) => Ok(Some(found)),
            None => refresh(conn),
        }
    }
}

/// Whether the referenced token is one of `application`'s and active at `now`: not expired,
/// not revoked, its user active. Anything else is exactly `{"active": false}`.
pub fn introspect(
    conn: &mut DbConnection,
    settings: &Settings,
    now: Timestamp,
    application: &Application,
    reference: &TokenReference,
) -> AppResult<IntrospectionResponse> {
    let found = find(conn, reference)?;
    let Some(found) = found.filter(|f| f.application_id() == Some(application.id)) else {
        return Ok(IntrospectionResponse::inactive());
    };
    let lifetimes = settings.oauth2_provider();
    let (user_id, scope, created, expires) = match &found {
        FoundToken::Access(token) => (token.user_id, &token.scope, token.created, token.expires),
        FoundToken::Refresh(token) if token.revoked.is_none() => (
            token.user_id,
            &token.scope,
            token.created,
            lifetimes.refresh_token_expires(token.created),
        ),
        FoundToken::Refresh(_) => return Ok(IntrospectionResponse::inactive()),
    };
    let user = acs_storage::users::find(conn, user_id)?;
    if expires <= now || !user.is_active {
        return Ok(IntrospectionResponse::inactive());
    }
    Ok(IntrospectionResponse::active(ActiveToken::new(
        scope,
        application.client_id.clone(),
        user.username,
        created,
        expires,
    )))
}

/// Revokes the referenced token if it is one of `application`'s, in one transaction:
/// revoking an access token also revokes its refresh token and the other way round, and the
/// access token's end is recorded as a deletion by the client. `true` when a token was
/// revoked; a personal token is refused.
pub fn revoke(
    pool: &Pool,
    conn: &mut DbConnection,
    now: Timestamp,
    application: &Application,
    reference: &TokenReference,
) -> Result<bool, GrantError> {
    let found = find(conn, reference)?;
    let decision = decide_revocation(found.as_ref().map(FoundToken::owner), application.id);
    let found = match (decision, found) {
        (RevocationDecision::Refuse(refused), _) => return Err(refused.into()),
        (RevocationDecision::Revoke, Some(found)) => found,
        (RevocationDecision::Revoke | RevocationDecision::Ignore, _) => return Ok(false),
    };
    pool.transaction(conn, |conn| {
        let access_token = match &found {
            FoundToken::Access(token) => {
                acs_storage::tokens::revoke(conn, token.id, now)?;
                Some(token.id)
            }
            FoundToken::Refresh(token) => {
                acs_storage::refresh_tokens::mark_used(conn, token, now)?;
                token.access_token_id
            }
        };
        // The access token is gone as if deleted through /api/v2/tokens/<id>/.
        if let Some(id) = access_token {
            activity::record(
                conn,
                now,
                None,
                "delete",
                &Subject::named(acs_storage::activity::TOKEN, id, ""),
                None,
                serde_json::json!({ "id": id, "revoked_by_client": application.client_id }),
            )?;
        }
        Ok(true)
    })
}

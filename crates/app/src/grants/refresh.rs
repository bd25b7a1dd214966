//! `grant_type=refresh_token`: rotation, with reuse detection (contract §4, RFC 9700).

use acs_oauth2::{
    OAuthError, PlainSecret, RefreshDecision, RefreshRequest, RefreshTokenFacts, Scope,
    SecretDigest, decide_refresh,
};
use acs_storage::applications::Application;
use acs_storage::counted::CountedTable;
use acs_storage::issued_tokens::Rotation;
use acs_storage::local_changes::keeping_counters;
use acs_storage::refresh_tokens::WithOwner;
use acs_storage::{DbConnection, Timestamp};

use super::{GrantError, Grantor};
use crate::AppResult;
use crate::activity::{Entry, Subject};
use crate::tokens::{Issued, reissue};

/// Rotation marks the old refresh token used (conditionally, so of concurrent refreshes
/// exactly one wins; the others get `invalid_grant`), deletes its access token and issues the
/// new pair in one write. A used token presented after the grace period revokes every token
/// rotated from it, in a transaction of its own, and is refused. The new pair records the
/// scope words asked for (`asked`, which `scope` was parsed from), or the old token's (kept
/// equal to its access token's by token edits), and the old token's description.
///
/// The deletion of the replaced access token moves no change counter this process trusts
/// (see `acs_storage::local_changes`): `forget_replaced` is given its digest after each
/// rotation attempt, whatever the outcome (a commit that reported failure may still have
/// landed), so the caller drops what it cached for that token.
pub fn refresh_token(
    grantor: &Grantor<'_>,
    conn: &mut DbConnection,
    token: &PlainSecret,
    scope: Option<Scope>,
    asked: Option<&str>,
    forget_replaced: &dyn Fn(&SecretDigest),
) -> Result<Issued, GrantError> {
    let attempt = Attempt {
        grantor,
        token,
        scope,
        asked,
        forget_replaced,
    };
    // A rotation lost to a change made since the read (a narrowed scope, another refresh)
    // reads the token again once: a narrowing then applies, a used token is refused.
    match attempt.once(conn)? {
        Some(issued) => Ok(issued),
        None => attempt
            .once(conn)?
            .ok_or_else(|| OAuthError::invalid_refresh_token().into()),
    }
}

/// One refresh as asked.
struct Attempt<'a> {
    grantor: &'a Grantor<'a>,
    token: &'a PlainSecret,
    scope: Option<Scope>,
    asked: Option<&'a str>,
    forget_replaced: &'a dyn Fn(&SecretDigest),
}

impl Attempt<'_> {
    /// `None` when the rotation lost (the token was used, its owner deactivated or its scope
    /// changed after it was read).
    fn once(&self, conn: &mut DbConnection) -> Result<Option<Issued>, GrantError> {
        let grantor = self.grantor;
        let now = grantor.now;
        let application = grantor.application;
        // One read before the write: the token, its owner and its access token's description;
        // the rotation's update re-checks what may have changed since.
        let WithOwner {
            token: stored,
            owner,
            description,
            access_digest,
        } = acs_storage::refresh_tokens::find_with_owner(conn, self.token.digest().as_bytes())?
            .ok_or_else(OAuthError::invalid_refresh_token)?;
        let facts = RefreshTokenFacts {
            application_id: stored.application_id,
            created: stored.created,
            revoked: stored.revoked,
            scope: Scope::from_stored(&stored.scope),
        };
        let request = RefreshRequest {
            application_id: application.id,
            scope: self.scope,
        };
        let provider = grantor.settings.oauth2_provider();
        let scope = match decide_refresh(&facts, &request, now, &provider) {
            RefreshDecision::Rotate { scope } => scope,
            RefreshDecision::Refuse(refused) => return Err(refused.into()),
            RefreshDecision::RefuseAndRevokeDescendants(refused) => {
                let revoked = grantor.pool.transaction(conn, |conn| {
                    let revoked =
                        acs_storage::refresh_tokens::revoke_descendants(conn, &stored, now)?;
                    for id in &revoked.access_tokens {
                        let entry =
                            token_deletion(now, *id, "revoked_on_reuse_by_client", application);
                        acs_storage::activity::record(conn, &entry.as_new())?;
                    }
                    AppResult::Ok(revoked.refresh_tokens)
                })?;
                tracing::warn!(
                    refresh_token = stored.id,
                    application = stored.application_id,
                    user = stored.user_id,
                    revoked,
                    "a used refresh token was presented again: its descendants are revoked"
                );
                return Err(refused.into());
            }
        };
        // Codes and refresh tokens outlive deactivation; an inactive owner gets nothing.
        if !owner.is_active {
            return Err(OAuthError::invalid_refresh_token().into());
        }
        let deletion = stored
            .access_token_id
            .map(|id| token_deletion(now, id, "rotated_by_client", application));
        let deletion = deletion.as_ref().map(Entry::as_new);
        let rotation = Rotation {
            used: &stored,
            at: now,
            deletion: deletion.as_ref(),
        };
        // The new token keeps the description of the one it replaces.
        let description = description.as_deref().unwrap_or_default();
        let words = scope.words(self.asked.or(Some(&stored.scope)));
        // One write, and on PostgreSQL one statement: the rotation and the new pair. Of what
        // it changes, only the deletion of the old access token moves a change counter; the
        // caller honours that deletion through `forget_replaced`, so the change feed's reading
        // stays trusted (other servers learn of it from their feeds).
        let issued = keeping_counters(&[CountedTable::AccessTokens], || {
            grantor.pool.single_statement_write(conn, |conn| {
                reissue(
                    conn,
                    grantor.rng,
                    grantor.settings,
                    now,
                    grantor.request(&owner, &words, description, Some(stored.chain())),
                    &rotation,
                )
            })
        });
        if let Some(digest) = access_digest.as_deref().and_then(SecretDigest::from_slice) {
            (self.forget_replaced)(&digest);
        }
        // `None` when another request used the token first, or its owner was deactivated or
        // its scope changed since the read.
        Ok(issued?)
    }
}

/// The activity entry recording that access token `id` is gone because `application` (the
/// actor: a client, not a user) refreshed or replayed a refresh token, as the revocation
/// endpoint records its deletions. No secret is recorded.
fn token_deletion(now: Timestamp, id: i64, how: &str, application: &Application) -> Entry<'static> {
    let mut changes = serde_json::Map::new();
    changes.insert("id".to_owned(), serde_json::json!(id));
    changes.insert(how.to_owned(), serde_json::json!(application.client_id));
    Entry::new(
        now,
        None,
        "delete",
        &Subject::named(acs_storage::activity::TOKEN, id, ""),
        None,
        serde_json::Value::Object(changes),
    )
}

//! The three grants of `POST /api/o/token/`. Each ends in the API's one token-issuing path
//! ([`crate::handlers::tokens::issue`]), so lifetimes, the external-user rule and the activity
//! record are the same as for tokens made through `/api/v2/`; and each does its storage work
//! in one transaction, so a refused issue (an external user, say) leaves the code or refresh
//! token it would have consumed untouched.

use std::sync::Arc;

use acs_oauth2::code::check_exchange;
use acs_oauth2::{
    AuthorizationCodeFacts, CodeChallenge, CodeExchange, DEFAULT_GRANT_SCOPE, ErrorCode,
    OAuthError, PlainSecret, RefreshDecision, RefreshRequest, RefreshTokenFacts, Scope,
    SecretDigest, decide_refresh, granted_scope_words,
};
use acs_storage::applications::Application;
use acs_storage::users::User;
use acs_storage::{DbConnection, StorageError, Timestamp};

use super::reply::OAuthResult;
use crate::auth::passwords;
use crate::context::Context;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::handlers::tokens::{IssueRequest, Issued, issue};
use crate::state::AppState;
use acs_app::activity::Entry;
use acs_app::settings::Settings;
use acs_app::tokens::reissue;
use acs_storage::issued_tokens::Rotation;
use acs_storage::local_changes::keeping_counters;

/// What every grant needs to issue a pair.
struct Issuer<'a> {
    state: &'a AppState,
    settings: Arc<Settings>,
    now: Timestamp,
    application: &'a Application,
}

impl<'a> Issuer<'a> {
    /// Issues to `application` with the request's settings and time.
    fn new<'s: 'a>(ctx: &mut Context<'s>, application: &'a Application) -> ApiResult<Self> {
        Ok(Issuer {
            state: ctx.state,
            settings: ctx.settings()?,
            now: ctx.now,
            application,
        })
    }

    /// A new access and refresh token for `owner` recording `scope` (its words) and
    /// `description`, inside the caller's transaction.
    fn pair(
        &self,
        conn: &mut DbConnection,
        owner: &User,
        scope: &str,
        description: &str,
        chain: Option<i64>,
    ) -> ApiResult<Issued> {
        issue(
            conn,
            &self.state.rng,
            &self.settings,
            self.now,
            self.request(owner, scope, description, chain),
        )
        .map_err(Into::into)
    }

    /// What [`Issuer::pair`] issues.
    fn request<'r>(
        &'r self,
        owner: &'r User,
        scope: &'r str,
        description: &'r str,
        chain: Option<i64>,
    ) -> IssueRequest<'r> {
        IssueRequest {
            actor: Some(owner),
            owner,
            application: Some(self.application),
            scope,
            description,
            chain,
        }
    }
}

/// The active user with this id, if any (codes and refresh tokens outlive deactivation).
fn active_user(conn: &mut DbConnection, id: i64) -> ApiResult<Option<User>> {
    match acs_storage::users::find(conn, id) {
        Ok(user) => Ok(user.is_active.then_some(user)),
        Err(StorageError::NotFound) => Ok(None),
        Err(error) => Err(error.into()),
    }
}

/// `grant_type=password`: the resource owner's username and password, checked (and
/// throttled) exactly as the login form and Basic check them. `asked` is the request's
/// `scope` as sent, which `scope` was parsed from.
pub fn password(
    ctx: &mut Context<'_>,
    application: &Application,
    username: &str,
    password: &PlainSecret,
    scope: Option<Scope>,
    asked: Option<&str>,
) -> OAuthResult<Issued> {
    let owner = passwords::check(&mut ctx.store, &ctx.request, username, password.expose())?
        .user()
        .ok_or_else(|| OAuthError::new(ErrorCode::InvalidGrant, "Invalid credentials given."))?;
    let issuer = Issuer::new(ctx, application)?;
    let words = granted_scope_words(scope.unwrap_or(DEFAULT_GRANT_SCOPE), asked);
    // Issuing writes with one statement (`acs_storage::issued_tokens`), and only rows no change
    // counter counts: the change feed's reading stays trusted.
    let issued = keeping_counters(|| {
        ctx.write_single_statement(|conn| issuer.pair(conn, &owner, &words, "", None))
    })?;
    Ok(issued)
}

/// `grant_type=authorization_code`: consumes the code and issues the pair in one
/// transaction. A code that fails its checks is consumed anyway (the transaction commits the
/// deletion), so a stolen code cannot be retried with guessed verifiers or redirect URIs.
pub fn authorization_code(
    ctx: &mut Context<'_>,
    application: &Application,
    code: &PlainSecret,
    redirect_uri: Option<&str>,
    code_verifier: Option<&str>,
) -> OAuthResult<Issued> {
    let issuer = Issuer::new(ctx, application)?;
    let exchange = CodeExchange {
        application_id: application.id,
        redirect_uri,
        code_verifier,
    };
    let outcome = ctx.write(|conn| {
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
        let scope = match check_exchange(&facts, &exchange, issuer.now) {
            Ok(scope) => scope,
            Err(refused) => return Ok(Err(refused)),
        };
        let Some(owner) = active_user(conn, stored.user_id)? else {
            return Ok(Err(OAuthError::invalid_authorization_code()));
        };
        // The token records the code's words ("read write" when the client asked for none).
        let words = scope.words(Some(&stored.scope));
        issuer.pair(conn, &owner, &words, "", None).map(Ok)
    })?;
    Ok(outcome?)
}

/// `grant_type=refresh_token`: rotation, with reuse detection (contract §4, RFC 9700).
///
/// Rotation marks the old refresh token used (conditionally, so of concurrent refreshes
/// exactly one wins; the others get `invalid_grant`), deletes its access token and issues the
/// new pair in one transaction. A used token presented after the grace period revokes every
/// token rotated from it, in a transaction of its own, and is refused. The new pair records
/// the scope words asked for (`asked`, which `scope` was parsed from), or the old token's
/// (kept equal to its access token's by token edits), and the old token's description.
pub fn refresh_token(
    ctx: &mut Context<'_>,
    application: &Application,
    token: &PlainSecret,
    scope: Option<Scope>,
    asked: Option<&str>,
) -> OAuthResult<Issued> {
    // A rotation lost to a change made since the read (a narrowed scope, another refresh)
    // reads the token again once: a narrowing then applies, a used token is refused.
    match refresh_once(ctx, application, token, scope, asked)? {
        Some(issued) => Ok(issued),
        None => refresh_once(ctx, application, token, scope, asked)?
            .ok_or_else(|| OAuthError::invalid_refresh_token().into()),
    }
}

/// One attempt of [`refresh_token`]: `None` when the rotation lost (the token was used, its
/// owner deactivated or its scope changed after it was read).
fn refresh_once(
    ctx: &mut Context<'_>,
    application: &Application,
    token: &PlainSecret,
    scope: Option<Scope>,
    asked: Option<&str>,
) -> OAuthResult<Option<Issued>> {
    // One read before the write transaction: the token, its owner and its access token's
    // description; the rotation's update re-checks what may have changed since.
    let acs_storage::refresh_tokens::WithOwner {
        token: stored,
        owner,
        description,
        access_digest,
    } = acs_storage::refresh_tokens::find_with_owner(ctx.conn()?, token.digest().as_bytes())?
        .ok_or_else(OAuthError::invalid_refresh_token)?;
    let settings = ctx.settings()?;
    let now = ctx.now;
    let facts = RefreshTokenFacts {
        application_id: stored.application_id,
        created: stored.created,
        revoked: stored.revoked,
        scope: Scope::from_stored(&stored.scope),
    };
    let request = RefreshRequest {
        application_id: application.id,
        scope,
    };
    let scope = match decide_refresh(&facts, &request, now, &settings.oauth2_provider()) {
        RefreshDecision::Rotate { scope } => scope,
        RefreshDecision::Refuse(refused) => return Err(refused.into()),
        RefreshDecision::RefuseAndRevokeDescendants(refused) => {
            let revoked = ctx.write(|conn| {
                let revoked = acs_storage::refresh_tokens::revoke_descendants(conn, &stored, now)?;
                for id in &revoked.access_tokens {
                    record_token_deletion(
                        conn,
                        now,
                        *id,
                        "revoked_on_reuse_by_client",
                        application,
                    )?;
                }
                Ok(revoked.refresh_tokens)
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
    let issuer = Issuer::new(ctx, application)?;
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
    let words = scope.words(asked.or(Some(&stored.scope)));
    // One write, and on PostgreSQL one statement: the rotation and the new pair. Of what it
    // changes, only the deletion of the old access token moves a change counter; this server
    // honours that deletion by forgetting the token's cached principal, so the change feed's
    // reading stays trusted (other servers learn of it from their feeds).
    let issued = keeping_counters(|| {
        ctx.write_single_statement(|conn| {
            reissue(
                conn,
                &issuer.state.rng,
                &issuer.settings,
                now,
                issuer.request(&owner, &words, description, Some(stored.chain())),
                &rotation,
            )
            .map_err(ApiError::from)
        })
    });
    // Forgotten whatever the outcome: a commit that reported failure may still have landed.
    if let Some(digest) = access_digest.as_deref().and_then(SecretDigest::from_slice) {
        let principals = &ctx.store.state.principals;
        principals.forget(&principals.bearer_key(&digest));
    }
    // `None` when another request used the token first, or its owner was deactivated or its
    // scope changed since the read.
    Ok(issued?)
}

/// Records in the activity stream that access token `id` is gone because `application` (the
/// actor: a client, not a user) refreshed or replayed a refresh token, as the revocation
/// endpoint records its deletions. No secret is recorded.
fn record_token_deletion(
    conn: &mut DbConnection,
    now: Timestamp,
    id: i64,
    how: &str,
    application: &Application,
) -> ApiResult<()> {
    let entry = token_deletion(now, id, how, application);
    acs_storage::activity::record(conn, &entry.as_new())?;
    Ok(())
}

/// The entry of [`record_token_deletion`].
fn token_deletion(now: Timestamp, id: i64, how: &str, application: &Application) -> Entry<'static> {
    let mut changes = serde_json::Map::new();
    changes.insert("id".to_owned(), serde_json::json!(id));
    changes.insert(how.to_owned(), serde_json::json!(application.client_id));
    Entry::new(
        now,
        None,
        "delete",
        &acs_app::activity::Subject::named(acs_storage::activity::TOKEN, id, ""),
        None,
        serde_json::Value::Object(changes),
    )
}

//! Revoking tokens in bulk (`revoke_oauth2_tokens`): every access token of one user or of
//! everyone is deleted, and optionally every refresh token not yet revoked is marked revoked.
//!
//! Deleting an access token is what revocation is in ACS: a token works while its row exists.
//! The `tokens` change counter moves with each batch (a database trigger), so every running
//! server refuses a revoked token on its next request.

use acs_storage::DbConnection;
use acs_storage::Timestamp;
use acs_storage::sweeps::Sweep;
use acs_storage::users::User;
use serde_json::json;

use super::sweep::{self, Batching, Rows, Writes};
use super::{HousekeepingError, Interrupted, conclude};
use crate::activity::{self, Subject};

/// The command's name, as the activity stream shows it.
const COMMAND: &str = "revoke_oauth2_tokens";

/// What to revoke.
#[derive(Debug, Clone, Copy)]
pub struct Revocation<'a> {
    /// Only this user's tokens; everyone's when `None`.
    pub user: Option<&'a User>,
    /// Also mark refresh tokens revoked (`--all`).
    pub refresh_tokens: bool,
    /// The revocation time (stored on refresh tokens, and on the activity entry).
    pub now: Timestamp,
    /// How many rows each batch takes.
    pub batching: Batching,
}

/// What a revocation did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RevokeCounts {
    /// Access tokens deleted.
    pub access_tokens: usize,
    /// Refresh tokens marked revoked.
    pub refresh_tokens: usize,
}

/// Revokes as `revocation` says and records one activity-stream entry. Refresh tokens go
/// first, so none of them can mint an access token while the access tokens are being
/// deleted. On an error, the batches committed before it stay revoked and the entry is still
/// attempted, marked `"completed": false`.
pub fn revoke(
    conn: &mut DbConnection,
    writes: Writes<'_>,
    revocation: Revocation<'_>,
    progress: &mut dyn FnMut(Rows, usize),
) -> Result<RevokeCounts, Interrupted<RevokeCounts>> {
    let user = revocation.user.map(|user| user.id);
    let mut steps = Vec::with_capacity(2);
    if revocation.refresh_tokens {
        let at = revocation.now;
        steps.push((Sweep::RevokeRefreshTokens { user, at }, Rows::RefreshTokens));
    }
    steps.push((Sweep::RevokeAccessTokens { user }, Rows::AccessTokens));
    let mut counts = RevokeCounts::default();
    let failure = sweep::run_steps(
        conn,
        writes,
        &steps,
        revocation.batching,
        progress,
        &mut |rows, revoked| match rows {
            Rows::AccessTokens => counts.access_tokens = revoked,
            Rows::RefreshTokens => counts.refresh_tokens = revoked,
            // Revocation sweeps neither.
            Rows::AuthorizationCodes | Rows::Sessions => {}
        },
    );
    let recorded = record(conn, &revocation, counts, failure.is_none());
    conclude(counts, failure, recorded)
}

fn record(
    conn: &mut DbConnection,
    revocation: &Revocation<'_>,
    counts: RevokeCounts,
    completed: bool,
) -> Result<(), HousekeepingError> {
    let mut changes = json!({
        "command": COMMAND,
        "user": revocation.user.map(|user| user.username.as_str()),
        "refresh_tokens": revocation.refresh_tokens,
        "revoked_access_tokens": counts.access_tokens,
        "revoked_refresh_tokens": counts.refresh_tokens,
    });
    if !completed {
        changes["completed"] = json!(false);
    }
    let user = revocation.user.map(Subject::user);
    activity::record(
        conn,
        revocation.now,
        None,
        "delete",
        &Subject::named(acs_storage::activity::TOKEN, 0, COMMAND),
        user.as_ref(),
        changes,
    )?;
    Ok(())
}

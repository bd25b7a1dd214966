//! Deleting what has expired (`cleanup_tokens`, and the server's scheduled run of it):
//!
//! - refresh tokens older than `REFRESH_TOKEN_EXPIRE_SECONDS` (their lifetime counts from
//!   creation, as `acs_oauth2::Lifetimes` has it), revoked and used ones included. A revoked
//!   or used refresh token that has not expired yet is kept: presenting it again must still
//!   be recognised as reuse (contract §4), which needs its row;
//! - access tokens whose expiry has passed;
//! - authorization codes whose expiry has passed (used ones are deleted when used);
//! - sessions whose expiry has passed.

use acs_storage::DbConnection;
use acs_storage::Timestamp;
use acs_storage::sweeps::Sweep;
use serde_json::json;

use super::sweep::{self, Batching, Rows, Writes};
use super::{HousekeepingError, Interrupted, conclude};
use crate::activity::{self, Subject};

/// The command's name, as the activity stream shows it.
const COMMAND: &str = "cleanup_tokens";

/// What to clean up, and how.
#[derive(Debug, Clone, Copy)]
pub struct Cleanup {
    /// The current time: what expired at or before it goes.
    pub now: Timestamp,
    /// The lifetimes in force (`OAUTH2_PROVIDER`).
    pub lifetimes: acs_oauth2::Lifetimes,
    /// How many rows each batch takes.
    pub batching: Batching,
    /// Run by a server's schedule rather than by the command: then the activity entry is
    /// written only when something was deleted, so idle hours leave no trace.
    pub scheduled: bool,
}

/// What a clean-up deleted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CleanupCounts {
    /// Expired access tokens.
    pub access_tokens: usize,
    /// Expired refresh tokens.
    pub refresh_tokens: usize,
    /// Expired authorization codes.
    pub authorization_codes: usize,
    /// Expired sessions.
    pub sessions: usize,
}

impl CleanupCounts {
    /// Rows deleted in all.
    pub fn total(&self) -> usize {
        self.access_tokens + self.refresh_tokens + self.authorization_codes + self.sessions
    }
}

/// Deletes what has expired at `cleanup.now` and records the activity-stream entry. Every
/// step is an idempotent delete, so several servers (or a server and the command) may run it
/// at once. On an error, the batches committed before it stay deleted.
pub fn cleanup(
    conn: &mut DbConnection,
    writes: Writes<'_>,
    cleanup: Cleanup,
    progress: &mut dyn FnMut(Rows, usize),
) -> Result<CleanupCounts, Interrupted<CleanupCounts>> {
    let now = cleanup.now;
    // Created at or before this, a refresh token has lived its lifetime.
    let created_before =
        acs_oauth2::saturating_add_seconds(now, -cleanup.lifetimes.refresh_token_seconds);
    let mut counts = CleanupCounts::default();
    let steps = [
        (
            Sweep::DeleteExpiredRefreshTokens { created_before },
            Rows::RefreshTokens,
        ),
        (Sweep::DeleteExpiredAccessTokens { now }, Rows::AccessTokens),
        (
            Sweep::DeleteExpiredAuthorizationCodes { now },
            Rows::AuthorizationCodes,
        ),
        (Sweep::DeleteExpiredSessions { now }, Rows::Sessions),
    ];
    let failure = sweep::run_steps(
        conn,
        writes,
        &steps,
        cleanup.batching,
        progress,
        &mut |rows, deleted| {
            *match rows {
                Rows::AccessTokens => &mut counts.access_tokens,
                Rows::RefreshTokens => &mut counts.refresh_tokens,
                Rows::AuthorizationCodes => &mut counts.authorization_codes,
                Rows::Sessions => &mut counts.sessions,
            } = deleted;
        },
    );
    let completed = failure.is_none();
    let recorded = if cleanup.scheduled && completed && counts.total() == 0 {
        Ok(())
    } else {
        record(conn, &cleanup, counts, completed)
    };
    conclude(counts, failure, recorded)
}

fn record(
    conn: &mut DbConnection,
    cleanup: &Cleanup,
    counts: CleanupCounts,
    completed: bool,
) -> Result<(), HousekeepingError> {
    let mut changes = json!({
        "command": COMMAND,
        "scheduled": cleanup.scheduled,
        "deleted_access_tokens": counts.access_tokens,
        "deleted_refresh_tokens": counts.refresh_tokens,
        "deleted_authorization_codes": counts.authorization_codes,
        "deleted_sessions": counts.sessions,
    });
    if !completed {
        changes["completed"] = json!(false);
    }
    activity::record(
        conn,
        cleanup.now,
        None,
        "delete",
        &Subject::named(acs_storage::activity::TOKEN, 0, COMMAND),
        None,
        changes,
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use diesel::connection::SimpleConnection;

    use super::*;

    /// A database where 3 access tokens and 1 session expired long ago, and where the
    /// `sessions` table cannot be written: the last step of a clean-up fails.
    fn failing_at_sessions() -> DbConnection {
        let mut conn = acs_storage::Database::Sqlite(":memory:".into())
            .connect()
            .expect("an in-memory database");
        acs_storage::run_migrations(&mut conn).expect("migrations");
        let mut sql = String::from(
            "INSERT INTO users (id, username, password, created, modified) \
               VALUES (1, 'alice', '!', '2024-01-01 00:00:00', '2024-01-01 00:00:00');
             INSERT INTO sessions (id, digest, user_id, created, expires) \
               VALUES (1, X'01', 1, '2000-01-01 00:00:00', '2000-01-01 00:00:00');
             CREATE TRIGGER sessions_locked BEFORE DELETE ON sessions \
               BEGIN SELECT RAISE(ABORT, 'sessions are locked'); END;",
        );
        for id in 1..=3 {
            sql.push_str(&format!(
                "INSERT INTO access_tokens (id, digest, user_id, scope, expires, created, \
                 modified) VALUES ({id}, X'0{id}', 1, 'write', '2000-01-01 00:00:00', \
                 '2000-01-01 00:00:00', '2000-01-01 00:00:00');"
            ));
        }
        conn.batch_execute(&sql).expect("seed rows");
        conn
    }

    #[test]
    fn an_interrupted_clean_up_keeps_and_reports_what_it_committed() {
        let mut conn = failing_at_sessions();
        let mut reported = 0;
        let interrupted = cleanup(
            &mut conn,
            Writes::Autocommit,
            Cleanup {
                now: chrono::Utc::now().naive_utc(),
                lifetimes: acs_oauth2::Lifetimes::default(),
                batching: Batching::fixed(2),
                scheduled: false,
            },
            &mut |_, count| reported += count,
        )
        .expect_err("the sessions step fails");
        assert_eq!(
            interrupted.done,
            CleanupCounts {
                access_tokens: 3,
                refresh_tokens: 0,
                authorization_codes: 0,
                sessions: 0
            }
        );
        assert_eq!(reported, 3, "each committed batch was reported");
        assert!(
            interrupted
                .error
                .to_string()
                .contains("sessions are locked"),
            "{}",
            interrupted.error
        );
        // The batches before the error stay committed, and the run is on record as cut short.
        use diesel::RunQueryDsl;
        let left: i64 = diesel::select(diesel::dsl::sql::<diesel::sql_types::BigInt>(
            "(SELECT COUNT(*) FROM access_tokens)",
        ))
        .get_result(&mut conn)
        .expect("a count");
        assert_eq!(left, 0);
        let changes: String = diesel::select(diesel::dsl::sql::<diesel::sql_types::Text>(
            "(SELECT changes FROM activity_stream ORDER BY id DESC LIMIT 1)",
        ))
        .get_result(&mut conn)
        .expect("an activity entry");
        let changes: serde_json::Value = serde_json::from_str(&changes).expect("JSON");
        assert_eq!(changes["completed"], false);
        assert_eq!(changes["deleted_access_tokens"], 3);
    }
}

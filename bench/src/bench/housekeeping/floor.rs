//! The baseline of the housekeeping scenario: the same rows changed by plain SQL, each table
//! in one unbatched statement and all in one transaction, run in this process on an
//! identically seeded database with the commands' connection settings. That is the least the
//! database itself needs for the work; a command's time is reported as a ratio to it, which
//! stays comparable across machines where absolute seconds do not.
//!
//! It is a floor, not an alternative: one transaction holds the SQLite write lock (or the
//! PostgreSQL row locks) for the whole run, which a live server cannot afford.

use std::time::{Duration, Instant};

use acs_storage::Database;
use diesel::connection::SimpleConnection;
use xtask::management::database::SQLITE_COMMAND_PRAGMAS;

use crate::Result;

/// The SQL doing what `command` does to a seeded database, at `now` (`%Y-%m-%d %H:%M:%S`).
fn statements(command: &str, now: chrono::NaiveDateTime) -> Result<String> {
    let text = |at: chrono::NaiveDateTime| at.format("%Y-%m-%d %H:%M:%S").to_string();
    let expired_refresh = acs_oauth2::saturating_add_seconds(
        now,
        -acs_oauth2::Lifetimes::default().refresh_token_seconds,
    );
    let now = text(now);
    Ok(match command {
        "revoke_oauth2_tokens" => format!(
            "UPDATE refresh_tokens SET revoked = '{now}', access_token_id = NULL \
               WHERE revoked IS NULL;
             DELETE FROM access_tokens;"
        ),
        "cleanup_tokens" => format!(
            "DELETE FROM refresh_tokens WHERE created <= '{}';
             DELETE FROM access_tokens WHERE expires <= '{now}';
             DELETE FROM authorization_codes WHERE expires <= '{now}';
             DELETE FROM sessions WHERE expires <= '{now}';",
            text(expired_refresh)
        ),
        other => return Err(format!("no baseline for {other}").into()),
    })
}

/// Times `command`'s work as plain SQL in one transaction on `database` (seeded), then checks
/// that it left `access_tokens_left` access tokens, as the command must.
pub fn measure(database: &Database, command: &str, access_tokens_left: u64) -> Result<Duration> {
    let sql = statements(command, chrono::Utc::now().naive_utc())?;
    let mut conn = database.connect()?;
    if database.is_sqlite() {
        conn.batch_execute(SQLITE_COMMAND_PRAGMAS)?;
    }
    let started = Instant::now();
    conn.batch_execute(&format!("BEGIN;\n{sql}\nCOMMIT;"))?;
    // Closing runs SQLite's final checkpoint, as it does when a command exits.
    drop(conn);
    let elapsed = started.elapsed();
    let mut conn = database.connect()?;
    let left: i64 = diesel::RunQueryDsl::get_result(
        diesel::select(diesel::dsl::sql::<diesel::sql_types::BigInt>(
            "(SELECT COUNT(*) FROM access_tokens)",
        )),
        &mut conn,
    )?;
    if u64::try_from(left).ok() != Some(access_tokens_left) {
        return Err(format!(
            "the {command} baseline left {left} access tokens, not {access_tokens_left}"
        )
        .into());
    }
    Ok(elapsed)
}

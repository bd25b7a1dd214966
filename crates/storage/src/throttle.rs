//! Failed-login counters, in the database so that every server of a deployment counts the
//! same attempts.

use diesel::prelude::*;

use crate::schema::login_failures;
use crate::{DbConnection, StorageResult, Timestamp};

/// The larger failure count of the two keys (a username and a client address) in windows that
/// started after `since`, with that window's start (to compute when the throttle lifts).
///
/// Exactly two keys keep the query static, so its prepared statement is reused: it runs on
/// every password check, including each Basic-authenticated request.
pub fn failures(
    conn: &mut DbConnection,
    keys: [&str; 2],
    since: Timestamp,
) -> StorageResult<Option<(i32, Timestamp)>> {
    let rows: Vec<(i32, Timestamp)> = crate::lookup!(conn, |c| login_failures::table
        .filter(
            login_failures::key
                .eq(keys[0])
                .or(login_failures::key.eq(keys[1]))
        )
        .filter(login_failures::window_start.gt(since))
        .select((login_failures::failures, login_failures::window_start))
        .load(c))?;
    Ok(rows.into_iter().max_by_key(|(count, _)| *count))
}

/// Counts one failure for `key`; a window older than `since` starts again at one.
pub fn record_failure(
    conn: &mut DbConnection,
    key: &str,
    now: Timestamp,
    since: Timestamp,
) -> StorageResult<()> {
    let current: Option<(i32, Timestamp)> = login_failures::table
        .find(key)
        .select((login_failures::failures, login_failures::window_start))
        .get_result(conn)
        .optional()?;
    match current {
        Some((count, start)) if start > since => {
            diesel::update(login_failures::table.find(key))
                .set(login_failures::failures.eq(count.saturating_add(1)))
                .execute(conn)?;
        }
        Some(_) => {
            diesel::update(login_failures::table.find(key))
                .set((
                    login_failures::failures.eq(1),
                    login_failures::window_start.eq(now),
                ))
                .execute(conn)?;
        }
        None => {
            diesel::insert_into(login_failures::table)
                .values((
                    login_failures::key.eq(key),
                    login_failures::failures.eq(1),
                    login_failures::window_start.eq(now),
                ))
                .execute(conn)?;
        }
    }
    Ok(())
}

/// Forgets the failures of `key` (after a successful login).
pub fn clear(conn: &mut DbConnection, key: &str) -> StorageResult<()> {
    diesel::delete(login_failures::table.find(key)).execute(conn)?;
    Ok(())
}

/// Deletes windows that started before `since`; returns how many.
pub fn delete_stale(conn: &mut DbConnection, since: Timestamp) -> StorageResult<usize> {
    Ok(
        diesel::delete(login_failures::table.filter(login_failures::window_start.le(since)))
            .execute(conn)?,
    )
}

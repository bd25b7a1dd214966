//! Row counts for monitoring.

use diesel::prelude::*;

use crate::schema::{organizations, sessions, users};
use crate::{DbConnection, StorageResult, Timestamp};

/// How many rows the main tables hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    /// Users.
    pub users: i64,
    /// Organizations.
    pub organizations: i64,
    /// Sessions not yet expired at the time asked.
    pub active_sessions: i64,
}

/// Counts the rows of the main tables.
pub fn counts(conn: &mut DbConnection, now: Timestamp) -> StorageResult<Counts> {
    Ok(Counts {
        users: users::table.count().get_result(conn)?,
        organizations: organizations::table.count().get_result(conn)?,
        active_sessions: sessions::table
            .filter(sessions::expires.gt(now))
            .count()
            .get_result(conn)?,
    })
}

//! Change counters. Database triggers bump a counter with every write to the tables it covers,
//! whichever process writes: `settings` (the settings table), `users` (users, organizations
//! and their roles), `sessions`, `login_failures`, `tokens` (access tokens), `applications`.
//! Sessions, access tokens and applications count updates and deletes only: a new one cannot
//! change anything cached, since caches hold only what was found. A server reads the counters once per request (or
//! takes them from its change feed); anything it cached under the same counters is still
//! what the database holds.

use diesel::prelude::*;

use crate::schema::revision_totals;
use crate::{DbConnection, StorageResult};

/// The counters at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Queryable, Selectable)]
#[diesel(table_name = revision_totals)]
pub struct Revisions {
    /// Bumped by every write to settings.
    pub settings: i64,
    /// Bumped by every write to users, organizations and organization roles.
    pub users: i64,
    /// Bumped by every change to or deletion of a session.
    pub sessions: i64,
    /// Bumped by every write to the failed-login counters.
    pub login_failures: i64,
    /// Bumped by every change to or deletion of an access token (revocation, scope change).
    pub tokens: i64,
    /// Bumped by every change to or deletion of an OAuth 2 application.
    pub applications: i64,
}

/// The current counters (one read of a one-row view, on the backend's statement cache: it
/// runs on every request that cannot trust the change feed).
///
/// On PostgreSQL the counters are spread over slots, one row each, and a trigger bumps the
/// row of its session's slot, so that writers do not all queue for one row lock until they
/// commit; SQLite, with one writer, keeps one row. The view `revision_totals` sums the rows:
/// every row only grows, so the sum changes exactly when some counter does.
pub fn current(conn: &mut DbConnection) -> StorageResult<Revisions> {
    // No WHERE and no LIMIT: the view has exactly one row, and a statement without bound
    // parameters is never re-prepared. With `find(1).first()` SQLite re-parsed the statement
    // on every step, since its plan depended on a bound value.
    let rows: Vec<Revisions> = crate::lookup!(conn, |c| revision_totals::table
        .select(Revisions::as_select())
        .load(c))?;
    rows.into_iter().next().ok_or(crate::StorageError::NotFound)
}

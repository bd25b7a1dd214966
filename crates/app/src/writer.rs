//! Who writes, when, and through which pool: what every use case that writes takes.

use acs_authz::Actor;
use acs_storage::users::User;
use acs_storage::{DbConnection, Pool, Timestamp};
use serde::Serialize;

use crate::AppResult;
use crate::activity::{self, Subject};

/// The author of a write: checked by the rules as `actor`, recorded in stamps and the
/// activity stream as `user`, at `now`, in a transaction of `pool`.
#[derive(Clone, Copy)]
pub struct Writer<'a> {
    /// The pool the caller's connection came from (on SQLite, writes run on its writer).
    pub pool: &'a Pool,
    /// Who writes, as the rules see them.
    pub actor: &'a Actor,
    /// Who writes, as stamps and the activity stream record them.
    pub user: &'a User,
    /// When.
    pub now: Timestamp,
}

impl std::fmt::Debug for Writer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer")
            .field("user", &self.user.id)
            .field("now", &self.now)
            .finish_non_exhaustive()
    }
}

impl Writer<'_> {
    /// Records that the writer created `subject`, whose record (as the API renders it) is
    /// `rendered`.
    pub fn record_creation(
        &self,
        conn: &mut DbConnection,
        subject: &Subject,
        rendered: &impl Serialize,
    ) -> AppResult<()> {
        activity::record_creation(conn, self.now, self.user, subject, rendered)
    }

    /// Records that the writer changed `subject` from the record `before` to `after`.
    pub fn record_update(
        &self,
        conn: &mut DbConnection,
        subject: &Subject,
        before: &impl Serialize,
        after: &impl Serialize,
    ) -> AppResult<()> {
        activity::record_update(conn, self.now, self.user, subject, before, after)
    }
}

//! Token housekeeping: revoking tokens in bulk and deleting what has expired.
//!
//! The management commands (`revoke_oauth2_tokens`, `cleanup_tokens` in `xtask`) and the
//! server's own schedule (`acs_app::housekeeping`) call the same functions here. The work is done by
//! `acs_storage::sweeps` in short batches; this module drives them, counts, and writes the one
//! activity-stream entry each run leaves (the system acts: no actor).
//!
//! Entry shape (decided in `docs/decisions.md`): operation `delete`, `object1`
//! `o_auth2_access_token` with id 0 and the command's name as its summary name, `object2` the
//! user when one was named, and changes such as
//! `{"command": "revoke_oauth2_tokens", "user": "alice", "revoked_access_tokens": 3, …}`.

mod cleanup;
mod revoke;
mod sweep;

pub use cleanup::{Cleanup, CleanupCounts, cleanup};
pub use revoke::{Revocation, RevokeCounts, revoke};
pub use sweep::{Batching, Rows, Writes};

use acs_storage::StorageError;

use crate::AppError;

/// Why a housekeeping run stopped.
#[derive(Debug, thiserror::Error)]
pub enum HousekeepingError {
    /// The database refused or could not be reached.
    #[error("{0}")]
    Storage(#[from] StorageError),
    /// The activity-stream entry could not be written.
    #[error("recording the activity stream entry failed: {0}")]
    Activity(#[from] AppError),
}

/// A run that stopped part-way: `done` tells what was committed before `error` (those
/// batches stay committed).
#[derive(Debug, thiserror::Error)]
#[error("{error}")]
pub struct Interrupted<C> {
    /// What had been done, and committed, when the error came.
    pub done: C,
    /// The error.
    #[source]
    pub error: HousekeepingError,
}

impl<C> Interrupted<C> {
    fn new(done: C, error: impl Into<HousekeepingError>) -> Self {
        Interrupted {
            done,
            error: error.into(),
        }
    }
}

/// The outcome of a run whose activity entry has been attempted: `done` when both the work and
/// the entry succeeded. The entry of an interrupted run is best effort: the database error
/// that interrupted it is the news.
fn conclude<C>(
    done: C,
    failure: Option<StorageError>,
    recorded: Result<(), HousekeepingError>,
) -> Result<C, Interrupted<C>> {
    match (failure, recorded) {
        (None, Ok(())) => Ok(done),
        (None, Err(error)) => Err(Interrupted::new(done, error)),
        (Some(error), _) => Err(Interrupted::new(done, error)),
    }
}

/// `count` followed by `noun`, plural unless the count is one: `1 access token`, `2 sessions`.
pub fn counted(count: usize, singular: &str, plural: &str) -> String {
    if count == 1 {
        format!("1 {singular}")
    } else {
        format!("{count} {plural}")
    }
}

#[cfg(test)]
mod tests {
    use super::counted;

    #[test]
    fn counts_are_pluralised() {
        assert_eq!(counted(0, "session", "sessions"), "0 sessions");
        assert_eq!(counted(1, "session", "sessions"), "1 session");
        assert_eq!(
            counted(2, "access token", "access tokens"),
            "2 access tokens"
        );
    }
}

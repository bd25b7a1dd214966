//! Running one storage sweep to its end, batch by batch, with progress reports.

use std::time::{Duration, Instant};

use acs_storage::sweeps::{Cursor, Sweep};
use acs_storage::{DbConnection, Pool, StorageError};

/// What a progress report counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rows {
    /// Access tokens revoked or deleted.
    AccessTokens,
    /// Refresh tokens revoked or deleted.
    RefreshTokens,
    /// Authorization codes deleted.
    AuthorizationCodes,
    /// Sessions deleted.
    Sessions,
}

/// How the write of each batch runs.
#[derive(Debug, Clone, Copy)]
pub enum Writes<'a> {
    /// On its own: one statement, committed at once. For a separate process (a management
    /// command): on SQLite the statement waits for the write lock (busy timeout) instead of
    /// upgrading a read transaction, which could fail when a server commits in between.
    Autocommit,
    /// In a transaction of this server's pool, which on SQLite also takes the pool's writer
    /// lock, so the batch queues behind the server's own writes.
    Pool(&'a Pool),
}

/// How many rows each batch takes.
///
/// The cost of a batch is mostly fixed (on SQLite every commit writes out each page the batch
/// touched, and a random index such as the token digests spreads even a small batch over most
/// of its pages), so large batches are much cheaper per row; but a batch holds the database's
/// write lock (SQLite) or its rows' locks (PostgreSQL) while it runs. [`Batching::for_command`]
/// and [`Batching::for_server`] therefore size batches by time: it doubles the size while a write takes under half the
/// target and halves it when one takes over twice the target (a single slow batch, such as one
/// whose commit ran an SQLite checkpoint, does not shrink it), within bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Batching {
    /// Rows in the first batch.
    pub initial: i64,
    /// Fewest rows per batch.
    pub min: i64,
    /// Most rows per batch.
    pub max: i64,
    /// How long one batch's write should take; `None` keeps the size fixed.
    pub target: Option<Duration>,
}

impl Batching {
    /// For a management command, where the operator waits for the whole run: batches of
    /// about a second of writing, 1 000 to 100 000 rows, starting at the most. Starting small
    /// would cost more than it saves: every batch, however small, rewrites most pages of the
    /// digest index.
    pub fn for_command() -> Self {
        Batching {
            initial: 100_000,
            min: 1_000,
            max: 100_000,
            target: Some(Duration::from_secs(1)),
        }
    }

    /// For a server's own clean-up, where requests queue behind each batch on SQLite: batches
    /// of about a quarter of a second, starting at [`acs_storage::sweeps::BATCH_SIZE`] rows.
    pub fn for_server() -> Self {
        Batching {
            initial: acs_storage::sweeps::BATCH_SIZE,
            min: 1_000,
            max: 100_000,
            target: Some(Duration::from_millis(250)),
        }
    }

    /// Always `size` rows per batch.
    pub fn fixed(size: i64) -> Self {
        Batching {
            initial: size,
            min: size,
            max: size,
            target: None,
        }
    }

    /// The size of the next batch after one of `size` rows whose write took `took`.
    fn next_size(&self, size: i64, took: Duration) -> i64 {
        let Some(target) = self.target else {
            return size;
        };
        let next = if took < target / 2 {
            size.saturating_mul(2)
        } else if took > target * 2 {
            size / 2
        } else {
            size
        };
        next.clamp(self.min.max(1), self.max.max(self.min).max(1))
    }
}

impl Default for Batching {
    fn default() -> Self {
        Batching::for_command()
    }
}

/// A sweep that stopped: rows changed by the batches that committed, and the error.
type Stopped = (usize, StorageError);

/// Runs `sweep` until no batch is left; returns the rows changed. `progress` hears of each
/// committed batch.
fn run(
    conn: &mut DbConnection,
    writes: Writes<'_>,
    sweep: Sweep,
    batching: Batching,
    rows: Rows,
    progress: &mut dyn FnMut(Rows, usize),
) -> Result<usize, Stopped> {
    let mut cursor = Cursor::new(batching.initial);
    let mut total = 0;
    loop {
        let range = match sweep.next_batch(conn, &mut cursor) {
            Ok(Some(range)) => range,
            Ok(None) => return Ok(total),
            Err(error) => return Err((total, error)),
        };
        let started = Instant::now();
        let changed = match writes {
            Writes::Autocommit => sweep.apply(conn, range),
            Writes::Pool(pool) => pool.transaction(conn, |conn| sweep.apply(conn, range)),
        }
        .map_err(|error| (total, error))?;
        cursor.resize(batching.next_size(cursor.size(), started.elapsed()));
        total += changed;
        progress(rows, changed);
    }
}

/// Runs `steps` in order, each to its end, until one fails; returns the error that stopped
/// the run, if any. `tally` hears the rows each step changed (for the failed step, what its
/// committed batches changed); `progress` hears of each committed batch.
pub(super) fn run_steps(
    conn: &mut DbConnection,
    writes: Writes<'_>,
    steps: &[(Sweep, Rows)],
    batching: Batching,
    progress: &mut dyn FnMut(Rows, usize),
    tally: &mut dyn FnMut(Rows, usize),
) -> Option<StorageError> {
    for &(sweep, rows) in steps {
        match run(conn, writes, sweep, batching, rows, progress) {
            Ok(changed) => tally(rows, changed),
            Err((changed, error)) => {
                tally(rows, changed);
                return Some(error);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adaptive_batches_grow_when_fast_and_shrink_when_slow() {
        let batching = Batching::for_command();
        let ms = Duration::from_millis;
        assert_eq!(batching.next_size(10_000, ms(100)), 20_000);
        assert_eq!(batching.next_size(10_000, ms(800)), 10_000);
        assert_eq!(batching.next_size(10_000, ms(1_500)), 10_000);
        assert_eq!(batching.next_size(10_000, ms(2_500)), 5_000);
        assert_eq!(batching.next_size(80_000, ms(10)), 100_000);
        assert_eq!(batching.next_size(1_500, ms(5_000)), 1_000);
    }

    #[test]
    fn fixed_batches_keep_their_size() {
        let batching = Batching::fixed(3);
        assert_eq!(batching.next_size(3, Duration::ZERO), 3);
        assert_eq!(batching.next_size(3, Duration::from_secs(60)), 3);
    }
}

//! Write-ahead-log checkpoints of an SQLite pool, off the request path.
//!
//! By default SQLite checkpoints inside the commit that takes the log past 1 000 pages: that
//! commit copies the pages into the database file and waits for two `fsync`s, and since a
//! server admits one writer at a time (see `Pool::transaction`), every other write waits with
//! it. Issuing tokens on SQLite spent a tenth of the machine in I/O wait that way. A pool's
//! connections therefore never checkpoint ([`POOLED_PRAGMAS`]); a thread of the pool's own
//! does, every [`INTERVAL`]:
//! - a passive checkpoint, beside the writers: it copies the pages no reader still needs and
//!   waits for the `fsync`s without holding anyone up;
//! - once the log is longer than [`RESTART_AT_FRAMES`], passive rounds until one finds little
//!   left to copy, then, between two groups of writes (see [`crate::group_commit`]), a restart
//!   checkpoint while holding the pool's writer: it copies the few pages written since, waits
//!   (a few milliseconds at most) for readers of the old log, and lets the next write start
//!   the log file from its beginning again. Passive
//!   checkpoints alone never get there under a steady write load, since a commit lands during
//!   nearly every one of them, and the log grew by gigabytes. Should the writes outpace the
//!   copying, the restart waits until the log reaches [`FORCE_RESTART_AT_FRAMES`], the size
//!   the file is truncated back to, and then holds the writes up while it copies the rest.
//! - Should the thread itself fall behind (starved of CPU or of I/O while the writes go on),
//!   the writer restarts the log after the commit that takes the file past
//!   [`WRITER_RESTARTS_AT_BYTES`]: a bound that holds however the thread is scheduled.
//!
//! Other processes (management commands) keep SQLite's automatic checkpoints.

use std::path::Path;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::Integer;

use crate::group_commit::Writer;
use crate::{Database, DbConnection, StorageError, StorageResult};

/// How often the pool's thread checkpoints.
pub const INTERVAL: Duration = Duration::from_millis(100);

/// The length of the log, in pages, past which the thread restarts it (about 32 MiB).
pub const RESTART_AT_FRAMES: i32 = 8_192;

/// The length of the log, in pages, past which the thread restarts it even though the writes
/// outpace the copying (64 MiB, the log file's size limit in [`POOLED_PRAGMAS`]): the writes
/// wait for the pages the last passive round left, rather than the file growing on. At four
/// times [`RESTART_AT_FRAMES`], a steady load of group-committed writes took the file to
/// 140 MiB before it restarted.
pub const FORCE_RESTART_AT_FRAMES: i32 = RESTART_AT_FRAMES * 2;

/// The log file's size past which the writer itself restarts the log after a commit (80 MiB,
/// above the file's size limit so that the thread's rounds normally get there first). The
/// file grows past its limit only while the log is as long as the file.
pub const WRITER_RESTARTS_AT_BYTES: u64 = 80 * 1024 * 1024;

/// The busy timeout of every pooled connection, the writer's included (see `Database::connect`).
pub(crate) const BUSY_TIMEOUT_MS: u32 = 5_000;

/// Passive rounds at most before a restart, until one finds at most [`RESTART_LEFT_FRAMES`]
/// pages to copy: each copies what was written during the one before.
const CATCH_UP_ROUNDS: usize = 3;

/// Pages a catch-up round may find to copy for the restart to go ahead (about 2 MiB).
const RESTART_LEFT_FRAMES: i32 = 512;

/// How long a restart checkpoint waits for readers of the old log, writes held up meanwhile;
/// a restart that cannot finish in time is tried again at the next round.
const RESTART_WAIT_MS: u32 = 5;

/// How long the writer keeps trying to restart a log past [`WRITER_RESTARTS_AT_BYTES`]
/// before its next group goes ahead. Only one checkpoint runs at a time, and SQLite answers
/// another at once with "busy": on a starved machine the thread's passive rounds held that
/// lock while commit after commit found it taken, and the file grew past 120 MiB.
const WRITER_RESTART_PATIENCE: Duration = Duration::from_secs(1);

/// How long the thread waits before it reconnects after a failure.
const RECONNECT_AFTER: Duration = Duration::from_secs(1);

/// Set on every connection of a pool whose checkpoints run on the pool's thread. The size
/// limit truncates the log file back to 64 MiB when it restarts after a burst of writes.
pub(crate) const POOLED_PRAGMAS: &str =
    "PRAGMA wal_autocheckpoint = 0; PRAGMA journal_size_limit = 67108864;";

/// Keeps the pool's checkpoint thread running: the thread stops within [`INTERVAL`] once the
/// last clone of the pool (which holds this) is dropped, after a last checkpoint.
#[derive(Debug)]
pub(crate) struct Checkpointer {
    _alive: Arc<()>,
}

impl Checkpointer {
    /// Starts checkpointing `database` (an SQLite file) in the background.
    pub(crate) fn start(database: &Database, writer: Arc<Writer>) -> std::io::Result<Self> {
        let alive = Arc::new(());
        let watched = Arc::downgrade(&alive);
        let database = database.clone();
        std::thread::Builder::new()
            .name("wal-checkpoint".into())
            .spawn(move || checkpoint_while(&database, &writer, &watched))?;
        Ok(Checkpointer { _alive: alive })
    }
}

fn checkpoint_while(database: &Database, writer: &Writer, alive: &Weak<()>) {
    let mut conn = None;
    loop {
        let stopping = alive.strong_count() == 0;
        if !stopping {
            std::thread::sleep(INTERVAL);
        }
        if let Err(error) = checkpoint(database, writer, &mut conn) {
            tracing::warn!(%error, "checkpointing the SQLite log failed; retrying");
            conn = None;
            std::thread::sleep(RECONNECT_AFTER);
        }
        if stopping {
            return;
        }
    }
}

/// What `PRAGMA wal_checkpoint` reports.
#[derive(QueryableByName)]
struct Outcome {
    /// 1 when the checkpoint could not finish (another one ran, or readers held it up).
    #[diesel(sql_type = Integer)]
    busy: i32,
    /// Pages in the log.
    #[diesel(sql_type = Integer)]
    log: i32,
    /// Of those, pages copied into the database file.
    #[diesel(sql_type = Integer)]
    checkpointed: i32,
}

fn wal_checkpoint(conn: &mut diesel::SqliteConnection, mode: &str) -> StorageResult<Outcome> {
    Ok(diesel::sql_query(format!("PRAGMA wal_checkpoint({mode})")).get_result(conn)?)
}

/// One round on `conn`, connecting first if needed.
fn checkpoint(
    database: &Database,
    writer: &Writer,
    conn: &mut Option<DbConnection>,
) -> StorageResult<()> {
    let conn = match conn {
        Some(conn) => conn,
        None => {
            let mut opened = database.connect()?;
            opened.batch_execute(&format!("PRAGMA busy_timeout = {RESTART_WAIT_MS};"))?;
            conn.insert(opened)
        }
    };
    let DbConnection::Sqlite(conn) = conn else {
        return Err(StorageError::Unavailable(
            "the checkpoint thread runs on SQLite only".into(),
        ));
    };
    let mut passive = wal_checkpoint(conn, "PASSIVE")?;
    if passive.log < RESTART_AT_FRAMES {
        return Ok(());
    }
    // Catch up beside the writers first, so that what is left to copy with writes held up
    // is only what the last of these rounds missed.
    let mut caught_up = false;
    for _ in 0..CATCH_UP_ROUNDS {
        let round = wal_checkpoint(conn, "PASSIVE")?;
        caught_up = round.log - passive.checkpointed <= RESTART_LEFT_FRAMES;
        passive = round;
        if caught_up {
            break;
        }
    }
    // Writes outpacing the copying: hold them up only once the log is far too long.
    if !caught_up && passive.log < FORCE_RESTART_AT_FRAMES {
        return Ok(());
    }
    let writes_wait = writer.lock();
    // A group's transaction open on the writer would keep the log from restarting.
    if !writes_wait.in_transaction() {
        wal_checkpoint(conn, "RESTART")?;
    }
    Ok(())
}

/// Restarts the log on the writer's connection `conn`, between two groups, once the log file
/// at `log` is past [`WRITER_RESTARTS_AT_BYTES`]. Costs one `stat` when it is not.
pub(crate) fn restart_if_far_too_long(conn: &mut diesel::SqliteConnection, log: &Path) {
    let too_long = std::fs::metadata(log).is_ok_and(|meta| meta.len() > WRITER_RESTARTS_AT_BYTES);
    if !too_long {
        return;
    }
    // Writes wait meanwhile: each try waits for readers of the old log no longer than the
    // thread does, and the tries go on while another checkpoint holds the log (the file must
    // not grow on behind it), up to a bound; then the connection gets its usual patience back.
    let deadline = Instant::now() + WRITER_RESTART_PATIENCE;
    let restarted = conn
        .batch_execute(&format!("PRAGMA busy_timeout = {RESTART_WAIT_MS};"))
        .map_err(StorageError::from)
        .and_then(|()| {
            loop {
                let outcome = wal_checkpoint(conn, "RESTART")?;
                if outcome.busy == 0 || Instant::now() >= deadline {
                    break Ok(outcome);
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        });
    let restored = conn.batch_execute(&format!("PRAGMA busy_timeout = {BUSY_TIMEOUT_MS};"));
    match restored.map_err(StorageError::from).and(restarted) {
        Ok(outcome) if outcome.busy != 0 => {
            tracing::warn!(
                "the SQLite log stayed busy: restarting it after a commit is left to the next one"
            );
        }
        Ok(_) => {}
        Err(error) => tracing::warn!(%error, "restarting the SQLite log after a commit failed"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SQLite's automatic threshold, in pages: a commit that takes the log past it copies the
    /// log into the database file before it returns, unless checkpoints are left to the pool.
    const AUTOMATIC_THRESHOLD_PAGES: u64 = 1_000;
    const PAGE_SIZE: u64 = 4_096;

    /// A pool on a new SQLite file holding an empty table `t (v BLOB)`, and one of its
    /// connections.
    fn pool_with_table(file: &std::path::Path) -> (crate::Pool, crate::PooledConnection) {
        let pool = Database::Sqlite(file.to_owned())
            .pool(2, Duration::from_secs(5))
            .expect("pool starts");
        let mut conn = pool.get().expect("connection");
        conn.batch_execute("CREATE TABLE t (v BLOB)")
            .expect("table");
        (pool, conn)
    }

    #[test]
    fn pooled_writes_reach_the_database_file_without_a_commit_checkpointing() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let file = dir.path().join("acs.sqlite3");
        let (pool, mut conn) = pool_with_table(&file);
        let pages = AUTOMATIC_THRESHOLD_PAGES + 200;
        pool.transaction(&mut conn, |conn| {
            conn.batch_execute(&format!(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {pages}) \
                 INSERT INTO t SELECT zeroblob({PAGE_SIZE} - 100) FROM n"
            ))
        })
        .expect("insert");
        let file_pages = || std::fs::metadata(&file).map_or(0, |meta| meta.len() / PAGE_SIZE);
        // The background thread cannot have copied a thousand pages in the moment since the
        // commit returned; a connection checkpointing on commit would have.
        assert!(
            file_pages() < AUTOMATIC_THRESHOLD_PAGES,
            "the commit itself checkpointed ({} pages in the file)",
            file_pages()
        );
        let deadline = Instant::now() + INTERVAL * 100;
        while file_pages() < pages {
            assert!(
                Instant::now() < deadline,
                "the pool's thread copied the log into the file within {:?} ({} pages)",
                INTERVAL * 100,
                file_pages()
            );
            std::thread::sleep(INTERVAL / 2);
        }
    }

    #[test]
    fn the_writer_restarts_a_log_the_thread_let_grow_past_the_bound() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let file = dir.path().join("acs.sqlite3");
        let log = dir.path().join("acs.sqlite3-wal");
        let DbConnection::Sqlite(mut conn) = Database::Sqlite(file).connect().expect("connects")
        else {
            unreachable!("an SQLite database gives an SQLite connection")
        };
        conn.batch_execute(POOLED_PRAGMAS).expect("pragmas");
        conn.batch_execute("CREATE TABLE t (v BLOB)")
            .expect("table");
        let pages = WRITER_RESTARTS_AT_BYTES / PAGE_SIZE + 1_000;
        let write = |conn: &mut diesel::SqliteConnection, pages: u64| {
            conn.batch_execute(&format!(
                "DELETE FROM t; WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 \
                 FROM n WHERE i < {pages}) INSERT INTO t SELECT zeroblob({PAGE_SIZE} - 100) FROM n"
            ))
            .expect("write");
        };
        let log_bytes = || std::fs::metadata(&log).map_or(0, |meta| meta.len());
        write(&mut conn, pages);
        assert!(log_bytes() > WRITER_RESTARTS_AT_BYTES, "no checkpoint ran");
        restart_if_far_too_long(&mut conn, &log);
        // The next write starts the log from its beginning and truncates the file.
        write(&mut conn, 10);
        assert!(
            log_bytes() <= 64 * 1024 * 1024,
            "the log file is still {} bytes",
            log_bytes()
        );
        let timeout: i64 = diesel::sql_query("PRAGMA busy_timeout")
            .get_result::<BusyTimeout>(&mut conn)
            .expect("busy timeout")
            .timeout;
        assert_eq!(timeout, i64::from(BUSY_TIMEOUT_MS));
    }

    #[derive(QueryableByName)]
    struct BusyTimeout {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        timeout: i64,
    }

    #[test]
    fn a_steady_write_load_does_not_grow_the_log_without_bound() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let (pool, mut conn) = pool_with_table(&dir.path().join("acs.sqlite3"));
        let log = dir.path().join("acs.sqlite3-wal");
        // Each commit writes about 100 pages; 500 commits write about 200 MiB of log, six
        // times the restart threshold and three times the size limit of the file.
        let mut largest = 0;
        for _ in 0..500 {
            pool.transaction(&mut conn, |conn| {
                conn.batch_execute(&format!(
                    "DELETE FROM t; WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 \
                     FROM n WHERE i < 100) INSERT INTO t SELECT zeroblob({PAGE_SIZE} - 100) FROM n"
                ))
            })
            .expect("write");
            largest = largest.max(std::fs::metadata(&log).map_or(0, |meta| meta.len()));
            // A server's writes leave the writer lock free now and then; back to back, this
            // thread would take it again before the checkpoint thread woke up.
            std::thread::sleep(Duration::from_millis(1));
        }
        let limit = 100 * 1024 * 1024;
        assert!(
            largest < limit,
            "the log file reached {largest} bytes, past {limit}: it never restarted"
        );
    }
}

//! Group commit of an SQLite pool's write transactions.
//!
//! SQLite admits one writer at a time, so a server used to run its write transactions one
//! after the other, each on the request's own connection, each with its own commit. Issuing a
//! token that way wrote ten pages of log for a one-row insert (the table's last page, the
//! activity record's, their indexes' pages), and the writer's page cache started cold at every
//! transaction, since another connection had committed since it last ran.
//!
//! Instead, every write transaction of the pool runs on one connection of its own, the
//! writer, and the transactions that queue up behind each other share one commit:
//! - a write takes the writer's lock, opens a transaction unless one is open already, and runs
//!   its work in a savepoint of it: work that fails is rolled back alone;
//! - if other writes are waiting for the lock, it hands the open transaction over without
//!   committing and waits for whoever commits it; the last write of the group (none waiting,
//!   or the group full) commits for all of them;
//! - no write returns before its group committed, so what a request answers has been stored;
//!   should the commit fail, every write of the group fails with its error.
//!
//! Pages the group's writes share are written to the log once per group rather than once per
//! write, and the writer's page cache stays warm between groups.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use diesel::connection::{AnsiTransactionManager, SimpleConnection, TransactionManager};
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};

use crate::checkpoint::{self, POOLED_PRAGMAS};
use crate::{Database, DbConnection, StorageError};

/// Writes in one group at most: bounds how long the first of them waits for the commit.
pub const MAX_GROUP: usize = 64;

/// The pool's writer: one connection for every write transaction of the process.
#[derive(Debug)]
pub(crate) struct Writer {
    database: Database,
    /// The SQLite log file, whose size the writer checks after each commit.
    log_file: Option<std::path::PathBuf>,
    state: Mutex<WriterState>,
    /// Writes waiting for the lock: while there are any, the holder leaves the commit to them.
    waiting: AtomicUsize,
    /// Groups committed so far.
    groups: AtomicUsize,
}

#[derive(Debug, Default)]
pub(crate) struct WriterState {
    /// Opened on first use, and again after a failure left it in doubt.
    conn: Option<DbConnection>,
    /// The group whose transaction is open on `conn`, if any.
    group: Option<Arc<Group>>,
}

impl WriterState {
    /// True while a group's transaction is open: its writes have not committed yet.
    pub(crate) fn in_transaction(&self) -> bool {
        self.group.is_some()
    }
}

/// One shared transaction and the writes in it.
#[derive(Debug, Default)]
struct Group {
    writes: AtomicUsize,
    outcome: Mutex<Option<Result<(), CommitFailure>>>,
    committed: Condvar,
}

/// Why a group's commit failed, for each write of the group.
#[derive(Debug, Clone)]
struct CommitFailure {
    kind: Option<DatabaseErrorKind>,
    message: String,
}

impl CommitFailure {
    fn of(error: &DieselError) -> Self {
        let kind = match error {
            DieselError::DatabaseError(kind, _) => Some(*kind),
            _ => None,
        };
        CommitFailure {
            kind,
            message: error.to_string(),
        }
    }

    fn lost() -> Self {
        CommitFailure {
            kind: None,
            message: "the writer's connection was lost".into(),
        }
    }

    fn to_error(&self) -> DieselError {
        DieselError::DatabaseError(
            self.kind.unwrap_or(DatabaseErrorKind::Unknown),
            Box::new(self.message.clone()),
        )
    }
}

impl Group {
    fn finish(&self, outcome: Result<(), CommitFailure>) {
        *self.outcome.lock().unwrap_or_else(PoisonError::into_inner) = Some(outcome);
        self.committed.notify_all();
    }

    fn wait(&self) -> Result<(), CommitFailure> {
        let mut outcome = self.outcome.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(outcome) = outcome.as_ref() {
                return outcome.clone();
            }
            outcome = self
                .committed
                .wait(outcome)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

impl Writer {
    pub(crate) fn new(database: Database) -> Self {
        let log_file = match &database {
            Database::Sqlite(file) => {
                let mut log = file.clone().into_os_string();
                log.push("-wal");
                Some(log.into())
            }
            Database::Postgres(_) => None,
        };
        Writer {
            database,
            log_file,
            state: Mutex::default(),
            waiting: AtomicUsize::new(0),
            groups: AtomicUsize::new(0),
        }
    }

    /// The writer's lock, for work that must not overlap a write (a log restart).
    pub(crate) fn lock(&self) -> MutexGuard<'_, WriterState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `work` in a savepoint of the current group's transaction and returns once the
    /// group committed: all of `work` is stored, or none of it.
    pub(crate) fn write<T, E>(
        &self,
        work: impl FnOnce(&mut DbConnection) -> Result<T, E>,
    ) -> Result<T, E>
    where
        E: From<DieselError>,
    {
        self.waiting.fetch_add(1, Ordering::AcqRel);
        let state = self.lock();
        self.waiting.fetch_sub(1, Ordering::AcqRel);
        let mut turn = Turn { state };
        let group = turn.join(&self.database)?;
        let outcome = turn.conn()?.transaction(work);
        let writes = group.writes.fetch_add(1, Ordering::AcqRel) + 1;
        if self.waiting.load(Ordering::Acquire) == 0 || writes >= MAX_GROUP {
            turn.commit(&group);
            self.groups.fetch_add(1, Ordering::Relaxed);
            if let (Some(log), Some(DbConnection::Sqlite(conn))) =
                (&self.log_file, turn.state.conn.as_mut())
            {
                checkpoint::restart_if_far_too_long(conn, log);
            }
        }
        drop(turn);
        // Work that failed was rolled back alone: its error stands whatever the group does.
        let value = outcome?;
        group.wait().map_err(|failure| failure.to_error())?;
        Ok(value)
    }
}

/// A write's hold on the writer. Dropped while unwinding from a panic in the work, it rolls
/// the group back (its other writes fail) rather than leave a savepoint open.
struct Turn<'a> {
    state: MutexGuard<'a, WriterState>,
}

impl Turn<'_> {
    /// The open group, opening the writer's connection and a transaction first if need be.
    fn join(&mut self, database: &Database) -> Result<Arc<Group>, DieselError> {
        if let Some(group) = &self.state.group {
            return Ok(group.clone());
        }
        let inner = match &mut self.state.conn {
            Some(conn) => conn,
            None => self.state.conn.insert(connect(database)?),
        };
        let begun = match inner {
            // IMMEDIATE: take the database's write lock now (waiting for another process's
            // writer if need be) rather than fail when the first write finds it taken.
            DbConnection::Sqlite(inner) => {
                AnsiTransactionManager::begin_transaction_sql(inner, "BEGIN IMMEDIATE")
            }
            DbConnection::Postgres(inner) => AnsiTransactionManager::begin_transaction(inner),
        };
        if let Err(error) = begun {
            self.state.conn = None;
            return Err(error);
        }
        Ok(self.state.group.insert(Arc::default()).clone())
    }

    fn conn(&mut self) -> Result<&mut DbConnection, DieselError> {
        self.state
            .conn
            .as_mut()
            .ok_or_else(|| CommitFailure::lost().to_error())
    }

    /// Commits the group's transaction and tells its writes how that went.
    fn commit(&mut self, group: &Group) {
        let outcome = match self.state.conn.as_mut() {
            Some(conn) => crate::with_backend!(conn, |inner| {
                AnsiTransactionManager::commit_transaction(inner)
            })
            .map_err(|error| CommitFailure::of(&error)),
            None => Err(CommitFailure::lost()),
        };
        if outcome.is_err() {
            // The transaction may be left open or half-ended: start afresh.
            self.state.conn = None;
        }
        self.state.group = None;
        group.finish(outcome);
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            return;
        }
        if let Some(group) = self.state.group.take() {
            // Dropping the connection rolls its transaction back.
            self.state.conn = None;
            group.finish(Err(CommitFailure {
                kind: None,
                message: "a write of the same group failed unexpectedly".into(),
            }));
        }
    }
}

fn connect(database: &Database) -> Result<DbConnection, DieselError> {
    let failed = |error: StorageError| CommitFailure {
        kind: Some(DatabaseErrorKind::ClosedConnection),
        message: error.to_string(),
    };
    let mut conn = database
        .connect()
        .map_err(|error| failed(error).to_error())?;
    if database.is_sqlite() {
        conn.batch_execute(POOLED_PRAGMAS)?;
    }
    if cfg!(debug_assertions) {
        conn.set_instrumentation(crate::local_changes::KeptWriteCheck);
    }
    Ok(conn)
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use diesel::sql_types::BigInt;

    use super::*;

    /// One write of a test, boxed so that different closures run in one group.
    type Work = Box<dyn FnOnce(&mut DbConnection) -> Result<(), DieselError> + Send>;

    /// A writer on a new SQLite file holding `t (v INTEGER)` and `child (parent INTEGER
    /// REFERENCES t (v) DEFERRABLE INITIALLY DEFERRED)`: a child without its parent fails
    /// only at the commit.
    fn writer_with_tables(dir: &tempfile::TempDir) -> Arc<Writer> {
        let database = Database::Sqlite(dir.path().join("acs.sqlite3"));
        database
            .connect()
            .expect("connection")
            .batch_execute(
                "CREATE TABLE t (v INTEGER PRIMARY KEY); CREATE TABLE child (parent INTEGER \
                 REFERENCES t (v) DEFERRABLE INITIALLY DEFERRED)",
            )
            .expect("tables");
        Arc::new(Writer::new(database))
    }

    fn insert(conn: &mut DbConnection, table: &str, v: i64) -> Result<(), DieselError> {
        let column = if table == "t" { "v" } else { "parent" };
        conn.batch_execute(&format!("INSERT INTO {table} ({column}) VALUES ({v})"))
    }

    fn stored(writer: &Writer, table: &str) -> i64 {
        #[derive(QueryableByName)]
        struct Count {
            #[diesel(sql_type = BigInt)]
            n: i64,
        }
        let mut conn = writer.database.connect().expect("connection");
        diesel::sql_query(format!("SELECT count(*) AS n FROM {table}"))
            .get_result::<Count>(&mut conn)
            .expect("count")
            .n
    }

    /// Starts one thread per write while the test holds the writer's lock, and lets them
    /// go once all of them queue for it: they run as one group.
    fn run_as_one_group<W>(writer: &Arc<Writer>, writes: Vec<W>) -> Vec<Result<(), DieselError>>
    where
        W: FnOnce(&mut DbConnection) -> Result<(), DieselError> + Send + 'static,
    {
        let count = writes.len();
        let held = writer.lock();
        let threads: Vec<_> = writes
            .into_iter()
            .map(|work| {
                let writer = writer.clone();
                std::thread::spawn(move || writer.write(work))
            })
            .collect();
        let deadline = Instant::now() + Duration::from_secs(10);
        while writer.waiting.load(Ordering::Acquire) < count {
            assert!(Instant::now() < deadline, "the writes queue for the lock");
            std::thread::sleep(Duration::from_millis(1));
        }
        drop(held);
        threads
            .into_iter()
            .map(|thread| thread.join().unwrap_or_else(|_| Err(DieselError::NotFound)))
            .collect()
    }

    #[test]
    fn writes_that_queue_up_share_one_commit() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let writer = writer_with_tables(&dir);
        let writes = (1..=6)
            .map(|v| move |conn: &mut DbConnection| insert(conn, "t", v))
            .collect();
        let outcomes = run_as_one_group(&writer, writes);
        assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}");
        assert_eq!(stored(&writer, "t"), 6);
        assert_eq!(
            writer.groups.load(Ordering::Relaxed),
            1,
            "one commit for six writes"
        );
    }

    #[test]
    fn a_failing_write_is_rolled_back_alone() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let writer = writer_with_tables(&dir);
        let writes = (1..=4)
            .map(|v| {
                move |conn: &mut DbConnection| {
                    insert(conn, "t", v)?;
                    // The third inserts a row, then fails: its row must go, the others' stay.
                    if v == 3 {
                        return Err(DieselError::RollbackTransaction);
                    }
                    Ok(())
                }
            })
            .collect();
        let outcomes = run_as_one_group(&writer, writes);
        let failed: Vec<_> = outcomes.iter().map(Result::is_err).collect();
        assert_eq!(failed, [false, false, true, false]);
        assert_eq!(stored(&writer, "t"), 3);
        assert_eq!(writer.groups.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn a_failed_commit_fails_every_write_of_its_group_and_the_next_write_succeeds() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let writer = writer_with_tables(&dir);
        let writes: Vec<Work> = vec![
            Box::new(|conn: &mut DbConnection| insert(conn, "t", 1)),
            // A child of no parent: its savepoint is released, the commit refuses it.
            Box::new(|conn: &mut DbConnection| insert(conn, "child", 99)),
        ];
        let outcomes = run_as_one_group(&writer, writes);
        assert!(
            outcomes.iter().all(|outcome| outcome
                .as_ref()
                .is_err_and(|error| error.to_string().contains("FOREIGN KEY"))),
            "each write reports the commit's error: {outcomes:?}"
        );
        assert_eq!(stored(&writer, "t"), 0);
        assert_eq!(stored(&writer, "child"), 0);
        writer
            .write(|conn| insert(conn, "t", 2))
            .expect("next write");
        assert_eq!(stored(&writer, "t"), 1);
    }

    #[test]
    fn a_write_that_panics_leaves_nothing_behind_and_blocks_no_one() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let writer = writer_with_tables(&dir);
        let writes: Vec<Work> = vec![
            Box::new(|conn: &mut DbConnection| insert(conn, "t", 1)),
            Box::new(|conn: &mut DbConnection| {
                insert(conn, "t", 2)?;
                panic!("a bug in the work");
            }),
        ];
        let outcomes = run_as_one_group(&writer, writes);
        assert!(outcomes[1].is_err(), "the panicking write fails");
        // Whether the first write shared the panicking one's group depends on which ran
        // first; the panicking one's row is never stored.
        let expected = if outcomes[0].is_ok() { 1 } else { 0 };
        assert_eq!(stored(&writer, "t"), expected);
        writer
            .write(|conn| insert(conn, "t", 3))
            .expect("next write");
        assert_eq!(stored(&writer, "t"), expected + 1);
    }
}

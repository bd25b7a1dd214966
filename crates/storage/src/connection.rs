use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use diesel::connection::SimpleConnection;
use diesel::prelude::*;

use crate::checkpoint::{Checkpointer, POOLED_PRAGMAS};
use crate::group_commit::Writer;
use crate::local_changes::WriteWatch;
use crate::{StorageError, StorageResult};

/// A connection to either backend. Queries written once against the shared schema run on both.
#[derive(diesel::MultiConnection)]
pub enum DbConnection {
    /// PostgreSQL, selected by a `postgres://` or `postgresql://` URL.
    Postgres(diesel::PgConnection),
    /// Embedded SQLite, the default.
    Sqlite(diesel::SqliteConnection),
}

impl std::fmt::Debug for DbConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            DbConnection::Postgres(_) => "DbConnection::Postgres",
            DbConnection::Sqlite(_) => "DbConnection::Sqlite",
        })
    }
}

impl DbConnection {
    /// Whether a cached statement keeps its plan whatever values are bound to it: on SQLite,
    /// whether the library was built with `SQLITE_ENABLE_QPSG` (this workspace's
    /// `.cargo/config.toml` sets it). Without it, once the database has statistics (ANALYZE,
    /// `PRAGMA optimize`), SQLite recompiles a statement each time a value compared with an
    /// indexed column changes, several times the cost of the lookup itself. PostgreSQL
    /// chooses generic plans by its own rules: always true there.
    pub fn plans_are_stable(&mut self) -> StorageResult<bool> {
        match self {
            DbConnection::Postgres(_) => Ok(true),
            DbConnection::Sqlite(conn) => {
                Ok(diesel::select(diesel::dsl::sql::<diesel::sql_types::Bool>(
                    "sqlite_compileoption_used('ENABLE_QPSG')",
                ))
                .get_result(conn)?)
            }
        }
    }
}

/// Runs the same diesel code on the concrete connection of either backend.
///
/// `MultiConnection` serialises a query's SQL again on every execution, even when the
/// prepared statement is cached; on the per-request authentication path that costs more than
/// the query. The body here is written once and compiled for each backend, so it gets the
/// backend's own statement cache. Use it for hot, static queries; everything else goes through
/// [`DbConnection`] directly.
#[macro_export]
macro_rules! with_backend {
    ($conn:expr, |$inner:ident| $body:expr) => {
        match $conn {
            $crate::DbConnection::Sqlite($inner) => $body,
            $crate::DbConnection::Postgres($inner) => $body,
        }
    };
}

/// [`with_backend!`] for a lookup on a hot path of the API whose statements are all
/// `SELECT`s: the connection's watch takes them for reads without building their text (see
/// [`crate::local_changes::reading`]).
macro_rules! lookup {
    ($conn:expr, |$inner:ident| $body:expr) => {
        $crate::local_changes::reading(|| $crate::with_backend!($conn, |$inner| $body))
    };
}
pub(crate) use lookup;

/// The diesel backend type generated for [`DbConnection`].
pub type Backend = <DbConnection as Connection>::Backend;

/// Which database a deployment uses.
#[derive(Clone, PartialEq, Eq)]
pub enum Database {
    /// A PostgreSQL connection URL.
    Postgres(String),
    /// The path of an SQLite database file.
    Sqlite(PathBuf),
}

impl std::fmt::Debug for Database {
    // The URL may carry a password: show only the backend and, for SQLite, the file.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Database::Postgres(_) => f.write_str("Database::Postgres"),
            Database::Sqlite(path) => write!(f, "Database::Sqlite({})", path.display()),
        }
    }
}

impl Database {
    /// Reads `ACS_DATABASE_URL`'s value: `postgres://…` selects PostgreSQL, `sqlite://path`
    /// or a plain path selects SQLite; `None` means the embedded default in `data_dir`.
    pub fn from_url(url: Option<&str>, data_dir: &Path) -> Self {
        match url.map(str::trim).filter(|url| !url.is_empty()) {
            Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
                Database::Postgres(url.to_owned())
            }
            Some(url) => {
                Database::Sqlite(PathBuf::from(url.strip_prefix("sqlite://").unwrap_or(url)))
            }
            None => Database::Sqlite(data_dir.join("acs.sqlite3")),
        }
    }

    /// True for the embedded SQLite backend.
    pub fn is_sqlite(&self) -> bool {
        matches!(self, Database::Sqlite(_))
    }

    /// Opens one connection (for management commands and migrations).
    pub fn connect(&self) -> StorageResult<DbConnection> {
        match self {
            Database::Postgres(url) => diesel::PgConnection::establish(url)
                .map(DbConnection::Postgres)
                .map_err(|error| StorageError::Unavailable(error.to_string())),
            Database::Sqlite(path) => {
                let path = path.to_str().ok_or_else(|| {
                    StorageError::Unavailable("the SQLite path is not valid UTF-8".into())
                })?;
                let mut conn = diesel::SqliteConnection::establish(path)
                    .map_err(|error| StorageError::Unavailable(error.to_string()))?;
                // The busy timeout comes first: switching to WAL takes a lock, and without it a
                // connection opened while another writes (the pool topping up during
                // migrations, a management command beside a busy server) failed at once with
                // "database is locked". WAL lets readers run beside the writer; NORMAL sync is
                // durable in WAL mode except for the last commits on power loss; LIKE is
                // case-sensitive as on PostgreSQL so filters behave the same on both backends.
                conn.batch_execute(&format!(
                    "PRAGMA busy_timeout = {}; PRAGMA journal_mode = WAL; \
                     PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; \
                     PRAGMA case_sensitive_like = ON;",
                    crate::checkpoint::BUSY_TIMEOUT_MS
                ))?;
                Ok(DbConnection::Sqlite(conn))
            }
        }
    }

    /// Builds the connection pool. Checkout fails after `timeout` with
    /// [`StorageError::Unavailable`], so requests fail fast while the database is down.
    pub fn pool(&self, max_size: u32, timeout: Duration) -> StorageResult<Pool> {
        let local_commits = Arc::<AtomicU64>::default();
        let inner = r2d2::Pool::builder()
            .max_size(max_size)
            .min_idle(Some(1))
            .connection_timeout(timeout)
            // Testing every checkout cost a round trip per request (on a bearer-authenticated
            // read, a third of its time); pooled connections are tested only while they are
            // suspect (see `connections_suspect`).
            .test_on_check_out(false)
            .build(Manager {
                database: self.clone(),
                local_changes: local_commits.clone(),
            })?;
        let sqlite_writer = self
            .is_sqlite()
            .then(|| Arc::new(Writer::new(self.clone())));
        let checkpointer = match &sqlite_writer {
            Some(writer) => Some(Arc::new(
                Checkpointer::start(self, writer.clone()).map_err(|error| {
                    StorageError::Unavailable(format!(
                        "cannot start the checkpoint thread: {error}"
                    ))
                })?,
            )),
            None => None,
        };
        Ok(Pool {
            inner,
            sqlite_writer,
            local_commits,
            _checkpointer: checkpointer,
        })
    }
}

/// When a connection last failed at the connection level (closed, unreachable), in seconds
/// since the epoch; 0 for never.
static LAST_CONNECTION_FAILURE: AtomicU64 = AtomicU64::new(0);

/// How long after a connection-level failure pooled connections stay suspect.
const SUSPECT_FOR_SECONDS: u64 = 60;

fn epoch_seconds() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

/// Records a connection-level failure: the database server went away (and may be back), so
/// every pooled connection may be dead.
pub(crate) fn note_connection_failure() {
    LAST_CONNECTION_FAILURE.store(epoch_seconds(), Ordering::Relaxed);
}

/// True for a while after a connection-level failure: then each connection is tested before it
/// is handed out and when it comes back, and dropped if dead. A restarted PostgreSQL server
/// thus costs at most the one request that found out, instead of a round trip on every
/// checkout for ever.
fn connections_suspect() -> bool {
    let last = LAST_CONNECTION_FAILURE.load(Ordering::Relaxed);
    last != 0 && epoch_seconds().saturating_sub(last) <= SUSPECT_FOR_SECONDS
}

/// Opens connections for the pool. On SQLite they never checkpoint the log: the pool's own
/// thread does (see [`crate::checkpoint`]). Each watches its own writes for the change feed
/// (see [`crate::local_changes`]).
pub struct Manager {
    database: Database,
    local_changes: Arc<AtomicU64>,
}

impl r2d2::ManageConnection for Manager {
    type Connection = DbConnection;
    type Error = StorageError;

    fn connect(&self) -> Result<DbConnection, StorageError> {
        let mut conn = self.database.connect()?;
        if self.database.is_sqlite() {
            conn.batch_execute(POOLED_PRAGMAS)?;
        }
        conn.set_instrumentation(WriteWatch::new(self.local_changes.clone()));
        Ok(conn)
    }

    fn is_valid(&self, conn: &mut DbConnection) -> Result<(), StorageError> {
        conn.batch_execute("SELECT 1").map_err(StorageError::from)
    }

    fn has_broken(&self, conn: &mut DbConnection) -> bool {
        use diesel::connection::TransactionManager;
        match conn {
            DbConnection::Postgres(inner) => {
                diesel::connection::AnsiTransactionManager::is_broken_transaction_manager(inner)
                    || (connections_suspect() && inner.batch_execute("SELECT 1").is_err())
            }
            DbConnection::Sqlite(inner) => {
                diesel::connection::AnsiTransactionManager::is_broken_transaction_manager(inner)
            }
        }
    }
}

/// A pooled connection.
pub type PooledConnection = r2d2::PooledConnection<Manager>;

/// The connection pool of one server process.
#[derive(Clone)]
pub struct Pool {
    inner: r2d2::Pool<Manager>,
    /// SQLite admits one writer at a time: this process's write transactions run on one
    /// connection, those that queue up sharing a commit (see [`crate::group_commit`]).
    sqlite_writer: Option<Arc<Writer>>,
    /// Local changes so far (write transactions ended, committed or not, and writes made
    /// outside one): the change feed distrusts counters read before the latest of them.
    local_commits: Arc<AtomicU64>,
    /// SQLite: checkpoints the log while any clone of the pool lives.
    _checkpointer: Option<Arc<Checkpointer>>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("state", &self.inner.state())
            .finish()
    }
}

impl Pool {
    /// Connections open and idle, for monitoring.
    pub fn state(&self) -> r2d2::State {
        self.inner.state()
    }

    /// Checks out a connection for reads (or a single-statement write).
    pub fn get(&self) -> StorageResult<PooledConnection> {
        self.live(|| self.inner.get())
    }

    /// An idle connection at once, or `None`: the pool has none idle, or connections are
    /// suspect (one would have to be tested first).
    pub fn try_get_idle(&self) -> Option<PooledConnection> {
        if self.sqlite_writer.is_none() && connections_suspect() {
            return None;
        }
        self.inner.try_get()
    }

    /// A connection from `checkout`; while connections are suspect (PostgreSQL only), one
    /// that answers, dead ones being dropped (by `has_broken`) until the pool opens a new one.
    fn live(
        &self,
        checkout: impl Fn() -> Result<PooledConnection, r2d2::Error>,
    ) -> StorageResult<PooledConnection> {
        let attempts = self.inner.max_size() + 1;
        for _ in 0..attempts {
            let mut conn = checkout()?;
            if self.sqlite_writer.is_some() || !connections_suspect() {
                return Ok(conn);
            }
            if conn.batch_execute("SELECT 1").is_ok() {
                return Ok(conn);
            }
        }
        Err(StorageError::Unavailable(
            "no pooled connection answers".into(),
        ))
    }

    /// Like [`Pool::get`], waiting at most `timeout` instead of the pool's own timeout (a
    /// request that already waited part of its budget elsewhere). An idle connection is
    /// handed out whatever the timeout.
    pub fn get_within(&self, timeout: Duration) -> StorageResult<PooledConnection> {
        self.live(|| self.inner.get_timeout(timeout))
    }

    /// Runs `work` in one write transaction: all of it commits, or none of it.
    pub fn write<T, E>(&self, work: impl FnOnce(&mut DbConnection) -> Result<T, E>) -> Result<T, E>
    where
        E: From<StorageError> + From<diesel::result::Error>,
    {
        let mut conn = self.get()?;
        self.transaction(&mut conn, work)
    }

    /// Runs `work` in one write transaction: all of it commits, or none of it. On PostgreSQL
    /// it runs on `conn`, a connection the caller already holds; on SQLite on the pool's
    /// writer, in a group of writes sharing one commit, and returns once that commit is done.
    pub fn transaction<T, E>(
        &self,
        conn: &mut DbConnection,
        work: impl FnOnce(&mut DbConnection) -> Result<T, E>,
    ) -> Result<T, E>
    where
        E: From<diesel::result::Error>,
    {
        let outcome = match &self.sqlite_writer {
            Some(writer) => writer.write(work),
            None => conn.transaction(work),
        };
        self.local_commits.fetch_add(1, Ordering::AcqRel);
        outcome
    }

    /// Runs `work`, whose change on PostgreSQL is one statement (atomic by itself, as
    /// [`crate::issued_tokens::insert`] is): there it runs on `conn` in the statement's own
    /// transaction, sparing the round trips of `BEGIN` and `COMMIT`; on SQLite it runs as
    /// [`Pool::transaction`] runs it. Reads before the statement see no snapshot of their own.
    pub fn single_statement_write<T, E>(
        &self,
        conn: &mut DbConnection,
        work: impl FnOnce(&mut DbConnection) -> Result<T, E>,
    ) -> Result<T, E>
    where
        E: From<diesel::result::Error>,
    {
        let outcome = match &self.sqlite_writer {
            Some(writer) => writer.write(work),
            None => work(conn),
        };
        // (On PostgreSQL the connection's own watch counted the statement too.)
        if !crate::local_changes::counters_kept() {
            self.local_commits.fetch_add(1, Ordering::AcqRel);
        }
        outcome
    }

    /// The count of write transactions this pool has run, shared with the change feed.
    pub(crate) fn local_commits(&self) -> Arc<AtomicU64> {
        self.local_commits.clone()
    }
}

impl std::fmt::Debug for Manager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Manager").field(&self.database).finish()
    }
}

#[cfg(test)]
mod tests {
    use diesel::connection::SimpleConnection;

    /// The build keeps plans stable: a lookup by a token's digest is not recompiled for each
    /// digest once the database has statistics (see [`super::DbConnection::plans_are_stable`]).
    #[test]
    fn sqlite_keeps_a_statement_s_plan_whatever_is_bound() {
        let mut conn = crate::test_support::seeded();
        conn.batch_execute("ANALYZE").expect("statistics");
        assert!(conn.plans_are_stable().expect("the compile options"));
    }
}

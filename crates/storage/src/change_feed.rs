//! The change counters, known to a server without a database read on the request path.
//!
//! A background thread reads the [`Revisions`] row every [`POLL_INTERVAL`] on a connection of
//! its own and publishes what it read. A request takes the published counters when they can
//! still be trusted (see [`ChangeFeed::fresh`]); otherwise it reads them itself, and publishes
//! them for the requests after it.
//!
//! The consistency contract (`docs/architecture.md`):
//! - a change this process commits is honoured by every request that starts after the commit:
//!   counters read before a local commit are never trusted after it;
//! - a change made anywhere else (another server, a management command, SQL) is honoured by
//!   every request that starts more than [`MAX_AGE`] after it was committed, plus the time one
//!   read of the counters takes: counters are trusted only while the read that produced them
//!   started less than [`MAX_AGE`] ago. [`MAX_AGE`] is half the promised 100 ms;
//! - while the feed is broken (its connection lost, a read failing), every request reads the
//!   counters itself, until a poll succeeds again.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use crate::revisions::{self, Revisions};
use crate::{Database, DbConnection, Pool, StorageResult};

/// How often the feed reads the counters.
pub const POLL_INTERVAL: Duration = Duration::from_millis(10);

/// How long after the start of their read published counters are trusted.
pub const MAX_AGE: Duration = Duration::from_millis(50);

/// How long the feed waits before it reconnects after a failure.
const RECONNECT_AFTER: Duration = Duration::from_secs(1);

/// The name the feed's PostgreSQL session carries in `pg_stat_activity`.
pub const APPLICATION_NAME: &str = "acs-change-feed";

/// Counters, when their read started, and how many local commits had happened by then.
#[derive(Debug, Clone, Copy)]
struct Snapshot {
    revisions: Revisions,
    read_started: Instant,
    local_commits: u64,
}

#[derive(Debug)]
struct Shared {
    latest: Mutex<Option<Snapshot>>,
    /// False while the background reads fail: then nothing published is trusted.
    healthy: AtomicBool,
    /// The pool's count of local changes (see [`crate::local_changes`]).
    local_commits: Arc<AtomicU64>,
}

/// The process's view of the change counters. Cheap to clone; the background thread stops
/// when the last clone is dropped.
#[derive(Debug, Clone)]
pub struct ChangeFeed {
    shared: Arc<Shared>,
}

impl ChangeFeed {
    /// A feed for `pool`'s database, with no background reads: every request reads the
    /// counters itself until [`ChangeFeed::start`] is used instead.
    pub fn without_polling(pool: &Pool) -> Self {
        ChangeFeed {
            shared: Arc::new(Shared {
                latest: Mutex::new(None),
                healthy: AtomicBool::new(false),
                local_commits: pool.local_commits(),
            }),
        }
    }

    /// A feed whose counters a background thread reads every [`POLL_INTERVAL`] from
    /// `database`, on a connection of its own.
    pub fn start(database: &Database, pool: &Pool) -> std::io::Result<Self> {
        let feed = Self::without_polling(pool);
        let shared = Arc::downgrade(&feed.shared);
        let database = database.clone();
        std::thread::Builder::new()
            .name("change-feed".into())
            .spawn(move || poll(&database, &shared))?;
        Ok(feed)
    }

    /// The counters, if those published can be trusted for a request starting now: the feed
    /// is healthy, their read started less than [`MAX_AGE`] ago, and this process committed
    /// nothing since.
    pub fn fresh(&self) -> Option<Revisions> {
        if !self.shared.healthy.load(Ordering::Acquire) {
            return None;
        }
        let snapshot = (*self
            .shared
            .latest
            .lock()
            .unwrap_or_else(PoisonError::into_inner))?;
        let trusted = snapshot.local_commits == self.shared.local_commits.load(Ordering::Acquire)
            && snapshot.read_started.elapsed() < MAX_AGE;
        trusted.then_some(snapshot.revisions)
    }

    /// Reads the counters on `conn` and publishes them.
    pub fn read(&self, conn: &mut DbConnection) -> StorageResult<Revisions> {
        read_and_publish(&self.shared, conn)
    }

    /// Whether the background reads currently succeed.
    pub fn is_healthy(&self) -> bool {
        self.shared.healthy.load(Ordering::Acquire)
    }
}

fn read_and_publish(shared: &Shared, conn: &mut DbConnection) -> StorageResult<Revisions> {
    // The commit count is taken before the read: a commit that lands during the read may or
    // may not be in what it returns, so the result must not count as newer than that commit.
    let local_commits = shared.local_commits.load(Ordering::Acquire);
    let read_started = Instant::now();
    let revisions = revisions::current(conn)?;
    let mut latest = shared.latest.lock().unwrap_or_else(PoisonError::into_inner);
    let newer = latest.is_none_or(|known| {
        (known.local_commits, known.read_started) < (local_commits, read_started)
    });
    if newer {
        *latest = Some(Snapshot {
            revisions,
            read_started,
            local_commits,
        });
    }
    Ok(revisions)
}

/// The background thread: reads the counters every [`POLL_INTERVAL`] while the feed is in
/// use; after a failure, marks the feed unhealthy and reconnects after [`RECONNECT_AFTER`].
fn poll(database: &Database, shared: &Weak<Shared>) {
    let mut conn: Option<DbConnection> = None;
    loop {
        let Some(feed) = shared.upgrade() else {
            return;
        };
        let outcome = match conn.as_mut() {
            Some(open) => read_and_publish(&feed, open).map(|_| ()),
            None => connect(database).and_then(|mut open| {
                read_and_publish(&feed, &mut open)?;
                conn = Some(open);
                Ok(())
            }),
        };
        let pause = match outcome {
            Ok(()) => {
                if !feed.healthy.swap(true, Ordering::AcqRel) {
                    tracing::info!(
                        "change feed up: cached principals and settings are checked against counters read every {POLL_INTERVAL:?}"
                    );
                }
                POLL_INTERVAL
            }
            Err(error) => {
                conn = None;
                if feed.healthy.swap(false, Ordering::AcqRel) {
                    tracing::warn!(%error, "change feed lost: every request reads the change counters until it is back");
                }
                RECONNECT_AFTER
            }
        };
        drop(feed);
        std::thread::sleep(pause);
    }
}

fn connect(database: &Database) -> StorageResult<DbConnection> {
    use diesel::connection::SimpleConnection;
    let mut conn = database.connect()?;
    if let DbConnection::Postgres(_) = conn {
        conn.batch_execute(&format!("SET application_name = '{APPLICATION_NAME}'"))?;
    }
    Ok(conn)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A migrated SQLite database in a file (a pool of `:memory:` would give each connection
    /// a database of its own).
    fn pool() -> (tempfile::TempDir, Database, Pool) {
        let dir = tempfile::tempdir().expect("a scratch directory");
        let database = Database::Sqlite(dir.path().join("feed.sqlite3"));
        let pool = database.pool(2, Duration::from_secs(5)).expect("a pool");
        crate::run_migrations(&mut pool.get().expect("a connection")).expect("migrations");
        (dir, database, pool)
    }

    fn wait_until_healthy(feed: &ChangeFeed) {
        let deadline = Instant::now() + Duration::from_secs(5);
        while feed.fresh().is_none() {
            assert!(Instant::now() < deadline, "the feed never came up");
            std::thread::sleep(POLL_INTERVAL);
        }
    }

    #[test]
    fn nothing_is_trusted_before_a_read_or_while_unhealthy() {
        let (_dir, _database, pool) = pool();
        let feed = ChangeFeed::without_polling(&pool);
        assert_eq!(feed.fresh(), None);
        let read = feed
            .read(&mut pool.get().expect("a connection"))
            .expect("a read");
        assert_eq!(feed.fresh(), None, "an unhealthy feed trusts nothing");
        feed.shared.healthy.store(true, Ordering::Release);
        assert_eq!(feed.fresh(), Some(read));
    }

    #[test]
    fn published_counters_expire() {
        let (_dir, _database, pool) = pool();
        let feed = ChangeFeed::without_polling(&pool);
        feed.shared.healthy.store(true, Ordering::Release);
        feed.read(&mut pool.get().expect("a connection"))
            .expect("a read");
        assert!(feed.fresh().is_some());
        if let Some(snapshot) = feed.shared.latest.lock().expect("the lock").as_mut() {
            snapshot.read_started -= MAX_AGE;
        }
        assert_eq!(feed.fresh(), None);
    }

    #[test]
    fn polled_counters_follow_changes_from_elsewhere() {
        let (_dir, database, pool) = pool();
        let feed = ChangeFeed::start(&database, &pool).expect("a feed");
        wait_until_healthy(&feed);
        let before = feed.fresh().expect("counters once the feed is up");
        // Another process's write: not through this pool, so nothing local is noted.
        let mut elsewhere = database.connect().expect("a connection");
        diesel::connection::SimpleConnection::batch_execute(
            &mut elsewhere,
            "UPDATE revisions SET users = users + 1",
        )
        .expect("a bump");
        let changed_at = Instant::now();
        while feed.fresh().map(|revisions| revisions.users) != Some(before.users + 1) {
            assert!(changed_at.elapsed() < Duration::from_secs(2), "never seen");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn a_local_commit_distrusts_what_was_read_before_it() {
        let (_dir, database, pool) = pool();
        let feed = ChangeFeed::without_polling(&pool);
        feed.shared.healthy.store(true, Ordering::Release);
        feed.read(&mut database.connect().expect("a connection"))
            .expect("a read");
        assert!(feed.fresh().is_some());
        pool.write(|conn| {
            diesel::connection::SimpleConnection::batch_execute(
                conn,
                "UPDATE revisions SET tokens = tokens + 1",
            )?;
            Ok::<_, crate::StorageError>(())
        })
        .expect("a write");
        assert_eq!(feed.fresh(), None, "read before the commit");
        let read = feed
            .read(&mut pool.get().expect("a connection"))
            .expect("a read");
        assert_eq!(feed.fresh(), Some(read));
        // A write outside a transaction, on a pooled connection: its watch counts it.
        diesel::connection::SimpleConnection::batch_execute(
            &mut pool.get().expect("a connection"),
            "UPDATE revisions SET tokens = tokens + 1",
        )
        .expect("a write");
        assert_eq!(feed.fresh(), None, "read before the write");
    }

    #[test]
    fn a_write_keeping_counters_leaves_the_reading_trusted() {
        let (_dir, _database, pool) = pool();
        let feed = ChangeFeed::without_polling(&pool);
        feed.shared.healthy.store(true, Ordering::Release);
        let read = feed
            .read(&mut pool.get().expect("a connection"))
            .expect("a read");
        let entry = "INSERT INTO activity_stream (timestamp, operation, object1, object1_id, \
                     changes, summary) VALUES ('2024-01-01 00:00:00', 'create', 'user', 1, '{}', '{}')";
        let mut conn = pool.get().expect("a connection");
        crate::local_changes::keeping_counters(&[], || {
            pool.single_statement_write(&mut conn, |c| {
                diesel::connection::SimpleConnection::batch_execute(c, entry)
            })
        })
        .expect("an entry");
        assert_eq!(feed.fresh(), Some(read));
        pool.single_statement_write(&mut conn, |c| {
            diesel::connection::SimpleConnection::batch_execute(c, entry)
        })
        .expect("another entry");
        assert_eq!(feed.fresh(), None, "counted without keeping_counters");
    }

    #[test]
    fn a_write_keeping_counters_may_change_only_the_counted_tables_it_declares() {
        use crate::counted::CountedTable;
        use crate::local_changes::keeping_counters;
        use diesel::connection::SimpleConnection;

        let (_dir, _database, pool) = pool();
        let mut conn = pool.get().expect("a connection");
        let deactivate = "UPDATE users SET is_active = is_active WHERE id = 0";
        let mut write = |honoured: &[CountedTable]| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                keeping_counters(honoured, || {
                    pool.single_statement_write(&mut conn, |c| c.batch_execute(deactivate))
                })
            }))
        };
        // Undeclared: the test that makes such a write fails (debug builds check).
        assert_eq!(write(&[]).is_err(), cfg!(debug_assertions));
        assert_eq!(
            write(&[CountedTable::Sessions]).is_err(),
            cfg!(debug_assertions)
        );
        write(&[CountedTable::Users])
            .expect("declared")
            .expect("written");
        // The check ended with the write: a later undeclared write is its own.
        assert_eq!(write(&[]).is_err(), cfg!(debug_assertions));
    }

    #[test]
    fn the_thread_stops_with_the_last_clone() {
        let (_dir, database, pool) = pool();
        let feed = ChangeFeed::start(&database, &pool).expect("a feed");
        wait_until_healthy(&feed);
        let shared = Arc::downgrade(&feed.shared);
        drop(feed);
        let deadline = Instant::now() + Duration::from_secs(2);
        // The thread holds a strong reference only while it reads.
        while shared.upgrade().is_some() {
            assert!(
                Instant::now() < deadline,
                "the feed outlived its last clone"
            );
            std::thread::sleep(POLL_INTERVAL);
        }
    }
}

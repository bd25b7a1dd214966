//! Which of this process's writes the change feed must hear of.
//!
//! The feed trusts counters read before none of this process's changes (see
//! [`crate::change_feed`]), so every write that may move a counter is counted once it is
//! durable: [`crate::Pool::transaction`] counts its transaction after the commit, and every
//! pooled connection watches its own statements ([`WriteWatch`]) and counts a write made
//! outside a transaction once it returns. A request therefore needs no rule of its own: a
//! write that bypasses both is impossible on a pooled connection.
//!
//! Writes that add only rows no counter counts (a new access token, its refresh token,
//! activity entries) run under [`keeping_counters`]: they leave the feed's reading trusted, so
//! that issuing tokens does not make every request after it read the counters itself. So may
//! a write whose counted changes its caller honours by other means and declares (the refresh
//! grant deletes the access token it replaces and drops it from the API's principal cache);
//! in debug builds a counted change it did not declare fails the test that made it
//! ([`crate::counted`]).

use std::cell::Cell;
use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use diesel::connection::{Instrumentation, InstrumentationEvent};

use crate::counted::CountedTable;

thread_local! {
    /// True while this thread runs a write under [`keeping_counters`].
    static KEEPING_COUNTERS: Cell<bool> = const { Cell::new(false) };
    /// True while this thread runs a lookup under [`reading`].
    static READING: Cell<bool> = const { Cell::new(false) };
}

/// Runs `lookup`, whose statements are all `SELECT`s, without the watch telling each of them
/// from a write: the watch can only tell by the statement's text, which diesel builds in full
/// for it, the bound values included (about 20 000 instructions a statement, as much as
/// running the lookup itself; 8% of a refresh grant's). For the lookups on the hot paths of
/// the API; any other statement is still told apart.
pub(crate) fn reading<T>(lookup: impl FnOnce() -> T) -> T {
    /// Clears the flag however `lookup` ends, a panic included.
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            READING.with(|reading| reading.set(false));
        }
    }
    READING.with(|reading| reading.set(true));
    let _reset = Reset;
    lookup()
}

/// Runs `write` without counting it as a change: counters read before it stay trusted. For a
/// write that adds only rows no change counter counts (new access and refresh tokens,
/// activity entries: see `acs_storage::revisions`), or whose counted changes the caller
/// honours itself until the change feed reads the counters that tell them: those tables are
/// `honoured`, and in debug builds a write that changes any other counted table panics once
/// it returns (see [`crate::counted`]), so a test that runs it fails. Its statements must run
/// on this thread.
pub fn keeping_counters<T>(honoured: &[CountedTable], write: impl FnOnce() -> T) -> T {
    /// Clears the flag however `write` ends, a panic included.
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            KEEPING_COUNTERS.with(|keeping| keeping.set(false));
        }
    }
    if cfg!(debug_assertions) {
        crate::counted::declare(honoured);
    }
    KEEPING_COUNTERS.with(|keeping| keeping.set(true));
    let reset = Reset;
    let written = write();
    drop(reset);
    if cfg!(debug_assertions) {
        let undeclared = crate::counted::undeclared();
        assert!(
            undeclared.is_empty(),
            "a write under keeping_counters changed counted tables it did not declare: {}",
            undeclared.join(", ")
        );
    }
    written
}

/// Whether the current thread runs a write under [`keeping_counters`].
pub(crate) fn counters_kept() -> bool {
    KEEPING_COUNTERS.with(Cell::get)
}

/// A pooled connection's watch over its own statements: a statement that may change data,
/// run outside a transaction, counts as a local change once it returns; so does the commit
/// of a transaction that made one (a transaction not run by [`crate::Pool::transaction`]).
#[derive(Debug)]
pub(crate) struct WriteWatch {
    local_changes: Arc<AtomicU64>,
    in_transaction: bool,
    wrote_in_transaction: bool,
}

impl WriteWatch {
    pub(crate) fn new(local_changes: Arc<AtomicU64>) -> Self {
        WriteWatch {
            local_changes,
            in_transaction: false,
            wrote_in_transaction: false,
        }
    }

    fn count(&self) {
        self.local_changes.fetch_add(1, Ordering::AcqRel);
    }

    fn finished(&mut self, statement: Statement) {
        match statement {
            Statement::Begin => {
                self.in_transaction = true;
                self.wrote_in_transaction = false;
            }
            Statement::End { commit } => {
                if commit && self.wrote_in_transaction {
                    self.count();
                }
                self.in_transaction = false;
                self.wrote_in_transaction = false;
            }
            Statement::Read => {}
            Statement::MayWrite if counters_kept() => {}
            Statement::MayWrite if self.in_transaction => self.wrote_in_transaction = true,
            Statement::MayWrite => self.count(),
        }
    }
}

impl Instrumentation for WriteWatch {
    fn on_connection_event(&mut self, event: InstrumentationEvent<'_>) {
        // Counted when the statement is done, failed or not: a failed COMMIT may still have
        // committed, and counting too often only costs a read of the counters.
        if let InstrumentationEvent::FinishQuery { query, .. } = event
            && !READING.with(Cell::get)
        {
            let statement = Statement::of(query);
            if statement == Statement::MayWrite {
                check_kept(query);
            }
            self.finished(statement);
        }
    }
}

/// In debug builds, under [`keeping_counters`], notes the counted tables `query` changes (see
/// [`crate::counted`]).
fn check_kept(query: &dyn std::fmt::Display) {
    if cfg!(debug_assertions) && counters_kept() {
        crate::counted::check(&query.to_string());
    }
}

/// The SQLite writer's watch, in debug builds: its connection runs the writes of every
/// request (counted by [`crate::Pool::transaction`], not by a watch), so only the check of
/// [`keeping_counters`] looks at its statements.
#[derive(Debug)]
pub(crate) struct KeptWriteCheck;

impl Instrumentation for KeptWriteCheck {
    fn on_connection_event(&mut self, event: InstrumentationEvent<'_>) {
        if let InstrumentationEvent::FinishQuery { query, .. } = event
            && Statement::of(query) == Statement::MayWrite
        {
            check_kept(query);
        }
    }
}

/// What a statement is to the watch, told by its first words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Statement {
    /// `BEGIN`: a transaction starts.
    Begin,
    /// `COMMIT` or `END` (`commit`), or a whole `ROLLBACK`: the transaction ends.
    End { commit: bool },
    /// Changes no data: `SELECT`, `SHOW`, `SET`, `PRAGMA`, savepoints.
    Read,
    /// Anything else (`INSERT`, `UPDATE`, `DELETE`, `WITH`, DDL, …).
    MayWrite,
}

impl Statement {
    fn of(query: &dyn std::fmt::Display) -> Self {
        let mut words = FirstWords::default();
        // The sink stops the formatting once it has the words (an error ends `write!`), so
        // neither the rest of the SQL nor the bound values are formatted.
        let _ = write!(words, "{query}");
        Self::from_words(words.text())
    }

    fn from_words(words: &str) -> Self {
        let mut words = words.split_ascii_whitespace();
        let first = words.next().unwrap_or_default().to_ascii_uppercase();
        match first.as_str() {
            "BEGIN" | "START" => Statement::Begin,
            "COMMIT" | "END" => Statement::End { commit: true },
            "ROLLBACK" | "ABORT" => match words.next() {
                Some(second) if second.eq_ignore_ascii_case("TO") => Statement::Read,
                _ => Statement::End { commit: false },
            },
            "SELECT" | "SHOW" | "SET" | "PRAGMA" | "SAVEPOINT" | "RELEASE" | "" => Statement::Read,
            _ => Statement::MayWrite,
        }
    }
}

/// Takes the first [`FirstWords::LEN`] bytes written to it, then refuses the rest.
#[derive(Default)]
struct FirstWords {
    text: String,
}

impl FirstWords {
    const LEN: usize = 24;

    fn text(&self) -> &str {
        &self.text
    }
}

impl std::fmt::Write for FirstWords {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        for c in s.chars() {
            if self.text.len() >= Self::LEN {
                return Err(std::fmt::Error);
            }
            self.text.push(c);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn watch() -> (Arc<AtomicU64>, WriteWatch) {
        let changes = Arc::new(AtomicU64::new(0));
        (changes.clone(), WriteWatch::new(changes))
    }

    fn run(watch: &mut WriteWatch, sql: &str) {
        watch.finished(Statement::of(&sql));
    }

    #[test]
    fn statements_are_told_by_their_first_words() {
        for (sql, expected) in [
            ("SELECT 1", Statement::Read),
            ("  select * from users", Statement::Read),
            ("PRAGMA busy_timeout = 5000; PRAGMA x", Statement::Read),
            ("SAVEPOINT diesel_savepoint_1", Statement::Read),
            ("RELEASE SAVEPOINT diesel_savepoint_1", Statement::Read),
            ("ROLLBACK TO SAVEPOINT diesel_savepoint_1", Statement::Read),
            ("BEGIN IMMEDIATE", Statement::Begin),
            ("COMMIT", Statement::End { commit: true }),
            ("ROLLBACK", Statement::End { commit: false }),
            (
                "INSERT INTO \"users\" (\"username\") VALUES ($1)",
                Statement::MayWrite,
            ),
            ("UPDATE \"sessions\" SET x = 1", Statement::MayWrite),
            ("DELETE FROM \"access_tokens\"", Statement::MayWrite),
            (
                "WITH token AS (INSERT INTO access_tokens",
                Statement::MayWrite,
            ),
            ("CREATE TABLE x (id INT)", Statement::MayWrite),
        ] {
            assert_eq!(Statement::of(&sql), expected, "{sql}");
        }
    }

    #[test]
    fn a_write_outside_a_transaction_counts_at_once() {
        let (changes, mut watch) = watch();
        run(&mut watch, "SELECT 1");
        assert_eq!(changes.load(Ordering::Acquire), 0);
        run(&mut watch, "UPDATE sessions SET expires = $1");
        assert_eq!(changes.load(Ordering::Acquire), 1);
    }

    #[test]
    fn a_transaction_counts_once_committed_and_only_if_it_wrote() {
        let (changes, mut watch) = watch();
        run(&mut watch, "BEGIN");
        run(&mut watch, "DELETE FROM access_tokens WHERE id = $1");
        assert_eq!(changes.load(Ordering::Acquire), 0, "not before the commit");
        run(&mut watch, "COMMIT");
        assert_eq!(changes.load(Ordering::Acquire), 1);
        run(&mut watch, "BEGIN");
        run(&mut watch, "SELECT 1");
        run(&mut watch, "COMMIT");
        run(&mut watch, "BEGIN");
        run(&mut watch, "DELETE FROM users");
        run(&mut watch, "ROLLBACK");
        assert_eq!(changes.load(Ordering::Acquire), 1, "nothing else changed");
        run(&mut watch, "DELETE FROM users");
        assert_eq!(
            changes.load(Ordering::Acquire),
            2,
            "the transaction is over"
        );
    }

    #[test]
    fn writes_keeping_counters_do_not_count_and_the_flag_does_not_outlive_them() {
        let (changes, mut watch) = watch();
        keeping_counters(&[], || {
            run(&mut watch, "WITH token AS (INSERT INTO access_tokens")
        });
        assert_eq!(changes.load(Ordering::Acquire), 0);
        let unwound = std::panic::catch_unwind(|| keeping_counters(&[], || panic!("write failed")));
        assert!(unwound.is_err());
        assert!(!counters_kept());
        run(&mut watch, "INSERT INTO users");
        assert_eq!(changes.load(Ordering::Acquire), 1);
    }

    #[test]
    fn lookups_are_not_told_apart_and_the_flag_does_not_outlive_them() {
        use diesel::{Connection, RunQueryDsl, SqliteConnection};

        let (changes, watch) = watch();
        let mut conn = SqliteConnection::establish(":memory:").expect("a connection");
        conn.set_instrumentation(watch);
        let mut execute = |sql: &str| diesel::sql_query(sql).execute(&mut conn).expect(sql);
        execute("CREATE TABLE t (x INTEGER)");
        assert_eq!(changes.load(Ordering::Acquire), 1, "told apart: a write");
        // Under `reading` the watch does not look at the statements at all (only SELECTs may
        // run there: a write would go uncounted, which this shows).
        reading(|| execute("INSERT INTO t VALUES (1)"));
        assert_eq!(changes.load(Ordering::Acquire), 1);
        let unwound = std::panic::catch_unwind(|| reading(|| panic!("lookup failed")));
        assert!(unwound.is_err());
        execute("INSERT INTO t VALUES (2)");
        assert_eq!(changes.load(Ordering::Acquire), 2);
    }
}

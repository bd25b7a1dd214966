//! Batched maintenance writes: bulk revocation and clean-up of expired rows.
//!
//! A sweep walks its table in id order, one batch at a time, so that a million rows neither
//! sit in memory nor hold a lock for long. Each batch is two short statements:
//!
//! 1. a read that finds the id of the `size`-th matching row after the cursor
//!    ([`Sweep::next_batch`]; none when fewer remain, which makes the batch the last), and
//! 2. one write over the matching rows with ids in `(after, upto]` ([`Sweep::apply`]).
//!
//! The caller decides how the write runs: alone (autocommit, as a management command does) or
//! inside a transaction of its own (as the server does, to take its SQLite writer lock). A
//! batch that committed stays committed if a later one fails. The cursor only moves forward,
//! so a pass ends even while other processes sweep the same table (several servers cleaning
//! up at once, or a command racing one): every write is an idempotent delete or update of the
//! rows that still match.
//!
//! The statements are plain SQL over the shared schema (a subquery-free range delete or
//! update), identical on SQLite and PostgreSQL.

use diesel::expression::BoxableExpression;
use diesel::prelude::*;
use diesel::sql_types::Bool;

use crate::schema::{access_tokens, authorization_codes, refresh_tokens, sessions};
use crate::{Backend, DbConnection, StorageResult, Timestamp};

/// Rows per batch unless told otherwise: large enough that per-statement overhead vanishes,
/// small enough that one batch holds the write lock for some tens of milliseconds.
pub const BATCH_SIZE: i64 = 10_000;

/// One batched maintenance operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sweep {
    /// Deletes access tokens (this is revocation: a token is valid while its row exists), of
    /// one user or of everyone. Refresh tokens lose their link (`access_token_id` becomes null).
    RevokeAccessTokens {
        /// Only this user's tokens.
        user: Option<i64>,
    },
    /// Marks refresh tokens not yet revoked as revoked at `at`, of one user or of everyone,
    /// and unlinks them from their access tokens. The rows stay (a revoked refresh token
    /// presented again must be recognised). Unlinking here, in the row write the revocation
    /// makes anyway, spares the access-token sweep that follows the foreign key's per-row
    /// `SET NULL` action, which costs about as much as the delete itself.
    RevokeRefreshTokens {
        /// Only this user's refresh tokens.
        user: Option<i64>,
        /// The revocation time stored.
        at: Timestamp,
    },
    /// Deletes access tokens whose expiry is at or before `now`.
    DeleteExpiredAccessTokens {
        /// The current time.
        now: Timestamp,
    },
    /// Deletes refresh tokens created at or before `created_before` (that is, expired: their
    /// lifetime counts from creation), revoked or used ones included.
    DeleteExpiredRefreshTokens {
        /// The current time minus the refresh-token lifetime.
        created_before: Timestamp,
    },
    /// Deletes authorization codes whose expiry is at or before `now`.
    DeleteExpiredAuthorizationCodes {
        /// The current time.
        now: Timestamp,
    },
    /// Deletes sessions whose expiry is at or before `now`.
    DeleteExpiredSessions {
        /// The current time.
        now: Timestamp,
    },
}

/// The rows one batch covers: ids in `(after, upto]`, with no upper bound when `upto` is
/// `None` (the last batch).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdRange {
    /// Ids above this one.
    pub after: i64,
    /// Ids up to this one, included.
    pub upto: Option<i64>,
}

impl IdRange {
    fn upper(self) -> i64 {
        self.upto.unwrap_or(i64::MAX)
    }
}

/// Where a sweep stands: every matching row with an id up to the cursor has been handled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    after: i64,
    size: i64,
    finished: bool,
}

impl Cursor {
    /// A sweep from the start, `size` rows per batch (at least one).
    pub fn new(size: i64) -> Self {
        Cursor {
            after: 0,
            size: size.max(1),
            finished: false,
        }
    }

    /// Rows in the batches handed out from now on (at least one): callers may adapt it to
    /// how long batches take.
    pub fn resize(&mut self, size: i64) {
        self.size = size.max(1);
    }

    /// The current batch size.
    pub fn size(&self) -> i64 {
        self.size
    }

    /// True once the last batch has been handed out.
    pub fn finished(&self) -> bool {
        self.finished
    }

    /// Moves past the batch that ends at `end` (the id of the `size`-th matching row), or
    /// hands out the last batch when fewer rows remain.
    fn advance(&mut self, end: Option<i64>) -> Option<IdRange> {
        if self.finished {
            return None;
        }
        let range = IdRange {
            after: self.after,
            upto: end,
        };
        match end {
            Some(end) => self.after = end,
            None => self.finished = true,
        }
        Some(range)
    }
}

type Predicate<T> = Box<dyn BoxableExpression<T, Backend, SqlType = Bool>>;

/// Evaluates `$body` with `$table` naming the schema module of `$sweep_table`'s table and
/// `$predicate` its condition: the batch statements are written once for the four tables,
/// which diesel types apart.
macro_rules! on_table {
    ($sweep_table:expr, |$table:ident, $predicate:ident| $body:expr) => {
        match $sweep_table {
            Table::AccessTokens($predicate) => {
                use crate::schema::access_tokens as $table;
                $body
            }
            Table::RefreshTokens($predicate) => {
                use crate::schema::refresh_tokens as $table;
                $body
            }
            Table::AuthorizationCodes($predicate) => {
                use crate::schema::authorization_codes as $table;
                $body
            }
            Table::Sessions($predicate) => {
                use crate::schema::sessions as $table;
                $body
            }
        }
    };
}

impl Sweep {
    /// The next batch of this sweep, or `None` when the pass is over. Reads only.
    pub fn next_batch(
        &self,
        conn: &mut DbConnection,
        cursor: &mut Cursor,
    ) -> StorageResult<Option<IdRange>> {
        if cursor.finished {
            return Ok(None);
        }
        let (after, offset) = (cursor.after, cursor.size - 1);
        let end = on_table!(self.table(), |table, predicate| table::table
            .filter(predicate)
            .filter(table::id.gt(after))
            .select(table::id)
            .order(table::id.asc())
            .offset(offset)
            .first::<i64>(conn)
            .optional()?);
        Ok(cursor.advance(end))
    }

    /// Applies the sweep to the matching rows of `range`; returns how many rows it changed.
    /// One statement: atomic on its own, or part of the caller's transaction.
    pub fn apply(&self, conn: &mut DbConnection, range: IdRange) -> StorageResult<usize> {
        let (after, upto) = (range.after, range.upper());
        let changed = match (self, self.table()) {
            (Sweep::RevokeRefreshTokens { at, .. }, Table::RefreshTokens(predicate)) => {
                diesel::update(
                    refresh_tokens::table
                        .filter(predicate)
                        .filter(refresh_tokens::id.gt(after))
                        .filter(refresh_tokens::id.le(upto)),
                )
                .set((
                    refresh_tokens::revoked.eq(Some(*at)),
                    refresh_tokens::access_token_id.eq(None::<i64>),
                ))
                .execute(conn)?
            }
            (_, other) => on_table!(other, |table, predicate| diesel::delete(
                table::table
                    .filter(predicate)
                    .filter(table::id.gt(after))
                    .filter(table::id.le(upto)),
            )
            .execute(conn)?),
        };
        Ok(changed)
    }

    /// The table this sweep works on and which of its rows it touches.
    fn table(&self) -> Table {
        match *self {
            Sweep::RevokeAccessTokens { user: Some(user) } => {
                Table::AccessTokens(Box::new(access_tokens::user_id.eq(user)))
            }
            // Every id is positive: a condition that holds for every row.
            Sweep::RevokeAccessTokens { user: None } => {
                Table::AccessTokens(Box::new(access_tokens::id.gt(0)))
            }
            Sweep::RevokeRefreshTokens {
                user: Some(user), ..
            } => Table::RefreshTokens(Box::new(
                refresh_tokens::revoked
                    .is_null()
                    .and(refresh_tokens::user_id.eq(user)),
            )),
            Sweep::RevokeRefreshTokens { user: None, .. } => {
                Table::RefreshTokens(Box::new(refresh_tokens::revoked.is_null()))
            }
            Sweep::DeleteExpiredAccessTokens { now } => {
                Table::AccessTokens(Box::new(access_tokens::expires.le(now)))
            }
            Sweep::DeleteExpiredRefreshTokens { created_before } => {
                Table::RefreshTokens(Box::new(refresh_tokens::created.le(created_before)))
            }
            Sweep::DeleteExpiredAuthorizationCodes { now } => {
                Table::AuthorizationCodes(Box::new(authorization_codes::expires.le(now)))
            }
            Sweep::DeleteExpiredSessions { now } => {
                Table::Sessions(Box::new(sessions::expires.le(now)))
            }
        }
    }
}

/// A sweep's table with the condition on its rows.
enum Table {
    AccessTokens(Predicate<access_tokens::table>),
    RefreshTokens(Predicate<refresh_tokens::table>),
    AuthorizationCodes(Predicate<authorization_codes::table>),
    Sessions(Predicate<sessions::table>),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_hands_out_consecutive_ranges_then_a_last_open_one() {
        let mut cursor = Cursor::new(10);
        assert_eq!(
            cursor.advance(Some(15)),
            Some(IdRange {
                after: 0,
                upto: Some(15)
            })
        );
        assert_eq!(
            cursor.advance(Some(40)),
            Some(IdRange {
                after: 15,
                upto: Some(40)
            })
        );
        assert!(!cursor.finished());
        assert_eq!(
            cursor.advance(None),
            Some(IdRange {
                after: 40,
                upto: None
            })
        );
        assert!(cursor.finished());
        assert_eq!(cursor.advance(Some(99)), None);
    }

    #[test]
    fn batch_size_is_at_least_one() {
        assert_eq!(Cursor::new(0).size(), 1);
        assert_eq!(Cursor::new(-5).size(), 1);
        let mut cursor = Cursor::new(10);
        cursor.resize(0);
        assert_eq!(cursor.size(), 1);
    }

    /// An in-memory SQLite database with two users, 25 access tokens (ids 1..=25; user 1 owns
    /// the odd ones; ids up to 10 expired), a refresh token for each of tokens 1..=6 (1 and 2
    /// revoked already, 1..=3 created long ago) and 12 sessions (ids up to 4 expired).
    fn seeded() -> DbConnection {
        use diesel::connection::SimpleConnection;
        let mut conn = crate::Database::Sqlite(":memory:".into())
            .connect()
            .expect("an in-memory database");
        crate::run_migrations(&mut conn).expect("migrations");
        let mut sql = String::from(
            "INSERT INTO users (id, username, password, created, modified) VALUES \
               (1, 'alice', '!', '2024-01-01 00:00:00', '2024-01-01 00:00:00'), \
               (2, 'bob', '!', '2024-01-01 00:00:00', '2024-01-01 00:00:00'); \
             INSERT INTO organizations (id, name, created, modified) \
               VALUES (1, 'o', '2024-01-01 00:00:00', '2024-01-01 00:00:00'); \
             INSERT INTO applications (id, name, client_id, client_secret_digest, client_type, \
               authorization_grant_type, organization_id, created, modified) VALUES \
               (1, 'a', 'c', X'00', 'confidential', 'password', 1, \
                '2024-01-01 00:00:00', '2024-01-01 00:00:00');",
        );
        for id in 1..=25 {
            let user = if id % 2 == 1 { 1 } else { 2 };
            let expires = if id <= 10 {
                "2024-06-01 00:00:00"
            } else {
                "2030-01-01 00:00:00"
            };
            sql.push_str(&format!(
                "INSERT INTO access_tokens (id, digest, user_id, scope, expires, created, modified) \
                 VALUES ({id}, X'{id:02x}', {user}, 'write', '{expires}', \
                 '2024-01-01 00:00:00', '2024-01-01 00:00:00');"
            ));
        }
        for id in 1..=6 {
            let user = if id % 2 == 1 { 1 } else { 2 };
            let created = if id <= 3 {
                "2024-01-01 00:00:00"
            } else {
                "2024-06-30 00:00:00"
            };
            let revoked = if id <= 2 {
                "'2024-02-01 00:00:00'"
            } else {
                "NULL"
            };
            sql.push_str(&format!(
                "INSERT INTO refresh_tokens (id, digest, user_id, application_id, access_token_id, \
                 scope, created, revoked) VALUES ({id}, X'{id:02x}', {user}, 1, {id}, 'write', \
                 '{created}', {revoked});"
            ));
        }
        for id in 1..=12 {
            let expires = if id <= 4 {
                "2024-06-01 00:00:00"
            } else {
                "2030-01-01 00:00:00"
            };
            sql.push_str(&format!(
                "INSERT INTO sessions (id, digest, user_id, created, expires) \
                 VALUES ({id}, X'{id:02x}', 1, '2024-01-01 00:00:00', '{expires}');"
            ));
        }
        conn.batch_execute(&sql).expect("seed rows");
        conn
    }

    fn at(text: &str) -> Timestamp {
        chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S").expect("a timestamp")
    }

    /// Runs `sweep` to the end in batches of `size`; returns the rows changed per batch.
    fn run(conn: &mut DbConnection, sweep: Sweep, size: i64) -> Vec<usize> {
        let mut cursor = Cursor::new(size);
        let mut batches = Vec::new();
        while let Some(range) = sweep.next_batch(conn, &mut cursor).expect("next batch") {
            batches.push(sweep.apply(conn, range).expect("apply"));
        }
        batches
    }

    fn ids(conn: &mut DbConnection, sql: &str) -> Vec<i64> {
        #[derive(QueryableByName)]
        struct Row {
            #[diesel(sql_type = diesel::sql_types::BigInt)]
            id: i64,
        }
        diesel::sql_query(sql)
            .load::<Row>(conn)
            .expect("a query")
            .into_iter()
            .map(|row| row.id)
            .collect()
    }

    #[test]
    fn revoking_every_access_token_takes_full_batches_then_the_rest() {
        let mut conn = seeded();
        let batches = run(&mut conn, Sweep::RevokeAccessTokens { user: None }, 10);
        assert_eq!(batches, [10, 10, 5]);
        assert!(ids(&mut conn, "SELECT id FROM access_tokens").is_empty());
        // The refresh tokens stay, unlinked and not revoked.
        assert_eq!(
            ids(
                &mut conn,
                "SELECT id FROM refresh_tokens WHERE access_token_id IS NULL"
            )
            .len(),
            6
        );
        assert_eq!(
            ids(
                &mut conn,
                "SELECT id FROM refresh_tokens WHERE revoked IS NULL"
            )
            .len(),
            4
        );
    }

    #[test]
    fn revoking_one_users_tokens_leaves_the_others() {
        let mut conn = seeded();
        let batches = run(&mut conn, Sweep::RevokeAccessTokens { user: Some(1) }, 4);
        assert_eq!(batches.iter().sum::<usize>(), 13);
        assert_eq!(
            ids(&mut conn, "SELECT id FROM access_tokens WHERE id % 2 = 1"),
            Vec::<i64>::new()
        );
        assert_eq!(
            ids(&mut conn, "SELECT id FROM access_tokens").len(),
            12,
            "bob keeps his"
        );
    }

    #[test]
    fn revoking_refresh_tokens_marks_only_unrevoked_ones() {
        let mut conn = seeded();
        let now = at("2024-07-01 00:00:00");
        let batches = run(
            &mut conn,
            Sweep::RevokeRefreshTokens {
                user: Some(1),
                at: now,
            },
            1,
        );
        // Alice owns 1, 3 and 5; 1 was revoked before.
        assert_eq!(batches.iter().sum::<usize>(), 2);
        assert_eq!(
            ids(
                &mut conn,
                "SELECT id FROM refresh_tokens WHERE revoked IS NULL"
            ),
            [4, 6]
        );
        // The revoked ones are unlinked from their access tokens; 1 (revoked before) is not.
        assert_eq!(
            ids(
                &mut conn,
                "SELECT id FROM refresh_tokens WHERE access_token_id IS NULL"
            ),
            [3, 5]
        );
        let batches = run(
            &mut conn,
            Sweep::RevokeRefreshTokens {
                user: None,
                at: now,
            },
            100,
        );
        assert_eq!(batches, [2]);
        assert_eq!(ids(&mut conn, "SELECT id FROM refresh_tokens").len(), 6);
    }

    #[test]
    fn clean_up_deletes_only_what_expired() {
        let mut conn = seeded();
        let now = at("2024-07-01 00:00:00");
        let access = run(&mut conn, Sweep::DeleteExpiredAccessTokens { now }, 3);
        assert_eq!(access.iter().sum::<usize>(), 10);
        assert_eq!(
            ids(&mut conn, "SELECT MIN(id) AS id FROM access_tokens"),
            [11]
        );
        let refresh = run(
            &mut conn,
            Sweep::DeleteExpiredRefreshTokens {
                created_before: at("2024-06-01 00:00:00"),
            },
            2,
        );
        assert_eq!(refresh.iter().sum::<usize>(), 3);
        assert_eq!(ids(&mut conn, "SELECT id FROM refresh_tokens"), [4, 5, 6]);
        let sessions = run(&mut conn, Sweep::DeleteExpiredSessions { now }, 100);
        assert_eq!(sessions, [4]);
        // A second pass finds nothing.
        assert_eq!(
            run(&mut conn, Sweep::DeleteExpiredAccessTokens { now }, 3),
            [0]
        );
    }

    #[test]
    fn revocation_bumps_the_tokens_counter() {
        let mut conn = seeded();
        let before = crate::revisions::current(&mut conn)
            .expect("counters")
            .tokens;
        run(&mut conn, Sweep::RevokeAccessTokens { user: Some(2) }, 100);
        let after = crate::revisions::current(&mut conn)
            .expect("counters")
            .tokens;
        assert!(after > before);
    }
}

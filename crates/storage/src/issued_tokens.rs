//! Storing a newly issued access token, the refresh token issued with it and the activity entry
//! that records its creation, as one write.
//!
//! On PostgreSQL the three rows go in with one statement (data-modifying `WITH` clauses), which
//! is atomic by itself: the write needs neither `BEGIN` nor `COMMIT`, so a token costs one round
//! trip instead of five (see [`crate::Pool::single_statement_write`]), and the statement is
//! prepared once per connection. On SQLite the rows go in one after the other, inside the
//! caller's transaction (the one writer commits a group of them at once).

use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::{BigInt, Binary, Nullable, Text, Timestamp as SqlTimestamp};

use crate::activity::{self, NewActivity};
use crate::tokens::{AccessToken, NewAccessToken, NewRefreshToken};
use crate::{DbConnection, StorageResult, Timestamp};

/// The refresh token issued with an access token: it has the access token's owner,
/// application, scope and creation time.
#[derive(Debug, Clone, Copy)]
pub struct PairedRefresh<'a> {
    /// Digest of the generated value.
    pub digest: &'a [u8],
    /// The rotation chain it continues; `None` for a token that starts a chain.
    pub chain_id: Option<i64>,
}

/// The activity entry recording a token's creation. The database assigns the token's id in
/// the same write, and the entry names it twice: as its `object1_id`, and inside its summary,
/// which is given as the text before and the text after the id.
#[derive(Debug, Clone, Copy)]
pub struct CreationEntry<'a> {
    /// When it happened.
    pub timestamp: Timestamp,
    /// Who did it (`None` for a management command).
    pub actor_id: Option<i64>,
    /// JSON object of the token's fields, secrets masked.
    pub changes: &'a str,
    /// The JSON summary, split where the token's id goes.
    pub summary_around_id: (&'a str, &'a str),
}

impl CreationEntry<'_> {
    fn summary_with(&self, id: i64) -> String {
        let (before, after) = self.summary_around_id;
        format!("{before}{id}{after}")
    }
}

/// Stores `token`, the `refresh` token issued with it (when it has one: an application's
/// token) and `entry`, and returns the stored token. On PostgreSQL with one statement, atomic
/// without a transaction around it; on SQLite with three, inside the caller's transaction.
pub fn insert(
    conn: &mut DbConnection,
    token: &NewAccessToken<'_>,
    refresh: Option<PairedRefresh<'_>>,
    entry: &CreationEntry<'_>,
) -> StorageResult<AccessToken> {
    match conn {
        DbConnection::Postgres(pg) => Ok(IssueStatement {
            token,
            refresh,
            entry,
        }
        .get_result(pg)?),
        DbConnection::Sqlite(_) => one_by_one(conn, token, refresh, entry),
    }
}

fn one_by_one(
    conn: &mut DbConnection,
    token: &NewAccessToken<'_>,
    refresh: Option<PairedRefresh<'_>>,
    entry: &CreationEntry<'_>,
) -> StorageResult<AccessToken> {
    let stored = crate::tokens::insert(conn, token)?;
    if let Some(refresh) = refresh {
        crate::tokens::insert_refresh(
            conn,
            &NewRefreshToken {
                digest: refresh.digest,
                user_id: stored.user_id,
                // A bug, never the caller's input (PostgreSQL's NOT NULL says the same).
                application_id: stored.application_id.ok_or_else(|| {
                    crate::StorageError::Query(diesel::result::Error::QueryBuilderError(
                        "a refresh token needs an application".into(),
                    ))
                })?,
                access_token_id: Some(stored.id),
                scope: &stored.scope,
                created: stored.created,
                chain_id: refresh.chain_id,
            },
        )?;
    }
    activity::record(
        conn,
        &NewActivity {
            timestamp: entry.timestamp,
            actor_id: entry.actor_id,
            operation: "create",
            object1: activity::TOKEN,
            object1_id: stored.id,
            object2: "",
            object2_id: None,
            changes: entry.changes,
            summary: &entry.summary_with(stored.id),
        },
    )?;
    Ok(stored)
}

/// The PostgreSQL statement of [`insert`]. Its SQL depends only on whether a refresh token
/// comes with the access token: diesel caches the prepared statement by that text.
struct IssueStatement<'s, 'a> {
    token: &'s NewAccessToken<'a>,
    refresh: Option<PairedRefresh<'a>>,
    entry: &'s CreationEntry<'a>,
}

impl QueryId for IssueStatement<'_, '_> {
    type QueryId = ();
    // Not one query per type: the cache key is the SQL text.
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl Query for IssueStatement<'_, '_> {
    type SqlType = (
        BigInt,
        Binary,
        BigInt,
        Nullable<BigInt>,
        Text,
        Text,
        SqlTimestamp,
        SqlTimestamp,
        SqlTimestamp,
    );
}

impl RunQueryDsl<PgConnection> for IssueStatement<'_, '_> {}

impl QueryFragment<Pg> for IssueStatement<'_, '_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        let token = self.token;
        out.push_sql(
            "WITH token AS (INSERT INTO access_tokens \
             (digest, user_id, application_id, description, scope, expires, created, modified) \
             VALUES (",
        );
        out.push_bind_param::<Binary, _>(&token.digest)?;
        out.push_sql(", ");
        out.push_bind_param::<BigInt, _>(&token.user_id)?;
        out.push_sql(", ");
        out.push_bind_param::<Nullable<BigInt>, _>(&token.application_id)?;
        out.push_sql(", ");
        out.push_bind_param::<Text, _>(&token.description)?;
        out.push_sql(", ");
        out.push_bind_param::<Text, _>(&token.scope)?;
        out.push_sql(", ");
        out.push_bind_param::<SqlTimestamp, _>(&token.expires)?;
        out.push_sql(", ");
        out.push_bind_param::<SqlTimestamp, _>(&token.created)?;
        out.push_sql(", ");
        out.push_bind_param::<SqlTimestamp, _>(&token.modified)?;
        out.push_sql(
            ") RETURNING id, digest, user_id, application_id, description, scope, expires, \
             created, modified)",
        );
        if let Some(refresh) = &self.refresh {
            out.push_sql(
                ", refresh AS (INSERT INTO refresh_tokens \
                 (digest, user_id, application_id, access_token_id, scope, created, chain_id) \
                 SELECT ",
            );
            out.push_bind_param::<Binary, _>(&refresh.digest)?;
            out.push_sql(", user_id, application_id, id, scope, created, ");
            out.push_bind_param::<Nullable<BigInt>, _>(&refresh.chain_id)?;
            out.push_sql(" FROM token)");
        }
        let entry = self.entry;
        out.push_sql(
            ", entry AS (INSERT INTO activity_stream (timestamp, actor_id, operation, object1, \
             object1_id, object2, object2_id, changes, summary) SELECT ",
        );
        out.push_bind_param::<SqlTimestamp, _>(&entry.timestamp)?;
        out.push_sql(", ");
        out.push_bind_param::<Nullable<BigInt>, _>(&entry.actor_id)?;
        out.push_sql(", 'create', ");
        out.push_bind_param::<Text, _>(&activity::TOKEN)?;
        out.push_sql(", id, '', NULL, ");
        out.push_bind_param::<Text, _>(&entry.changes)?;
        out.push_sql(", ");
        out.push_bind_param::<Text, _>(&entry.summary_around_id.0)?;
        out.push_sql(" || id || ");
        out.push_bind_param::<Text, _>(&entry.summary_around_id.1)?;
        out.push_sql(" FROM token) SELECT * FROM token");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{activity_stream, refresh_tokens};
    use crate::test_support::{at, seeded};

    fn token(application_id: Option<i64>) -> NewAccessToken<'static> {
        let now = at("2024-07-01 00:00:00");
        NewAccessToken {
            digest: b"digest",
            user_id: 1,
            application_id,
            description: "ci",
            scope: "write",
            expires: at("2030-01-01 00:00:00"),
            created: now,
            modified: now,
        }
    }

    const ENTRY: CreationEntry<'static> = CreationEntry {
        timestamp: chrono::DateTime::UNIX_EPOCH.naive_utc(),
        actor_id: Some(1),
        changes: r#"{"scope":"write"}"#,
        summary_around_id: (r#"{"o_auth2_access_token":[{"id":"#, r#","name":"ci"}]}"#),
    };

    #[test]
    fn the_entry_names_the_new_tokens_id() {
        let mut conn = seeded();
        let stored = insert(&mut conn, &token(None), None, &ENTRY).expect("stored");
        let entry: (String, i64, String) = activity_stream::table
            .select((
                activity_stream::object1,
                activity_stream::object1_id,
                activity_stream::summary,
            ))
            .first(&mut conn)
            .expect("the entry");
        assert_eq!(
            entry,
            (
                activity::TOKEN.to_owned(),
                stored.id,
                format!(
                    r#"{{"o_auth2_access_token":[{{"id":{},"name":"ci"}}]}}"#,
                    stored.id
                )
            )
        );
        let refreshes: i64 = refresh_tokens::table
            .count()
            .get_result(&mut conn)
            .expect("count");
        assert_eq!(refreshes, 0);
    }

    #[test]
    fn issuing_moves_no_change_counter() {
        // So that `crate::local_changes::keeping_counters` may run it.
        let mut conn = seeded();
        let before = crate::revisions::current(&mut conn).expect("counters");
        let refresh = PairedRefresh {
            digest: b"refresh",
            chain_id: None,
        };
        insert(&mut conn, &token(Some(1)), Some(refresh), &ENTRY).expect("stored");
        assert_eq!(
            crate::revisions::current(&mut conn).expect("counters"),
            before
        );
    }

    #[test]
    fn a_paired_refresh_token_takes_the_access_tokens_owner_application_and_scope() {
        let mut conn = seeded();
        let refresh = PairedRefresh {
            digest: b"refresh",
            chain_id: None,
        };
        let stored = insert(&mut conn, &token(Some(1)), Some(refresh), &ENTRY).expect("stored");
        let paired: (i64, i64, Option<i64>, String) = refresh_tokens::table
            .select((
                refresh_tokens::user_id,
                refresh_tokens::application_id,
                refresh_tokens::access_token_id,
                refresh_tokens::scope,
            ))
            .first(&mut conn)
            .expect("the refresh token");
        assert_eq!(paired, (1, 1, Some(stored.id), "write".to_owned()));
    }

    #[test]
    fn a_refresh_token_without_an_application_is_refused_and_nothing_is_left() {
        let mut conn = seeded();
        let refresh = PairedRefresh {
            digest: b"refresh",
            chain_id: None,
        };
        let outcome = conn.transaction(|c| insert(c, &token(None), Some(refresh), &ENTRY));
        assert!(outcome.is_err());
        let tokens: i64 = crate::schema::access_tokens::table
            .count()
            .get_result(&mut conn)
            .expect("count");
        assert_eq!(tokens, 0);
    }
}

//! Storing a newly issued access token, the refresh token issued with it and the activity entry
//! that records its creation, as one write; for a refresh grant, with the rotation that replaces
//! the old pair in the same write.
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
use crate::refresh_tokens::RefreshToken;
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

/// What a refresh grant's rotation replaces, in the write that stores the new pair: the refresh
/// token presented is marked used, only while it is still unused and its owner active (of
/// concurrent rotations exactly one wins), and its access token is deleted, `deletion` recording
/// that.
#[derive(Debug, Clone, Copy)]
pub struct Rotation<'a> {
    /// The refresh token presented, as read before the write.
    pub used: &'a RefreshToken,
    /// When it is used.
    pub at: Timestamp,
    /// The entry recording the deletion of its access token, when it has one.
    pub deletion: Option<&'a NewActivity<'a>>,
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
            rotation: None,
            token,
            refresh,
            entry,
        }
        .get_result(pg)?),
        DbConnection::Sqlite(_) => one_by_one(conn, token, refresh, entry),
    }
}

/// [`insert`] for a refresh grant: `rotation` first, and the new pair only if it wins. `None`
/// when it lost (the token was used by another request, or its owner deactivated, since it
/// was read): then nothing is written. On PostgreSQL all of it is one statement; on SQLite it
/// runs inside the caller's transaction.
pub fn rotate(
    conn: &mut DbConnection,
    rotation: &Rotation<'_>,
    token: &NewAccessToken<'_>,
    refresh: PairedRefresh<'_>,
    entry: &CreationEntry<'_>,
) -> StorageResult<Option<AccessToken>> {
    match conn {
        DbConnection::Postgres(pg) => Ok(IssueStatement {
            rotation: Some(rotation),
            token,
            refresh: Some(refresh),
            entry,
        }
        .get_result(pg)
        .optional()?),
        DbConnection::Sqlite(_) => {
            if !crate::refresh_tokens::rotate(conn, rotation.used, rotation.at)? {
                return Ok(None);
            }
            if let Some(deletion) = rotation.deletion {
                activity::record(conn, deletion)?;
            }
            one_by_one(conn, token, Some(refresh), entry).map(Some)
        }
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

/// The PostgreSQL statement of [`insert`] and [`rotate`]. Its SQL depends only on which parts
/// it has: diesel caches the prepared statement by that text.
struct IssueStatement<'s, 'a> {
    rotation: Option<&'s Rotation<'a>>,
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
        out.push_sql("WITH ");
        if let Some(rotation) = self.rotation {
            push_rotation(rotation, out.reborrow())?;
        }
        let token = self.token;
        out.push_sql(
            "token AS (INSERT INTO access_tokens \
             (digest, user_id, application_id, description, scope, expires, created, modified) ",
        );
        // A rotation's new token is stored only if the rotation won (`used` has its row).
        out.push_sql(if self.rotation.is_some() {
            "SELECT "
        } else {
            "VALUES ("
        });
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
        out.push_sql(if self.rotation.is_some() {
            " FROM used"
        } else {
            ")"
        });
        out.push_sql(
            " RETURNING id, digest, user_id, application_id, description, scope, expires, \
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

/// A rotation's `used`, `gone` and `gone_entry` clauses, each followed by a comma.
fn push_rotation<'b>(rotation: &'b Rotation<'_>, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
    let used = rotation.used;
    out.push_sql("used AS (");
    crate::refresh_tokens::push_use_once(out.reborrow(), used, &rotation.at, true)?;
    out.push_sql(" RETURNING id), ");
    if let Some(access_token) = &used.access_token_id {
        out.push_sql("gone AS (DELETE FROM access_tokens WHERE id = ");
        out.push_bind_param::<BigInt, _>(access_token)?;
        out.push_sql(" AND EXISTS (SELECT 1 FROM used)), ");
    }
    if let Some(deletion) = rotation.deletion {
        out.push_sql(
            "gone_entry AS (INSERT INTO activity_stream (timestamp, actor_id, operation, \
                 object1, object1_id, object2, object2_id, changes, summary) SELECT ",
        );
        out.push_bind_param::<SqlTimestamp, _>(&deletion.timestamp)?;
        out.push_sql(", ");
        out.push_bind_param::<Nullable<BigInt>, _>(&deletion.actor_id)?;
        out.push_sql(", ");
        out.push_bind_param::<Text, _>(&deletion.operation)?;
        out.push_sql(", ");
        out.push_bind_param::<Text, _>(&deletion.object1)?;
        out.push_sql(", ");
        out.push_bind_param::<BigInt, _>(&deletion.object1_id)?;
        out.push_sql(", ");
        out.push_bind_param::<Text, _>(&deletion.object2)?;
        out.push_sql(", ");
        out.push_bind_param::<Nullable<BigInt>, _>(&deletion.object2_id)?;
        out.push_sql(", ");
        out.push_bind_param::<Text, _>(&deletion.changes)?;
        out.push_sql(", ");
        out.push_bind_param::<Text, _>(&deletion.summary)?;
        out.push_sql(" FROM used), ");
    }
    Ok(())
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

    fn issued_pair(conn: &mut DbConnection, name: &str) -> RefreshToken {
        let digest = format!("refresh-{name}");
        let access = format!("access-{name}");
        let token = NewAccessToken {
            digest: access.as_bytes(),
            ..token(Some(1))
        };
        let refresh = PairedRefresh {
            digest: digest.as_bytes(),
            chain_id: None,
        };
        insert(conn, &token, Some(refresh), &ENTRY).expect("stored");
        crate::refresh_tokens::find_by_digest(conn, digest.as_bytes())
            .expect("find")
            .expect("the refresh token")
    }

    fn count(conn: &mut DbConnection, table: &str) -> i64 {
        #[derive(QueryableByName)]
        struct Count {
            #[diesel(sql_type = BigInt)]
            n: i64,
        }
        diesel::sql_query(format!("SELECT COUNT(*) AS n FROM {table}"))
            .get_result::<Count>(conn)
            .expect("a count")
            .n
    }

    #[test]
    fn a_rotation_replaces_the_pair_once() {
        let mut conn = seeded();
        let used = issued_pair(&mut conn, "old");
        let at = at("2024-07-02 00:00:00");
        let deletion = NewActivity {
            timestamp: at,
            actor_id: None,
            operation: "delete",
            object1: activity::TOKEN,
            object1_id: used.access_token_id.expect("an access token"),
            object2: "",
            object2_id: None,
            changes: "{}",
            summary: "{}",
        };
        let rotation = Rotation {
            used: &used,
            at,
            deletion: Some(&deletion),
        };
        let refresh = PairedRefresh {
            digest: b"refresh-new",
            chain_id: Some(used.chain()),
        };
        let replacement = NewAccessToken {
            digest: b"access-new",
            ..token(Some(1))
        };
        let new = rotate(&mut conn, &rotation, &replacement, refresh, &ENTRY)
            .expect("a rotation")
            .expect("won");
        let old = crate::refresh_tokens::find_by_digest(&mut conn, b"refresh-old")
            .expect("find")
            .expect("the old refresh token");
        assert_eq!((old.revoked, old.access_token_id), (Some(at), None));
        assert_eq!(
            count(&mut conn, "access_tokens"),
            1,
            "the old access token is gone"
        );
        let paired = crate::refresh_tokens::find_by_digest(&mut conn, b"refresh-new")
            .expect("find")
            .expect("the new refresh token");
        assert_eq!(paired.access_token_id, Some(new.id));
        assert_eq!(paired.chain_id, Some(used.id));
        // Two creations and the deletion.
        assert_eq!(count(&mut conn, "activity_stream"), 3);

        // The same token again: the rotation loses and writes nothing.
        let again = NewAccessToken {
            digest: b"access-again",
            ..token(Some(1))
        };
        let refresh = PairedRefresh {
            digest: b"refresh-again",
            chain_id: Some(used.chain()),
        };
        let lost = rotate(&mut conn, &rotation, &again, refresh, &ENTRY).expect("a rotation");
        assert!(lost.is_none());
        assert_eq!(count(&mut conn, "access_tokens"), 1);
        assert_eq!(count(&mut conn, "refresh_tokens"), 2);
        assert_eq!(count(&mut conn, "activity_stream"), 3);
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

//! The secret keys a rotation retired, by key id: a server whose current key is among them
//! (a node the next key never reached) must not seal anything under it.
//!
//! A server checks inside the transaction that wrote the sealed value, after the write, so the
//! check and the write commit together. The rotation marks a key retired before it counts
//! what is still sealed under it; on PostgreSQL the mark first waits for every transaction
//! that wrote to a table of sealed values (a `SHARE` lock on them), so each write either
//! committed before the mark, and the count sees it, or checks after the mark, and is refused.
//! On SQLite writes take turns, which gives the same order.

use diesel::connection::SimpleConnection;
use diesel::prelude::*;

use crate::schema::retired_secret_keys;
use crate::{DbConnection, StorageResult, Timestamp};

/// Marks the key with id `key_id` retired (again, harmlessly, if it was).
pub fn mark(conn: &mut DbConnection, key_id: &str, now: Timestamp) -> StorageResult<()> {
    conn.transaction(|conn| {
        if let DbConnection::Postgres(pg) = conn {
            pg.batch_execute("LOCK TABLE credentials, settings, sso_states IN SHARE MODE")?;
        }
        let row = (
            retired_secret_keys::key_id.eq(key_id),
            retired_secret_keys::retired.eq(now),
        );
        match conn {
            DbConnection::Sqlite(c) => diesel::insert_or_ignore_into(retired_secret_keys::table)
                .values(row)
                .execute(c),
            DbConnection::Postgres(c) => diesel::insert_into(retired_secret_keys::table)
                .values(row)
                .on_conflict_do_nothing()
                .execute(c),
        }?;
        Ok(())
    })
}

/// Whether the key with id `key_id` was retired.
pub fn is_retired(conn: &mut DbConnection, key_id: &str) -> StorageResult<bool> {
    Ok(
        diesel::select(diesel::dsl::exists(retired_secret_keys::table.find(key_id)))
            .get_result(conn)?,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Database;

    #[test]
    fn a_key_marked_retired_is_retired() {
        let mut conn = Database::Sqlite(":memory:".into())
            .connect()
            .expect("a database");
        crate::run_migrations(&mut conn).expect("migrations");
        let now = chrono::Utc::now().naive_utc();
        assert!(!is_retired(&mut conn, "00aa").expect("read"));
        mark(&mut conn, "00aa", now).expect("marked");
        mark(&mut conn, "00aa", now).expect("marked again");
        assert!(is_retired(&mut conn, "00aa").expect("read"));
        assert!(!is_retired(&mut conn, "00bb").expect("read"));
    }
}

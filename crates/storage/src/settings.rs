//! Stored settings: one JSON value per setting name. Every write bumps the `settings` counter
//! of [`crate::revisions`] (a database trigger does it), so each server notices changes on its
//! next request.

use diesel::prelude::*;

use crate::schema::settings;
use crate::{DbConnection, StorageResult, Timestamp};

/// Every stored setting as `(name, JSON text)`, with the revision they belong to.
pub fn load_all(conn: &mut DbConnection) -> StorageResult<(i64, Vec<(String, String)>)> {
    let revision = crate::revisions::current(conn)?.settings;
    let rows = settings::table
        .select((settings::key, settings::value))
        .order(settings::key)
        .load(conn)?;
    Ok((revision, rows))
}

/// Stores (inserts or replaces) a setting's JSON text.
pub fn store(conn: &mut DbConnection, key: &str, value: &str, now: Timestamp) -> StorageResult<()> {
    let updated = diesel::update(settings::table.find(key))
        .set((settings::value.eq(value), settings::modified.eq(now)))
        .execute(conn)?;
    if updated == 0 {
        insert(conn, key, value, now)?;
    }
    Ok(())
}

/// Inserts a setting only if it is not stored yet (seeding from the environment at start).
pub fn store_if_absent(
    conn: &mut DbConnection,
    key: &str,
    value: &str,
    now: Timestamp,
) -> StorageResult<bool> {
    let exists = settings::table.find(key).count().get_result::<i64>(conn)? > 0;
    if exists {
        return Ok(false);
    }
    insert(conn, key, value, now)?;
    Ok(true)
}

/// Inserts a setting that is not stored yet.
fn insert(conn: &mut DbConnection, key: &str, value: &str, now: Timestamp) -> StorageResult<()> {
    diesel::insert_into(settings::table)
        .values((
            settings::key.eq(key),
            settings::value.eq(value),
            settings::modified.eq(now),
        ))
        .execute(conn)?;
    Ok(())
}

/// Removes a stored setting so its default applies again.
pub fn remove(conn: &mut DbConnection, key: &str) -> StorageResult<()> {
    diesel::delete(settings::table.find(key)).execute(conn)?;
    Ok(())
}

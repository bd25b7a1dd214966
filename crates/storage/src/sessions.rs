//! Browser sessions, stored by the SHA-256 digest of their id so a database dump holds no
//! usable session.

use diesel::prelude::*;

use crate::direct_grants::{DirectGrants, GrantedRoleIds};
use crate::schema::{sessions, users};
use crate::users::User;
use crate::{DbConnection, StorageResult, Timestamp};

/// A session row.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = sessions)]
pub struct Session {
    /// Primary key.
    pub id: i64,
    /// SHA-256 of the session id sent in the cookie.
    pub digest: Vec<u8>,
    /// The user logged in.
    pub user_id: i64,
    /// Login time.
    pub created: Timestamp,
    /// The session ends at this time unless a request re-arms it.
    pub expires: Timestamp,
}

/// Stores a new session.
pub fn insert(
    conn: &mut DbConnection,
    digest: &[u8],
    user_id: i64,
    now: Timestamp,
    expires: Timestamp,
) -> StorageResult<()> {
    diesel::insert_into(sessions::table)
        .values((
            sessions::digest.eq(digest),
            sessions::user_id.eq(user_id),
            sessions::created.eq(now),
            sessions::expires.eq(expires),
        ))
        .execute(conn)?;
    Ok(())
}

/// The unexpired session with this digest and its active user, in one indexed query (with
/// the user's direct grants on PostgreSQL: see [`crate::direct_grants`]).
pub fn find_active(
    conn: &mut DbConnection,
    digest: &[u8],
    now: Timestamp,
) -> StorageResult<Option<(Session, User, DirectGrants)>> {
    // Every session-authenticated request runs this: keep it on the statement cache.
    let found = sessions::table
        .inner_join(users::table)
        .filter(sessions::digest.eq(digest))
        .filter(sessions::expires.gt(now))
        .filter(users::is_active.eq(true));
    Ok(crate::local_changes::reading(|| match conn {
        DbConnection::Sqlite(c) => found
            .select((Session::as_select(), User::as_select()))
            .get_result(c)
            .optional()
            .map(|row| row.map(|(session, user)| (session, user, DirectGrants::Unread))),
        DbConnection::Postgres(c) => found
            .select((Session::as_select(), User::as_select(), GrantedRoleIds))
            .get_result(c)
            .optional()
            .map(|row| row.map(|(session, user, ids)| (session, user, DirectGrants::Read(ids)))),
    })?)
}

/// Moves a session's expiry (sliding timeout).
pub fn extend(conn: &mut DbConnection, id: i64, expires: Timestamp) -> StorageResult<()> {
    diesel::update(sessions::table.find(id))
        .set(sessions::expires.eq(expires))
        .execute(conn)?;
    Ok(())
}

/// Ends the session with this digest, if any.
pub fn delete_by_digest(conn: &mut DbConnection, digest: &[u8]) -> StorageResult<bool> {
    Ok(diesel::delete(sessions::table.filter(sessions::digest.eq(digest))).execute(conn)? > 0)
}

/// Ends every session of a user except `keep` (used after a password change).
pub fn delete_for_user_except(
    conn: &mut DbConnection,
    user_id: i64,
    keep: Option<i64>,
) -> StorageResult<usize> {
    let query = sessions::table.filter(sessions::user_id.eq(user_id));
    Ok(match keep {
        Some(keep) => diesel::delete(query.filter(sessions::id.ne(keep))).execute(conn)?,
        None => diesel::delete(query).execute(conn)?,
    })
}

/// Keeps a user's `limit` newest unexpired sessions and deletes the rest; returns how many died.
pub fn enforce_limit(
    conn: &mut DbConnection,
    user_id: i64,
    limit: i64,
    now: Timestamp,
) -> StorageResult<usize> {
    let survivors: Vec<i64> = sessions::table
        .filter(sessions::user_id.eq(user_id))
        .filter(sessions::expires.gt(now))
        .order((sessions::created.desc(), sessions::id.desc()))
        .limit(limit.max(0))
        .select(sessions::id)
        .load(conn)?;
    Ok(diesel::delete(
        sessions::table
            .filter(sessions::user_id.eq(user_id))
            .filter(sessions::id.ne_all(survivors)),
    )
    .execute(conn)?)
}

/// Deletes sessions that expired before `now`; returns how many.
pub fn delete_expired(conn: &mut DbConnection, now: Timestamp) -> StorageResult<usize> {
    Ok(diesel::delete(sessions::table.filter(sessions::expires.le(now))).execute(conn)?)
}

//! Browser sessions, stored by the SHA-256 digest of their id so a database dump holds no
//! usable session.

use diesel::prelude::*;

use crate::roles::RoleRecord;
use crate::schema::{role_members, roles, sessions, users};
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

/// The unexpired session with this digest, its active user and the roles granted to the user
/// directly (in id order), in one indexed query: what a session-authenticated request that
/// misses the principal cache needs to build it, in one round trip.
pub fn find_active_with_roles(
    conn: &mut DbConnection,
    digest: &[u8],
    now: Timestamp,
) -> StorageResult<Option<(Session, User, Vec<RoleRecord>)>> {
    // Every session-authenticated request that misses the principal cache runs this: keep it
    // on the statement cache. One row per role (one with no role for a user who holds none).
    let rows: Vec<(Session, User, Option<RoleRecord>)> = crate::lookup!(conn, |c| {
        sessions::table
            .inner_join(users::table.left_join(role_members::table.inner_join(roles::table)))
            .filter(sessions::digest.eq(digest))
            .filter(sessions::expires.gt(now))
            .filter(users::is_active.eq(true))
            .order(roles::id)
            .select((
                Session::as_select(),
                User::as_select(),
                Option::<RoleRecord>::as_select(),
            ))
            .load(c)
    })?;
    Ok(crate::roles::with_their_roles(rows))
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

#[cfg(test)]
mod tests {
    use diesel::connection::SimpleConnection;

    use crate::test_support::{at, seeded};

    #[test]
    fn an_active_session_comes_with_its_user_s_own_roles_in_one_lookup() {
        let mut conn = seeded();
        conn.batch_execute(
            "INSERT INTO sessions (id, digest, user_id, created, expires) VALUES \
               (1, X'01', 1, '2024-01-01 00:00:00', '2024-02-01 00:00:00');
             INSERT INTO roles (id, kind, object_id, field) VALUES \
               (901, 'job_template', 77, 'execute_role'), (900, 'job_template', 77, 'admin_role');
             INSERT INTO role_members (role_id, user_id) VALUES (901, 1), (900, 1);",
        )
        .expect("rows");
        let now = at("2024-01-15 00:00:00");
        let (session, user, roles) = super::find_active_with_roles(&mut conn, &[1], now)
            .expect("a lookup")
            .expect("an active session");
        assert_eq!((session.id, user.id), (1, 1));
        let ids: Vec<i64> = roles.iter().map(|role| role.id).collect();
        assert_eq!(ids, [900, 901]);
        let later = at("2024-03-01 00:00:00");
        assert!(
            super::find_active_with_roles(&mut conn, &[1], later)
                .expect("a lookup")
                .is_none()
        );
    }
}

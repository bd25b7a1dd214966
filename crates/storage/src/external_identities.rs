//! The link between a user and who an external identity source says it is.

use diesel::prelude::*;

use crate::schema::{external_identities, users};
use crate::users::User;
use crate::{DbConnection, StorageResult, Timestamp};

/// The user `source` knows as `subject` from `issuer`, if one was linked.
pub fn find_user(
    conn: &mut DbConnection,
    source: &str,
    issuer: &str,
    subject: &str,
) -> StorageResult<Option<User>> {
    Ok(external_identities::table
        .inner_join(users::table)
        .filter(external_identities::source.eq(source))
        .filter(external_identities::issuer.eq(issuer))
        .filter(external_identities::subject.eq(subject))
        .select(User::as_select())
        .first(conn)
        .optional()?)
}

/// Links `user` to `subject` of `issuer` in `source`.
pub fn link(
    conn: &mut DbConnection,
    user: i64,
    source: &str,
    issuer: &str,
    subject: &str,
    now: Timestamp,
) -> StorageResult<()> {
    diesel::insert_into(external_identities::table)
        .values((
            external_identities::user_id.eq(user),
            external_identities::source.eq(source),
            external_identities::issuer.eq(issuer),
            external_identities::subject.eq(subject),
            external_identities::created.eq(now),
        ))
        .execute(conn)?;
    Ok(())
}

/// `wanted` if no user has it, else `wanted2`, `wanted3`, … (the first free one).
pub fn free_username(conn: &mut DbConnection, wanted: &str) -> StorageResult<String> {
    let mut candidate = wanted.to_owned();
    let mut suffix = 1u32;
    loop {
        let taken: i64 = users::table
            .filter(users::username.eq(&candidate))
            .count()
            .get_result(conn)?;
        if taken == 0 {
            return Ok(candidate);
        }
        suffix += 1;
        candidate = format!("{wanted}{suffix}");
    }
}

//! The link between a user and who an external identity source says it is.

use diesel::prelude::*;

use crate::schema::{external_identities, users};
use crate::users::{User, UserValues};
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
        .get_result(conn)
        .optional()?)
}

/// The issuers that vouch for `user` in `source` (one, for a user an identity source made).
pub fn issuers_of(conn: &mut DbConnection, user: i64, source: &str) -> StorageResult<Vec<String>> {
    Ok(external_identities::table
        .filter(external_identities::user_id.eq(user))
        .filter(external_identities::source.eq(source))
        .select(external_identities::issuer)
        .load(conn)?)
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

/// `wanted` if no user has it (compared without regard to ASCII case, as SQL `lower()` does
/// on both backends), else `wanted2`, `wanted3`, … (the first free one).
pub fn free_username(conn: &mut DbConnection, wanted: &str) -> StorageResult<String> {
    let mut candidate = wanted.to_owned();
    let mut suffix = 1u32;
    loop {
        // Compared without case: a directory's `bob` never takes, or passes for, a local
        // account `Bob`.
        let taken: i64 = users::table
            .filter(crate::list::lower(users::username).eq(candidate.to_ascii_lowercase()))
            .count()
            .get_result(conn)?;
        if taken == 0 {
            return Ok(candidate);
        }
        suffix += 1;
        candidate = format!("{wanted}{suffix}");
    }
}

/// Who an identity source vouched for, for a first login.
#[derive(Debug, Clone, Copy)]
pub struct Vouched<'a> {
    /// `ldap` or `oidc`.
    pub source: &'a str,
    /// The issuer (`""` for the directory).
    pub issuer: &'a str,
    /// The subject (a DN, lowercased, or the `sub` claim).
    pub subject: &'a str,
    /// The username the source suggests; a numeric suffix is added when it is taken.
    pub username: &'a str,
    /// Given name.
    pub first_name: &'a str,
    /// Family name.
    pub last_name: &'a str,
    /// E-mail address.
    pub email: &'a str,
}

/// Creates the user for a first login by `who` (no local password, marked with its source)
/// and links it. Call inside a write transaction.
pub fn create_user(
    conn: &mut DbConnection,
    who: &Vouched<'_>,
    now: Timestamp,
) -> StorageResult<User> {
    let username = free_username(conn, who.username)?;
    let values = UserValues {
        username: Some(username),
        // No local password: `!` never verifies.
        password: Some(crate::users::UNUSABLE_PASSWORD.into()),
        first_name: Some(who.first_name.into()),
        last_name: Some(who.last_name.into()),
        email: Some(who.email.into()),
        is_superuser: Some(false),
        is_system_auditor: Some(false),
        is_active: Some(true),
        external_account: Some(Some(who.source.into())),
    };
    let user = crate::users::insert(conn, &values, now)?;
    link(conn, user.id, who.source, who.issuer, who.subject, now)?;
    Ok(user)
}

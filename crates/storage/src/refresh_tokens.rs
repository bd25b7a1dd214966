//! Refresh tokens as the refresh grant uses them: found by digest, used once (rotation), and
//! revoked with their descendants when a used one comes back (reuse detection, RFC 9700).
//!
//! Rotation chains: a refresh token issued by a refresh continues the chain of the token it
//! replaces (`chain_id`, the id of the chain's first token). Only an unused token can be
//! rotated and each is used once, so a chain is a line and ids grow along it: the descendants
//! of a token are the tokens of its chain with a greater id.

use diesel::backend::Backend;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, HasSqlType, Text, Timestamp as SqlTimestamp};

use crate::schema::{access_tokens, refresh_tokens, users};
use crate::users::User;
use crate::{DbConnection, StorageResult, Timestamp};

/// A stored refresh token.
#[derive(Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = refresh_tokens)]
pub struct RefreshToken {
    /// Primary key.
    pub id: i64,
    /// The user it acts for.
    pub user_id: i64,
    /// The application it was issued to.
    pub application_id: i64,
    /// The access token issued with it, while that exists and the refresh token is unused.
    pub access_token_id: Option<i64>,
    /// Space-separated scope words.
    pub scope: String,
    /// Creation time; the lifetime counts from it.
    pub created: Timestamp,
    /// When it was used or revoked.
    pub revoked: Option<Timestamp>,
    /// The chain it continues; `None` when it started one.
    pub chain_id: Option<i64>,
}

impl RefreshToken {
    /// The chain this token belongs to, for the token that replaces it.
    pub fn chain(&self) -> i64 {
        self.chain_id.unwrap_or(self.id)
    }
}

impl std::fmt::Debug for RefreshToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RefreshToken")
            .field("id", &self.id)
            .field("user_id", &self.user_id)
            .field("application_id", &self.application_id)
            .field("scope", &self.scope)
            .field("revoked", &self.revoked)
            .finish_non_exhaustive()
    }
}

/// The refresh token with this digest, used or not.
pub fn find_by_digest(
    conn: &mut DbConnection,
    digest: &[u8],
) -> StorageResult<Option<RefreshToken>> {
    Ok(refresh_tokens::table
        .filter(refresh_tokens::digest.eq(digest))
        .select(RefreshToken::as_select())
        .get_result(conn)
        .optional()?)
}

/// A refresh token with what rotating it needs, read at once: its owner, and the description
/// and digest of its access token (`None` once that is gone).
#[derive(Debug, Clone)]
pub struct WithOwner {
    /// The refresh token.
    pub token: RefreshToken,
    /// The user it acts for.
    pub owner: User,
    /// The description of its access token, which the replacing token keeps.
    pub description: Option<String>,
    /// The digest of its access token, which the rotation deletes.
    pub access_digest: Option<Vec<u8>>,
}

/// The refresh token with this digest, used or not, with its owner and its access token's
/// description and digest: the refresh grant's one read before its write transaction.
pub fn find_with_owner(conn: &mut DbConnection, digest: &[u8]) -> StorageResult<Option<WithOwner>> {
    let found = crate::lookup!(conn, |c| refresh_tokens::table
        .inner_join(users::table.on(users::id.eq(refresh_tokens::user_id)))
        .left_join(
            access_tokens::table.on(access_tokens::id
                .nullable()
                .eq(refresh_tokens::access_token_id)),
        )
        .filter(refresh_tokens::digest.eq(digest))
        .select((
            RefreshToken::as_select(),
            User::as_select(),
            access_tokens::description.nullable(),
            access_tokens::digest.nullable(),
        ))
        .get_result(c)
        .optional())?;
    Ok(
        found.map(|(token, owner, description, access_digest)| WithOwner {
            token,
            owner,
            description,
            access_digest,
        }),
    )
}

/// Marks the token used at `now` and deletes its access token, if it is still unused. True
/// for exactly one of several concurrent callers: the update is conditional on `revoked`
/// being null, and the database serialises the writes to one row (PostgreSQL re-checks the
/// condition after waiting for a concurrent update; SQLite has one writer).
pub fn mark_used(
    conn: &mut DbConnection,
    token: &RefreshToken,
    now: Timestamp,
) -> StorageResult<bool> {
    use_once(conn, token, now, false)
}

/// The refresh grant's rotation: [`mark_used`], but only while the token's owner is active
/// and its scope is still the one read. Both are checked by the update itself, so a
/// deactivation or a narrowing of the token committed after it was read still refuses the
/// rotation (the new pair would otherwise carry the scope read before).
pub fn rotate(
    conn: &mut DbConnection,
    token: &RefreshToken,
    now: Timestamp,
) -> StorageResult<bool> {
    use_once(conn, token, now, true)
}

fn use_once(
    conn: &mut DbConnection,
    token: &RefreshToken,
    now: Timestamp,
    owner_must_be_active: bool,
) -> StorageResult<bool> {
    // Both statements run inside every rotation's write transaction (on SQLite, on the one
    // writer): on the backend's statement cache.
    let use_once = UseOnce {
        token,
        at: now,
        owner_must_be_active,
    };
    let won = crate::with_backend!(conn, |c| use_once.execute(c))? == 1;
    if won && let Some(access_token) = token.access_token_id {
        crate::with_backend!(conn, |c| diesel::delete(
            access_tokens::table.find(access_token)
        )
        .execute(c))?;
    }
    Ok(won)
}

/// The conditional `UPDATE` of [`use_once`], written out so that it is prepared once per
/// connection: diesel prepares every `UPDATE` it builds afresh (a changeset's SQL may vary with
/// its values), and parsing and planning it took a share of SQLite's one writer per rotation.
/// Its SQL depends only on whether the owner is checked: diesel caches it by that text.
struct UseOnce<'a> {
    token: &'a RefreshToken,
    at: Timestamp,
    owner_must_be_active: bool,
}

impl QueryId for UseOnce<'_> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<DB> QueryFragment<DB> for UseOnce<'_>
where
    DB: Backend + HasSqlType<BigInt> + HasSqlType<SqlTimestamp> + HasSqlType<Text>,
    i64: ToSql<BigInt, DB>,
    Timestamp: ToSql<SqlTimestamp, DB>,
    String: ToSql<Text, DB>,
{
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        push_use_once(out, self.token, &self.at, self.owner_must_be_active)
    }
}

/// Writes the `UPDATE` that marks `token` used at `at` and drops its access token id, only
/// while it is unused (and, with `owner_must_be_active`, for a rotation, while its owner is
/// active and its scope is still `token.scope`): of
/// [`use_once`], and of the PostgreSQL rotation statement (`crate::issued_tokens`).
pub(crate) fn push_use_once<'b, DB>(
    mut out: AstPass<'_, 'b, DB>,
    token: &'b RefreshToken,
    at: &'b Timestamp,
    owner_must_be_active: bool,
) -> QueryResult<()>
where
    DB: Backend + HasSqlType<BigInt> + HasSqlType<SqlTimestamp> + HasSqlType<Text>,
    i64: ToSql<BigInt, DB>,
    Timestamp: ToSql<SqlTimestamp, DB>,
    String: ToSql<Text, DB>,
{
    out.push_sql("UPDATE refresh_tokens SET revoked = ");
    out.push_bind_param::<SqlTimestamp, _>(at)?;
    out.push_sql(", access_token_id = NULL WHERE id = ");
    out.push_bind_param::<BigInt, _>(&token.id)?;
    out.push_sql(" AND revoked IS NULL");
    if owner_must_be_active {
        out.push_sql(" AND scope = ");
        out.push_bind_param::<Text, String>(&token.scope)?;
        out.push_sql(" AND EXISTS (SELECT 1 FROM users WHERE users.id = ");
        out.push_bind_param::<BigInt, _>(&token.user_id)?;
        out.push_sql(" AND users.is_active)");
    }
    Ok(())
}

impl<Conn> RunQueryDsl<Conn> for UseOnce<'_> {}

/// Gives the live refresh token of access token `access_token` the scope `scope`: an edit of
/// a token's scope applies to what refreshing it issues, so a narrowed token is not widened
/// again by one refresh (nor a widened one narrowed). Returns how many rows changed (0 or 1).
pub fn set_scope_of_access_token(
    conn: &mut DbConnection,
    access_token: i64,
    scope: &str,
) -> StorageResult<usize> {
    Ok(diesel::update(
        refresh_tokens::table
            .filter(refresh_tokens::access_token_id.eq(access_token))
            .filter(refresh_tokens::revoked.is_null()),
    )
    .set(refresh_tokens::scope.eq(scope))
    .execute(conn)?)
}

/// What [`revoke_descendants`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevokedChain {
    /// How many refresh tokens it revoked.
    pub refresh_tokens: usize,
    /// The ids of the access tokens it deleted (for the activity stream).
    pub access_tokens: Vec<i64>,
}

/// Revokes every descendant of `token` (the later tokens of its chain) and deletes their
/// access tokens.
pub fn revoke_descendants(
    conn: &mut DbConnection,
    token: &RefreshToken,
    now: Timestamp,
) -> StorageResult<RevokedChain> {
    let descendants = refresh_tokens::table
        .filter(refresh_tokens::chain_id.eq(token.chain()))
        .filter(refresh_tokens::id.gt(token.id));
    let access: Vec<Option<i64>> = descendants
        .select(refresh_tokens::access_token_id)
        .filter(refresh_tokens::access_token_id.is_not_null())
        .load(conn)?;
    let access: Vec<i64> = access.into_iter().flatten().collect();
    let revoked = diesel::update(descendants.filter(refresh_tokens::revoked.is_null()))
        .set((
            refresh_tokens::revoked.eq(Some(now)),
            refresh_tokens::access_token_id.eq(None::<i64>),
        ))
        .execute(conn)?;
    if !access.is_empty() {
        diesel::delete(access_tokens::table.filter(access_tokens::id.eq_any(&access)))
            .execute(conn)?;
    }
    Ok(RevokedChain {
        refresh_tokens: revoked,
        access_tokens: access,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{at, seeded};
    use crate::tokens::{NewAccessToken, NewRefreshToken, insert, insert_refresh};

    /// Issues an access token and its refresh token (continuing `chain`); returns the latter.
    fn issue(conn: &mut DbConnection, name: &str, chain: Option<i64>) -> RefreshToken {
        let created = at("2024-07-01 00:00:00");
        let access = insert(
            conn,
            &NewAccessToken {
                digest: format!("access-{name}").as_bytes(),
                user_id: 1,
                application_id: Some(1),
                description: "",
                scope: "write",
                expires: at("2030-01-01 00:00:00"),
                created,
                modified: created,
            },
        )
        .expect("an access token");
        let digest = format!("refresh-{name}");
        insert_refresh(
            conn,
            &NewRefreshToken {
                digest: digest.as_bytes(),
                user_id: 1,
                application_id: 1,
                access_token_id: Some(access.id),
                scope: "write",
                created,
                chain_id: chain,
            },
        )
        .expect("a refresh token");
        find_by_digest(conn, digest.as_bytes())
            .expect("find")
            .expect("the refresh token")
    }

    fn access_tokens(conn: &mut DbConnection) -> i64 {
        access_tokens::table
            .count()
            .get_result(conn)
            .expect("a count")
    }

    #[test]
    fn a_token_is_used_once_and_loses_its_access_token() {
        let mut conn = seeded();
        let token = issue(&mut conn, "a", None);
        assert_eq!(token.chain(), token.id);
        let now = at("2024-07-02 00:00:00");
        assert!(mark_used(&mut conn, &token, now).expect("mark"));
        assert_eq!(access_tokens(&mut conn), 0);
        assert!(!mark_used(&mut conn, &token, now).expect("mark again"));
        let used = find_by_digest(&mut conn, b"refresh-a")
            .expect("find")
            .expect("still stored");
        assert_eq!(used.revoked, Some(now));
        assert_eq!(used.access_token_id, None);
    }

    #[test]
    fn rotation_reads_owner_and_description_and_needs_an_active_owner() {
        let mut conn = seeded();
        let token = issue(&mut conn, "a", None);
        let found = find_with_owner(&mut conn, b"refresh-a")
            .expect("find")
            .expect("found");
        assert_eq!(found.token, token);
        assert_eq!(found.owner.id, 1);
        assert_eq!(found.description.as_deref(), Some(""));
        assert!(find_with_owner(&mut conn, b"nope").expect("find").is_none());

        // A deactivated owner: the rotation is refused and changes nothing.
        let now = at("2024-07-02 00:00:00");
        diesel::update(users::table.find(1))
            .set(users::is_active.eq(false))
            .execute(&mut conn)
            .expect("deactivate");
        assert!(!rotate(&mut conn, &token, now).expect("rotate"));
        assert_eq!(access_tokens(&mut conn), 1);
        // Active again: it rotates once, and its access token is gone.
        diesel::update(users::table.find(1))
            .set(users::is_active.eq(true))
            .execute(&mut conn)
            .expect("reactivate");
        assert!(rotate(&mut conn, &token, now).expect("rotate"));
        assert!(!rotate(&mut conn, &token, now).expect("rotate again"));
        assert_eq!(access_tokens(&mut conn), 0);
        let used = find_with_owner(&mut conn, b"refresh-a")
            .expect("find")
            .expect("still stored");
        assert_eq!(used.token.revoked, Some(now));
        assert_eq!(used.description, None, "its access token is gone");
    }

    #[test]
    fn reuse_revokes_only_the_descendants() {
        let mut conn = seeded();
        let first = issue(&mut conn, "first", None);
        let other_chain = issue(&mut conn, "other", None);
        let now = at("2024-07-02 00:00:00");
        mark_used(&mut conn, &first, now).expect("rotate");
        let second = issue(&mut conn, "second", Some(first.chain()));
        mark_used(&mut conn, &second, now).expect("rotate");
        let third = issue(&mut conn, "third", Some(second.chain()));
        assert_eq!(third.chain_id, Some(first.id));

        // The first token comes back: the second (used already) and the third go.
        let revoked = revoke_descendants(&mut conn, &first, now).expect("revoke");
        assert_eq!(revoked.refresh_tokens, 1, "only the third was still unused");
        assert_eq!(
            revoked.access_tokens,
            vec![third.access_token_id.expect("an access token")]
        );
        let third = find_by_digest(&mut conn, b"refresh-third")
            .expect("find")
            .expect("kept");
        assert_eq!(third.revoked, Some(now));
        // The other chain's access token is the only one left.
        assert_eq!(access_tokens(&mut conn), 1);
        let other = find_by_digest(&mut conn, b"refresh-other")
            .expect("find")
            .expect("kept");
        assert_eq!(other.revoked, None);
        assert_eq!(other.access_token_id, other_chain.access_token_id);
    }
}

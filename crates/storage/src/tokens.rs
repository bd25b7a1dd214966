//! OAuth 2 access tokens and their refresh tokens. Both are stored only as SHA-256 digests of
//! their values, so a database dump holds no usable credential.

use acs_authz::TokenVisibility;
use diesel::prelude::*;

use crate::direct_grants::{DirectGrants, GrantedRoleIds};
use crate::list::{ListError, ListParams, Page};
use crate::schema::{access_tokens, applications, organization_roles, refresh_tokens, users};
use crate::users::User;
use crate::{Backend, DbConnection, StorageResult, Timestamp};

/// An access token row.
#[derive(Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = access_tokens)]
pub struct AccessToken {
    /// Primary key.
    pub id: i64,
    /// SHA-256 of the token value.
    pub digest: Vec<u8>,
    /// The user the token acts for.
    pub user_id: i64,
    /// The application it was issued to; `None` for a personal access token.
    pub application_id: Option<i64>,
    /// Free text.
    pub description: String,
    /// Space-separated scope words as stored.
    pub scope: String,
    /// The token stops working at this time.
    pub expires: Timestamp,
    /// Creation time.
    pub created: Timestamp,
    /// Last modification time.
    pub modified: Timestamp,
}

impl std::fmt::Debug for AccessToken {
    // The digest stays out of logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AccessToken")
            .field("id", &self.id)
            .field("user_id", &self.user_id)
            .field("application_id", &self.application_id)
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

/// The values of a new access token.
#[derive(Debug, Clone, Insertable)]
#[diesel(table_name = access_tokens)]
#[diesel(treat_none_as_default_value = false)]
pub struct NewAccessToken<'a> {
    /// Digest of the generated value.
    pub digest: &'a [u8],
    /// Owner.
    pub user_id: i64,
    /// Application, or `None` for a personal token.
    pub application_id: Option<i64>,
    /// Free text.
    pub description: &'a str,
    /// Validated scope.
    pub scope: &'a str,
    /// Expiry.
    pub expires: Timestamp,
    /// Creation time.
    pub created: Timestamp,
    /// Same as `created`.
    pub modified: Timestamp,
}

/// The values of a new refresh token, bound to an access token.
#[derive(Debug, Clone, Insertable)]
#[diesel(table_name = refresh_tokens)]
#[diesel(treat_none_as_default_value = false)]
pub struct NewRefreshToken<'a> {
    /// Digest of the generated value.
    pub digest: &'a [u8],
    /// Owner.
    pub user_id: i64,
    /// Application.
    pub application_id: i64,
    /// The access token it renews.
    pub access_token_id: Option<i64>,
    /// The scope a refresh grants.
    pub scope: &'a str,
    /// Creation time (expiry is counted from it).
    pub created: Timestamp,
    /// The rotation chain it continues (the id of the chain's first refresh token); `None`
    /// for a token that starts a chain.
    pub chain_id: Option<i64>,
}

/// A partial update; only description and scope ever change.
#[derive(Debug, Clone, Default, AsChangeset)]
#[diesel(table_name = access_tokens)]
pub struct TokenChanges {
    /// New description.
    pub description: Option<String>,
    /// New scope.
    pub scope: Option<String>,
    /// Modification time.
    pub modified: Option<Timestamp>,
}

/// What a token record shows of its owner and application.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRow {
    /// The token.
    pub token: AccessToken,
    /// `(id, username, first_name, last_name)` of the owner.
    pub user: (i64, String, String, String),
    /// `(id, name, client_id)` of the application.
    pub application: Option<(i64, String, String)>,
}

/// The unexpired token with this digest and its active user, in one indexed query (with the
/// user's direct grants on PostgreSQL: see [`crate::direct_grants`]).
pub fn find_active(
    conn: &mut DbConnection,
    digest: &[u8],
    now: Timestamp,
) -> StorageResult<Option<(AccessToken, User, DirectGrants)>> {
    // Every bearer-authenticated request that misses the principal cache runs this.
    let found = access_tokens::table
        .inner_join(users::table)
        .filter(access_tokens::digest.eq(digest))
        .filter(access_tokens::expires.gt(now))
        .filter(users::is_active.eq(true));
    Ok(crate::local_changes::reading(|| match conn {
        DbConnection::Sqlite(c) => found
            .select((AccessToken::as_select(), User::as_select()))
            .get_result(c)
            .optional()
            .map(|row| row.map(|(token, user)| (token, user, DirectGrants::Unread))),
        DbConnection::Postgres(c) => found
            .select((AccessToken::as_select(), User::as_select(), GrantedRoleIds))
            .get_result(c)
            .optional()
            .map(|row| row.map(|(token, user, ids)| (token, user, DirectGrants::Read(ids)))),
    })?)
}

/// The token with this digest, whatever its expiry or its owner's state (revocation and
/// introspection judge those themselves).
pub fn find_by_digest(
    conn: &mut DbConnection,
    digest: &[u8],
) -> StorageResult<Option<AccessToken>> {
    Ok(access_tokens::table
        .filter(access_tokens::digest.eq(digest))
        .select(AccessToken::as_select())
        .get_result(conn)
        .optional()?)
}

/// Whose access tokens a deletion takes with it (foreign keys cascade to them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenHolder {
    /// The tokens of this user, personal and application tokens alike.
    User(i64),
    /// The tokens issued to this application.
    Application(i64),
    /// The tokens issued to any application of this organization.
    Organization(i64),
}

/// The ids of the access tokens `holder` has: read before a deletion cascades to them, so
/// each can be recorded as deleted.
pub fn ids_held_by(conn: &mut DbConnection, holder: TokenHolder) -> StorageResult<Vec<i64>> {
    let query = access_tokens::table.select(access_tokens::id).into_boxed();
    let query = match holder {
        TokenHolder::User(id) => query.filter(access_tokens::user_id.eq(id)),
        TokenHolder::Application(id) => query.filter(access_tokens::application_id.eq(id)),
        TokenHolder::Organization(id) => query.filter(
            access_tokens::application_id.eq_any(
                applications::table
                    .filter(applications::organization_id.eq(id))
                    .select(applications::id.nullable()),
            ),
        ),
    };
    Ok(query.order(access_tokens::id).load(conn)?)
}

/// Finds a token by primary key.
pub fn find(conn: &mut DbConnection, id: i64) -> StorageResult<AccessToken> {
    Ok(access_tokens::table
        .find(id)
        .select(AccessToken::as_select())
        .get_result(conn)?)
}

/// Stores an access token.
///
/// Every grant and token creation runs this inside its write transaction (on SQLite, on the
/// one writer): it goes through the backend's statement cache.
pub fn insert(conn: &mut DbConnection, token: &NewAccessToken<'_>) -> StorageResult<AccessToken> {
    Ok(crate::with_backend!(conn, |c| diesel::insert_into(
        access_tokens::table
    )
    .values(token)
    .returning(access_tokens::all_columns)
    .get_result(c))?)
}

/// Stores a refresh token (on the backend's statement cache, as [`insert`]).
pub fn insert_refresh(conn: &mut DbConnection, token: &NewRefreshToken<'_>) -> StorageResult<()> {
    crate::with_backend!(conn, |c| diesel::insert_into(refresh_tokens::table)
        .values(token)
        .execute(c))?;
    Ok(())
}

/// Applies `changes` and returns the updated row.
pub fn update(
    conn: &mut DbConnection,
    id: i64,
    changes: &TokenChanges,
) -> StorageResult<AccessToken> {
    Ok(diesel::update(access_tokens::table.find(id))
        .set(changes)
        .returning(access_tokens::all_columns)
        .get_result(conn)?)
}

/// Revokes a token: deletes it and marks its refresh token revoked, so neither works again.
/// False if there was no such token.
pub fn revoke(conn: &mut DbConnection, id: i64, now: Timestamp) -> StorageResult<bool> {
    diesel::update(
        refresh_tokens::table
            .filter(refresh_tokens::access_token_id.eq(id))
            .filter(refresh_tokens::revoked.is_null()),
    )
    .set(refresh_tokens::revoked.eq(now))
    .execute(conn)?;
    Ok(diesel::delete(access_tokens::table.find(id)).execute(conn)? > 0)
}

/// Owner and application summaries of `tokens`, in the same order.
pub fn rows(conn: &mut DbConnection, tokens: Vec<AccessToken>) -> StorageResult<Vec<TokenRow>> {
    let user_ids: Vec<i64> = tokens.iter().map(|t| t.user_id).collect();
    let app_ids: Vec<i64> = tokens.iter().filter_map(|t| t.application_id).collect();
    let owners = crate::summaries::users(conn, &user_ids)?;
    let apps: std::collections::HashMap<i64, (i64, String, String)> = if app_ids.is_empty() {
        Default::default()
    } else {
        applications::table
            .filter(applications::id.eq_any(&app_ids))
            .select((
                applications::id,
                applications::name,
                applications::client_id,
            ))
            .load::<(i64, String, String)>(conn)?
            .into_iter()
            .map(|row| (row.0, row))
            .collect()
    };
    Ok(tokens
        .into_iter()
        .map(|token| TokenRow {
            user: owners.get(&token.user_id).cloned().unwrap_or_default(),
            application: token.application_id.and_then(|id| apps.get(&id).cloned()),
            token,
        })
        .collect())
}

/// Which tokens a list covers besides the caller's visibility.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TokenScope {
    /// Only tokens of this user.
    pub user: Option<i64>,
    /// Only tokens of this application.
    pub application: Option<i64>,
    /// `Some(true)`: only personal tokens; `Some(false)`: only application tokens.
    pub personal: Option<bool>,
}

type TokensQuery<'a> = access_tokens::BoxedQuery<'a, Backend>;

fn visible<'a>(query: TokensQuery<'a>, visibility: &TokenVisibility) -> TokensQuery<'a> {
    match visibility {
        TokenVisibility::All => query,
        // One condition on `user_id`, never `user_id = me OR user_id IN (…)`: with the OR
        // PostgreSQL could not use the `user_id` index, and a list of 1 000 tokens among a
        // million took over a second.
        TokenVisibility::Limited {
            user_id,
            administered,
        } if administered.is_empty() => query.filter(access_tokens::user_id.eq(*user_id)),
        // An admin holds a role in every organization it administers, so the members of
        // those organizations include the admin.
        TokenVisibility::Limited { administered, .. } => {
            let managed = organization_roles::table
                .filter(organization_roles::organization_id.eq_any(administered.clone()))
                .select(organization_roles::user_id);
            query.filter(access_tokens::user_id.eq_any(managed))
        }
    }
}

/// The query of the tokens `visibility` allows, within `scope`.
fn visible_query<'a>(visibility: &TokenVisibility, scope: TokenScope) -> TokensQuery<'a> {
    let mut query = visible(access_tokens::table.into_boxed(), visibility);
    if let Some(user) = scope.user {
        query = query.filter(access_tokens::user_id.eq(user));
    }
    if let Some(app) = scope.application {
        query = query.filter(access_tokens::application_id.eq(app));
    }
    match scope.personal {
        Some(true) => query.filter(access_tokens::application_id.is_null()),
        Some(false) => query.filter(access_tokens::application_id.is_not_null()),
        None => query,
    }
}

crate::list_fields! {
    table: access_tokens;
    search: [access_tokens::description];
    fields: {
        "id" => integer(access_tokens::id),
        "user" => integer(access_tokens::user_id),
        "application" => nullable_integer(access_tokens::application_id),
        "description" => text(access_tokens::description),
        "scope" => text(access_tokens::scope),
        "expires" => timestamp(access_tokens::expires),
        "created" => timestamp(access_tokens::created),
        "modified" => timestamp(access_tokens::modified),
    }
    // The token values: filtering would let a caller probe for them.
    secret: ["token", "refresh_token"]
}

/// Lists the tokens `visibility` allows within `scope`, as `params` ask.
pub fn list(
    conn: &mut DbConnection,
    visibility: &TokenVisibility,
    scope: TokenScope,
    params: &ListParams,
) -> StorageResult<Result<Page<AccessToken>, ListError>> {
    crate::list_page!(
        conn,
        params,
        || filtered(visible_query(visibility, scope), params),
        ordered,
        AccessToken::as_select()
    )
}

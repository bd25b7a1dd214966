//! Users: rows, writes, lookups and the visibility-filtered list.

use std::collections::HashMap;

use acs_authz::{Id, UserVisibility};
use diesel::prelude::*;

use crate::list::{ListError, ListParams, Page};
use crate::schema::{organization_roles, users};
use crate::{Backend, DbConnection, StorageResult, Timestamp};

/// The stored password of an account that has none: no password verifies against it (a
/// directory account, or one created without a password until one is set).
pub const UNUSABLE_PASSWORD: &str = "!";

/// A user row. The default is an empty, inactive user (id 0, no password, created at the
/// epoch), for fixtures to fill in.
#[derive(Clone, Default, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = users)]
pub struct User {
    /// Primary key.
    pub id: i64,
    /// Unique, case-sensitive login name.
    pub username: String,
    /// Django-format password hash (or an unusable marker).
    pub password: String,
    /// Given name.
    pub first_name: String,
    /// Family name.
    pub last_name: String,
    /// E-mail address.
    pub email: String,
    /// Superusers may do everything.
    pub is_superuser: bool,
    /// System auditors may read everything.
    pub is_system_auditor: bool,
    /// Inactive users cannot authenticate.
    pub is_active: bool,
    /// `ldap` or `oidc` for users created by an external identity source.
    pub external_account: Option<String>,
    /// Last successful session login.
    pub last_login: Option<Timestamp>,
    /// Creation time.
    pub created: Timestamp,
    /// Last modification time.
    pub modified: Timestamp,
}

impl std::fmt::Debug for User {
    // The password hash stays out of logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("User")
            .field("id", &self.id)
            .field("username", &self.username)
            .field("is_superuser", &self.is_superuser)
            .field("is_active", &self.is_active)
            .finish_non_exhaustive()
    }
}

/// The values a user is created or changed with: a `None` takes the column's default on
/// insert and leaves the column as it is on update.
#[derive(Debug, Clone, Default, Insertable, AsChangeset)]
#[diesel(table_name = users)]
pub struct UserValues {
    /// Login name.
    pub username: Option<String>,
    /// Password hash.
    pub password: Option<String>,
    /// Given name.
    pub first_name: Option<String>,
    /// Family name.
    pub last_name: Option<String>,
    /// E-mail address.
    pub email: Option<String>,
    /// Superuser flag.
    pub is_superuser: Option<bool>,
    /// System auditor flag.
    pub is_system_auditor: Option<bool>,
    /// Active flag.
    pub is_active: Option<bool>,
    /// External identity source, if any; set only when the user is made.
    pub external_account: Option<Option<String>>,
}

/// The organizations a user administers and belongs to as a direct member.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Memberships {
    /// Organizations administered.
    pub admin_of: Vec<Id>,
    /// Organizations joined as a member.
    pub member_of: Vec<Id>,
}

crate::row_functions!(users, User, timed UserValues);

/// Finds a user by exact username.
pub fn find_by_username(conn: &mut DbConnection, username: &str) -> StorageResult<Option<User>> {
    // Every Basic-authenticated request runs this: keep it on the backend's statement cache.
    Ok(crate::lookup!(conn, |c| users::table
        .filter(users::username.eq(username))
        .select(User::as_select())
        .get_result(c)
        .optional())?)
}

/// Records a successful login.
pub fn touch_last_login(conn: &mut DbConnection, id: i64, now: Timestamp) -> StorageResult<()> {
    diesel::update(users::table.find(id))
        .set(users::last_login.eq(now))
        .execute(conn)?;
    Ok(())
}

/// True if any active superuser exists.
pub fn any_superuser(conn: &mut DbConnection) -> StorageResult<bool> {
    Ok(diesel::select(diesel::dsl::exists(
        users::table.filter(users::is_superuser.eq(true).and(users::is_active.eq(true))),
    ))
    .get_result(conn)?)
}

/// The memberships of each of `ids` (users without any are absent from the map).
pub fn memberships(
    conn: &mut DbConnection,
    ids: &[i64],
) -> StorageResult<HashMap<i64, Memberships>> {
    let rows: Vec<(i64, i64, String)> = organization_roles::table
        .filter(organization_roles::user_id.eq_any(ids))
        .select((
            organization_roles::user_id,
            organization_roles::organization_id,
            organization_roles::role,
        ))
        .order((
            organization_roles::user_id,
            organization_roles::organization_id,
        ))
        .load(conn)?;
    let mut map: HashMap<i64, Memberships> = HashMap::new();
    for (user_id, org_id, role) in rows {
        let entry = map.entry(user_id).or_default();
        if role == crate::organizations::ADMIN_ROLE {
            entry.admin_of.push(org_id);
        } else {
            entry.member_of.push(org_id);
        }
    }
    Ok(map)
}

/// The memberships of one user (a static query: it runs on every authenticated request).
pub fn memberships_of(conn: &mut DbConnection, id: i64) -> StorageResult<Memberships> {
    let rows: Vec<(i64, String)> = crate::lookup!(conn, |c| organization_roles::table
        .filter(organization_roles::user_id.eq(id))
        .select((
            organization_roles::organization_id,
            organization_roles::role
        ))
        .order(organization_roles::organization_id)
        .load(c))?;
    let mut memberships = Memberships::default();
    for (org_id, role) in rows {
        if role == crate::organizations::ADMIN_ROLE {
            memberships.admin_of.push(org_id);
        } else {
            memberships.member_of.push(org_id);
        }
    }
    Ok(memberships)
}

type UsersQuery<'a> = users::BoxedQuery<'a, Backend>;

/// Restricts a query to the users `visibility` allows.
pub(crate) fn visible<'a>(query: UsersQuery<'a>, visibility: &UserVisibility) -> UsersQuery<'a> {
    match visibility {
        UserVisibility::All => query,
        UserVisibility::Related {
            user_id,
            organizations,
            superusers,
        } => {
            let related = organization_roles::table
                .filter(organization_roles::organization_id.eq_any(organizations.clone()))
                .select(organization_roles::user_id);
            query.filter(
                users::id
                    .eq(*user_id)
                    .or(users::is_superuser
                        .eq(*superusers)
                        .and(users::is_superuser.eq(true)))
                    .or(users::id.eq_any(related)),
            )
        }
    }
}

crate::list_fields! {
    table: users;
    search: [users::username, users::first_name, users::last_name, users::email];
    fields: {
        "id" => integer(users::id),
        "username" => text(users::username),
        "first_name" => text(users::first_name),
        "last_name" => text(users::last_name),
        "email" => text(users::email),
        "is_superuser" => boolean(users::is_superuser),
        "is_system_auditor" => boolean(users::is_system_auditor),
        "created" => timestamp(users::created),
        "modified" => timestamp(users::modified),
    }
    filter_only: {
        "is_active" => boolean(users::is_active),
    }
    secret: ["password"]
}

/// Lists the users `visibility` allows, as `params` ask; `within` restricts the list to the
/// Which users a list is limited to, besides the caller's visibility.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Within<'a> {
    /// The members with `role` (`admin`, `member`) of an organization.
    Organization(i64, &'a str),
    /// The users granted a role directly.
    Role(i64),
    /// The users granted any of these roles directly, and every superuser and system
    /// auditor: who has access to an object these roles give roles on.
    Access(&'a [i64]),
}

/// members (`Some((org, role))`) of an organization.
pub fn list(
    conn: &mut DbConnection,
    visibility: &UserVisibility,
    within: Option<Within<'_>>,
    params: &ListParams,
) -> StorageResult<Result<Page<User>, ListError>> {
    let base = || {
        let query = visible(users::table.into_boxed(), visibility);
        match within {
            Some(Within::Organization(org, role)) => query.filter(
                users::id.eq_any(
                    organization_roles::table
                        .filter(organization_roles::organization_id.eq(org))
                        .filter(organization_roles::role.eq(role.to_owned()))
                        .select(organization_roles::user_id),
                ),
            ),
            Some(Within::Role(role)) => query.filter(
                users::id.eq_any(
                    crate::schema::role_members::table
                        .filter(crate::schema::role_members::role_id.eq(role))
                        .select(crate::schema::role_members::user_id),
                ),
            ),
            Some(Within::Access(roles)) => query.filter(
                users::id
                    .eq_any(
                        crate::schema::role_members::table
                            .filter(crate::schema::role_members::role_id.eq_any(roles.to_vec()))
                            .select(crate::schema::role_members::user_id),
                    )
                    .or(users::is_superuser)
                    .or(users::is_system_auditor),
            ),
            None => query,
        }
    };
    crate::list_page!(
        conn,
        params,
        || filtered(base(), params),
        ordered,
        User::as_select()
    )
}

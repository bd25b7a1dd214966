//! Organizations and their admin and member roles.

use acs_authz::roles::{ResourceKind, RoleField};
use acs_authz::{OrganizationRole, OrganizationVisibility};
use diesel::prelude::*;

use crate::list::{ListError, ListParams, Page};
use crate::schema::{organization_roles, organizations};
use crate::{Backend, DbConnection, StorageResult, Timestamp};

/// Stored value of [`OrganizationRole::Admin`].
pub const ADMIN_ROLE: &str = "admin";
/// Stored value of [`OrganizationRole::Member`].
pub const MEMBER_ROLE: &str = "member";

/// The stored name of a role.
pub fn role_name(role: OrganizationRole) -> &'static str {
    match role {
        OrganizationRole::Admin => ADMIN_ROLE,
        OrganizationRole::Member => MEMBER_ROLE,
    }
}

/// An organization row.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = organizations)]
pub struct Organization {
    /// Primary key.
    pub id: i64,
    /// Unique name.
    pub name: String,
    /// Free text.
    pub description: String,
    /// Creation time.
    pub created: Timestamp,
    /// Last modification time.
    pub modified: Timestamp,
}

/// The values an organization is created or changed with: a `None` takes the column's default
/// on insert and leaves the column as it is on update.
#[derive(Debug, Clone, Default, Insertable, AsChangeset)]
#[diesel(table_name = organizations)]
pub struct OrganizationValues {
    /// Unique name.
    pub name: Option<String>,
    /// Free text.
    pub description: Option<String>,
}

/// Member and admin counts shown in an organization's summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RoleCounts {
    /// Direct members.
    pub users: i64,
    /// Admins.
    pub admins: i64,
}

crate::row_functions!(organizations, Organization, timed OrganizationValues);

/// The organization named `name` (names are unique).
pub fn find_named(conn: &mut DbConnection, name: &str) -> StorageResult<Option<Organization>> {
    Ok(organizations::table
        .filter(organizations::name.eq(name))
        .select(Organization::as_select())
        .get_result(conn)
        .optional()?)
}

/// The organization named `name`, made at `now` when there is none; true if it was made.
/// Two writers making the same one at once both get it: the insert runs in a savepoint, and
/// the loser of the race finds the winner's row.
pub fn find_or_create_named(
    conn: &mut DbConnection,
    name: &str,
    now: Timestamp,
) -> StorageResult<(Organization, bool)> {
    if let Some(found) = find_named(conn, name)? {
        return Ok((found, false));
    }
    let values = OrganizationValues {
        name: Some(name.to_owned()),
        ..OrganizationValues::default()
    };
    match conn.transaction(|conn| insert(conn, &values, now)) {
        Ok(made) => Ok((made, true)),
        Err(crate::StorageError::Conflict(_)) => find_named(conn, name)?
            .map(|found| (found, false))
            .ok_or(crate::StorageError::NotFound),
        Err(other) => Err(other),
    }
}

/// Gives `user_id` the role on `org_id`; doing it twice is harmless. True if it was added.
pub fn add_role(
    conn: &mut DbConnection,
    org_id: i64,
    user_id: i64,
    role: OrganizationRole,
) -> StorageResult<bool> {
    let role = participation_role(conn, org_id, role)?;
    crate::roles::grant(conn, role, user_id)
}

/// Takes the role away; true if the user had it.
pub fn remove_role(
    conn: &mut DbConnection,
    org_id: i64,
    user_id: i64,
    role: OrganizationRole,
) -> StorageResult<bool> {
    let role = participation_role(conn, org_id, role)?;
    crate::roles::revoke(conn, role, user_id)
}

/// The id of the organization's admin or member role.
fn participation_role(
    conn: &mut DbConnection,
    org_id: i64,
    role: OrganizationRole,
) -> StorageResult<i64> {
    let field = match role {
        OrganizationRole::Admin => RoleField::Admin,
        OrganizationRole::Member => RoleField::Member,
    };
    crate::roles::of_field(conn, ResourceKind::Organization, org_id, field)?
        .map(|record| record.id)
        .ok_or(crate::StorageError::NotFound)
}

/// Member and admin counts of each organization in `ids`.
pub fn role_counts(
    conn: &mut DbConnection,
    ids: &[i64],
) -> StorageResult<std::collections::HashMap<i64, RoleCounts>> {
    let rows: Vec<(i64, String)> = organization_roles::table
        .filter(organization_roles::organization_id.eq_any(ids))
        .select((
            organization_roles::organization_id,
            organization_roles::role,
        ))
        .load(conn)?;
    let mut counts = std::collections::HashMap::new();
    for (org, role) in rows {
        let entry: &mut RoleCounts = counts.entry(org).or_default();
        if role == ADMIN_ROLE {
            entry.admins += 1;
        } else {
            entry.users += 1;
        }
    }
    Ok(counts)
}

type OrganizationsQuery<'a> = organizations::BoxedQuery<'a, Backend>;

fn visible<'a>(
    query: OrganizationsQuery<'a>,
    visibility: &OrganizationVisibility,
) -> OrganizationsQuery<'a> {
    match visibility {
        OrganizationVisibility::All => query,
        OrganizationVisibility::Only(ids) => query.filter(organizations::id.eq_any(ids.clone())),
    }
}

crate::list_fields! {
    table: organizations;
    search: [organizations::name, organizations::description];
    fields: {
        "id" => integer(organizations::id),
        "name" => text(organizations::name),
        "description" => text(organizations::description),
        "created" => timestamp(organizations::created),
        "modified" => timestamp(organizations::modified),
    }
}

/// Lists the organizations `visibility` allows, as `params` ask.
pub fn list(
    conn: &mut DbConnection,
    visibility: &OrganizationVisibility,
    params: &ListParams,
) -> StorageResult<Result<Page<Organization>, ListError>> {
    crate::list_page!(
        conn,
        params,
        || filtered(
            visible(organizations::table.into_boxed(), visibility),
            params
        ),
        ordered,
        Organization::as_select()
    )
}

//! Role records and their direct members.
//!
//! Every organization, credential, project, inventory and job template has one role row per
//! role field, made and removed with it by database triggers (see the `roles` migration);
//! the two system roles are rows of their own. Which role implies which is not stored: it is
//! the domain's graph (`acs_authz::roles`). An organization's admin and member roles hold
//! the memberships the `organization_roles` view shows.

use acs_authz::roles::{Grants, ResourceKind, Role, RoleField};
use acs_authz::{CredentialVisibility, ObjectVisibility, SeenObjects, VisibleRoles};
use diesel::prelude::*;
use diesel::sql_types::{Bool, Nullable};

use crate::direct_grants::DirectGrants;
use crate::list::{ListError, ListParams, Page};
use crate::schema::{
    credentials, inventories, job_templates, projects, role_members, roles, teams,
};
use crate::{Backend, DbConnection, StorageResult};

/// The `kind` of the two system roles.
pub const SYSTEM: &str = "system";

/// A stored role.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = roles)]
pub struct RoleRecord {
    /// The role's id, as the API shows it.
    pub id: i64,
    /// The owning object's kind (`"job_template"`), or [`SYSTEM`].
    pub kind: String,
    /// The owning object; `None` for a system role.
    pub object_id: Option<i64>,
    /// The role field (`"execute_role"`), or the system role's name.
    pub field: String,
}

impl RoleRecord {
    /// The role in the domain's terms; `None` for a system role (or a row this version does
    /// not know).
    pub fn role(&self) -> Option<Role> {
        Some(Role {
            kind: ResourceKind::parse(&self.kind)?,
            object: self.object_id?,
            field: RoleField::parse(&self.field)?,
        })
    }
}

/// The role with id `id`.
pub fn find(conn: &mut DbConnection, id: i64) -> StorageResult<Option<RoleRecord>> {
    Ok(roles::table
        .find(id)
        .select(RoleRecord::as_select())
        .get_result(conn)
        .optional()?)
}

/// The role `field` of the object `kind` `object_id`.
pub fn of_field(
    conn: &mut DbConnection,
    kind: ResourceKind,
    object_id: i64,
    field: RoleField,
) -> StorageResult<Option<RoleRecord>> {
    Ok(roles::table
        .filter(roles::kind.eq(kind.type_name()))
        .filter(roles::object_id.eq(object_id))
        .filter(roles::field.eq(field.name()))
        .select(RoleRecord::as_select())
        .get_result(conn)
        .optional()?)
}

/// The roles of the objects `ids` of `kind`, by object, each object's in declaration order.
pub fn of_objects(
    conn: &mut DbConnection,
    kind: ResourceKind,
    ids: &[i64],
) -> StorageResult<Vec<RoleRecord>> {
    Ok(roles::table
        .filter(roles::kind.eq(kind.type_name()))
        .filter(roles::object_id.eq_any(ids))
        .order((roles::object_id, roles::id))
        .select(RoleRecord::as_select())
        .load(conn)?)
}

type RolesQuery<'a> = roles::BoxedQuery<'a, Backend>;

/// A condition on role rows.
type RoleCondition = Box<dyn BoxableExpression<roles::table, Backend, SqlType = Nullable<Bool>>>;

/// The roles of objects of `kind` that `shown` (a condition on their ids) allows; all of
/// them when `None`.
fn roles_of(kind: ResourceKind, shown: Option<RoleCondition>) -> RoleCondition {
    let of_kind = roles::kind.eq(kind.type_name()).nullable();
    match shown {
        None => Box::new(of_kind),
        Some(shown) => Box::new(of_kind.and(shown)),
    }
}

fn visible<'a>(query: RolesQuery<'a>, visibility: &VisibleRoles) -> RolesQuery<'a> {
    let VisibleRoles::Only(seen) = visibility else {
        return query;
    };
    let SeenObjects {
        organizations,
        credentials: shown_credentials,
        teams: shown_teams,
        projects: shown_projects,
        inventories: shown_inventories,
        job_templates: shown_templates,
    } = seen.as_ref();
    let credentials = match shown_credentials {
        CredentialVisibility::All => None,
        CredentialVisibility::Limited {
            user_id,
            administered,
            role_organizations,
            objects,
        } => Some(Box::new(
            roles::object_id.eq_any(
                credentials::table
                    .filter(crate::shown_credentials!(
                        user_id,
                        administered,
                        role_organizations,
                        objects
                    ))
                    .select(credentials::id.nullable()),
            ),
        ) as RoleCondition),
    };
    macro_rules! shown {
        ($table:ident, $visibility:expr) => {
            match $visibility {
                ObjectVisibility::All => None,
                ObjectVisibility::Only {
                    organizations,
                    objects,
                    ..
                } => Some(Box::new(
                    roles::object_id.eq_any(
                        $table::table
                            .filter(crate::shown_rows!($table, organizations, objects))
                            .select($table::id.nullable()),
                    ),
                ) as RoleCondition),
            }
        };
    }
    let system: RoleCondition = Box::new(roles::kind.eq(SYSTEM).nullable());
    query.filter(
        system
            .or(roles_of(
                ResourceKind::Organization,
                Some(Box::new(roles::object_id.eq_any(organizations.clone()))),
            ))
            .or(roles_of(ResourceKind::Team, shown!(teams, shown_teams)))
            .or(roles_of(ResourceKind::Credential, credentials))
            .or(roles_of(
                ResourceKind::Project,
                shown!(projects, shown_projects),
            ))
            .or(roles_of(
                ResourceKind::Inventory,
                shown!(inventories, shown_inventories),
            ))
            .or(roles_of(
                ResourceKind::JobTemplate,
                match shown_templates {
                    ObjectVisibility::All => None,
                    ObjectVisibility::Only {
                        organizations,
                        objects,
                        inventory_organizations,
                    } => Some(Box::new(
                        roles::object_id.eq_any(
                            job_templates::table
                                .filter(crate::shown_templates!(
                                    organizations,
                                    objects,
                                    inventory_organizations
                                ))
                                .select(job_templates::id.nullable()),
                        ),
                    ) as RoleCondition),
                },
            )),
    )
}

crate::list_fields! {
    table: roles;
    search: [roles::field, roles::kind];
    default_order: roles::kind;
    fields: {
        "id" => integer(roles::id),
        "role_field" => text(roles::field),
        "object_id" => nullable_integer(roles::object_id),
    }
}

/// Lists the roles `visibility` shows, as `params` ask (by kind of object, then as made,
/// which keeps each object's roles together in declaration order).
pub fn list(
    conn: &mut DbConnection,
    visibility: &VisibleRoles,
    params: &ListParams,
) -> StorageResult<Result<Page<RoleRecord>, ListError>> {
    crate::list_page!(
        conn,
        params,
        || filtered(visible(roles::table.into_boxed(), visibility), params),
        ordered,
        RoleRecord::as_select()
    )
}

/// The roles granted to the user `user_id` directly, in id order.
///
/// On PostgreSQL the granted ids are read first, then the roles by id
/// ([`with_ids_on_postgres`]): asked as one join, PostgreSQL expects a user's grants to be
/// many and hashes every role of every object (4.3 ms for a user with 1 050 grants among
/// 30 174 roles, against 0.8 ms by id). SQLite walks the join by its indexes.
pub fn granted_to(conn: &mut DbConnection, user_id: i64) -> StorageResult<Vec<RoleRecord>> {
    granted_among(conn, user_id, DirectGrants::Unread)
}

/// [`granted_to`], the granted ids taken from `direct` where the user's lookup read them.
fn granted_among(
    conn: &mut DbConnection,
    user_id: i64,
    direct: DirectGrants,
) -> StorageResult<Vec<RoleRecord>> {
    Ok(crate::local_changes::reading(|| match (conn, direct) {
        (DbConnection::Sqlite(c), _) => roles::table
            .inner_join(role_members::table)
            .filter(role_members::user_id.eq(user_id))
            .order(roles::id)
            .select(RoleRecord::as_select())
            .load(c),
        (DbConnection::Postgres(c), DirectGrants::Read(ids)) => with_ids_on_postgres(c, &ids),
        (DbConnection::Postgres(c), DirectGrants::Unread) => {
            let ids: Vec<i64> = role_members::table
                .filter(role_members::user_id.eq(user_id))
                .select(role_members::role_id)
                .load(c)?;
            with_ids_on_postgres(c, &ids)
        }
    })?)
}

/// The roles with ids `ids`, in id order, read on PostgreSQL by the primary key: a bound
/// array is planned for a few rows whatever the statistics, so the index is walked rather than
/// every role hashed. None for no ids.
pub(crate) fn with_ids_on_postgres(
    conn: &mut diesel::PgConnection,
    ids: &[i64],
) -> QueryResult<Vec<RoleRecord>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    roles::table
        .filter(roles::id.eq_any(ids))
        .order(roles::id)
        .select(RoleRecord::as_select())
        .load(conn)
}

/// What a user was granted, as their [`acs_authz::Actor`] holds it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UserRoles {
    /// The organizations whose admin role they were granted, in id order.
    pub admin_of: Vec<i64>,
    /// The organizations whose member role they were granted, in id order.
    pub member_of: Vec<i64>,
    /// Every role granted to them.
    pub grants: Grants,
    /// The roles of the teams they may be in ([`crate::teams::grants_reaching`]).
    pub team_grants: Vec<acs_authz::roles::TeamGrant>,
}

/// The roles granted to the user `user_id` and to the teams they may be in (one query, and
/// one per level of teams for a user in a team or admin of an organization: it runs when a
/// principal is built). `direct` is what the lookup that found the user read of its grants.
pub fn user_roles(
    conn: &mut DbConnection,
    user_id: i64,
    direct: DirectGrants,
) -> StorageResult<UserRoles> {
    let roles: Vec<Role> = granted_among(conn, user_id, direct)?
        .iter()
        .filter_map(RoleRecord::role)
        .collect();
    let organizations = |field: RoleField| -> Vec<i64> {
        let mut ids: Vec<i64> = roles
            .iter()
            .filter(|role| role.kind == ResourceKind::Organization && role.field == field)
            .map(|role| role.object)
            .collect();
        ids.sort_unstable();
        ids
    };
    let teams: Vec<i64> = roles
        .iter()
        .filter(|role| {
            role.kind == ResourceKind::Team
                && matches!(role.field, RoleField::Admin | RoleField::Member)
        })
        .map(|role| role.object)
        .collect();
    let admin_of = organizations(RoleField::Admin);
    let team_grants = crate::teams::grants_reaching(conn, &teams, &admin_of)?;
    Ok(UserRoles {
        admin_of,
        member_of: organizations(RoleField::Member),
        grants: Grants::new(roles.iter().copied()),
        team_grants,
    })
}

/// The users granted role `role_id` directly, in id order.
pub fn members(conn: &mut DbConnection, role_id: i64) -> StorageResult<Vec<i64>> {
    Ok(role_members::table
        .filter(role_members::role_id.eq(role_id))
        .order(role_members::user_id)
        .select(role_members::user_id)
        .load(conn)?)
}

/// Which of the roles `role_ids` each of the users `user_ids` was granted directly, as
/// `(role, user)` pairs in that order.
pub fn memberships_among(
    conn: &mut DbConnection,
    role_ids: &[i64],
    user_ids: &[i64],
) -> StorageResult<Vec<(i64, i64)>> {
    Ok(role_members::table
        .filter(role_members::role_id.eq_any(role_ids))
        .filter(role_members::user_id.eq_any(user_ids))
        .order((role_members::role_id, role_members::user_id))
        .select((role_members::role_id, role_members::user_id))
        .load(conn)?)
}

/// Grants role `role_id` to the user `user_id`; true when they did not hold it directly.
pub fn grant(conn: &mut DbConnection, role_id: i64, user_id: i64) -> StorageResult<bool> {
    let row = (
        role_members::role_id.eq(role_id),
        role_members::user_id.eq(user_id),
    );
    let added = match conn {
        DbConnection::Sqlite(c) => diesel::insert_or_ignore_into(role_members::table)
            .values(row)
            .execute(c),
        DbConnection::Postgres(c) => diesel::insert_into(role_members::table)
            .values(row)
            .on_conflict_do_nothing()
            .execute(c),
    }?;
    Ok(added > 0)
}

/// Revokes the user's direct grant of role `role_id`; true when they held it.
pub fn revoke(conn: &mut DbConnection, role_id: i64, user_id: i64) -> StorageResult<bool> {
    let removed = diesel::delete(
        role_members::table
            .filter(role_members::role_id.eq(role_id))
            .filter(role_members::user_id.eq(user_id)),
    )
    .execute(conn)?;
    Ok(removed > 0)
}

#[cfg(test)]
mod tests {
    use diesel::connection::SimpleConnection;

    use super::*;
    use crate::Database;

    const AT: &str = "'2024-01-01 00:00:00'";

    fn database() -> DbConnection {
        let mut conn = Database::Sqlite(":memory:".into())
            .connect()
            .expect("a database");
        crate::run_migrations(&mut conn).expect("migrations");
        conn.batch_execute(&format!(
            "INSERT INTO organizations (id, name, created, modified) VALUES (1, 'o', {AT}, {AT});
             INSERT INTO users (id, username, password, created, modified) \
               VALUES (5, 'u', '', {AT}, {AT});"
        ))
        .expect("an organization and a user");
        conn
    }

    fn fields(records: &[RoleRecord]) -> Vec<&str> {
        records.iter().map(|r| r.field.as_str()).collect()
    }

    #[test]
    fn an_object_gets_its_roles_in_declaration_order_and_loses_them_with_it() {
        let mut conn = database();
        let org = of_objects(&mut conn, ResourceKind::Organization, &[1]).expect("roles");
        let expected: Vec<&str> = ResourceKind::Organization
            .fields()
            .iter()
            .map(|f| f.name())
            .collect();
        assert_eq!(fields(&org), expected);
        let admin = of_field(&mut conn, ResourceKind::Organization, 1, RoleField::Admin)
            .expect("read")
            .expect("the admin role");
        assert_eq!(
            admin.role(),
            Some(Role {
                kind: ResourceKind::Organization,
                object: 1,
                field: RoleField::Admin
            })
        );
        assert!(grant(&mut conn, admin.id, 5).expect("granted"));
        assert!(!grant(&mut conn, admin.id, 5).expect("granted again"));
        assert_eq!(members(&mut conn, admin.id).expect("members"), [5]);
        assert_eq!(
            granted_to(&mut conn, 5).expect("grants"),
            std::slice::from_ref(&admin)
        );
        let held = user_roles(&mut conn, 5, DirectGrants::Unread).expect("roles");
        assert_eq!((held.admin_of, held.member_of), (vec![1], vec![]));
        assert_eq!(held.grants.direct().count(), 1);

        conn.batch_execute("DELETE FROM organizations WHERE id = 1")
            .expect("deleted");
        assert_eq!(find(&mut conn, admin.id).expect("read"), None);
        assert_eq!(granted_to(&mut conn, 5).expect("grants"), []);
        let system = roles::table
            .filter(roles::kind.eq(SYSTEM))
            .select(roles::field)
            .load::<String>(&mut conn)
            .expect("system roles");
        assert_eq!(system, ["system_administrator", "system_auditor"]);
    }

    #[test]
    fn organization_memberships_read_and_write_through_the_view() {
        let mut conn = database();
        use crate::organizations::{add_role, remove_role};
        use acs_authz::OrganizationRole;
        assert!(add_role(&mut conn, 1, 5, OrganizationRole::Member).expect("added"));
        assert!(!add_role(&mut conn, 1, 5, OrganizationRole::Member).expect("again"));
        let member = of_field(&mut conn, ResourceKind::Organization, 1, RoleField::Member)
            .expect("read")
            .expect("the member role");
        assert_eq!(members(&mut conn, member.id).expect("members"), [5]);
        let memberships = crate::users::memberships_of(&mut conn, 5).expect("memberships");
        assert_eq!(
            (memberships.admin_of, memberships.member_of),
            (vec![], vec![1])
        );
        assert!(remove_role(&mut conn, 1, 5, OrganizationRole::Member).expect("removed"));
        assert!(!remove_role(&mut conn, 1, 5, OrganizationRole::Member).expect("again"));
        assert!(members(&mut conn, member.id).expect("members").is_empty());
        // An operator's SQL on the view still refuses what the table refused.
        let refused = conn.batch_execute(
            "INSERT INTO organization_roles (organization_id, user_id, role) VALUES (1, 5, 'owner')",
        );
        assert!(refused.is_err());
        let refused = conn.batch_execute(
            "INSERT INTO organization_roles (organization_id, user_id, role) VALUES (9, 5, 'admin')",
        );
        assert!(refused.is_err());
    }

    #[test]
    fn objects_deleted_with_their_organization_lose_their_roles() {
        let mut conn = database();
        conn.batch_execute(&format!(
            "INSERT INTO credential_types (id, name, description, kind, managed, inputs, \
               injectors, created, modified) \
             VALUES (1, 't', '', 'cloud', false, '{{}}', '{{}}', {AT}, {AT}); \
             INSERT INTO credentials (id, name, description, credential_type_id, \
               organization_id, inputs, created, modified) \
             VALUES (3, 'c', '', 1, 1, '{{}}', {AT}, {AT});"
        ))
        .expect("a credential");
        let credential = of_objects(&mut conn, ResourceKind::Credential, &[3]).expect("roles");
        assert_eq!(fields(&credential), ["admin_role", "use_role", "read_role"]);
        conn.batch_execute("DELETE FROM organizations WHERE id = 1")
            .expect("deleted");
        assert_eq!(
            of_objects(&mut conn, ResourceKind::Credential, &[3]).expect("roles"),
            []
        );
    }

    #[test]
    fn the_roles_list_shows_the_system_roles_and_those_of_visible_objects() {
        let mut conn = database();
        conn.batch_execute(&format!(
            "INSERT INTO organizations (id, name, created, modified) VALUES (2, 'p', {AT}, {AT}); \
             INSERT INTO credential_types (id, name, description, kind, managed, inputs, \
               injectors, created, modified) \
             VALUES (1, 't', '', 'cloud', false, '{{}}', '{{}}', {AT}, {AT}); \
             INSERT INTO credentials (id, name, description, credential_type_id, \
               organization_id, inputs, created, modified) \
             VALUES (3, 'mine', '', 1, 1, '{{}}', {AT}, {AT}), \
                    (4, 'theirs', '', 1, 2, '{{}}', {AT}, {AT});"
        ))
        .expect("two organizations' credentials");
        let params = ListParams {
            limit: 1000,
            ..ListParams::default()
        };
        let listed =
            |conn: &mut DbConnection, visibility: &VisibleRoles| -> Vec<(String, Option<i64>)> {
                list(conn, visibility, &params)
                    .expect("read")
                    .expect("listed")
                    .items
                    .into_iter()
                    .map(|role| (role.kind, role.object_id))
                    .collect()
            };
        let everything = listed(&mut conn, &VisibleRoles::All);
        let nothing = ObjectVisibility::Only {
            organizations: vec![],
            objects: vec![],
            inventory_organizations: vec![],
        };
        let administrator_of_1 = VisibleRoles::Only(Box::new(SeenObjects {
            organizations: vec![1],
            teams: nothing.clone(),
            credentials: CredentialVisibility::Limited {
                user_id: 5,
                administered: vec![1],
                role_organizations: vec![],
                objects: vec![],
            },
            projects: nothing.clone(),
            inventories: nothing.clone(),
            job_templates: nothing,
        }));
        let shown = listed(&mut conn, &administrator_of_1);
        let count = |roles: &[(String, Option<i64>)], kind: &str, object: Option<i64>| {
            roles
                .iter()
                .filter(|(k, o)| k == kind && *o == object)
                .count()
        };
        assert_eq!(count(&shown, SYSTEM, None), 2);
        assert_eq!(count(&shown, "organization", Some(1)), 13);
        assert_eq!(count(&shown, "credential", Some(3)), 3);
        assert_eq!(count(&shown, "organization", Some(2)), 0);
        assert_eq!(count(&shown, "credential", Some(4)), 0);
        assert_eq!(shown.len(), 18);
        assert_eq!(count(&everything, "credential", Some(4)), 3);
        assert_eq!(everything.len(), 2 + 13 + 13 + 3 + 3);
    }
}

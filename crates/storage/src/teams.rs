//! Teams: named groups of users within an organization, and the roles granted to them.
//!
//! A team's own three roles (admin, member, read) are role rows like every object's, made
//! and removed with it by triggers (see the `teams` migration); its members are the users
//! granted its member role. The roles granted *to* a team are `team_roles` rows: whoever
//! holds the team's member role holds them (`acs_authz::Actor::with_team_roles`).

use std::collections::BTreeSet;

use acs_authz::ObjectVisibility;
use acs_authz::roles::{ResourceKind, RoleField, TeamGrant};
use diesel::prelude::*;

use crate::list::{ListError, ListParams, Page};
use crate::roles::RoleRecord;
use crate::schema::{role_members, roles, team_roles, teams};
use crate::{DbConnection, StorageResult, Timestamp};

/// A team row.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = teams)]
pub struct Team {
    /// Primary key.
    pub id: i64,
    /// Name, unique per organization.
    pub name: String,
    /// Free text.
    pub description: String,
    /// Owning organization.
    pub organization_id: i64,
    /// Creator.
    pub created_by: Option<i64>,
    /// Last modifier.
    pub modified_by: Option<i64>,
    /// Creation time.
    pub created: Timestamp,
    /// Last modification time.
    pub modified: Timestamp,
}

/// The values a team is created or changed with: a `None` takes the column's default on
/// insert and leaves the column as it is on update.
#[derive(Debug, Clone, Default, Insertable, AsChangeset)]
#[diesel(table_name = teams)]
pub struct TeamValues {
    /// Name.
    pub name: Option<String>,
    /// Free text.
    pub description: Option<String>,
    /// Owning organization (set on create; a team does not move).
    pub organization_id: Option<i64>,
}

crate::row_functions!(teams, Team, stamped TeamValues);

crate::list_fields! {
    table: teams;
    search: [teams::name, teams::description];
    default_order: teams::name;
    fields: {
        "id" => integer(teams::id),
        "name" => text(teams::name),
        "description" => text(teams::description),
        "organization" => integer(teams::organization_id),
        "created" => timestamp(teams::created),
        "modified" => timestamp(teams::modified),
    }
}

/// The team named `name` within organization `organization_id` (names are unique within
/// an organization, not across them).
pub fn find_named(
    conn: &mut DbConnection,
    organization_id: i64,
    name: &str,
) -> StorageResult<Option<Team>> {
    Ok(teams::table
        .filter(teams::organization_id.eq(organization_id))
        .filter(teams::name.eq(name))
        .select(Team::as_select())
        .get_result(conn)
        .optional()?)
}

/// The team named `name` within `organization_id`, made with `stamps` when there is none;
/// true if it was made. As with organizations, a lost race finds the winner's row.
pub fn find_or_create_named(
    conn: &mut DbConnection,
    organization_id: i64,
    name: &str,
    stamps: crate::stamps::Creation,
) -> StorageResult<(Team, bool)> {
    if let Some(found) = find_named(conn, organization_id, name)? {
        return Ok((found, false));
    }
    let values = TeamValues {
        name: Some(name.to_owned()),
        organization_id: Some(organization_id),
        ..TeamValues::default()
    };
    match conn.transaction(|conn| insert(conn, &values, stamps)) {
        Ok(made) => Ok((made, true)),
        Err(crate::StorageError::Conflict(_)) => find_named(conn, organization_id, name)?
            .map(|found| (found, false))
            .ok_or(crate::StorageError::NotFound),
        Err(other) => Err(other),
    }
}

/// Which teams a list is of, beyond what the caller may see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Within {
    /// The teams of an organization.
    Organization(i64),
    /// The teams a user was made a member or an admin of.
    User(i64),
}

/// Lists the teams `visibility` allows (within `within`, when given), as `params` ask.
pub fn list(
    conn: &mut DbConnection,
    visibility: &ObjectVisibility,
    within: Option<Within>,
    params: &ListParams,
) -> StorageResult<Result<Page<Team>, ListError>> {
    let base = || {
        let query = crate::visible_rows!(teams, visibility);
        match within {
            None => query,
            Some(Within::Organization(id)) => query.filter(teams::organization_id.eq(id)),
            Some(Within::User(id)) => query.filter(
                teams::id.nullable().eq_any(
                    role_members::table
                        .inner_join(roles::table)
                        .filter(role_members::user_id.eq(id))
                        .filter(roles::kind.eq(ResourceKind::Team.type_name()))
                        .filter(
                            roles::field
                                .eq_any([RoleField::Admin.name(), RoleField::Member.name()]),
                        )
                        .select(roles::object_id),
                ),
            ),
        }
    };
    crate::list_page!(
        conn,
        params,
        || filtered(base(), params),
        ordered,
        Team::as_select()
    )
}

/// Grants role `role_id` to team `team_id`; true when the team did not hold it.
pub fn grant(conn: &mut DbConnection, role_id: i64, team_id: i64) -> StorageResult<bool> {
    let row = (
        team_roles::role_id.eq(role_id),
        team_roles::team_id.eq(team_id),
    );
    let added = match conn {
        DbConnection::Sqlite(c) => diesel::insert_or_ignore_into(team_roles::table)
            .values(row)
            .execute(c),
        DbConnection::Postgres(c) => diesel::insert_into(team_roles::table)
            .values(row)
            .on_conflict_do_nothing()
            .execute(c),
    }?;
    Ok(added > 0)
}

/// Revokes the team's grant of role `role_id`; true when it held it.
pub fn revoke(conn: &mut DbConnection, role_id: i64, team_id: i64) -> StorageResult<bool> {
    let removed = diesel::delete(
        team_roles::table
            .filter(team_roles::role_id.eq(role_id))
            .filter(team_roles::team_id.eq(team_id)),
    )
    .execute(conn)?;
    Ok(removed > 0)
}

/// The roles granted to team `team_id`, in id order.
pub fn roles_of(conn: &mut DbConnection, team_id: i64) -> StorageResult<Vec<RoleRecord>> {
    Ok(roles::table
        .inner_join(team_roles::table)
        .filter(team_roles::team_id.eq(team_id))
        .order(roles::id)
        .select(RoleRecord::as_select())
        .load(conn)?)
}

/// The teams granted role `role_id`, in id order.
pub fn holding(conn: &mut DbConnection, role_id: i64) -> StorageResult<Vec<Team>> {
    Ok(teams::table
        .inner_join(team_roles::table)
        .filter(team_roles::role_id.eq(role_id))
        .order(teams::id)
        .select(Team::as_select())
        .load(conn)?)
}

/// Which teams hold which of the roles `role_ids`, as `(role, team)` pairs in that order.
pub fn grants_among(conn: &mut DbConnection, role_ids: &[i64]) -> StorageResult<Vec<(i64, Team)>> {
    Ok(teams::table
        .inner_join(team_roles::table)
        .filter(team_roles::role_id.eq_any(role_ids))
        .order((team_roles::role_id, teams::id))
        .select((team_roles::role_id, Team::as_select()))
        .load(conn)?)
}

/// Whose grants a step of [`grants_reaching`] reads.
enum Holders<'a> {
    /// These teams.
    Teams(&'a [i64]),
    /// Every team of these organizations.
    OrganizationOf(&'a [i64]),
}

/// The roles granted to `holders`, with each grant's team and its organization, none for no
/// holders. The two kinds of holder are read apart: one query asking for either
/// (`team_id IN … OR organization_id IN …`) names columns of two joined tables, which no index
/// answers. On PostgreSQL the grants are read first, then their roles by id, for the reason
/// [`crate::roles::granted_to`] gives.
fn grants_held(
    conn: &mut DbConnection,
    holders: Holders<'_>,
) -> StorageResult<Vec<(i64, i64, RoleRecord)>> {
    let (Holders::Teams(ids) | Holders::OrganizationOf(ids)) = holders;
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    // A macro, not a closure: the boxed query's type names the backend of the arm it is in.
    macro_rules! grants {
        () => {{
            let held = team_roles::table.inner_join(teams::table).into_boxed();
            match holders {
                Holders::Teams(ids) => held.filter(team_roles::team_id.eq_any(ids)),
                Holders::OrganizationOf(ids) => held.filter(teams::organization_id.eq_any(ids)),
            }
        }};
    }
    Ok(crate::local_changes::reading(|| match conn {
        DbConnection::Sqlite(c) => grants!()
            .inner_join(roles::table)
            .select((teams::id, teams::organization_id, RoleRecord::as_select()))
            .load(c),
        DbConnection::Postgres(c) => {
            let held: Vec<(i64, i64, i64)> = grants!()
                .select((teams::id, teams::organization_id, team_roles::role_id))
                .load(c)?;
            let mut role_ids: Vec<i64> = held.iter().map(|(_, _, role)| *role).collect();
            role_ids.sort_unstable();
            role_ids.dedup();
            let roles = crate::roles::with_ids_on_postgres(c, &role_ids)?;
            Ok(held
                .into_iter()
                .filter_map(|(team, organization, role)| {
                    let found = roles.binary_search_by_key(&role, |record| record.id).ok()?;
                    Some((team, organization, roles[found].clone()))
                })
                .collect())
        }
    })?)
}

/// The roles granted to the teams a user may hold the member role of: the teams whose admin
/// or member role they were granted (`teams_granted`), every team of the organizations they
/// administer (`administered`), and, a query per level, the teams those teams' grants reach
/// (a team granted another team's member role). A superset of what they hold: the domain
/// decides ([`acs_authz::Actor::with_team_roles`]). One read per level and kind of holder
/// (a query on SQLite, two statements on PostgreSQL), none for a user in no team.
pub fn grants_reaching(
    conn: &mut DbConnection,
    teams_granted: &[i64],
    administered: &[i64],
) -> StorageResult<Vec<TeamGrant>> {
    let mut found: BTreeSet<TeamGrant> = BTreeSet::new();
    let mut asked: BTreeSet<i64> = BTreeSet::new();
    let mut next: Vec<i64> = teams_granted.to_vec();
    let mut organizations = administered.to_vec();
    while !next.is_empty() || !organizations.is_empty() {
        asked.extend(next.iter().copied());
        let (by_team, by_organization) = (
            std::mem::take(&mut next),
            std::mem::take(&mut organizations),
        );
        let mut rows = grants_held(conn, Holders::Teams(&by_team))?;
        rows.extend(grants_held(
            conn,
            Holders::OrganizationOf(&by_organization),
        )?);
        let mut reached = Vec::new();
        for (team, organization, record) in rows {
            asked.insert(team);
            let Some(role) = record.role() else { continue };
            if role.kind == ResourceKind::Team
                && matches!(role.field, RoleField::Member | RoleField::Admin)
            {
                reached.push(role.object);
            }
            found.insert(TeamGrant {
                team,
                organization,
                role,
            });
        }
        next = reached
            .into_iter()
            .filter(|team| !asked.contains(team))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
    }
    Ok(found.into_iter().collect())
}

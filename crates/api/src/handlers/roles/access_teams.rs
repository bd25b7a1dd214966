//! The part of an access list that comes through teams: the teams granted a role that gives
//! access to the object, and which users are in them (their direct members and admins, as
//! the reference lists them), so each such user's entry names the team.

use std::collections::HashMap;

use acs_authz::roles::{ResourceKind, RoleField};
use acs_storage::DbConnection;
use acs_storage::teams::Team;
use serde_json::{Value, json};

use crate::error::ApiResult;

/// The teams that hold some of an object's conferring roles.
#[derive(Debug, Default)]
pub struct TeamHolders {
    /// `(role, team)`: the team holds the conferring role.
    grants: Vec<(i64, Team)>,
    /// The holding teams' admin and member roles, with their team.
    memberships: HashMap<i64, i64>,
    /// The holding teams' organizations' names.
    organization_names: HashMap<i64, String>,
}

impl TeamHolders {
    /// The teams granted any of `role_ids`, with their membership roles.
    pub fn read(conn: &mut DbConnection, role_ids: &[i64]) -> ApiResult<TeamHolders> {
        let grants = acs_storage::teams::grants_among(conn, role_ids)?;
        if grants.is_empty() {
            return Ok(TeamHolders::default());
        }
        let mut teams: Vec<i64> = grants.iter().map(|(_, team)| team.id).collect();
        teams.sort_unstable();
        teams.dedup();
        let memberships = acs_storage::roles::of_objects(conn, ResourceKind::Team, &teams)?
            .into_iter()
            .filter_map(|record| {
                let role = record.role()?;
                matches!(role.field, RoleField::Admin | RoleField::Member)
                    .then_some((record.id, role.object))
            })
            .collect();
        let mut organization_names = HashMap::new();
        for (_, team) in &grants {
            if let std::collections::hash_map::Entry::Vacant(entry) =
                organization_names.entry(team.organization_id)
            {
                entry.insert(acs_storage::organizations::find(conn, team.organization_id)?.name);
            }
        }
        Ok(TeamHolders {
            grants,
            memberships,
            organization_names,
        })
    }

    /// The holding teams' admin and member roles: their holders are on the list.
    pub fn membership_roles(&self) -> Vec<i64> {
        self.memberships.keys().copied().collect()
    }

    /// The teams a user is in, given the roles they were granted among those listed.
    pub fn teams_of(&self, granted: &[i64]) -> Vec<i64> {
        let mut teams: Vec<i64> = granted
            .iter()
            .filter_map(|role| self.memberships.get(role).copied())
            .collect();
        teams.sort_unstable();
        teams.dedup();
        teams
    }

    /// The teams among `teams` that hold role `role_id`.
    pub fn holding<'a>(&'a self, role_id: i64, teams: &'a [i64]) -> impl Iterator<Item = &'a Team> {
        self.grants
            .iter()
            .filter(move |(role, team)| *role == role_id && teams.contains(&team.id))
            .map(|(_, team)| team)
    }

    /// An entry's role object, naming the team it comes through.
    pub fn name_team(&self, element: &mut Value, team: &Team) {
        let role = &mut element["role"];
        role["team_id"] = json!(team.id);
        role["team_name"] = json!(team.name);
        role["team_organization_name"] = json!(
            self.organization_names
                .get(&team.organization_id)
                .map_or("", String::as_str)
        );
    }
}

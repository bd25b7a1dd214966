//! What teams give their members: a role granted to a team is held by whoever holds the
//! team's member role (directly, as the team's admin, as its organization's admin, or as a
//! member of another team granted it), as in the reference's rule 4.

use super::fields::{ResourceKind, RoleField};
use super::grants::{Resource, Role};
use crate::{Actor, Id};

/// A role granted to a team.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TeamGrant {
    /// The team.
    pub team: Id,
    /// The team's organization (whose admins hold the team's member role).
    pub organization: Id,
    /// The role granted to it.
    pub role: Role,
}

impl TeamGrant {
    /// The team, as an object whose roles are checked.
    pub fn team(&self) -> Resource {
        Resource::of(ResourceKind::Team, self.team, Some(self.organization))
    }
}

impl Actor {
    /// The actor with the roles of every team whose member role it holds added to its
    /// grants, until no team adds one (a team may be granted another team's member role;
    /// a loop of teams ends, since each round adds a role or stops). `team_grants` may hold
    /// grants of teams the actor is not in: they are left out. A superuser holds every role
    /// already.
    pub fn with_team_roles(mut self, team_grants: &[TeamGrant]) -> Actor {
        if self.is_superuser {
            return self;
        }
        loop {
            let held: Vec<Role> = team_grants
                .iter()
                .filter(|grant| {
                    !self.grants.has_direct(&grant.role)
                        && self.holds(&grant.team(), RoleField::Member)
                })
                .map(|grant| grant.role)
                .collect();
            if held.is_empty() {
                return self;
            }
            for role in held {
                self.grants = std::mem::take(&mut self.grants).with(role);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::roles::Grants;
    use ResourceKind as K;
    use RoleField::*;

    const ORG: Id = 1;

    fn role(kind: ResourceKind, object: Id, field: RoleField) -> Role {
        Role {
            kind,
            object,
            field,
        }
    }

    fn team_grant(team: Id, role: Role) -> TeamGrant {
        TeamGrant {
            team,
            organization: ORG,
            role,
        }
    }

    fn actor(roles: &[Role]) -> Actor {
        Actor {
            user_id: 5,
            grants: Grants::new(roles.iter().copied()),
            ..Actor::default()
        }
    }

    #[test]
    fn members_admins_and_organization_admins_hold_what_the_team_holds() {
        let template = Resource::of(K::JobTemplate, 7, Some(ORG));
        let grants = [team_grant(3, role(K::JobTemplate, 7, Execute))];
        #[rustfmt::skip]
        let rows: Vec<(&str, Actor, bool)> = vec![
            ("a member", actor(&[role(K::Team, 3, Member)]), true),
            ("the team's admin", actor(&[role(K::Team, 3, Admin)]), true),
            ("a reader of the team", actor(&[role(K::Team, 3, Read)]), false),
            ("a member of another team", actor(&[role(K::Team, 4, Member)]), false),
            ("the organization's admin",
             Actor { admin_of: vec![ORG], ..actor(&[]) }, true),
            ("a member of the organization",
             Actor { member_of: vec![ORG], ..actor(&[]) }, false),
            ("nobody", actor(&[]), false),
        ];
        for (who, actor, expected) in rows {
            let administers = actor.administers(ORG);
            let actor = actor.with_team_roles(&grants);
            assert_eq!(actor.holds(&template, Execute), expected, "{who}");
            assert_eq!(
                actor.holds(&template, Admin),
                administers,
                "{who}: execute only"
            );
        }
    }

    #[test]
    fn nested_teams_give_their_roles_and_a_loop_ends() {
        let inventory = Resource::of(K::Inventory, 9, Some(ORG));
        // Team 3 is a member of team 4, team 4 of team 3; team 4 may use the inventory.
        let grants = [
            team_grant(3, role(K::Team, 4, Member)),
            team_grant(4, role(K::Team, 3, Member)),
            team_grant(4, role(K::Inventory, 9, Use)),
        ];
        let member = actor(&[role(K::Team, 3, Member)]).with_team_roles(&grants);
        assert!(member.holds(&inventory, Use));
        assert!(member.holds(&inventory, Read));
        assert!(!member.holds(&inventory, Admin));
        let outsider = actor(&[role(K::Team, 5, Member)]).with_team_roles(&grants);
        assert!(!outsider.holds(&inventory, Read));
    }

    #[test]
    fn team_roles_show_their_objects() {
        let grants = [team_grant(3, role(K::Project, 8, Use))];
        let member = actor(&[role(K::Team, 3, Member)]).with_team_roles(&grants);
        let shown = member.role_visibility(K::Project).expect("limited");
        assert_eq!(shown.objects, vec![8]);
    }
}

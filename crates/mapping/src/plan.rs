//! What one login changes: the memberships to add or remove and the flags to set.

/// An organization role a map gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OrganizationRole {
    /// `admins`: the organization's `admin_role`.
    Admin,
    /// `auditors`: its `auditor_role`.
    Auditor,
    /// `users`: its `member_role`.
    Member,
}

/// A change of one membership.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Change {
    /// The user is to hold it (an organization or team the maps name is made when missing).
    Add,
    /// The user is not to hold it (nothing to do if they do not).
    Remove,
}

/// The user flags a login sets; `None` leaves a flag as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FlagPlan {
    /// `is_superuser`.
    pub superuser: Option<bool>,
    /// `is_system_auditor`.
    pub system_auditor: Option<bool>,
}

/// What the maps make of one login's groups, in the order the reference applies them:
/// each organization's `admins`, `auditors`, `users`, then each team.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Plan {
    /// By organization name.
    pub organizations: Vec<(String, OrganizationRole, Change)>,
    /// By organization name and team name (a team is found within its organization).
    pub teams: Vec<(String, String, Change)>,
    /// The flags.
    pub flags: FlagPlan,
}

impl Plan {
    /// Whether the login changes nothing whatever the user holds now.
    pub fn is_empty(&self) -> bool {
        self.organizations.is_empty() && self.teams.is_empty() && self.flags == FlagPlan::default()
    }

    /// This plan and `other` (the maps of another source for the same sign-in) as one: a
    /// membership either adds is added (neither removal undoes the other's grant); a flag
    /// only one of them sets is set, and where both set it, either's `true` wins.
    pub fn merge(mut self, other: Plan) -> Plan {
        fn join<K: PartialEq>(mine: &mut Vec<(K, Change)>, theirs: Vec<(K, Change)>) {
            for (key, change) in theirs {
                match mine.iter_mut().find(|(known, _)| *known == key) {
                    Some((_, held)) => {
                        if change == Change::Add {
                            *held = Change::Add;
                        }
                    }
                    None => mine.push((key, change)),
                }
            }
        }
        let split = |entries: Vec<(String, OrganizationRole, Change)>| {
            entries
                .into_iter()
                .map(|(name, role, change)| ((name, role), change))
                .collect::<Vec<_>>()
        };
        let mut organizations = split(self.organizations);
        join(&mut organizations, split(other.organizations));
        self.organizations = organizations
            .into_iter()
            .map(|((name, role), change)| (name, role, change))
            .collect();
        let pair = |entries: Vec<(String, String, Change)>| {
            entries
                .into_iter()
                .map(|(organization, team, change)| ((organization, team), change))
                .collect::<Vec<_>>()
        };
        let mut teams = pair(self.teams);
        join(&mut teams, pair(other.teams));
        self.teams = teams
            .into_iter()
            .map(|((organization, team), change)| (organization, team, change))
            .collect();
        let either = |a: Option<bool>, b: Option<bool>| match (a, b) {
            (Some(a), Some(b)) => Some(a || b),
            (a, b) => a.or(b),
        };
        self.flags = FlagPlan {
            superuser: either(self.flags.superuser, other.flags.superuser),
            system_auditor: either(self.flags.system_auditor, other.flags.system_auditor),
        };
        self
    }
}

impl Plan {
    /// Adds what a role of organization `name` becomes when its map value `matched` the user
    /// (`None`: the value leaves it as it is) and its remove flag is `remove`.
    pub(crate) fn organization_role(
        &mut self,
        name: &str,
        role: OrganizationRole,
        (matched, remove): (Option<bool>, bool),
    ) {
        if let Some(change) = decide(matched, remove) {
            self.organizations.push((name.to_owned(), role, change));
        }
    }

    /// Adds what membership of team `team` of `organization` becomes, as for a role.
    pub(crate) fn team(
        &mut self,
        organization: &str,
        team: &str,
        (matched, remove): (Option<bool>, bool),
    ) {
        if let Some(change) = decide(matched, remove) {
            self.teams
                .push((organization.to_owned(), team.to_owned(), change));
        }
    }
}

/// What a role's match and remove flag make of a login: hold it, lose it, or leave it.
fn decide(matched: Option<bool>, remove: bool) -> Option<Change> {
    match matched {
        Some(true) => Some(Change::Add),
        Some(false) if remove => Some(Change::Remove),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merged_plans_add_what_either_adds() {
        let social = Plan {
            organizations: vec![
                ("Eng".into(), OrganizationRole::Member, Change::Add),
                ("Ops".into(), OrganizationRole::Admin, Change::Remove),
            ],
            teams: vec![("Eng".into(), "Oncall".into(), Change::Remove)],
            flags: FlagPlan::default(),
        };
        let groups = Plan {
            organizations: vec![
                ("Eng".into(), OrganizationRole::Member, Change::Remove),
                ("Ops".into(), OrganizationRole::Admin, Change::Add),
                ("Ops".into(), OrganizationRole::Member, Change::Remove),
            ],
            teams: vec![("Ops".into(), "Oncall".into(), Change::Add)],
            flags: FlagPlan {
                superuser: Some(false),
                system_auditor: None,
            },
        };
        let merged = social.merge(groups);
        assert_eq!(
            merged.organizations,
            [
                ("Eng".to_owned(), OrganizationRole::Member, Change::Add),
                ("Ops".to_owned(), OrganizationRole::Admin, Change::Add),
                ("Ops".to_owned(), OrganizationRole::Member, Change::Remove),
            ]
        );
        assert_eq!(
            merged.teams,
            [
                ("Eng".to_owned(), "Oncall".to_owned(), Change::Remove),
                ("Ops".to_owned(), "Oncall".to_owned(), Change::Add),
            ]
        );
        assert_eq!(merged.flags.superuser, Some(false));
        assert_eq!(merged.flags.system_auditor, None);
    }
}

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
}

/// What a role's match and remove flag make of a login: hold it, lose it, or leave it.
pub(crate) fn decide(matched: Option<bool>, remove: bool) -> Option<Change> {
    match matched {
        Some(true) => Some(Change::Add),
        Some(false) if remove => Some(Change::Remove),
        _ => None,
    }
}

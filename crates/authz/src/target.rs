//! The user being acted upon.

use crate::Id;

/// Facts about the user being acted upon (viewed, changed, deleted, or added
/// to an organization).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TargetUser {
    /// The target's user id; equal to [`crate::Actor::user_id`] when users act on themselves.
    pub id: Id,
    /// Superusers are off limits to organization admins.
    pub is_superuser: bool,
    /// System auditors are off limits to organization admins.
    pub is_system_auditor: bool,
    /// Organizations the target administers (any order, duplicates allowed).
    pub admin_of: Vec<Id>,
    /// Organizations the target is a direct member of (any order, duplicates allowed).
    pub member_of: Vec<Id>,
}

impl TargetUser {
    /// Every organization the target belongs to (member or admin), each
    /// once, in the order first seen in `admin_of` then `member_of`.
    pub fn organizations(&self) -> impl Iterator<Item = Id> + '_ {
        let all = move || self.admin_of.iter().chain(&self.member_of).copied();
        // Lists are a handful of ids, so a quadratic "seen before?" check
        // beats allocating a set and keeps the iterator borrowing only `self`.
        all()
            .enumerate()
            .filter(move |&(index, org)| !all().take(index).any(|seen| seen == org))
            .map(|(_, org)| org)
    }

    /// Whether the target is a member or an admin of `org`.
    pub(crate) fn belongs_to(&self, org: Id) -> bool {
        self.admin_of.contains(&org) || self.member_of.contains(&org)
    }

    /// Superusers and system auditors: users whose account only a superuser may manage.
    pub(crate) fn is_privileged(&self) -> bool {
        self.is_superuser || self.is_system_auditor
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(admin_of: &[Id], member_of: &[Id]) -> TargetUser {
        TargetUser {
            admin_of: admin_of.to_vec(),
            member_of: member_of.to_vec(),
            ..TargetUser::default()
        }
    }

    #[test]
    fn organizations_is_the_union_of_both_lists() {
        #[rustfmt::skip]
        let rows = [
            ("member only", target(&[], &[4]), vec![4]),
            ("admin only", target(&[4], &[]), vec![4]),
            ("admin and member of different orgs", target(&[4], &[6]), vec![4, 6]),
            ("admin and member of the same org", target(&[4, 6], &[6, 8, 4]), vec![4, 6, 8]),
            ("repeats within one list", target(&[], &[3, 3, 5, 3]), vec![3, 5]),
            ("no organizations", target(&[], &[]), vec![]),
        ];
        for (name, target, expected) in rows {
            assert_eq!(
                target.organizations().collect::<Vec<Id>>(),
                expected,
                "{name}"
            );
        }
    }

    #[test]
    fn belongs_to() {
        #[rustfmt::skip]
        let rows = [
            ("member", target(&[], &[5, 7]), 7, true),
            ("admin without member row", target(&[7], &[]), 7, true),
            ("member of another org", target(&[], &[3]), 7, false),
            ("admin of another org", target(&[3], &[]), 7, false),
            ("no organizations", target(&[], &[]), 7, false),
        ];
        for (name, target, org, expected) in rows {
            assert_eq!(target.belongs_to(org), expected, "{name}");
        }
    }

    #[test]
    fn is_privileged() {
        let rows = [
            ("superuser", true, false, true),
            ("system auditor", false, true, true),
            ("both", true, true, true),
            ("neither", false, false, false),
        ];
        for (name, is_superuser, is_system_auditor, expected) in rows {
            let target = TargetUser {
                is_superuser,
                is_system_auditor,
                ..TargetUser::default()
            };
            assert_eq!(target.is_privileged(), expected, "{name}");
        }
    }
}

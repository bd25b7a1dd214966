//! The requester: who is asking, which organizations they hold roles in, which other roles
//! they were granted, and whether their credentials only allow reading.

use crate::roles::{Grants, Resource, ResourceKind, Role, RoleField, RoleVisibility};

/// Database id of a user or an organization.
pub type Id = i64;

/// The authenticated user performing a request.
///
/// The caller fills the organization lists from storage; they may be in any
/// order and may repeat ids, so every query here is a plain membership test.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Actor {
    /// The actor's user id.
    pub user_id: Id,
    /// Superusers may do everything (except delete themselves, or write with a
    /// [`read_only`](Self::read_only) token).
    pub is_superuser: bool,
    /// System auditors may read everything. The flag grants no write: an
    /// auditor changes only their own profile and what they own or
    /// administer (applications, tokens).
    pub is_system_auditor: bool,
    /// Organizations the actor administers (any order, duplicates allowed).
    pub admin_of: Vec<Id>,
    /// Organizations the actor is a direct member of (any order, duplicates allowed).
    pub member_of: Vec<Id>,
    /// The request was authenticated by an OAuth 2 token whose scope lacks
    /// `write`; such an actor may only read.
    ///
    /// AWX's scope rule is "read gives only the read permissions RBAC gives":
    /// with such a token every method other than GET, HEAD and OPTIONS
    /// answers 403 before any other check (see [`crate::check_method`]),
    /// superusers included, every `can_create_*` / `can_change_*` /
    /// `can_delete_*` rule refuses, and every `*_capabilities` is all false.
    /// What the actor may *see* is unchanged.
    pub read_only: bool,
    /// The roles granted to the actor directly, and those its teams hold
    /// ([`with_team_roles`](Self::with_team_roles)). Its organization admin and member roles
    /// are [`admin_of`](Self::admin_of) and [`member_of`](Self::member_of), whether or not
    /// they are here too.
    pub grants: Grants,
}

impl Actor {
    /// Whether the actor holds role `field` of `resource`: a superuser holds every role, a
    /// system auditor every `read_role` and `auditor_role`; anyone else what their grants and
    /// organization memberships give along the role graph. False for a field the kind lacks.
    pub fn holds(&self, resource: &Resource, field: RoleField) -> bool {
        if !resource.kind.has(field) {
            return false;
        }
        self.is_superuser
            || (self.is_system_auditor && matches!(field, RoleField::Read | RoleField::Auditor))
            || crate::roles::grants::holds_through(resource, field, |role| self.granted(role))
    }

    /// Which objects of `kind` the actor's roles show; `None` when every object shows
    /// (superusers and system auditors).
    pub fn role_visibility(&self, kind: ResourceKind) -> Option<RoleVisibility> {
        if self.reads_everything() {
            return None;
        }
        let admin = self
            .admin_of
            .iter()
            .map(|org| organization_role(*org, RoleField::Admin));
        let member = self
            .member_of
            .iter()
            .map(|org| organization_role(*org, RoleField::Member));
        let granted = self.grants.direct().copied().chain(admin).chain(member);
        Some(crate::roles::grants::visible_through(kind, granted))
    }

    /// Whether `role` was granted to the actor, as a grant or as an organization membership.
    fn granted(&self, role: &Role) -> bool {
        self.grants.has_direct(role)
            || (role.kind == ResourceKind::Organization
                && match role.field {
                    RoleField::Admin => self.administers(role.object),
                    RoleField::Member => self.member_of.contains(&role.object),
                    _ => false,
                })
    }

    /// Whether the actor holds the admin role of `org`.
    pub fn administers(&self, org: Id) -> bool {
        self.admin_of.contains(&org)
    }

    /// Whether the actor, as an organization admin, manages the account of `user` and what
    /// hangs off it (password, profile, personal credentials, tokens): `user` is not
    /// privileged, belongs to at least one organization, and every organization `user`
    /// belongs to is one the actor administers (the reference's `UserAccess.can_admin`).
    ///
    /// "Any of" would not do: an admin of A could add the admin of B to A, then set their
    /// password and act as them in B. A user in no organization is nobody's but a
    /// superuser's.
    pub fn manages_user(&self, user: &crate::TargetUser) -> bool {
        let mut organizations = user.organizations().peekable();
        !user.is_privileged()
            && organizations.peek().is_some()
            && organizations.all(|org| self.administers(org))
    }

    /// Whether the actor is a member or an admin of `org`.
    ///
    /// In AWX an organization's admin role implies its member role, so an
    /// admin belongs to the organization even without a member row.
    pub fn belongs_to(&self, org: Id) -> bool {
        self.administers(org) || self.member_of.contains(&org)
    }

    /// Whether the actor administers at least one organization.
    pub fn is_org_admin_anywhere(&self) -> bool {
        !self.admin_of.is_empty()
    }

    /// Whether the actor may read every object: superuser or system auditor.
    pub fn reads_everything(&self) -> bool {
        self.is_superuser || self.is_system_auditor
    }

    /// Every organization the actor belongs to, sorted and deduplicated, so
    /// visibility filters compare equal regardless of the caller's order.
    pub(crate) fn organizations(&self) -> Vec<Id> {
        sorted_unique(self.admin_of.iter().chain(&self.member_of))
    }

    /// The organizations the actor administers, sorted and deduplicated, for
    /// the same reason as [`Actor::organizations`].
    pub(crate) fn administered(&self) -> Vec<Id> {
        sorted_unique(&self.admin_of)
    }
}

fn organization_role(object: Id, field: RoleField) -> Role {
    Role {
        kind: ResourceKind::Organization,
        object,
        field,
    }
}

fn sorted_unique<'a>(ids: impl IntoIterator<Item = &'a Id>) -> Vec<Id> {
    let mut ids: Vec<Id> = ids.into_iter().copied().collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_held_through_flags_grants_and_memberships() {
        let template = Resource::of(ResourceKind::JobTemplate, 7, Some(3));
        let executor = Actor {
            grants: Grants::new([Role {
                kind: ResourceKind::JobTemplate,
                object: 7,
                field: RoleField::Execute,
            }]),
            ..actor(&[], &[])
        };
        #[rustfmt::skip]
        let rows = [
            ("superuser", Actor { is_superuser: true, ..actor(&[], &[]) }, RoleField::Admin, true),
            ("system auditor reads", Actor { is_system_auditor: true, ..actor(&[], &[]) },
             RoleField::Read, true),
            ("system auditor runs nothing", Actor { is_system_auditor: true, ..actor(&[], &[]) },
             RoleField::Execute, false),
            ("admin of the organization", actor(&[3], &[]), RoleField::Admin, true),
            ("member of the organization", actor(&[], &[3]), RoleField::Read, false),
            ("execute granted", executor.clone(), RoleField::Execute, true),
            ("execute does not administer", executor.clone(), RoleField::Admin, false),
            ("a field the kind lacks", Actor { is_superuser: true, ..actor(&[], &[]) },
             RoleField::Use, false),
        ];
        for (name, actor, field, expected) in rows {
            assert_eq!(actor.holds(&template, field), expected, "{name}");
        }
        assert_eq!(
            executor.role_visibility(ResourceKind::JobTemplate),
            Some(RoleVisibility {
                objects: vec![7],
                ..RoleVisibility::default()
            })
        );
        assert_eq!(
            actor(&[3], &[4]).role_visibility(ResourceKind::Project),
            Some(RoleVisibility {
                organizations: vec![3],
                ..RoleVisibility::default()
            })
        );
        let auditor = Actor {
            is_system_auditor: true,
            ..actor(&[], &[])
        };
        assert_eq!(auditor.role_visibility(ResourceKind::Credential), None);
    }

    fn actor(admin_of: &[Id], member_of: &[Id]) -> Actor {
        Actor {
            user_id: 1,
            admin_of: admin_of.to_vec(),
            member_of: member_of.to_vec(),
            ..Actor::default()
        }
    }

    #[test]
    fn administers() {
        #[rustfmt::skip]
        let rows = [
            ("admin of the org", actor(&[3, 7], &[]), 7, true),
            ("member only", actor(&[], &[7]), 7, false),
            ("admin of another org", actor(&[3], &[]), 7, false),
            ("no roles", actor(&[], &[]), 7, false),
        ];
        for (name, actor, org, expected) in rows {
            assert_eq!(actor.administers(org), expected, "{name}");
        }
    }

    #[test]
    fn manages_user_only_inside_every_organization_of_the_user() {
        let user = |admin_of: &[Id], member_of: &[Id]| crate::TargetUser {
            id: 2,
            admin_of: admin_of.to_vec(),
            member_of: member_of.to_vec(),
            ..crate::TargetUser::default()
        };
        let privileged = |superuser, auditor| crate::TargetUser {
            is_superuser: superuser,
            is_system_auditor: auditor,
            ..user(&[], &[7])
        };
        #[rustfmt::skip]
        let rows = [
            ("member of the one org", actor(&[7], &[]), user(&[], &[7]), true),
            ("admin of the one org", actor(&[7], &[]), user(&[7], &[]), true),
            ("member of both, actor admin of both", actor(&[3, 7], &[]), user(&[], &[3, 7]), true),
            ("member of both, actor admin of one", actor(&[7], &[]), user(&[], &[3, 7]), false),
            ("admin elsewhere, member here", actor(&[7], &[]), user(&[3], &[7]), false),
            ("in no organization", actor(&[7], &[]), user(&[], &[]), false),
            ("only in another org", actor(&[7], &[]), user(&[], &[3]), false),
            ("actor only a member", actor(&[], &[7]), user(&[], &[7]), false),
            ("superuser in the org", actor(&[7], &[]), privileged(true, false), false),
            ("auditor in the org", actor(&[7], &[]), privileged(false, true), false),
        ];
        for (name, actor, target, expected) in rows {
            assert_eq!(actor.manages_user(&target), expected, "{name}");
        }
    }

    #[test]
    fn belongs_to() {
        #[rustfmt::skip]
        let rows = [
            ("member", actor(&[], &[5, 7]), 7, true),
            ("admin without member row", actor(&[7], &[]), 7, true),
            ("member of another org", actor(&[], &[3]), 7, false),
            ("admin of another org", actor(&[3], &[]), 7, false),
            ("no roles", actor(&[], &[]), 7, false),
        ];
        for (name, actor, org, expected) in rows {
            assert_eq!(actor.belongs_to(org), expected, "{name}");
        }
    }

    #[test]
    fn is_org_admin_anywhere() {
        #[rustfmt::skip]
        let rows = [
            ("admin of one org", actor(&[3], &[]), true),
            ("member only", actor(&[], &[3]), false),
            ("no roles", actor(&[], &[]), false),
        ];
        for (name, actor, expected) in rows {
            assert_eq!(actor.is_org_admin_anywhere(), expected, "{name}");
        }
    }

    #[test]
    fn reads_everything() {
        let superuser = Actor {
            is_superuser: true,
            ..Actor::default()
        };
        let auditor = Actor {
            is_system_auditor: true,
            ..Actor::default()
        };
        #[rustfmt::skip]
        let rows = [
            ("superuser", superuser, true),
            ("system auditor", auditor, true),
            ("org admin", actor(&[3], &[]), false),
            ("plain user", actor(&[], &[3]), false),
        ];
        for (name, actor, expected) in rows {
            assert_eq!(actor.reads_everything(), expected, "{name}");
        }
    }

    #[test]
    fn organizations_are_sorted_and_unique() {
        #[rustfmt::skip]
        let rows = [
            ("admin and member lists merge", actor(&[9, 2], &[5, 2, 9]), vec![2, 5, 9]),
            ("repeats within one list", actor(&[4, 4], &[]), vec![4]),
            ("no roles", actor(&[], &[]), vec![]),
        ];
        for (name, actor, expected) in rows {
            assert_eq!(actor.organizations(), expected, "{name}");
        }
    }

    #[test]
    fn administered_is_sorted_and_unique() {
        #[rustfmt::skip]
        let rows = [
            ("admin lists sort and dedup", actor(&[9, 2, 9], &[5]), vec![2, 9]),
            ("member rows are not administered", actor(&[], &[5, 2]), vec![]),
            ("no roles", actor(&[], &[]), vec![]),
        ];
        for (name, actor, expected) in rows {
            assert_eq!(actor.administered(), expected, "{name}");
        }
    }
}

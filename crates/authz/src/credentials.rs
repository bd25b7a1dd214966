//! Who may list, view, create, change and delete credentials and credential types.
//!
//! These are ACS's rules. A credential is owned either by an organization or by a user:
//!
//! - an organization's credentials are managed by that organization's admins; plain members
//!   do not see them (as in AWX, where membership alone grants no role on a credential);
//! - a user's credentials are managed by that user and by the admins of an organization the
//!   user belongs to, unless the user is privileged (the rule tokens follow).
//!
//! Credential types are readable by every authenticated user and written by superusers only.
//! Every write rule refuses a [read-only](Actor::read_only) actor first.

use crate::roles::{Resource, ResourceKind, RoleField};
use crate::scope::{permit_write, require_write};
use crate::{Actor, Capabilities, Denied, Id, TargetUser};

/// Who owns a credential.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CredentialOwner {
    /// An organization's credential.
    Organization(Id),
    /// A user's credential, with the user's organization roles.
    User(TargetUser),
}

/// Facts about the credential being acted upon.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetCredential {
    /// The credential's id (0 for one being created).
    pub id: Id,
    /// Its owner.
    pub owner: CredentialOwner,
}

/// Which credentials an actor may list; storage turns it into SQL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CredentialVisibility {
    /// Every credential.
    All,
    /// Credentials owned by `user_id`, by an organization in `administered`, or by a user
    /// who belongs to an organization in `administered`; and those the actor's roles show.
    Limited {
        /// The actor's own id.
        user_id: Id,
        /// Organizations the actor administers, sorted and deduplicated.
        administered: Vec<Id>,
        /// Organizations whose credentials the actor's organization roles show (its auditor
        /// and credential admin roles), sorted and deduplicated.
        role_organizations: Vec<Id>,
        /// Credentials shown by a role on themselves (`read`, `use`, `admin`).
        objects: Vec<Id>,
    },
}

/// Which credentials `actor` may list: all for superusers and system auditors, otherwise their
/// own, those of the organizations they administer and those of those organizations' users.
pub fn visible_credentials(actor: &Actor) -> CredentialVisibility {
    let Some(roles) = actor.role_visibility(ResourceKind::Credential) else {
        return CredentialVisibility::All;
    };
    CredentialVisibility::Limited {
        user_id: actor.user_id,
        administered: actor.administered(),
        role_organizations: roles.organizations,
        objects: roles.objects,
    }
}

/// The credential as the role graph sees it: an organization's, or private (`None`).
fn as_resource(credential: &TargetCredential) -> Resource {
    let organization = match &credential.owner {
        CredentialOwner::Organization(org) => Some(*org),
        CredentialOwner::User(_) => None,
    };
    Resource::of(ResourceKind::Credential, credential.id, organization)
}

/// Whether `actor` may view `credential`; the single-object form of [`visible_credentials`].
pub fn can_view_credential(actor: &Actor, credential: &TargetCredential) -> bool {
    actor.reads_everything()
        || match &credential.owner {
            CredentialOwner::Organization(org) => actor.administers(*org),
            CredentialOwner::User(owner) => {
                owner.id == actor.user_id || owner.organizations().any(|o| actor.administers(o))
            }
        }
        || actor.holds(&as_resource(credential), RoleField::Read)
}

/// Whether `actor` holds the `use_role` of `credential` (its admins do).
pub(crate) fn holds_use(actor: &Actor, credential: &TargetCredential) -> bool {
    actor.holds(&as_resource(credential), RoleField::Use)
}

/// Whether `actor` may create a credential owned by `owner`: superusers for any owner; an
/// organization's admins for it; anyone for themself; an organization admin for a
/// non-privileged user all of whose organizations they administer.
pub fn can_create_credential(actor: &Actor, owner: &CredentialOwner) -> Result<(), Denied> {
    permit_write(actor, manages(actor, owner))
}

/// Whether `actor` may change `credential`: the actors who could create it, and those who
/// hold its `admin_role` (an organization's credential admins, say).
pub fn can_change_credential(actor: &Actor, credential: &TargetCredential) -> Result<(), Denied> {
    let admin = actor.holds(&as_resource(credential), RoleField::Admin);
    permit_write(actor, admin || manages(actor, &credential.owner))
}

/// Whether `actor` may delete `credential`: the actors who may change it.
pub fn can_delete_credential(actor: &Actor, credential: &TargetCredential) -> Result<(), Denied> {
    can_change_credential(actor, credential)
}

/// Whether `actor` may copy `credential`: a copy has the same owner and the same secrets, so
/// it needs both the right to change the original (holding its secrets in a record of one's
/// own is administering them) and the right to create a credential for that owner.
pub fn can_copy_credential(actor: &Actor, credential: &TargetCredential) -> Result<(), Denied> {
    can_change_credential(actor, credential)?;
    can_create_credential(actor, &credential.owner)
}

/// What `actor` may do with `credential`, for `summary_fields.user_capabilities`.
pub fn credential_capabilities(actor: &Actor, credential: &TargetCredential) -> Capabilities {
    let allowed = can_change_credential(actor, credential).is_ok();
    Capabilities {
        edit: allowed,
        delete: allowed,
    }
}

/// Whether `actor` may create, change or delete credential types: superusers only.
pub fn can_write_credential_types(actor: &Actor) -> Result<(), Denied> {
    require_write(actor)?;
    if actor.is_superuser {
        Ok(())
    } else {
        Err(Denied::NotPermitted)
    }
}

fn manages(actor: &Actor, owner: &CredentialOwner) -> bool {
    match owner {
        CredentialOwner::Organization(org) => actor.administers(*org),
        CredentialOwner::User(user) => user.id == actor.user_id || actor.manages_user(user),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::*;

    fn org_credential(org: Id) -> TargetCredential {
        TargetCredential {
            id: 1,
            owner: CredentialOwner::Organization(org),
        }
    }

    fn user_credential(owner: TargetUser) -> TargetCredential {
        TargetCredential {
            id: 1,
            owner: CredentialOwner::User(owner),
        }
    }

    fn member_of(id: Id, org: Id) -> TargetUser {
        TargetUser {
            id,
            member_of: vec![org],
            ..TargetUser::default()
        }
    }

    fn actor(user_id: Id, admin_of: &[Id], member_of: &[Id]) -> Actor {
        Actor {
            user_id,
            admin_of: admin_of.to_vec(),
            member_of: member_of.to_vec(),
            ..Actor::default()
        }
    }

    #[test]
    fn a_copy_needs_the_original_and_its_owner() {
        let of_o = org_credential(O);
        let admin_of = |field: RoleField| Actor {
            grants: crate::roles::Grants::new([crate::roles::Role {
                kind: ResourceKind::Credential,
                object: 1,
                field,
            }]),
            ..unrelated()
        };
        assert_eq!(can_copy_credential(&superuser(), &of_o), Ok(()));
        assert_eq!(can_copy_credential(&actor(7, &[O], &[]), &of_o), Ok(()));
        // Its admin, who may not create credentials for the organization, may not copy it.
        assert!(can_copy_credential(&admin_of(RoleField::Admin), &of_o).is_err());
        assert!(can_copy_credential(&admin_of(RoleField::Use), &of_o).is_err());
        assert!(can_copy_credential(&auditor(), &of_o).is_err());
        assert!(can_copy_credential(&actor(7, &[P], &[O]), &of_o).is_err());
        let own = user_credential(member_of(9, P));
        assert_eq!(can_copy_credential(&actor(9, &[], &[P]), &own), Ok(()));
        assert!(can_copy_credential(&actor(7, &[], &[P]), &own).is_err());
    }

    #[test]
    fn visibility_by_role() {
        assert_eq!(visible_credentials(&superuser()), CredentialVisibility::All);
        assert_eq!(visible_credentials(&auditor()), CredentialVisibility::All);
        assert_eq!(
            visible_credentials(&actor(7, &[O, O], &[P])),
            CredentialVisibility::Limited {
                user_id: 7,
                administered: vec![O],
                role_organizations: vec![O],
                objects: vec![],
            }
        );
    }

    #[test]
    fn credential_roles_show_use_and_administer_one_credential() {
        let granted = |field: RoleField| Actor {
            grants: crate::roles::Grants::new([crate::roles::Role {
                kind: ResourceKind::Credential,
                object: 1,
                field,
            }]),
            ..unrelated()
        };
        let of_o = org_credential(O);
        let other = TargetCredential {
            id: 2,
            ..org_credential(O)
        };
        #[rustfmt::skip]
        let rows = [
            (RoleField::Read, true, false),
            (RoleField::Use, true, false),
            (RoleField::Admin, true, true),
        ];
        for (field, sees, changes) in rows {
            let actor = granted(field);
            assert_eq!(can_view_credential(&actor, &of_o), sees, "{field:?}");
            assert_eq!(
                can_change_credential(&actor, &of_o).is_ok(),
                changes,
                "{field:?}"
            );
            assert_eq!(
                can_delete_credential(&actor, &of_o).is_ok(),
                changes,
                "{field:?}"
            );
            assert!(!can_view_credential(&actor, &other), "{field:?}");
        }
        let credential_admin = Actor {
            grants: crate::roles::Grants::new([crate::roles::Role {
                kind: ResourceKind::Organization,
                object: O,
                field: RoleField::CredentialAdmin,
            }]),
            ..unrelated()
        };
        assert_eq!(can_change_credential(&credential_admin, &other), Ok(()));
        assert!(matches!(
            visible_credentials(&granted(RoleField::Use)),
            CredentialVisibility::Limited { objects, .. } if objects == [1]
        ));
    }

    #[test]
    fn view_rules() {
        let privileged_member = TargetUser {
            id: 9,
            is_superuser: true,
            member_of: vec![O],
            ..TargetUser::default()
        };
        #[rustfmt::skip]
        let rows = [
            ("superuser, any org credential", superuser(), org_credential(P), true),
            ("auditor, any user credential", auditor(), user_credential(member_of(9, P)), true),
            ("org admin, own org", actor(7, &[O], &[]), org_credential(O), true),
            ("org admin, other org", actor(7, &[O], &[]), org_credential(P), false),
            ("plain member, org credential", actor(7, &[], &[O]), org_credential(O), false),
            ("owner", actor(9, &[], &[]), user_credential(member_of(9, P)), true),
            ("org admin, member's credential", actor(7, &[P], &[]), user_credential(member_of(9, P)), true),
            ("org admin, privileged member's credential", actor(7, &[O], &[]), user_credential(privileged_member), true),
            ("fellow member", actor(7, &[], &[P]), user_credential(member_of(9, P)), false),
        ];
        for (name, actor, credential, expected) in rows {
            assert_eq!(can_view_credential(&actor, &credential), expected, "{name}");
        }
    }

    #[test]
    fn write_rules() {
        let privileged_member = TargetUser {
            id: 9,
            is_system_auditor: true,
            member_of: vec![O],
            ..TargetUser::default()
        };
        let read_only_superuser = Actor {
            read_only: true,
            ..superuser()
        };
        // A member of P who administers O: P's admin sees their credentials, but they are
        // not P's admin's to change (O's admin role is theirs, not P's admin's).
        let in_p_admin_of_o = TargetUser {
            id: 9,
            admin_of: vec![O],
            member_of: vec![P],
            ..TargetUser::default()
        };
        #[rustfmt::skip]
        let rows = [
            ("superuser", superuser(), org_credential(P), Ok(())),
            ("read-only superuser", read_only_superuser, org_credential(P), Err(Denied::NotPermitted)),
            ("auditor reads only", auditor(), org_credential(P), Err(Denied::NotPermitted)),
            ("org admin, own org", actor(7, &[O], &[]), org_credential(O), Ok(())),
            ("plain member, org credential", actor(7, &[], &[O]), org_credential(O), Err(Denied::NotPermitted)),
            ("owner", actor(9, &[], &[]), user_credential(member_of(9, P)), Ok(())),
            ("org admin, member", actor(7, &[P], &[]), user_credential(member_of(9, P)), Ok(())),
            ("org admin of P, user also admin of O", actor(7, &[P], &[]), user_credential(in_p_admin_of_o.clone()), Err(Denied::NotPermitted)),
            ("org admin of O and P, that user", actor(7, &[O, P], &[]), user_credential(in_p_admin_of_o), Ok(())),
            ("org admin, privileged member", actor(7, &[O], &[]), user_credential(privileged_member), Err(Denied::NotPermitted)),
            ("stranger", actor(7, &[], &[]), user_credential(member_of(9, P)), Err(Denied::NotPermitted)),
        ];
        for (name, actor, credential, expected) in rows {
            assert_eq!(
                can_change_credential(&actor, &credential),
                expected,
                "{name}"
            );
            assert_eq!(
                can_delete_credential(&actor, &credential),
                expected,
                "{name}"
            );
            assert_eq!(
                can_create_credential(&actor, &credential.owner),
                expected,
                "{name}"
            );
            assert_eq!(
                credential_capabilities(&actor, &credential).edit,
                expected.is_ok(),
                "{name}"
            );
        }
    }

    #[test]
    fn only_superusers_write_types() {
        assert_eq!(can_write_credential_types(&superuser()), Ok(()));
        assert_eq!(
            can_write_credential_types(&auditor()),
            Err(Denied::NotPermitted)
        );
        assert_eq!(
            can_write_credential_types(&actor(7, &[O], &[])),
            Err(Denied::NotPermitted)
        );
        let read_only = Actor {
            read_only: true,
            ..superuser()
        };
        assert_eq!(
            can_write_credential_types(&read_only),
            Err(Denied::NotPermitted)
        );
    }
}

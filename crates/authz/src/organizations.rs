//! Who may list, view, create, change and delete organizations, and manage
//! their admins and members.
//!
//! Every write rule refuses a [read-only](Actor::read_only) actor first.

use crate::roles::{Resource, ResourceKind, RoleField};
use crate::scope::{permit_write, require_write};
use crate::{Actor, Capabilities, Denied, Id, TargetUser};

/// Which organizations an actor may list; storage turns it into SQL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OrganizationVisibility {
    /// Every organization.
    All,
    /// Only these organizations, sorted and deduplicated.
    Only(Vec<Id>),
}

/// Which organizations `actor` may list: all for superusers and system
/// auditors, otherwise those the actor belongs to (member or admin) and those
/// on which it holds any other role (every organization role implies `read`).
pub fn visible_organizations(actor: &Actor) -> OrganizationVisibility {
    match actor.role_visibility(ResourceKind::Organization) {
        None => OrganizationVisibility::All,
        Some(roles) => {
            let mut ids = actor.organizations();
            ids.extend(roles.objects);
            ids.sort_unstable();
            ids.dedup();
            OrganizationVisibility::Only(ids)
        }
    }
}

/// Whether `actor` may view organization `org`; the single-object form of
/// [`visible_organizations`].
pub fn can_view_organization(actor: &Actor, org: Id) -> bool {
    actor.reads_everything()
        || actor.belongs_to(org)
        || actor.holds(&Resource::organization(org), RoleField::Read)
}

/// Whether `actor` may create an organization: superusers only, since an
/// organization is the unit that delegates administration.
pub fn can_create_organization(actor: &Actor) -> Result<(), Denied> {
    require_write(actor)?;
    superuser_only(actor)
}

/// Whether `actor` may change organization `org`: superusers and that
/// organization's admins.
pub fn can_change_organization(actor: &Actor, org: Id) -> Result<(), Denied> {
    permit_write(actor, actor.administers(org))
}

/// Whether `actor` may delete organization `org`: superusers only, since
/// deletion takes everything the organization owns with it.
pub fn can_delete_organization(actor: &Actor, org: Id) -> Result<(), Denied> {
    require_write(actor)?;
    // Deliberately not `administers(org)`: AWX refuses deletion to org admins.
    let _ = org;
    superuser_only(actor)
}

/// A role a user can hold on an organization.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrganizationRole {
    /// The organization's admin role.
    Admin,
    /// The organization's member role.
    Member,
}

/// Whether `actor` may associate or disassociate `target` with `role` on `org`.
///
/// Superusers and the organization's admins may; an organization admin may
/// not touch a superuser's memberships, because a superuser is outside any
/// organization's authority.
pub fn can_change_membership(
    actor: &Actor,
    org: Id,
    role: OrganizationRole,
    target: &TargetUser,
) -> Result<(), Denied> {
    require_write(actor)?;
    // Both roles follow the same rule (an org admin may appoint fellow
    // admins, as in AWX); matching exhaustively makes a new role revisit this.
    match role {
        OrganizationRole::Admin | OrganizationRole::Member => {}
    }
    if actor.is_superuser {
        return Ok(());
    }
    if actor.administers(org) && !target.is_superuser {
        Ok(())
    } else {
        Err(Denied::NotPermitted)
    }
}

/// What `actor` may do with organization `org`, for
/// `summary_fields.user_capabilities`.
pub fn organization_capabilities(actor: &Actor, org: Id) -> Capabilities {
    Capabilities {
        edit: can_change_organization(actor, org).is_ok(),
        delete: can_delete_organization(actor, org).is_ok(),
    }
}

fn superuser_only(actor: &Actor) -> Result<(), Denied> {
    if actor.is_superuser {
        Ok(())
    } else {
        Err(Denied::NotPermitted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::*;

    #[test]
    fn visible_organizations_by_role() {
        let member_p_admin_o = Actor {
            user_id: 7,
            admin_of: vec![O],
            member_of: vec![P, O],
            ..Actor::default()
        };
        #[rustfmt::skip]
        let rows = [
            ("superuser", superuser(), OrganizationVisibility::All),
            ("system auditor", auditor(), OrganizationVisibility::All),
            ("admin of O", admin_o(), OrganizationVisibility::Only(vec![O])),
            ("member of O", member_o(), OrganizationVisibility::Only(vec![O])),
            ("admin of P", admin_p(), OrganizationVisibility::Only(vec![P])),
            ("unrelated", unrelated(), OrganizationVisibility::Only(vec![])),
            ("admin of O and P", admin_o_and_p(), OrganizationVisibility::Only(vec![O, P])),
            ("sorted and unique", member_p_admin_o, OrganizationVisibility::Only(vec![O, P])),
        ];
        for (name, actor, expected) in rows {
            assert_eq!(visible_organizations(&actor), expected, "{name}");
        }
    }

    #[test]
    fn can_view_organization_by_role() {
        #[rustfmt::skip]
        let rows = [
            ("superuser: P", superuser(), P, true),
            ("auditor: P", auditor(), P, true),
            ("admin of O: O", admin_o(), O, true),
            ("admin of O: P", admin_o(), P, false),
            ("member of O: O", member_o(), O, true),
            ("member of O: P", member_o(), P, false),
            ("admin of P: O", admin_p(), O, false),
            ("unrelated: O", unrelated(), O, false),
        ];
        for (name, actor, org, expected) in rows {
            assert_eq!(can_view_organization(&actor, org), expected, "{name}");
        }
    }

    #[test]
    fn can_create_organization_by_role() {
        #[rustfmt::skip]
        let rows = [
            ("superuser", superuser(), OK),
            ("auditor", auditor(), NOT_PERMITTED),
            ("admin of O", admin_o(), NOT_PERMITTED),
            ("member of O", member_o(), NOT_PERMITTED),
            ("unrelated", unrelated(), NOT_PERMITTED),
            ("read-only superuser", read_only(superuser()), NOT_PERMITTED),
        ];
        for (name, actor, expected) in rows {
            assert_eq!(can_create_organization(&actor), expected, "{name}");
        }
    }

    #[test]
    fn can_change_organization_by_role() {
        #[rustfmt::skip]
        let rows = [
            ("superuser: O", superuser(), O, OK),
            ("auditor: O", auditor(), O, NOT_PERMITTED),
            ("admin of O: O", admin_o(), O, OK),
            ("admin of O: P", admin_o(), P, NOT_PERMITTED),
            ("member of O: O", member_o(), O, NOT_PERMITTED),
            ("admin of P: O", admin_p(), O, NOT_PERMITTED),
            ("unrelated: O", unrelated(), O, NOT_PERMITTED),
            ("read-only superuser: O", read_only(superuser()), O, NOT_PERMITTED),
            ("read-only admin of O: O", read_only(admin_o()), O, NOT_PERMITTED),
        ];
        for (name, actor, org, expected) in rows {
            assert_eq!(can_change_organization(&actor, org), expected, "{name}");
        }
    }

    #[test]
    fn can_delete_organization_by_role() {
        #[rustfmt::skip]
        let rows = [
            ("superuser: O", superuser(), O, OK),
            ("auditor: O", auditor(), O, NOT_PERMITTED),
            ("admin of O: O", admin_o(), O, NOT_PERMITTED),
            ("member of O: O", member_o(), O, NOT_PERMITTED),
            ("admin of P: O", admin_p(), O, NOT_PERMITTED),
            ("unrelated: O", unrelated(), O, NOT_PERMITTED),
            ("read-only superuser: O", read_only(superuser()), O, NOT_PERMITTED),
        ];
        for (name, actor, org, expected) in rows {
            assert_eq!(can_delete_organization(&actor, org), expected, "{name}");
        }
    }

    #[test]
    fn can_change_membership_by_role() {
        #[rustfmt::skip]
        let rows = [
            ("superuser: user in P into O", superuser(), O, in_p(), OK),
            ("superuser: superuser into O", superuser(), O, superuser_no_org(), OK),
            ("superuser: self into O", superuser(), O, myself(&superuser()), OK),
            ("auditor: user in O", auditor(), O, in_o(), NOT_PERMITTED),
            ("admin of O: user in O", admin_o(), O, in_o(), OK),
            ("admin of O: admin of O", admin_o(), O, admin_of_o(), OK),
            ("admin of O: user in P into O", admin_o(), O, in_p(), OK),
            ("admin of O: user in no org into O", admin_o(), O, no_org(), OK),
            ("admin of O: auditor into O", admin_o(), O, auditor_no_org(), OK),
            ("admin of O: self", admin_o(), O, myself(&admin_o()), OK),
            ("admin of O: superuser into O", admin_o(), O, superuser_no_org(), NOT_PERMITTED),
            ("admin of O: superuser in O", admin_o(), O, superuser_in_o(), NOT_PERMITTED),
            ("admin of O: user in O into P", admin_o(), P, in_o(), NOT_PERMITTED),
            ("member of O: user in no org into O", member_o(), O, no_org(), NOT_PERMITTED),
            ("member of O: self", member_o(), O, myself(&member_o()), NOT_PERMITTED),
            ("admin of P: user in O", admin_p(), O, in_o(), NOT_PERMITTED),
            ("unrelated: self into O", unrelated(), O, myself(&unrelated()), NOT_PERMITTED),
            ("read-only superuser: user in P into O", read_only(superuser()), O, in_p(), NOT_PERMITTED),
            ("read-only superuser: self into O", read_only(superuser()), O, myself(&superuser()), NOT_PERMITTED),
            ("read-only admin of O: user in O", read_only(admin_o()), O, in_o(), NOT_PERMITTED),
        ];
        // Both roles follow one rule, so every row must hold for each.
        for role in [OrganizationRole::Admin, OrganizationRole::Member] {
            for (name, actor, org, target, expected) in &rows {
                assert_eq!(
                    can_change_membership(actor, *org, role, target),
                    *expected,
                    "{name} as {role:?}"
                );
            }
        }
    }

    #[test]
    fn organization_capabilities_by_role() {
        let caps = |edit, delete| Capabilities { edit, delete };
        #[rustfmt::skip]
        let rows = [
            ("superuser: O", superuser(), O, caps(true, true)),
            ("auditor: O", auditor(), O, caps(false, false)),
            ("admin of O: O", admin_o(), O, caps(true, false)),
            ("admin of O: P", admin_o(), P, caps(false, false)),
            ("member of O: O", member_o(), O, caps(false, false)),
            ("unrelated: O", unrelated(), O, caps(false, false)),
            ("read-only superuser: O", read_only(superuser()), O, caps(false, false)),
            ("read-only admin of O: O", read_only(admin_o()), O, caps(false, false)),
        ];
        for (name, actor, org, expected) in rows {
            assert_eq!(organization_capabilities(&actor, org), expected, "{name}");
        }
    }
}

//! Which roles an actor may list (`GET /api/v2/roles/`): every role of each object it may
//! see, and the two system roles, as the reference's `Role.filter_visible_roles` does.

use crate::roles::ResourceKind;
use crate::{
    Actor, CredentialVisibility, Id, ObjectVisibility, visible_credentials, visible_objects,
};

/// The roles an actor may list; storage turns it into SQL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VisibleRoles {
    /// Every role (superusers and system auditors).
    All,
    /// The system roles, and the roles of the objects the actor may see.
    Only(Box<SeenObjects>),
}

/// The objects whose roles an actor may list, by kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeenObjects {
    /// Organizations it may see, sorted and deduplicated.
    pub organizations: Vec<Id>,
    /// Teams it may see.
    pub teams: ObjectVisibility,
    /// Credentials it may see.
    pub credentials: CredentialVisibility,
    /// Projects it may see.
    pub projects: ObjectVisibility,
    /// Inventories it may see.
    pub inventories: ObjectVisibility,
    /// Job templates it may see.
    pub job_templates: ObjectVisibility,
}

/// Which roles `actor` may list: the roles of every object it may view. Seeing an object is
/// holding any role on it, so an organization's member sees all of its roles but not those
/// of its inventories.
pub fn visible_roles(actor: &Actor) -> VisibleRoles {
    if actor.reads_everything() {
        return VisibleRoles::All;
    }
    VisibleRoles::Only(Box::new(SeenObjects {
        organizations: match crate::visible_organizations(actor) {
            crate::OrganizationVisibility::Only(ids) => ids,
            crate::OrganizationVisibility::All => return VisibleRoles::All,
        },
        teams: visible_objects(actor, ResourceKind::Team),
        credentials: visible_credentials(actor),
        projects: visible_objects(actor, ResourceKind::Project),
        inventories: visible_objects(actor, ResourceKind::Inventory),
        job_templates: visible_objects(actor, ResourceKind::JobTemplate),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{O, P, auditor, member_o, superuser, unrelated};
    use crate::roles::{Grants, Role, RoleField};

    fn granted(kind: ResourceKind, object: Id, field: RoleField) -> Actor {
        Actor {
            grants: Grants::new([Role {
                kind,
                object,
                field,
            }]),
            ..unrelated()
        }
    }

    fn only(visible: VisibleRoles) -> (Vec<Id>, ObjectVisibility) {
        match visible {
            VisibleRoles::All => panic!("every role"),
            VisibleRoles::Only(seen) => (seen.organizations, seen.job_templates),
        }
    }

    #[test]
    fn who_reads_everything_lists_every_role() {
        assert_eq!(visible_roles(&superuser()), VisibleRoles::All);
        assert_eq!(visible_roles(&auditor()), VisibleRoles::All);
    }

    #[test]
    fn a_member_sees_its_organization_and_its_automation() {
        let (organizations, templates) = only(visible_roles(&member_o()));
        assert_eq!(organizations, [O]);
        assert_eq!(
            templates,
            ObjectVisibility::Only {
                organizations: vec![O],
                objects: vec![],
                inventory_organizations: vec![],
            }
        );
    }

    #[test]
    fn a_role_on_an_object_shows_that_object_and_not_its_organization() {
        let executor = granted(ResourceKind::JobTemplate, 7, RoleField::Execute);
        let (organizations, templates) = only(visible_roles(&executor));
        assert!(organizations.is_empty());
        assert_eq!(
            templates,
            ObjectVisibility::Only {
                organizations: vec![],
                objects: vec![7],
                inventory_organizations: vec![],
            }
        );
    }

    #[test]
    fn any_organization_role_shows_the_organization_but_only_what_it_reaches() {
        let executor = granted(ResourceKind::Organization, P, RoleField::Execute);
        assert!(crate::can_view_organization(&executor, P));
        assert!(!crate::can_view_organization(&executor, O));
        let (organizations, templates) = only(visible_roles(&executor));
        assert_eq!(organizations, [P]);
        // An organization's execute role reads its templates, not its inventories.
        assert_eq!(
            templates,
            ObjectVisibility::Only {
                organizations: vec![P],
                objects: vec![],
                inventory_organizations: vec![],
            }
        );
        let VisibleRoles::Only(seen) = visible_roles(&executor) else {
            panic!("limited");
        };
        assert_eq!(
            seen.inventories,
            ObjectVisibility::Only {
                organizations: vec![],
                objects: vec![],
                inventory_organizations: vec![],
            }
        );
    }
}

//! Who may see, change and run the automation resources: projects, inventories (with their
//! hosts and inventory sources), job templates and their runs.
//!
//! Each of them belongs to one organization (a host or an inventory source through its
//! inventory, a job template through its project, a run through what it ran):
//!
//! - everyone who belongs to the organization sees them, as do superusers and system auditors;
//! - the organization's admins and superusers create, change and delete them, and launch,
//!   update and cancel runs;
//! - attaching a credential to a job template or an inventory source also needs the right to
//!   use that credential: being one who may manage it.
//!
//! The roles of an object add to that ([`crate::roles`]): `read` shows it, `admin`
//! changes and deletes it, `execute` launches a job template, `update` starts a project's or
//! an inventory's updates, `use` lets a project or an inventory be referred to by what its
//! holder administers; an organization's admin holds them all through the role graph, as its
//! sub-admins (`project_admin`, …) hold them for their kind. Hosts and inventory sources are
//! governed by their inventory's roles.
//!
//! Every write rule refuses a [read-only](Actor::read_only) actor first, so a `read` token
//! cannot launch a job.

use crate::credentials::can_change_credential;
use crate::roles::{Resource, ResourceKind, RoleField};
use crate::scope::permit_write;
use crate::{Actor, Capabilities, Denied, Id, OrganizationVisibility, TargetCredential};

/// Which automation objects of one kind an actor may list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ObjectVisibility {
    /// Every object.
    All,
    /// The objects of these organizations, and these objects (for hosts and inventory
    /// sources: the rows of these inventories); both sorted, without repeats.
    Only {
        /// Organizations whose objects of the kind all show.
        organizations: Vec<Id>,
        /// Objects shown by a role on themselves.
        objects: Vec<Id>,
        /// Organizations whose auditors read the job templates on their inventories
        /// (job templates only; empty for every other kind).
        inventory_organizations: Vec<Id>,
    },
}

/// Which objects of `kind` (`Inventory` for hosts and inventory sources) `actor` may list:
/// those of the organizations it belongs to, and those its roles show.
pub fn visible_objects(actor: &Actor, kind: ResourceKind) -> ObjectVisibility {
    let Some(roles) = actor.role_visibility(kind) else {
        return ObjectVisibility::All;
    };
    let mut organizations = actor.organizations();
    organizations.extend(roles.organizations);
    organizations.sort_unstable();
    organizations.dedup();
    ObjectVisibility::Only {
        organizations,
        objects: roles.objects,
        inventory_organizations: roles.inventory_organizations,
    }
}

/// Whether `actor` may view the object `resource` (or a host or inventory source of the
/// inventory `resource`): who may view its organization's automation, or holds its `read`.
pub fn can_view_object(actor: &Actor, resource: &Resource) -> bool {
    resource
        .organization
        .is_some_and(|org| can_view_automation(actor, org))
        || actor.holds(resource, RoleField::Read)
}

/// Whether `actor` may change or delete the object `resource` (or a host or inventory source
/// of the inventory `resource`): it holds its `admin` role.
pub fn can_change_object(actor: &Actor, resource: &Resource) -> Result<(), Denied> {
    permit_write(actor, actor.holds(resource, RoleField::Admin))
}

/// Whether `actor` may act on `resource` with role `field`: launch a job template
/// (`Execute`), start a project's or inventory's update (`Update`), refer to a project or an
/// inventory from what it writes (`Use`).
pub fn can_act_on_object(
    actor: &Actor,
    resource: &Resource,
    field: RoleField,
) -> Result<(), Denied> {
    permit_write(actor, actor.holds(resource, field))
}

/// What `actor` may do with the object `resource`, for `summary_fields.user_capabilities`.
pub fn object_capabilities(actor: &Actor, resource: &Resource) -> Capabilities {
    let allowed = can_change_object(actor, resource).is_ok();
    Capabilities {
        edit: allowed,
        delete: allowed,
    }
}

/// Which automation resources `actor` may list: those of the organizations it may see.
pub fn visible_automation(actor: &Actor) -> OrganizationVisibility {
    if actor.reads_everything() {
        OrganizationVisibility::All
    } else {
        OrganizationVisibility::Only(actor.organizations())
    }
}

/// Whether `actor` may view a resource of organization `org`.
pub fn can_view_automation(actor: &Actor, org: Id) -> bool {
    actor.reads_everything() || actor.belongs_to(org)
}

/// Whether `actor` may create, change or delete a resource of organization `org`.
pub fn can_change_automation(actor: &Actor, org: Id) -> Result<(), Denied> {
    permit_write(actor, actor.administers(org))
}

/// Whether `actor` may launch a job, start an update or cancel a run of organization `org`:
/// the actors who may change its resources.
pub fn can_run_automation(actor: &Actor, org: Id) -> Result<(), Denied> {
    can_change_automation(actor, org)
}

/// Whether `actor` may cancel a run of the object `governed` (a job's template, an update's
/// project or inventory) that `launched_by` started: its launcher always, anyone else by
/// administering the object (an organization's admin administers all of its objects).
pub fn can_cancel_run(
    actor: &Actor,
    governed: &Resource,
    launched_by: Option<Id>,
) -> Result<(), Denied> {
    permit_write(
        actor,
        launched_by == Some(actor.user_id) || actor.holds(governed, RoleField::Admin),
    )
}

/// Whether `actor` may have `credential` injected into runs it sets up: the actors who may
/// change the credential, and those who hold its `use` role.
pub fn can_use_credential(actor: &Actor, credential: &TargetCredential) -> Result<(), Denied> {
    if crate::credentials::holds_use(actor, credential) {
        return crate::scope::require_write(actor);
    }
    can_change_credential(actor, credential)
}

/// What `actor` may do with a resource of organization `org`, for
/// `summary_fields.user_capabilities`.
pub fn automation_capabilities(actor: &Actor, org: Id) -> Capabilities {
    let allowed = can_change_automation(actor, org).is_ok();
    Capabilities {
        edit: allowed,
        delete: allowed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CredentialOwner;
    use crate::fixtures::*;

    #[test]
    fn members_see_admins_change_and_run() {
        let rows: [(Actor, bool, bool); 5] = [
            (superuser(), true, true),
            (auditor(), true, false),
            (admin_o(), true, true),
            (member_o(), true, false),
            (admin_p(), false, false),
        ];
        for (actor, sees, writes) in rows {
            assert_eq!(can_view_automation(&actor, O), sees, "{actor:?}");
            assert_eq!(
                can_change_automation(&actor, O).is_ok(),
                writes,
                "{actor:?}"
            );
            assert_eq!(can_run_automation(&actor, O).is_ok(), writes, "{actor:?}");
            assert_eq!(automation_capabilities(&actor, O).edit, writes, "{actor:?}");
        }
    }

    fn granted(kind: ResourceKind, object: Id, field: RoleField) -> Actor {
        Actor {
            grants: crate::roles::Grants::new([crate::roles::Role {
                kind,
                object,
                field,
            }]),
            ..unrelated()
        }
    }

    #[test]
    fn object_roles_show_change_and_run_one_object() {
        let template = Resource::of(ResourceKind::JobTemplate, 7, Some(O));
        let other = Resource::of(ResourceKind::JobTemplate, 8, Some(O));
        let executor = granted(ResourceKind::JobTemplate, 7, RoleField::Execute);
        #[rustfmt::skip]
        let rows: [(&str, Actor, Resource, bool, bool, bool); 8] = [
            ("execute on the template", executor.clone(), template, true, false, true),
            ("execute on another template", executor.clone(), other, false, false, false),
            ("admin of the template",
             granted(ResourceKind::JobTemplate, 7, RoleField::Admin), template, true, true, true),
            ("read on the template",
             granted(ResourceKind::JobTemplate, 7, RoleField::Read), template, true, false, false),
            ("the organization's job template admin",
             granted(ResourceKind::Organization, O, RoleField::JobTemplateAdmin),
             other, true, true, true),
            ("the organization's project admin",
             granted(ResourceKind::Organization, O, RoleField::ProjectAdmin),
             other, false, false, false),
            ("admin of the organization", admin_o(), other, true, true, true),
            ("member of the organization", member_o(), other, true, false, false),
        ];
        for (name, actor, resource, sees, changes, runs) in rows {
            assert_eq!(can_view_object(&actor, &resource), sees, "{name}");
            assert_eq!(
                can_change_object(&actor, &resource).is_ok(),
                changes,
                "{name}"
            );
            assert_eq!(
                can_act_on_object(&actor, &resource, RoleField::Execute).is_ok(),
                runs,
                "{name}"
            );
            assert_eq!(
                object_capabilities(&actor, &resource).edit,
                changes,
                "{name}"
            );
        }
        let read_only = Actor {
            read_only: true,
            ..executor.clone()
        };
        assert_eq!(
            can_act_on_object(&read_only, &template, RoleField::Execute),
            Err(Denied::NotPermitted)
        );
        assert_eq!(
            visible_objects(&executor, ResourceKind::JobTemplate),
            ObjectVisibility::Only {
                organizations: vec![],
                objects: vec![7],
                inventory_organizations: vec![],
            }
        );
        assert_eq!(
            visible_objects(&member_o(), ResourceKind::Project),
            ObjectVisibility::Only {
                organizations: vec![O],
                objects: vec![],
                inventory_organizations: vec![],
            }
        );
        assert_eq!(
            visible_objects(&auditor(), ResourceKind::Inventory),
            ObjectVisibility::All
        );
    }

    #[test]
    fn the_use_role_on_a_credential_lets_it_be_used_not_changed() {
        let credential = TargetCredential {
            id: 3,
            owner: CredentialOwner::Organization(O),
        };
        let user = granted(ResourceKind::Credential, 3, RoleField::Use);
        assert_eq!(can_use_credential(&user, &credential), Ok(()));
        assert_eq!(
            can_change_credential(&user, &credential),
            Err(Denied::NotPermitted)
        );
        let read = granted(ResourceKind::Credential, 3, RoleField::Read);
        assert_eq!(
            can_use_credential(&read, &credential),
            Err(Denied::NotPermitted)
        );
        let read_only = Actor {
            read_only: true,
            ..user
        };
        assert_eq!(
            can_use_credential(&read_only, &credential),
            Err(Denied::NotPermitted)
        );
    }

    #[test]
    fn a_read_only_superuser_cannot_launch() {
        let actor = Actor {
            read_only: true,
            ..superuser()
        };
        assert!(can_view_automation(&actor, O));
        assert_eq!(can_run_automation(&actor, O), Err(Denied::NotPermitted));
        assert!(!automation_capabilities(&actor, O).edit);
    }

    #[test]
    fn listing_follows_organization_visibility() {
        assert_eq!(
            visible_automation(&superuser()),
            OrganizationVisibility::All
        );
        assert_eq!(
            visible_automation(&member_o()),
            OrganizationVisibility::Only(vec![O])
        );
    }

    #[test]
    fn using_a_credential_needs_managing_it() {
        let of_o = TargetCredential {
            id: 7,
            owner: CredentialOwner::Organization(O),
        };
        assert_eq!(can_use_credential(&admin_o(), &of_o), Ok(()));
        assert_eq!(
            can_use_credential(&member_o(), &of_o),
            Err(Denied::NotPermitted)
        );
        assert_eq!(
            can_use_credential(&admin_p(), &of_o),
            Err(Denied::NotPermitted)
        );
    }

    #[test]
    fn a_run_is_cancelled_by_its_launcher_or_its_object_admin() {
        let template = Resource::of(ResourceKind::JobTemplate, 7, Some(O));
        let executor = granted(ResourceKind::JobTemplate, 7, RoleField::Execute);
        let reader = granted(ResourceKind::JobTemplate, 7, RoleField::Read);
        let template_admin = granted(ResourceKind::JobTemplate, 7, RoleField::Admin);
        let other_admin = granted(ResourceKind::JobTemplate, 8, RoleField::Admin);
        let own = Some(executor.user_id);
        let someone = Some(999);
        #[rustfmt::skip]
        let rows: [(&str, &Actor, Option<Id>, bool); 8] = [
            ("the launcher, with execute", &executor, own, true),
            ("execute, another's run", &executor, someone, false),
            ("read only, another's run", &reader, someone, false),
            ("the template's admin", &template_admin, someone, true),
            ("another template's admin", &other_admin, someone, false),
            ("the organization's admin", &admin_o(), someone, true),
            ("another organization's admin", &admin_p(), someone, false),
            ("the superuser", &superuser(), None, true),
        ];
        for (case, actor, launched_by, allowed) in rows {
            assert_eq!(
                can_cancel_run(actor, &template, launched_by).is_ok(),
                allowed,
                "{case}"
            );
        }
        let read_only = Actor {
            read_only: true,
            ..executor.clone()
        };
        assert!(can_cancel_run(&read_only, &template, own).is_err());
    }

    #[test]
    fn an_organizations_auditor_reads_the_templates_on_its_inventories() {
        let auditor_p = granted(ResourceKind::Organization, P, RoleField::Auditor);
        assert_eq!(
            visible_objects(&auditor_p, ResourceKind::JobTemplate),
            ObjectVisibility::Only {
                organizations: vec![P],
                objects: vec![],
                inventory_organizations: vec![P],
            }
        );
        assert_eq!(
            visible_objects(&auditor_p, ResourceKind::Inventory),
            ObjectVisibility::Only {
                organizations: vec![P],
                objects: vec![],
                inventory_organizations: vec![],
            }
        );
        let on_p_inventory = Resource {
            inventory_organization: Some(P),
            ..Resource::of(ResourceKind::JobTemplate, 7, Some(O))
        };
        assert!(can_view_object(&auditor_p, &on_p_inventory));
        assert!(!can_view_object(
            &auditor_p,
            &Resource::of(ResourceKind::JobTemplate, 7, Some(O))
        ));
        assert!(can_change_object(&auditor_p, &on_p_inventory).is_err());
        assert!(can_act_on_object(&auditor_p, &on_p_inventory, RoleField::Execute).is_err());
    }
}

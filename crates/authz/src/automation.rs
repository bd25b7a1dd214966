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
//! Every write rule refuses a [read-only](Actor::read_only) actor first, so a `read` token
//! cannot launch a job.

use crate::credentials::can_change_credential;
use crate::organizations::visible_organizations;
use crate::scope::permit_write;
use crate::{Actor, Capabilities, Denied, Id, OrganizationVisibility, TargetCredential};

/// Which automation resources `actor` may list: those of the organizations it may see.
pub fn visible_automation(actor: &Actor) -> OrganizationVisibility {
    visible_organizations(actor)
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

/// Whether `actor` may have `credential` injected into runs it sets up: the actors who may
/// change the credential.
pub fn can_use_credential(actor: &Actor, credential: &TargetCredential) -> Result<(), Denied> {
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
}

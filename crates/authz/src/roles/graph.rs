//! The implicit-parent graph: which roles imply which, as the reference declares it.
//!
//! A role's parents sit on the same object, on the object's organization, or (for a job
//! template's `read_role`) on the organization of the template's inventory; the two system
//! roles (administrator, auditor) are parents of some roles too, and stand for the user flags.
//! A holder of a parent holds the child. [`ancestors`] closes the graph upwards, so checking
//! a role is checking its ancestors against the roles a user was granted.

use super::fields::{ResourceKind, RoleField};

/// Where a role sits, seen from the object whose role it implies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Position {
    /// On the object itself.
    Own,
    /// On the object's organization.
    Organization,
    /// On the organization of a job template's inventory.
    InventoryOrganization,
}

/// An implicit parent of a role field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parent {
    /// A role field of the same object.
    Own(RoleField),
    /// A role field of the object's organization.
    Organization(RoleField),
    /// A role field of the organization of a job template's inventory.
    InventoryOrganization(RoleField),
    /// The system administrator role: the superuser flag.
    SystemAdministrator,
    /// The system auditor role: the system auditor flag.
    SystemAuditor,
}

/// The implicit parents of role `field` on objects of `kind`, as the reference declares them,
/// plus one it applies when checking (an organization's admin passes its `auditor_role`
/// checks); empty for a field the kind does not carry.
pub fn implicit_parents(kind: ResourceKind, field: RoleField) -> &'static [Parent] {
    use Parent::{Own, SystemAdministrator as SA, SystemAuditor as SAud};
    use ResourceKind as K;
    use RoleField::*;
    match (kind, field) {
        (K::Organization, Admin) => &[SA],
        (
            K::Organization,
            Execute
            | ProjectAdmin
            | InventoryAdmin
            | CredentialAdmin
            | WorkflowAdmin
            | NotificationAdmin
            | JobTemplateAdmin
            | ExecutionEnvironmentAdmin
            | Member
            | Approval,
        ) => &[Own(Admin)],
        (K::Organization, Auditor) => &[SAud, Own(Admin)],
        (K::Organization, Read) => &[
            Own(Member),
            Own(Auditor),
            Own(Execute),
            Own(ProjectAdmin),
            Own(InventoryAdmin),
            Own(WorkflowAdmin),
            Own(NotificationAdmin),
            Own(CredentialAdmin),
            Own(JobTemplateAdmin),
            Own(Approval),
            Own(ExecutionEnvironmentAdmin),
        ],
        (K::Team, Admin) => &[Parent::Organization(Admin)],
        (K::Team, Member) => &[Own(Admin)],
        (K::Team, Read) => &[Parent::Organization(Auditor), Own(Member)],
        (K::Credential, Admin) => &[SA, Parent::Organization(CredentialAdmin)],
        (K::Credential, Use) => &[Own(Admin)],
        (K::Credential, Read) => &[SAud, Parent::Organization(Auditor), Own(Use), Own(Admin)],
        (K::Project, Admin) => &[Parent::Organization(ProjectAdmin), SA],
        (K::Project, Use | Update) => &[Own(Admin)],
        (K::Project, Read) => &[Parent::Organization(Auditor), SAud, Own(Use), Own(Update)],
        (K::Inventory, Admin) => &[Parent::Organization(InventoryAdmin)],
        (K::Inventory, Update | Adhoc) => &[Own(Admin)],
        (K::Inventory, Use) => &[Own(Adhoc)],
        (K::Inventory, Read) => &[
            Parent::Organization(Auditor),
            Own(Update),
            Own(Use),
            Own(Admin),
        ],
        (K::JobTemplate, Admin) => &[Parent::Organization(JobTemplateAdmin)],
        (K::JobTemplate, Execute) => &[Own(Admin), Parent::Organization(Execute)],
        (K::JobTemplate, Read) => &[
            Parent::Organization(Auditor),
            Parent::InventoryOrganization(Auditor),
            Own(Execute),
            Own(Admin),
        ],
        _ => &[],
    }
}

/// A role that implies another, seen from the object of the implied role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ancestor {
    /// Where it sits.
    pub position: Position,
    /// Its field.
    pub field: RoleField,
}

/// Every role that implies role `field` on an object of `kind`, the role itself first:
/// holding any of them is holding it. The system roles are left out (they stand for the user
/// flags, checked apart). Empty for a field the kind does not carry.
pub fn ancestors(kind: ResourceKind, field: RoleField) -> Vec<Ancestor> {
    if !kind.has(field) {
        return Vec::new();
    }
    let mut found = vec![Ancestor {
        position: Position::Own,
        field,
    }];
    let mut next = 0;
    while next < found.len() {
        let Ancestor { position, field } = found[next];
        next += 1;
        // Only an object's own roles have parents on an organization; an organization's
        // roles have their parents on itself.
        let at = match position {
            Position::Own => kind,
            Position::Organization | Position::InventoryOrganization => ResourceKind::Organization,
        };
        for parent in implicit_parents(at, field) {
            let ancestor = match (*parent, position) {
                (Parent::Own(field), position) => Ancestor { position, field },
                (Parent::Organization(field), Position::Own) => Ancestor {
                    position: Position::Organization,
                    field,
                },
                (Parent::InventoryOrganization(field), Position::Own) => Ancestor {
                    position: Position::InventoryOrganization,
                    field,
                },
                _ => continue,
            };
            if !found.contains(&ancestor) {
                found.push(ancestor);
            }
        }
    }
    found
}

/// The role fields of an object of `kind` that a holder of role `field` at `position` holds
/// through it (`descendant_roles` in an access list), in declaration order.
pub fn conferred(kind: ResourceKind, position: Position, field: RoleField) -> Vec<RoleField> {
    let by = Ancestor { position, field };
    kind.fields()
        .iter()
        .copied()
        .filter(|implied| ancestors(kind, *implied).contains(&by))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use Position::*;
    use ResourceKind as K;
    use RoleField::*;

    fn implies(position: Position, field: RoleField, kind: ResourceKind, of: RoleField) -> bool {
        ancestors(kind, of).contains(&Ancestor { position, field })
    }

    #[test]
    fn what_implies_what() {
        #[rustfmt::skip]
        let rows = [
            // An organization's job template admin administers its templates...
            (Organization, JobTemplateAdmin, K::JobTemplate, Admin, true),
            (Organization, JobTemplateAdmin, K::JobTemplate, Execute, true),
            (Organization, JobTemplateAdmin, K::JobTemplate, Read, true),
            // ...a project admin does not.
            (Organization, ProjectAdmin, K::JobTemplate, Admin, false),
            (Organization, ProjectAdmin, K::Project, Admin, true),
            (Organization, ProjectAdmin, K::Project, Update, true),
            // The organization's admin holds every role below it.
            (Organization, Admin, K::JobTemplate, Admin, true),
            (Organization, Admin, K::Credential, Use, true),
            (Organization, Admin, K::Inventory, Adhoc, true),
            (Organization, Admin, K::Team, Member, true),
            // Execute on the organization runs templates, and administers nothing.
            (Organization, Execute, K::JobTemplate, Execute, true),
            (Organization, Execute, K::JobTemplate, Admin, false),
            (Organization, Execute, K::Project, Read, false),
            // The auditor reads every kind.
            (Organization, Auditor, K::Credential, Read, true),
            (Organization, Auditor, K::Inventory, Read, true),
            (Organization, Auditor, K::Credential, Use, false),
            (InventoryOrganization, Auditor, K::JobTemplate, Read, true),
            (InventoryOrganization, Auditor, K::JobTemplate, Execute, false),
            // A member of the organization sees the organization, not its objects.
            (Organization, Member, K::Project, Read, false),
            (Own, Member, K::Organization, Read, true),
            // Use implies read; read implies nothing above it.
            (Own, Use, K::Credential, Read, true),
            (Own, Read, K::Credential, Use, false),
            (Own, Admin, K::Credential, Use, true),
            (Own, Use, K::Credential, Admin, false),
            // On an inventory, adhoc implies use; update does not.
            (Own, Adhoc, K::Inventory, Use, true),
            (Own, Update, K::Inventory, Use, false),
            (Own, Update, K::Inventory, Read, true),
            // On a project, update and use are siblings under admin.
            (Own, Update, K::Project, Use, false),
            (Own, Execute, K::JobTemplate, Read, true),
            (Own, Execute, K::JobTemplate, Admin, false),
            // The organization's admin passes auditor checks.
            (Own, Admin, K::Organization, Auditor, true),
            (Own, Auditor, K::Organization, Admin, false),
        ];
        for (position, field, kind, of, expected) in rows {
            assert_eq!(
                implies(position, field, kind, of),
                expected,
                "{position:?} {field:?} ⇒ {kind:?} {of:?}"
            );
        }
    }

    #[test]
    fn a_role_is_its_own_first_ancestor_and_foreign_fields_have_none() {
        assert_eq!(
            ancestors(K::Project, Use)[0],
            Ancestor {
                position: Own,
                field: Use
            }
        );
        assert_eq!(ancestors(K::Project, Execute), []);
        assert_eq!(ancestors(K::Credential, Update), []);
    }

    #[test]
    fn every_parent_names_a_field_its_object_carries() {
        for kind in ResourceKind::ALL {
            for field in kind.fields() {
                for parent in implicit_parents(kind, *field) {
                    let (on, parent_field) = match *parent {
                        Parent::Own(f) => (kind, f),
                        Parent::Organization(f) | Parent::InventoryOrganization(f) => {
                            (ResourceKind::Organization, f)
                        }
                        Parent::SystemAdministrator | Parent::SystemAuditor => continue,
                    };
                    assert!(on.has(parent_field), "{kind:?} {field:?} ← {parent:?}");
                }
            }
        }
    }

    #[test]
    fn what_a_role_confers_on_an_object() {
        assert_eq!(
            conferred(K::JobTemplate, Organization, Admin),
            [Admin, Execute, Read]
        );
        assert_eq!(
            conferred(K::JobTemplate, Organization, Execute),
            [Execute, Read]
        );
        assert_eq!(conferred(K::Inventory, Own, Adhoc), [Adhoc, Use, Read]);
        assert_eq!(conferred(K::Project, Organization, Member), []);
    }
}

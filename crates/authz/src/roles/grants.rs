//! Evaluation: whether a user holds a role, and which objects of a kind they may see, from
//! the roles granted to them and their system flags.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::fields::{ResourceKind, RoleField};
use super::graph::{Ancestor, Position, ancestors, conferred};
use crate::Id;

/// One role: a role field of one object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Role {
    /// The kind of the object that owns the role.
    pub kind: ResourceKind,
    /// The object's id.
    pub object: Id,
    /// The role field.
    pub field: RoleField,
}

/// An object whose roles are checked, with the objects its roles' parents sit on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resource {
    /// Its kind.
    pub kind: ResourceKind,
    /// Its id.
    pub id: Id,
    /// Its organization; `None` for an organization itself and for a private credential.
    pub organization: Option<Id>,
    /// For a job template, its inventory's organization (whose auditors read it).
    pub inventory_organization: Option<Id>,
}

impl Resource {
    /// An organization.
    pub fn organization(id: Id) -> Resource {
        Resource {
            kind: ResourceKind::Organization,
            id,
            organization: None,
            inventory_organization: None,
        }
    }

    /// An object of `kind` in `organization` (`None`: a private credential).
    pub fn of(kind: ResourceKind, id: Id, organization: Option<Id>) -> Resource {
        Resource {
            kind,
            id,
            organization,
            inventory_organization: None,
        }
    }

    /// Every role that gives some role on this object, with the fields it gives (in
    /// declaration order), its own roles first, each role once: who holds one of them has
    /// access to the object (an access list's entries). The system roles are left out.
    pub fn conferring(&self) -> Vec<Conferring> {
        let mut found: Vec<Conferring> = Vec::new();
        let mut seen = BTreeSet::new();
        for field in self.kind.fields() {
            for ancestor in ancestors(self.kind, *field) {
                if seen.insert(ancestor) {
                    let Some((kind, object)) = self.at(ancestor.position) else {
                        continue;
                    };
                    let role = Role {
                        kind,
                        object,
                        field: ancestor.field,
                    };
                    let gives = conferred(self.kind, ancestor.position, ancestor.field);
                    match found.iter_mut().find(|entry| entry.role == role) {
                        Some(entry) => {
                            entry.gives = self
                                .kind
                                .fields()
                                .iter()
                                .copied()
                                .filter(|f| entry.gives.contains(f) || gives.contains(f))
                                .collect();
                        }
                        None => found.push(Conferring {
                            role,
                            own: ancestor.position == Position::Own,
                            gives,
                        }),
                    }
                }
            }
        }
        found.sort_by_key(|entry| !entry.own);
        found
    }

    /// The object a role at `position` (seen from this object) sits on, if there is one.
    fn at(&self, position: Position) -> Option<(ResourceKind, Id)> {
        match position {
            Position::Own => Some((self.kind, self.id)),
            Position::Organization => self
                .organization
                .map(|org| (ResourceKind::Organization, org)),
            Position::InventoryOrganization => self
                .inventory_organization
                .map(|org| (ResourceKind::Organization, org)),
        }
    }
}

/// A role that gives roles on an object ([`Resource::conferring`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conferring {
    /// The role.
    pub role: Role,
    /// Whether it is one of the object's own roles (not its organization's).
    pub own: bool,
    /// The object's role fields it gives, in declaration order.
    pub gives: Vec<RoleField>,
}

/// The roles granted to a user directly (the system flags are the [`crate::Actor`]'s).
///
/// A clone shares the set (a cached principal is cloned for every request it serves, and a
/// user may hold thousands of roles); a grant added to a shared set copies it first.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Grants {
    roles: Arc<BTreeSet<Role>>,
}

/// Which objects of one kind granted roles show: those whose `read_role` they imply. Each
/// list is sorted and without repeats.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RoleVisibility {
    /// Organizations whose objects of the kind all show.
    pub organizations: Vec<Id>,
    /// Objects shown through a role on themselves.
    pub objects: Vec<Id>,
    /// Organizations whose job templates show through the templates' inventories.
    pub inventory_organizations: Vec<Id>,
}

impl Grants {
    /// The grants of these roles.
    pub fn new(roles: impl IntoIterator<Item = Role>) -> Grants {
        Grants {
            roles: Arc::new(roles.into_iter().collect()),
        }
    }

    /// These grants and `role` (granted since they were read).
    pub fn with(mut self, role: Role) -> Grants {
        Arc::make_mut(&mut self.roles).insert(role);
        self
    }

    /// The roles granted directly, in order.
    pub fn direct(&self) -> std::collections::btree_set::Iter<'_, Role> {
        self.roles.iter()
    }

    /// Whether the user was granted `role` itself (not through a parent).
    pub fn has_direct(&self, role: &Role) -> bool {
        self.roles.contains(role)
    }

    /// Whether these grants give role `field` of `resource`: it or one of its ancestors was
    /// granted. (The system flags are applied by [`crate::Actor::holds`].)
    pub fn holds(&self, resource: &Resource, field: RoleField) -> bool {
        holds_through(resource, field, |role| self.roles.contains(role))
    }

    /// Which objects of `kind` these grants show (give the `read_role` of).
    pub fn visible(&self, kind: ResourceKind) -> RoleVisibility {
        visible_through(kind, self.roles.iter().copied())
    }
}

/// Whether role `field` of `resource` is held when `granted` says which roles were granted.
pub(crate) fn holds_through(
    resource: &Resource,
    field: RoleField,
    granted: impl Fn(&Role) -> bool,
) -> bool {
    ancestors(resource.kind, field).iter().any(|ancestor| {
        resource
            .at(ancestor.position)
            .is_some_and(|(kind, object)| {
                granted(&Role {
                    kind,
                    object,
                    field: ancestor.field,
                })
            })
    })
}

/// Which objects of `kind` the `granted` roles show.
pub(crate) fn visible_through(
    kind: ResourceKind,
    granted: impl Iterator<Item = Role> + Clone,
) -> RoleVisibility {
    let readers = ancestors(kind, RoleField::Read);
    let granted_at = |position: Position, on: ResourceKind| -> Vec<Id> {
        let ids: BTreeSet<Id> = granted
            .clone()
            .filter(|role| {
                role.kind == on
                    && readers.contains(&Ancestor {
                        position,
                        field: role.field,
                    })
            })
            .map(|role| role.object)
            .collect();
        ids.into_iter().collect()
    };
    let organization = ResourceKind::Organization;
    RoleVisibility {
        organizations: granted_at(Position::Organization, organization),
        objects: granted_at(Position::Own, kind),
        inventory_organizations: granted_at(Position::InventoryOrganization, organization),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ResourceKind as K;
    use RoleField::*;

    const O: Id = 10;
    const P: Id = 20;

    fn role(kind: ResourceKind, object: Id, field: RoleField) -> Role {
        Role {
            kind,
            object,
            field,
        }
    }

    fn granted(roles: &[Role]) -> Grants {
        Grants::new(roles.iter().copied())
    }

    fn template(id: Id) -> Resource {
        Resource {
            inventory_organization: Some(P),
            ..Resource::of(K::JobTemplate, id, Some(O))
        }
    }

    /// Every role × action the issue names, on a template, a credential, an inventory.
    #[test]
    fn who_holds_what() {
        let jt = template(7);
        let other_jt = template(8);
        let credential = Resource::of(K::Credential, 3, Some(O));
        let private = Resource::of(K::Credential, 4, None);
        let inventory = Resource::of(K::Inventory, 5, Some(O));
        #[rustfmt::skip]
        let rows: Vec<(&str, Grants, Resource, RoleField, bool)> = vec![
            ("execute launches", granted(&[role(K::JobTemplate, 7, Execute)]), jt, Execute, true),
            ("execute does not administer",
             granted(&[role(K::JobTemplate, 7, Execute)]), jt, Admin, false),
            ("execute reads", granted(&[role(K::JobTemplate, 7, Execute)]), jt, Read, true),
            ("execute on one template only",
             granted(&[role(K::JobTemplate, 7, Execute)]), other_jt, Execute, false),
            ("org execute runs every template",
             granted(&[role(K::Organization, O, Execute)]), other_jt, Execute, true),
            ("org job template admin administers",
             granted(&[role(K::Organization, O, JobTemplateAdmin)]), jt, Admin, true),
            ("org project admin does not administer templates",
             granted(&[role(K::Organization, O, ProjectAdmin)]), jt, Admin, false),
            ("org admin administers everything",
             granted(&[role(K::Organization, O, Admin)]), credential, Admin, true),
            ("the inventory's organization's auditor reads the template",
             granted(&[role(K::Organization, P, Auditor)]), jt, Read, true),
            ("another organization's admin holds nothing",
             granted(&[role(K::Organization, P, Admin)]), credential, Read, false),
            ("use on a credential", granted(&[role(K::Credential, 3, Use)]), credential, Use, true),
            ("use implies read", granted(&[role(K::Credential, 3, Use)]), credential, Read, true),
            ("use is not admin", granted(&[role(K::Credential, 3, Use)]), credential, Admin, false),
            ("a private credential: no organization role reaches it",
             granted(&[role(K::Organization, O, Admin)]), private, Read, false),
            ("a private credential: its direct role",
             granted(&[role(K::Credential, 4, Admin)]), private, Use, true),
            ("read on one inventory", granted(&[role(K::Inventory, 5, Read)]), inventory, Read, true),
            ("read is not use", granted(&[role(K::Inventory, 5, Read)]), inventory, Use, false),
            ("a member reads the organization",
             granted(&[role(K::Organization, O, Member)]), Resource::organization(O), Read, true),
            ("a member reads none of its objects",
             granted(&[role(K::Organization, O, Member)]), inventory, Read, false),
            ("no role", Grants::default(), jt, Read, false),
            ("a field the kind lacks",
             granted(&[role(K::JobTemplate, 7, Admin)]), jt, Use, false),
        ];
        for (name, grants, resource, field, expected) in rows {
            assert_eq!(grants.holds(&resource, field), expected, "{name}");
        }
    }

    #[test]
    fn visibility_by_organization_object_and_inventory_organization() {
        let grants = granted(&[
            role(K::Organization, O, Auditor),
            role(K::Organization, 11, Member),
            role(K::Organization, 12, Execute),
            role(K::JobTemplate, 7, Execute),
            role(K::JobTemplate, 7, Read),
            role(K::Project, 9, Use),
        ]);
        assert_eq!(
            grants.visible(K::JobTemplate),
            RoleVisibility {
                organizations: vec![O, 12],
                objects: vec![7],
                inventory_organizations: vec![O],
            }
        );
        // Execute on an organization runs its templates, and so shows them.
        let of_12 = Resource::of(K::JobTemplate, 8, Some(12));
        assert!(grants.holds(&of_12, Execute) && grants.holds(&of_12, Read));
        assert!(!grants.holds(&template(8), Execute));
        assert_eq!(
            grants.visible(K::Project),
            RoleVisibility {
                organizations: vec![O],
                objects: vec![9],
                inventory_organizations: vec![],
            }
        );
        assert_eq!(
            grants.visible(K::Organization),
            RoleVisibility {
                organizations: vec![],
                objects: vec![O, 11, 12],
                inventory_organizations: vec![],
            }
        );
    }

    #[test]
    fn the_roles_that_give_access_to_a_template_and_what_each_gives() {
        let entries = template(7).conferring();
        let find = |kind: ResourceKind, object: Id, field: RoleField| {
            entries
                .iter()
                .find(|entry| entry.role == role(kind, object, field))
                .map(|entry| (entry.own, entry.gives.clone()))
        };
        assert_eq!(
            find(K::JobTemplate, 7, Admin),
            Some((true, vec![Admin, Execute, Read]))
        );
        assert_eq!(
            find(K::JobTemplate, 7, Execute),
            Some((true, vec![Execute, Read]))
        );
        assert_eq!(find(K::JobTemplate, 7, Read), Some((true, vec![Read])));
        assert_eq!(
            find(K::Organization, O, JobTemplateAdmin),
            Some((false, vec![Admin, Execute, Read]))
        );
        assert_eq!(
            find(K::Organization, O, Execute),
            Some((false, vec![Execute, Read]))
        );
        assert_eq!(find(K::Organization, P, Auditor), Some((false, vec![Read])));
        // A project admin is no template admin: its organization's project_admin gives
        // nothing here.
        assert_eq!(find(K::Organization, O, ProjectAdmin), None);
        assert!(entries.iter().take(3).all(|entry| entry.own));
        let mut roles: Vec<Role> = entries.iter().map(|entry| entry.role).collect();
        let listed = roles.len();
        roles.sort();
        roles.dedup();
        assert_eq!(roles.len(), listed, "each role once");
    }

    #[test]
    fn a_grant_added_later_is_held() {
        let template = template(7);
        let before = granted(&[role(K::JobTemplate, 7, Execute)]);
        assert!(!before.holds(&template, Admin));
        let shared = before.clone();
        let after = before.with(role(K::JobTemplate, 7, Admin));
        assert!(after.holds(&template, Admin));
        assert!(after.holds(&template, Execute));
        assert_eq!(after.direct().count(), 2);
        // A clone shares the set until one of them is granted more: the other is unchanged.
        assert!(!shared.holds(&template, Admin));
        assert_eq!(shared.direct().count(), 1);
    }
}

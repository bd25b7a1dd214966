//! Who may list, view, create, change and delete user accounts.
//!
//! Every write rule refuses a [read-only](Actor::read_only) actor first.

use crate::scope::require_write;
use crate::{Actor, Capabilities, Denied, Id, TargetUser};

/// Which users an actor may list; storage turns it into SQL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UserVisibility {
    /// Every user.
    All,
    /// The actor themself, every member or admin of one of `organizations`,
    /// and (if `superusers`) every superuser.
    Related {
        /// The actor's own id: users always see their own account.
        user_id: Id,
        /// Organizations the actor belongs to, sorted and deduplicated.
        organizations: Vec<Id>,
        /// Whether every superuser is visible too. AWX shows superusers to
        /// everyone (they administer everything, so they are "related" to
        /// every user); always `true` today, kept explicit for storage.
        superusers: bool,
    },
}

/// Which users `actor` may list.
///
/// Superusers and system auditors read everything; organization admins see
/// every user because AWX's `ORG_ADMINS_CAN_SEE_ALL_USERS` defaults to true,
/// so they can find users to add to their organization.
pub fn visible_users(actor: &Actor) -> UserVisibility {
    if actor.reads_everything() || actor.is_org_admin_anywhere() {
        return UserVisibility::All;
    }
    UserVisibility::Related {
        user_id: actor.user_id,
        organizations: actor.organizations(),
        superusers: true,
    }
}

/// Whether `actor` may view `target`; the single-object form of [`visible_users`].
pub fn can_view_user(actor: &Actor, target: &TargetUser) -> bool {
    match visible_users(actor) {
        UserVisibility::All => true,
        UserVisibility::Related {
            user_id,
            organizations,
            superusers,
        } => {
            target.id == user_id
                || (superusers && target.is_superuser)
                || target
                    .organizations()
                    .any(|org| organizations.contains(&org))
        }
    }
}

/// What a create or update would set; `None` = not touched by the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UserFlags {
    /// Requested `is_superuser`, if the request sets it.
    pub is_superuser: Option<bool>,
    /// Requested `is_system_auditor`, if the request sets it.
    pub is_system_auditor: Option<bool>,
}

/// Whether `actor` may create a user with `flags`.
///
/// Organization admins may create users (to add them to their organization)
/// but not privileged ones, which would escape their organization's reach.
pub fn can_create_user(actor: &Actor, flags: UserFlags) -> Result<(), Denied> {
    require_write(actor)?;
    if actor.is_superuser {
        return Ok(());
    }
    if !actor.is_org_admin_anywhere() {
        return Err(Denied::NotPermitted);
    }
    // Explicitly creating a non-privileged user (`Some(false)`) grants nothing.
    if flags.is_superuser == Some(true) || flags.is_system_auditor == Some(true) {
        return Err(Denied::OnlySuperuserGrantsPrivileges);
    }
    Ok(())
}

/// Whether `actor` may update `target` as requested by `flags`.
///
/// `flags` hold the requested values; a value equal to the target's current
/// one is not a change (clients PUT whole objects and echo these fields back).
pub fn can_change_user(actor: &Actor, target: &TargetUser, flags: UserFlags) -> Result<(), Denied> {
    require_write(actor)?;
    if actor.is_superuser {
        return Ok(());
    }
    // Decide whether the actor may edit the account at all before looking at
    // the flags, so strangers learn nothing beyond "not permitted".
    if actor.user_id != target.id && !administers_user(actor, target) {
        return Err(Denied::NotPermitted);
    }
    if changes_privileges(target, flags) {
        return Err(Denied::OnlySuperuserGrantsPrivileges);
    }
    Ok(())
}

/// Whether `actor` may delete `target`.
///
/// An organization admin may delete only users wholly inside their reach:
/// deleting a user who also belongs to another organization would remove
/// someone from an organization the actor does not administer, and a user in
/// no organization is nobody's to delete but a superuser's.
pub fn can_delete_user(actor: &Actor, target: &TargetUser) -> Result<(), Denied> {
    require_write(actor)?;
    // Checked before any role, even for superusers, so the last superuser
    // cannot lock everyone out by deleting themself.
    if actor.user_id == target.id {
        return Err(Denied::CannotDeleteSelf);
    }
    if actor.is_superuser {
        return Ok(());
    }
    if actor.manages_user(target) {
        Ok(())
    } else {
        Err(Denied::NotPermitted)
    }
}

/// What `actor` may do with `target`, for `summary_fields.user_capabilities`.
pub fn user_capabilities(actor: &Actor, target: &TargetUser) -> Capabilities {
    Capabilities {
        edit: can_change_user(actor, target, UserFlags::default()).is_ok(),
        delete: can_delete_user(actor, target).is_ok(),
    }
}

/// Whether `actor` administers every organization `target` belongs to, and `target` is not
/// privileged ([`Actor::manages_user`]).
fn administers_user(actor: &Actor, target: &TargetUser) -> bool {
    actor.manages_user(target)
}

/// Whether `flags` would change `target`'s superuser or system auditor status.
fn changes_privileges(target: &TargetUser, flags: UserFlags) -> bool {
    flags.is_superuser.is_some_and(|v| v != target.is_superuser)
        || flags
            .is_system_auditor
            .is_some_and(|v| v != target.is_system_auditor)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::*;

    const NO_FLAGS: UserFlags = UserFlags {
        is_superuser: None,
        is_system_auditor: None,
    };
    const MAKE_SUPERUSER: UserFlags = UserFlags {
        is_superuser: Some(true),
        is_system_auditor: None,
    };
    const MAKE_AUDITOR: UserFlags = UserFlags {
        is_superuser: None,
        is_system_auditor: Some(true),
    };
    const REVOKE_AUDITOR: UserFlags = UserFlags {
        is_superuser: None,
        is_system_auditor: Some(false),
    };
    const BOTH_FALSE: UserFlags = UserFlags {
        is_superuser: Some(false),
        is_system_auditor: Some(false),
    };

    const ONLY_SUPERUSER: Result<(), Denied> = Err(Denied::OnlySuperuserGrantsPrivileges);
    const NOT_SELF: Result<(), Denied> = Err(Denied::CannotDeleteSelf);

    #[test]
    fn visible_users_by_role() {
        let member_of_both = Actor {
            user_id: 7,
            admin_of: vec![],
            member_of: vec![P, O, P],
            ..Actor::default()
        };
        let related = |user_id, organizations: &[Id]| UserVisibility::Related {
            user_id,
            organizations: organizations.to_vec(),
            superusers: true,
        };
        #[rustfmt::skip]
        let rows = [
            ("superuser sees all", superuser(), UserVisibility::All),
            ("system auditor sees all", auditor(), UserVisibility::All),
            ("admin of O sees all", admin_o(), UserVisibility::All),
            ("admin of P sees all", admin_p(), UserVisibility::All),
            ("member of O sees related", member_o(), related(103, &[O])),
            ("unrelated user sees related", unrelated(), related(105, &[])),
            ("orgs sorted and unique", member_of_both, related(7, &[O, P])),
        ];
        for (name, actor, expected) in rows {
            assert_eq!(visible_users(&actor), expected, "{name}");
        }
    }

    #[test]
    fn can_view_user_by_role() {
        #[rustfmt::skip]
        let rows = [
            ("superuser: user in P", superuser(), in_p(), true),
            ("superuser: user in no org", superuser(), no_org(), true),
            ("auditor: user in P", auditor(), in_p(), true),
            ("auditor: user in no org", auditor(), no_org(), true),
            ("admin of O: user in P", admin_o(), in_p(), true),
            ("admin of O: user in no org", admin_o(), no_org(), true),
            ("admin of P: user in O", admin_p(), in_o(), true),
            ("member of O: self", member_o(), myself(&member_o()), true),
            ("member of O: user in O", member_o(), in_o(), true),
            ("member of O: admin of O", member_o(), admin_of_o(), true),
            ("member of O: user in O and P", member_o(), in_o_and_p(), true),
            ("member of O: user in P", member_o(), in_p(), false),
            ("member of O: user in no org", member_o(), no_org(), false),
            ("member of O: superuser", member_o(), superuser_no_org(), true),
            ("member of O: auditor in no org", member_o(), auditor_no_org(), false),
            ("member of O: auditor in O", member_o(), auditor_in_o(), true),
            ("unrelated: self", unrelated(), myself(&unrelated()), true),
            ("unrelated: user in O", unrelated(), in_o(), false),
            ("unrelated: user in no org", unrelated(), no_org(), false),
            ("unrelated: superuser", unrelated(), superuser_no_org(), true),
            ("unrelated: auditor", unrelated(), auditor_no_org(), false),
        ];
        for (name, actor, target, expected) in rows {
            assert_eq!(can_view_user(&actor, &target), expected, "{name}");
        }
    }

    /// The list filter and the single-object check must never disagree, or a
    /// user could open a detail page for someone missing from the list.
    #[test]
    fn can_view_user_matches_visible_users() {
        for actor in all_actors() {
            for target in all_targets() {
                let listed = match visible_users(&actor) {
                    UserVisibility::All => true,
                    UserVisibility::Related {
                        user_id,
                        organizations,
                        superusers,
                    } => {
                        target.id == user_id
                            || (superusers && target.is_superuser)
                            || organizations.iter().any(|org| {
                                target.admin_of.contains(org) || target.member_of.contains(org)
                            })
                    }
                };
                assert_eq!(
                    can_view_user(&actor, &target),
                    listed,
                    "{actor:?} viewing {target:?}"
                );
            }
        }
    }

    #[test]
    fn can_create_user_by_role() {
        #[rustfmt::skip]
        let rows = [
            ("superuser: plain user", superuser(), NO_FLAGS, OK),
            ("superuser: superuser", superuser(), MAKE_SUPERUSER, OK),
            ("superuser: auditor", superuser(), MAKE_AUDITOR, OK),
            ("auditor: plain user", auditor(), NO_FLAGS, NOT_PERMITTED),
            ("admin of O: plain user", admin_o(), NO_FLAGS, OK),
            ("admin of P: plain user", admin_p(), NO_FLAGS, OK),
            ("admin of O: explicit false flags", admin_o(), BOTH_FALSE, OK),
            ("admin of O: superuser", admin_o(), MAKE_SUPERUSER, ONLY_SUPERUSER),
            ("admin of O: auditor", admin_o(), MAKE_AUDITOR, ONLY_SUPERUSER),
            ("member of O: plain user", member_o(), NO_FLAGS, NOT_PERMITTED),
            ("unrelated: plain user", unrelated(), NO_FLAGS, NOT_PERMITTED),
            ("unrelated: superuser", unrelated(), MAKE_SUPERUSER, NOT_PERMITTED),
            ("read-only superuser: plain user", read_only(superuser()), NO_FLAGS, NOT_PERMITTED),
            ("read-only superuser: superuser", read_only(superuser()), MAKE_SUPERUSER, NOT_PERMITTED),
            ("read-only admin of O: plain user", read_only(admin_o()), NO_FLAGS, NOT_PERMITTED),
        ];
        for (name, actor, flags, expected) in rows {
            assert_eq!(can_create_user(&actor, flags), expected, "{name}");
        }
    }

    #[test]
    fn can_change_user_by_role() {
        #[rustfmt::skip]
        let rows = [
            ("superuser: user in P", superuser(), in_p(), NO_FLAGS, OK),
            ("superuser: superuser", superuser(), superuser_no_org(), NO_FLAGS, OK),
            ("superuser: auditor", superuser(), auditor_in_o(), NO_FLAGS, OK),
            ("superuser: grant superuser", superuser(), in_o(), MAKE_SUPERUSER, OK),
            ("superuser: grant auditor", superuser(), no_org(), MAKE_AUDITOR, OK),
            ("superuser: self", superuser(), myself(&superuser()), NO_FLAGS, OK),
            ("auditor: user in O", auditor(), in_o(), NO_FLAGS, NOT_PERMITTED),
            ("auditor: user in no org", auditor(), no_org(), NO_FLAGS, NOT_PERMITTED),
            ("auditor: self", auditor(), myself(&auditor()), NO_FLAGS, OK),
            ("auditor: self, keep auditor", auditor(), myself(&auditor()), MAKE_AUDITOR, OK),
            ("auditor: self, drop auditor", auditor(), myself(&auditor()), REVOKE_AUDITOR, ONLY_SUPERUSER),
            ("admin of O: user in O", admin_o(), in_o(), NO_FLAGS, OK),
            ("admin of O: admin of O", admin_o(), admin_of_o(), NO_FLAGS, OK),
            // Also in P, which the actor does not administer: not theirs to change (the admin
            // of O would otherwise add P's admin to O, set his password and act in P).
            ("admin of O: user in O and P", admin_o(), in_o_and_p(), NO_FLAGS, NOT_PERMITTED),
            ("admin of O and P: user in O and P", admin_o_and_p(), in_o_and_p(), NO_FLAGS, OK),
            ("admin of O: user in P", admin_o(), in_p(), NO_FLAGS, NOT_PERMITTED),
            ("admin of O: user in no org", admin_o(), no_org(), NO_FLAGS, NOT_PERMITTED),
            ("admin of O: superuser in O", admin_o(), superuser_in_o(), NO_FLAGS, NOT_PERMITTED),
            ("admin of O: auditor in O", admin_o(), auditor_in_o(), NO_FLAGS, NOT_PERMITTED),
            ("admin of O: grant superuser", admin_o(), in_o(), MAKE_SUPERUSER, ONLY_SUPERUSER),
            ("admin of O: grant auditor", admin_o(), in_o(), MAKE_AUDITOR, ONLY_SUPERUSER),
            ("admin of O: unchanged flags", admin_o(), in_o(), BOTH_FALSE, OK),
            ("admin of O: self", admin_o(), myself(&admin_o()), NO_FLAGS, OK),
            ("admin of O: self superuser", admin_o(), myself(&admin_o()), MAKE_SUPERUSER, ONLY_SUPERUSER),
            ("admin of P: user in O", admin_p(), in_o(), NO_FLAGS, NOT_PERMITTED),
            ("admin of P: user in O and P", admin_p(), in_o_and_p(), NO_FLAGS, NOT_PERMITTED),
            ("member of O: user in O", member_o(), in_o(), NO_FLAGS, NOT_PERMITTED),
            ("member of O: self", member_o(), myself(&member_o()), NO_FLAGS, OK),
            ("member of O: self superuser", member_o(), myself(&member_o()), MAKE_SUPERUSER, ONLY_SUPERUSER),
            ("unrelated: self", unrelated(), myself(&unrelated()), NO_FLAGS, OK),
            ("unrelated: user in no org", unrelated(), no_org(), NO_FLAGS, NOT_PERMITTED),
            ("unrelated: grant superuser", unrelated(), in_o(), MAKE_SUPERUSER, NOT_PERMITTED),
            ("read-only superuser: user in P", read_only(superuser()), in_p(), NO_FLAGS, NOT_PERMITTED),
            ("read-only superuser: self", read_only(superuser()), myself(&superuser()), NO_FLAGS, NOT_PERMITTED),
            ("read-only admin of O: user in O", read_only(admin_o()), in_o(), NO_FLAGS, NOT_PERMITTED),
            ("read-only admin of O: grant superuser", read_only(admin_o()), in_o(), MAKE_SUPERUSER, NOT_PERMITTED),
            ("read-only member of O: self", read_only(member_o()), myself(&member_o()), NO_FLAGS, NOT_PERMITTED),
        ];
        for (name, actor, target, flags, expected) in rows {
            assert_eq!(can_change_user(&actor, &target, flags), expected, "{name}");
        }
    }

    #[test]
    fn can_delete_user_by_role() {
        #[rustfmt::skip]
        let rows = [
            ("superuser: self", superuser(), myself(&superuser()), NOT_SELF),
            ("superuser: user in P", superuser(), in_p(), OK),
            ("superuser: user in no org", superuser(), no_org(), OK),
            ("superuser: superuser", superuser(), superuser_no_org(), OK),
            ("superuser: auditor", superuser(), auditor_in_o(), OK),
            ("auditor: self", auditor(), myself(&auditor()), NOT_SELF),
            ("auditor: user in O", auditor(), in_o(), NOT_PERMITTED),
            ("admin of O: self", admin_o(), myself(&admin_o()), NOT_SELF),
            ("admin of O: user in O", admin_o(), in_o(), OK),
            ("admin of O: admin of O", admin_o(), admin_of_o(), OK),
            ("admin of O: user in O and P", admin_o(), in_o_and_p(), NOT_PERMITTED),
            ("admin of O: user in P", admin_o(), in_p(), NOT_PERMITTED),
            ("admin of O: user in no org", admin_o(), no_org(), NOT_PERMITTED),
            ("admin of O: superuser in O", admin_o(), superuser_in_o(), NOT_PERMITTED),
            ("admin of O: auditor in O", admin_o(), auditor_in_o(), NOT_PERMITTED),
            ("admin of O and P: user in O and P", admin_o_and_p(), in_o_and_p(), OK),
            ("admin of P: user in P", admin_p(), in_p(), OK),
            ("admin of P: user in O", admin_p(), in_o(), NOT_PERMITTED),
            ("member of O: self", member_o(), myself(&member_o()), NOT_SELF),
            ("member of O: user in O", member_o(), in_o(), NOT_PERMITTED),
            ("unrelated: self", unrelated(), myself(&unrelated()), NOT_SELF),
            ("unrelated: user in no org", unrelated(), no_org(), NOT_PERMITTED),
            ("read-only superuser: user in P", read_only(superuser()), in_p(), NOT_PERMITTED),
            ("read-only superuser: self", read_only(superuser()), myself(&superuser()), NOT_PERMITTED),
            ("read-only admin of O: user in O", read_only(admin_o()), in_o(), NOT_PERMITTED),
        ];
        for (name, actor, target, expected) in rows {
            assert_eq!(can_delete_user(&actor, &target), expected, "{name}");
        }
    }

    #[test]
    fn user_capabilities_by_role() {
        let caps = |edit, delete| Capabilities { edit, delete };
        #[rustfmt::skip]
        let rows = [
            ("superuser: user in O", superuser(), in_o(), caps(true, true)),
            ("superuser: self", superuser(), myself(&superuser()), caps(true, false)),
            ("auditor: user in O", auditor(), in_o(), caps(false, false)),
            ("auditor: self", auditor(), myself(&auditor()), caps(true, false)),
            ("admin of O: user in O", admin_o(), in_o(), caps(true, true)),
            ("admin of O: user in O and P", admin_o(), in_o_and_p(), caps(false, false)),
            ("admin of O and P: user in O and P", admin_o_and_p(), in_o_and_p(), caps(true, true)),
            ("admin of O: user in P", admin_o(), in_p(), caps(false, false)),
            ("admin of O: superuser in O", admin_o(), superuser_in_o(), caps(false, false)),
            ("member of O: user in O", member_o(), in_o(), caps(false, false)),
            ("member of O: self", member_o(), myself(&member_o()), caps(true, false)),
            ("unrelated: self", unrelated(), myself(&unrelated()), caps(true, false)),
            ("unrelated: user in no org", unrelated(), no_org(), caps(false, false)),
            ("read-only superuser: user in O", read_only(superuser()), in_o(), caps(false, false)),
            ("read-only superuser: self", read_only(superuser()), myself(&superuser()), caps(false, false)),
            ("read-only admin of O: user in O", read_only(admin_o()), in_o(), caps(false, false)),
            ("read-only member of O: self", read_only(member_o()), myself(&member_o()), caps(false, false)),
        ];
        for (name, actor, target, expected) in rows {
            assert_eq!(user_capabilities(&actor, &target), expected, "{name}");
        }
    }
}

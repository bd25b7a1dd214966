//! Pure access rules of ACS for users and organizations.
//!
//! ACS answers AWX 24.6.1's API, so these rules mirror what AWX's RBAC lets
//! each kind of user do. Every function here is pure: the caller loads the
//! facts (an [`Actor`] for the requester, a [`TargetUser`] or organization id
//! for the object) and gets back a yes/no, a [`Denied`] reason, or a
//! visibility filter that storage turns into SQL. Keeping the rules free of
//! I/O lets every service link them and lets the tests cover them as tables.
//!
//! # Rules
//!
//! "Belongs to" an organization means member *or* admin of it. "Privileged"
//! means superuser or system auditor.
//!
//! | Object | Action | Allowed for |
//! |---|---|---|
//! | User | view / list | superuser, system auditor and any organization admin: every user (AWX's `ORG_ADMINS_CAN_SEE_ALL_USERS`); everyone else: themself, every user belonging to an organization they belong to, and every superuser |
//! | User | create | superuser; admin of at least one organization, but only a superuser may create a user with `is_superuser` or `is_system_auditor` set to `true` |
//! | User | change | superuser: anything; the user themself and an admin of an organization the target belongs to (unless the target is privileged): every field except `is_superuser` / `is_system_auditor`, which only a superuser may change (re-sending the current value is not a change) |
//! | User | delete | never oneself, not even a superuser; superuser: any other user; organization admin: a non-privileged target that belongs to at least one organization, all of which the actor administers |
//! | Organization | view / list | superuser and system auditor: all; everyone else: the organizations they belong to |
//! | Organization | create / delete | superuser |
//! | Organization | change | superuser; admin of that organization |
//! | Organization | add / remove admin or member | superuser; admin of that organization, except when the target user is a superuser |
//!
//! `user_capabilities` and `organization_capabilities` report the change and
//! delete rules above for `summary_fields.user_capabilities`.
//!
//! Refusals carry a [`Denied`] whose `Display` is the message the API returns
//! as `{"detail": ...}` with status 403.
//!
//! # Example
//!
//! ```
//! use acs_authz::{Actor, Denied, TargetUser, UserFlags, can_change_user};
//!
//! let org_admin = Actor { user_id: 1, admin_of: vec![10], ..Actor::default() };
//! let member = TargetUser { id: 2, member_of: vec![10], ..TargetUser::default() };
//!
//! // An organization admin may edit a member's profile...
//! assert_eq!(can_change_user(&org_admin, &member, UserFlags::default()), Ok(()));
//!
//! // ...but not make them a superuser.
//! let promote = UserFlags { is_superuser: Some(true), ..UserFlags::default() };
//! let refusal = can_change_user(&org_admin, &member, promote).unwrap_err();
//! assert_eq!(refusal, Denied::OnlySuperuserGrantsPrivileges);
//! assert_eq!(
//!     refusal.to_string(),
//!     "Only superusers may grant or revoke superuser or system auditor status."
//! );
//! ```

#![warn(missing_docs)]

mod actor;
mod capabilities;
mod denial;
mod organizations;
mod target;
mod users;

#[cfg(test)]
mod fixtures;

pub use actor::{Actor, Id};
pub use capabilities::Capabilities;
pub use denial::Denied;
pub use organizations::{
    OrganizationRole, OrganizationVisibility, can_change_membership, can_change_organization,
    can_create_organization, can_delete_organization, can_view_organization,
    organization_capabilities, visible_organizations,
};
pub use target::TargetUser;
pub use users::{
    UserFlags, UserVisibility, can_change_user, can_create_user, can_delete_user, can_view_user,
    user_capabilities, visible_users,
};

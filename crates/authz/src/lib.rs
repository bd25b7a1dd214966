//! Pure access rules of ACS for users, organizations, OAuth 2 applications,
//! tokens, credential types, credentials and the automation resources.
//!
//! ACS answers AWX 24.6.1's API, so the user and organization rules mirror
//! what AWX's RBAC lets each kind of user do; the application and token
//! rules are ACS's own. Every function here is pure: the caller loads the
//! facts (an [`Actor`] for the requester; a [`TargetUser`], organization id,
//! [`TargetApplication`] or [`TargetToken`] for the object) and gets back a yes/no, a [`Denied`] reason, or a
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
//! | Application | view / list | superuser and system auditor: all; everyone else: applications of organizations they administer, and applications whose owner (`user`) is them |
//! | Application | create | superuser: in any organization, for any owner; admin of the organization: owned by nobody, by themself, or by a non-privileged user belonging to that organization |
//! | Application | change / delete | superuser; admin of its organization; its owner |
//! | Token | view / list | superuser and system auditor: all; everyone else: their own, and those of every user belonging to an organization they administer |
//! | Token | create | anyone, for themself: a personal token, or a token for an application they may view |
//! | Token | change / delete | superuser; its owner; admin of an organization the owner belongs to, unless the owner is privileged |
//! | Credential type | view / list | every authenticated user |
//! | Credential type | create / change / delete | superuser |
//! | Credential | view / list | superuser and system auditor: all; everyone else: their own, those of organizations they administer, and those of users belonging to an organization they administer |
//! | Credential | create / change / delete | superuser; an organization's admins for its credentials; a user for their own; admin of an organization the owning user belongs to, unless that user is privileged |
//! | Project, inventory (hosts, inventory sources), job template, run | view / list | superuser and system auditor: all; everyone else: those of organizations they belong to |
//! | Project, inventory (hosts, inventory sources), job template | create / change / delete | superuser; admin of the organization |
//! | Job, project update, inventory update | launch / update / cancel | superuser; admin of the organization; attaching a credential also needs the right to change it |
//! | Any | create / change / delete, any method but GET, HEAD, OPTIONS | never with a read-only [`Actor`] (an OAuth 2 token whose scope lacks `write`), not even a superuser; [`check_method`] refuses such requests before any other check |
//!
//! The system auditor flag only adds reading: an auditor still manages the
//! applications and tokens they own or their organizations hold. A read-only
//! actor sees exactly what the same actor would see with a `write` token.
//!
//! `user_capabilities`, `organization_capabilities`,
//! `application_capabilities` and `token_capabilities` report the change and
//! delete rules above for `summary_fields.user_capabilities`; all are false
//! for a read-only actor.
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
mod applications;
mod automation;
mod capabilities;
mod credentials;
mod denial;
mod organizations;
mod role_lists;
pub mod roles;
mod scope;
mod target;
mod tokens;
mod users;

#[cfg(test)]
mod fixtures;

pub use actor::{Actor, Id};
pub use applications::{
    ApplicationVisibility, TargetApplication, application_capabilities, can_change_application,
    can_create_application, can_delete_application, can_repoint_consentless,
    can_skip_authorization, can_view_application, visible_applications,
};
pub use automation::{
    ObjectVisibility, automation_capabilities, can_act_on_object, can_cancel_run,
    can_change_automation, can_change_object, can_run_automation, can_use_credential,
    can_view_automation, can_view_object, object_capabilities, visible_automation, visible_objects,
};
pub use capabilities::Capabilities;
pub use credentials::{
    CredentialOwner, CredentialVisibility, TargetCredential, can_change_credential,
    can_copy_credential, can_create_credential, can_delete_credential, can_view_credential,
    can_write_credential_types, credential_capabilities, visible_credentials,
};
pub use denial::Denied;
pub use organizations::{
    OrganizationRole, OrganizationVisibility, can_change_membership, can_change_organization,
    can_create_organization, can_delete_organization, can_view_organization,
    organization_capabilities, visible_organizations,
};
pub use role_lists::{SeenObjects, VisibleRoles, visible_roles};
pub use scope::check_method;
pub use target::TargetUser;
pub use tokens::{
    TargetToken, TokenVisibility, can_change_token, can_create_token, can_delete_token,
    can_view_token, token_capabilities, visible_tokens,
};
pub use users::{
    UserFlags, UserVisibility, can_change_user, can_create_user, can_delete_user, can_view_user,
    user_capabilities, visible_users,
};

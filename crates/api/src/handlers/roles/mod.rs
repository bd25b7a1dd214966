//! Roles as the reference serves them: the visible ones (`/api/v2/roles/`), one
//! (`/api/v2/roles/<id>/`), who holds one
//! (`/roles/<id>/users/`), what a user holds (`/users/<id>/roles/`), and each role-bearing
//! record's roles (`summary_fields.object_roles`, `/<resource>/<id>/object_roles/`) and who
//! has access to it (`/<resource>/<id>/access_list/`).
//!
//! Which role implies which is `acs_authz::roles`; the rows are `acs_storage::roles`.

mod access_list;
mod access_teams;
mod list;
mod object_roles;
mod options;
pub mod owner;
mod render;
mod role_teams;
mod role_users;
mod summaries;
mod user_roles;

pub use access_list::list_access;
pub use list::list_roles;
pub use object_roles::list_object_roles;
pub use options::{
    GRANT_FIELDS, GRANT_TO_TEAM_FIELDS, GRANT_TO_USER_FIELDS, META, options_grants, options_role,
};
pub use owner::Owner;
pub use render::visible_role_records;
pub use role_teams::{change_role_teams, list_role_teams};
pub use role_users::{
    association, change_member, change_role_users, deprecated, get_role, list_role_users,
    members_page,
};
pub use summaries::{summaries_of, summary_of};
pub use user_roles::{change_user_roles, list_user_roles};

use acs_authz::roles::ResourceKind;
use acs_storage::roles::RoleRecord;

use crate::auth::Principal;
use crate::context::Context;
use crate::error::{ApiError, ApiResult};

/// The kinds whose records ACS serves with their roles.
pub const SERVED_KINDS: [ResourceKind; 6] = [
    ResourceKind::Organization,
    ResourceKind::Team,
    ResourceKind::Credential,
    ResourceKind::Project,
    ResourceKind::Inventory,
    ResourceKind::JobTemplate,
];

/// The collection of `kind`'s records: `/api/v2/<collection>/`.
pub fn collection(kind: ResourceKind) -> &'static str {
    match kind {
        ResourceKind::Organization => "organizations",
        ResourceKind::Team => "teams",
        ResourceKind::Credential => "credentials",
        ResourceKind::Project => "projects",
        ResourceKind::Inventory => "inventories",
        ResourceKind::JobTemplate => "job_templates",
    }
}

/// A 400 with the reference's `{"msg": …}` body.
pub fn refused(message: &str) -> ApiError {
    acs_app::role_grants::refused(message).into()
}

/// The `Warning` the reference sends on every role endpoint.
pub const DEPRECATION: &str =
    "299 awx \"This resource has been deprecated and will be removed in a future release.\"";

/// Role `id`, if the caller may see it: 404 if missing, 403 if its object is hidden.
fn visible_role(
    ctx: &mut Context<'_>,
    principal: &Principal,
    id: i64,
) -> ApiResult<(RoleRecord, Option<owner::Owner>)> {
    let role = acs_storage::roles::find(ctx.conn()?, id)?
        .ok_or_else(|| ApiError::NotFound("Not found.".into()))?;
    let owner = owner::of(ctx, &role)?;
    if let Some(owner) = &owner
        && !owner.visible_to(&principal.actor)
    {
        return Err(ApiError::permission_denied());
    }
    Ok((role, owner))
}

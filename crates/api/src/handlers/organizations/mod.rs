//! `/api/v2/organizations/`, `<id>/`, and the `users/` and `admins/` sub-lists.

mod create;
mod delete;
mod detail;
mod input;
mod list;
mod members;
mod options;
mod render;
mod source_credentials;
mod update;

pub use members::{change_admins, change_members, list_admins, list_members, options_members};
pub use options::META;
pub use source_credentials::{change_source_credentials, list_source_credentials};

use acs_storage::organizations::Organization;

use crate::auth::Principal;
use crate::context::Context;
use crate::error::{ApiError, ApiResult};

/// The resource: its handlers are generic ([`crate::handlers::detail`],
/// [`crate::handlers::change`]).
#[derive(Debug)]
pub struct Organizations;

/// The organization `id`, if the caller may see it: 404 if missing, 403 if invisible.
pub fn visible(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<Organization> {
    let org = acs_storage::organizations::find(ctx.conn()?, id).map_err(|error| match error {
        acs_storage::StorageError::NotFound => ApiError::no_such("Organization"),
        other => other.into(),
    })?;
    if !acs_authz::can_view_organization(&principal.actor, org.id) {
        return Err(ApiError::permission_denied());
    }
    Ok(org)
}

/// The message for a taken name.
pub const NAME_TAKEN: &str = "Organization with this Name already exists.";

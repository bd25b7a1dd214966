//! `/api/v2/applications/`, `<id>/`, and the application lists under users and organizations.

mod create;
mod delete;
mod detail;
mod input;
mod list;
mod options;
mod render;
mod update;

pub use list::{OrganizationApplications, UserApplications};
pub use options::META;
pub use render::{ApplicationRecord, render_application};

use acs_authz::TargetApplication;
use acs_storage::applications::Application;

use crate::auth::Principal;
use crate::context::Context;
use crate::error::{ApiError, ApiResult};

/// The resource: its handlers are generic ([`crate::handlers::detail`],
/// [`crate::handlers::change`]).
#[derive(Debug)]
pub struct Applications;

/// The facts `authz` needs about an application.
pub fn target_of(app: &Application) -> TargetApplication {
    TargetApplication {
        id: app.id,
        organization: app.organization_id,
        user: app.user_id,
    }
}

/// The application `id`, if the caller may see it: 404 if missing, 403 if invisible.
pub fn visible(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<Application> {
    let app = find(ctx, id)?;
    if !acs_authz::can_view_application(&principal.actor, &target_of(&app)) {
        return Err(ApiError::permission_denied());
    }
    Ok(app)
}

/// The application `id`, or 404.
pub fn find(ctx: &mut Context<'_>, id: i64) -> ApiResult<Application> {
    acs_storage::applications::find(ctx.conn()?, id).map_err(|error| match error {
        acs_storage::StorageError::NotFound => ApiError::no_such("OAuth2Application"),
        other => other.into(),
    })
}

/// The message for a name taken within the organization.
pub const NAME_TAKEN: &str = "Application with this Name and Organization already exists.";

/// Maps a uniqueness conflict on write to the documented object-level error.
pub fn name_conflict(error: acs_storage::StorageError) -> ApiError {
    match error {
        acs_storage::StorageError::Conflict(_) => ApiError::field("__all__", NAME_TAKEN),
        other => other.into(),
    }
}

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

use acs_storage::applications::Application;

use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;

/// The resource: its handlers are generic ([`crate::handlers::detail`],
/// [`crate::handlers::change`]).
#[derive(Debug)]
pub struct Applications;

/// The application `id`, if the caller may see it: 404 if missing, 403 if invisible.
pub fn visible(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<Application> {
    Ok(acs_app::applications::visible(
        ctx.conn()?,
        &principal.actor,
        id,
    )?)
}

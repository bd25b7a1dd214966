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
use crate::error::ApiResult;

/// The resource: its handlers are generic ([`crate::handlers::detail`],
/// [`crate::handlers::change`]).
#[derive(Debug)]
pub struct Organizations;

/// The organization `id`, if the caller may see it: 404 if missing, 403 if invisible.
pub fn visible(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<Organization> {
    Ok(acs_app::organizations::visible(
        ctx.conn()?,
        &principal.actor,
        id,
    )?)
}

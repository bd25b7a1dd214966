//! `/api/v2/credential_types/`, `<id>/` and `<id>/credentials/`.

mod create;
mod delete;
mod detail;
mod input;
mod list;
mod options;
mod render;
mod update;

pub use options::META;
pub use render::{CredentialTypeRecord, render_credential_type};

use acs_storage::credential_types::CredentialType;

use crate::context::Context;
use crate::error::ApiResult;

/// The resource: its handlers are generic ([`crate::handlers::detail`],
/// [`crate::handlers::change`]).
#[derive(Debug)]
pub struct CredentialTypes;

/// The credential type `id`, or 404. Every authenticated user may read every type.
pub fn find(ctx: &mut Context<'_>, id: i64) -> ApiResult<CredentialType> {
    Ok(acs_app::credential_types::find(ctx.conn()?, id)?)
}

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
use crate::error::{ApiError, ApiResult};

/// The resource: its handlers are generic ([`crate::handlers::detail`],
/// [`crate::handlers::change`]).
#[derive(Debug)]
pub struct CredentialTypes;

/// The credential type `id`, or 404. Every authenticated user may read every type.
pub fn find(ctx: &mut Context<'_>, id: i64) -> ApiResult<CredentialType> {
    acs_storage::credential_types::find(ctx.conn()?, id).map_err(|error| match error {
        acs_storage::StorageError::NotFound => ApiError::no_such("CredentialType"),
        other => other.into(),
    })
}

/// The message for a name taken within the kind.
pub const NAME_TAKEN: &str = "Credential type with this Name and Kind already exists.";

/// Maps a uniqueness conflict on write to the documented object-level error.
pub fn name_conflict(error: acs_storage::StorageError) -> ApiError {
    match error {
        acs_storage::StorageError::Conflict(_) => ApiError::field("__all__", NAME_TAKEN),
        other => other.into(),
    }
}

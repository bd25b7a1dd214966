//! `DELETE /api/v2/credential_types/<id>/` (see [`crate::handlers::detail`]).

use super::render::render_credential_type;
use super::{CredentialTypes, find};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::handlers::detail::Delete;
use acs_app::activity::{self, Subject};

const IN_USE: &str = "Credential types that are in use cannot be deleted";

impl Delete for CredentialTypes {
    /// Deletes a custom credential type that no credential uses.
    fn remove(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<Subject> {
        let stored = find(ctx, id)?;
        acs_authz::can_write_credential_types(&principal.actor)?;
        if stored.managed {
            return Err(ApiError::Forbidden(
                "Deletion not allowed for managed credential types".into(),
            ));
        }
        let record = render_credential_type(principal, &stored)?;
        let subject = Subject::named(acs_storage::activity::CREDENTIAL_TYPE, id, &stored.name);
        let now = ctx.now;
        ctx.write(|conn| {
            if acs_storage::credential_types::credential_count(conn, id)? > 0 {
                return Err(ApiError::Forbidden(IN_USE.into()));
            }
            // The foreign key refuses too, should a credential arrive between count and delete.
            acs_storage::credential_types::delete(conn, id).map_err(|error| match error {
                acs_storage::StorageError::Conflict(_) => ApiError::Forbidden(IN_USE.into()),
                other => other.into(),
            })?;
            activity::record_deletion(conn, now, &principal.user, &subject, &record)
                .map_err(Into::into)
        })?;
        Ok(subject)
    }
}

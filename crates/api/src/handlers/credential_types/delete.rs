//! `DELETE /api/v2/credential_types/<id>/` (see [`crate::handlers::detail`]).

use super::render::render_credential_type;
use super::{CredentialTypes, find};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::detail::Delete;
use acs_app::activity::Subject;

impl Delete for CredentialTypes {
    /// Deletes a custom credential type that no credential uses.
    fn remove(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<Subject> {
        let stored = find(ctx, id)?;
        let writer = ctx.writer(principal);
        acs_app::credential_types::check_writable(&writer, &stored, "Deletion")?;
        let record = render_credential_type(principal, &stored)?;
        Ok(acs_app::credential_types::delete(
            &writer,
            ctx.conn()?,
            &stored,
            &record,
        )?)
    }
}

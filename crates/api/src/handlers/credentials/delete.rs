//! `DELETE /api/v2/credentials/<id>/` (see [`crate::handlers::detail`]).

use super::render::render_one;
use super::{Credentials, visible};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::detail::Delete;
use acs_app::activity::{self, Subject};

impl Delete for Credentials {
    /// Deletes a credential; it leaves every content-source list it was in.
    fn remove(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<Subject> {
        let (credential, target) = visible(ctx, principal, id)?;
        acs_authz::can_delete_credential(&principal.actor, &target)?;
        let credential_type =
            acs_storage::credential_types::find(ctx.conn()?, credential.credential_type_id)?;
        let record = render_one(ctx.conn()?, principal, &credential, &credential_type)?;
        let subject = Subject::named(acs_storage::activity::CREDENTIAL, id, &credential.name);
        let now = ctx.now;
        ctx.write(|conn| {
            acs_storage::credentials::delete(conn, id)?;
            activity::record_deletion(conn, now, &principal.user, &subject, &record)
                .map_err(Into::into)
        })?;
        Ok(subject)
    }
}

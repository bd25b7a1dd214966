//! `DELETE /api/v2/<runs>/<id>/`: removes a finished run (its output and recorded
//! environment with it); an unfinished one must be canceled first.

use super::{RunType, Runs, visible};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::handlers::detail::Delete;
use acs_app::activity::{self, Subject};

impl<T: RunType> Delete for Runs<T> {
    /// Deletes run `id`.
    fn remove(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<Subject> {
        let job = visible::<T>(ctx, principal, id)?;
        acs_authz::can_run_automation(&principal.actor, job.organization_id.unwrap_or_default())?;
        let subject = Subject::named(T::KIND.as_str(), id, &job.name);
        let now = ctx.now;
        ctx.write(|conn| {
            if !acs_storage::unified_jobs::delete_finished(conn, id)? {
                return Err(ApiError::Forbidden(
                    "Cannot delete running job resource.".into(),
                ));
            }
            activity::record(
                conn,
                now,
                Some(&principal.user),
                "delete",
                &subject,
                None,
                serde_json::Value::Null,
            )
            .map_err(Into::into)
        })?;
        Ok(subject)
    }
}

//! `DELETE /api/v2/credentials/<id>/`.

use actix_web::{HttpRequest, HttpResponse, web};

use super::render::render_one;
use super::visible;
use crate::error::ApiResult;
use crate::handlers::frame::signed_in_no_content;
use crate::state::AppState;
use acs_app::activity::{self, Subject};

/// Deletes a credential; it leaves every content-source list it was in.
pub async fn delete_credential(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in_no_content(&req, &state, move |ctx, principal| {
        let (credential, target) = visible(ctx, principal, id)?;
        acs_authz::can_delete_credential(&principal.actor, &target)?;
        let credential_type =
            acs_storage::credential_types::find(ctx.conn()?, credential.credential_type_id)?;
        let record = render_one(ctx.conn()?, principal, &credential, &credential_type)?;
        let now = ctx.now;
        ctx.write(|conn| {
            acs_storage::credentials::delete(conn, id)?;
            activity::record_deletion(
                conn,
                now,
                &principal.user,
                &Subject::named(acs_storage::activity::CREDENTIAL, id, &credential.name),
                &record,
            )
            .map_err(Into::into)
        })?;
        tracing::info!(
            actor = principal.user.id,
            credential = id,
            "credential deleted"
        );
        Ok(())
    })
    .await
}

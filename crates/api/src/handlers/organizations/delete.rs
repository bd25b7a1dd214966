//! `DELETE /api/v2/organizations/<id>/`.

use actix_web::{HttpRequest, HttpResponse, web};

use super::visible;
use crate::context::run;
use crate::error::ApiResult;
use crate::state::AppState;

/// Deletes an organization and its roles (superusers only).
pub async fn delete_organization(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    let reply = run(&state, &req, move |ctx| {
        let principal = ctx.require_user()?;
        visible(ctx, &principal, id)?;
        acs_authz::can_delete_organization(&principal.actor, id)?;
        ctx.write(|conn| Ok(acs_storage::organizations::delete(conn, id)?))?;
        tracing::info!(
            actor = principal.user.id,
            organization = id,
            "organization deleted"
        );
        Ok(())
    })
    .await?;
    Ok(reply.no_content())
}

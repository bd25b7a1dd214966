//! `GET /api/v2/users/<id or username>/`.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};

use super::{render_user, resolve, target_of};
use crate::context::run;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// One user; 403 if it exists but the caller may not see it.
pub async fn get_user(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let segment = path.into_inner();
    let reply = run(&state, &req, move |ctx| {
        let principal = ctx.require_user()?;
        let user = resolve(ctx, &segment)?;
        let memberships = acs_storage::users::memberships_of(ctx.conn()?, user.id)?;
        if !acs_authz::can_view_user(&principal.actor, &target_of(&user, &memberships)) {
            return Err(ApiError::permission_denied());
        }
        Ok(render_user(&principal, &user, &memberships))
    })
    .await?;
    Ok(reply.json(StatusCode::OK))
}

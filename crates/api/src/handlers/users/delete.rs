//! `DELETE /api/v2/users/<id or username>/`.

use actix_web::{HttpRequest, HttpResponse, web};

use super::visible;
use crate::error::ApiResult;
use crate::handlers::frame::signed_in_no_content;
use crate::state::AppState;
use acs_app::activity::Subject;
use acs_app::token_holders;
use acs_storage::tokens::TokenHolder;

/// Deletes a user with their sessions and memberships.
pub async fn delete_user(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let segment = path.into_inner();
    signed_in_no_content(&req, &state, move |ctx, principal| {
        let (user, memberships, target) = visible(ctx, principal, &segment)?;
        acs_authz::can_delete_user(&principal.actor, &target)?;
        let record = super::render_user(principal, &user, &memberships);
        let now = ctx.now;
        ctx.write(|conn| {
            let holder = TokenHolder::User(user.id);
            let subject = Subject::user(&user);
            token_holders::delete(conn, now, &principal.user, holder, &subject, &record)
                .map_err(Into::into)
        })?;
        tracing::info!(actor = principal.user.id, user = user.id, "user deleted");
        Ok(())
    })
    .await
}

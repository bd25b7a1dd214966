//! `DELETE /api/v2/users/<id or username>/`.

use actix_web::{HttpRequest, HttpResponse, web};

use super::visible;
use crate::error::ApiResult;
use crate::handlers::frame::signed_in_no_content;
use crate::state::AppState;
use acs_app::activity::{self, Subject};

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
            use acs_storage::tokens::{TokenHolder, ids_held_by};
            let tokens = ids_held_by(conn, TokenHolder::User(user.id))?;
            acs_storage::users::delete(conn, user.id)?;
            let subject = Subject::user(&user);
            activity::record(
                conn,
                now,
                Some(&principal.user),
                "delete",
                &subject,
                None,
                activity::fields_of(&record)?,
            )?;
            activity::record_cascaded_token_deletions(conn, now, &principal.user, &tokens, &subject)
                .map_err(Into::into)
        })?;
        tracing::info!(actor = principal.user.id, user = user.id, "user deleted");
        Ok(())
    })
    .await
}

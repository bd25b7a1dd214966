//! `DELETE /api/v2/organizations/<id>/`.

use actix_web::{HttpRequest, HttpResponse, web};

use super::render::render_organization;
use super::visible;
use crate::error::ApiResult;
use crate::handlers::frame::signed_in_no_content;
use crate::state::AppState;
use acs_app::activity::Subject;
use acs_app::token_holders;
use acs_storage::tokens::TokenHolder;

/// Deletes an organization and its roles (superusers only).
pub async fn delete_organization(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in_no_content(&req, &state, move |ctx, principal| {
        let org = visible(ctx, principal, id)?;
        acs_authz::can_delete_organization(&principal.actor, id)?;
        let record = render_organization(principal, &org, Default::default());
        let now = ctx.now;
        ctx.write(|conn| {
            let holder = TokenHolder::Organization(id);
            let subject = Subject::named(acs_storage::activity::ORGANIZATION, id, &org.name);
            token_holders::delete(conn, now, &principal.user, holder, &subject, &record)
                .map_err(Into::into)
        })?;
        tracing::info!(
            actor = principal.user.id,
            organization = id,
            "organization deleted"
        );
        Ok(())
    })
    .await
}

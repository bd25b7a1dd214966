//! `DELETE /api/v2/applications/<id>/`.

use actix_web::{HttpRequest, HttpResponse, web};

use super::render::render_one;
use super::visible;
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::frame::signed_in_no_content;
use crate::state::AppState;
use acs_app::activity::Subject;
use acs_app::token_holders;
use acs_storage::tokens::TokenHolder;

/// Deletes an application and every token issued to it.
pub async fn delete_application(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in_no_content(&req, &state, move |ctx, principal| {
        delete(ctx, principal, id)
    })
    .await
}

/// Deletes application `id` for `principal` under the API's rules (the applications page
/// uses it too).
pub fn delete(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<()> {
    let app = visible(ctx, principal, id)?;
    acs_authz::can_delete_application(&principal.actor, &super::target_of(&app))?;
    let record = render_one(ctx.conn()?, principal, &app, None)?;
    let now = ctx.now;
    ctx.write(|conn| {
        let holder = TokenHolder::Application(id);
        let subject = Subject::named(acs_storage::activity::APPLICATION, id, &app.name);
        token_holders::delete(conn, now, &principal.user, holder, &subject, &record)
            .map_err(Into::into)
    })?;
    tracing::info!(
        actor = principal.user.id,
        application = id,
        "application deleted"
    );
    Ok(())
}

//! `GET /api/v2/me/`: the caller, as a one-item list (as the reference answers).

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};

use super::render_user;
use crate::context::run;
use crate::error::ApiResult;
use crate::http::list::ListPage;
use crate::state::AppState;

/// The authenticated user.
pub async fn get_me(req: HttpRequest, state: web::Data<AppState>) -> ApiResult<HttpResponse> {
    let reply = run(&state, &req, |ctx| {
        let principal = ctx.require_user()?;
        let memberships = acs_storage::users::Memberships {
            admin_of: principal.actor.admin_of.clone(),
            member_of: principal.actor.member_of.clone(),
        };
        let record = render_user(&principal, &principal.user, &memberships);
        Ok(ListPage::single(vec![record]))
    })
    .await?;
    Ok(reply.json(StatusCode::OK))
}

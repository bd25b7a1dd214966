//! `GET /api/v2/roles/`: the roles of every object the caller may see, and the system roles.

use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::Value;

use super::role_users::deprecated;
use super::{owner, render};
use crate::error::ApiResult;
use crate::handlers::frame::signed_in_list;
use crate::state::AppState;

/// `GET /api/v2/roles/`.
pub async fn list_roles(req: HttpRequest, state: web::Data<AppState>) -> ApiResult<HttpResponse> {
    let reply = signed_in_list(&req, &state, move |ctx, principal, list| {
        let visibility = acs_authz::visible_roles(&principal.actor);
        let page = acs_storage::roles::list(ctx.conn()?, &visibility, &list.params)??;
        let owners = owner::of_each(ctx, &page.items)?;
        let results: Vec<Value> = page
            .items
            .iter()
            .map(|role| render::role_record(role, owner::lookup(&owners, role)))
            .collect();
        list.envelope(page.count, results)
    })
    .await?;
    Ok(deprecated(reply))
}

//! `/api/v2/teams/<id>/users/`: the team's members (the users granted its member role
//! directly); POST `{"id"}` adds one and `{"id", "disassociate"}` removes one, as
//! `/roles/<member role>/users/` does, with the same checks (the team's admins, and the
//! admins of its organization, manage its members).

use acs_authz::roles::{ResourceKind, RoleField};
use acs_storage::roles::RoleRecord;
use actix_web::{HttpRequest, HttpResponse, web};

use super::Teams;
use crate::auth::Principal;
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::handlers::automation::visible;
use crate::handlers::frame::{signed_in_list_taking_post, signed_in_no_content};
use crate::handlers::roles::{self, Owner};
use crate::http::body::JsonObject;
use crate::state::AppState;

/// Team `id`'s member role and the team as its owner, if the caller may see the team.
fn member_role(
    ctx: &mut Context<'_>,
    principal: &Principal,
    id: i64,
) -> ApiResult<(RoleRecord, Owner)> {
    let (team, governed) = visible::<Teams>(ctx, principal, id)?;
    let role =
        acs_storage::roles::of_field(ctx.conn()?, ResourceKind::Team, id, RoleField::Member)?
            .ok_or_else(|| ApiError::Internal("a team without its member role".into()))?;
    Ok((
        role,
        Owner {
            resource: governed,
            name: team.name,
            credential: None,
        },
    ))
}

/// `GET /api/v2/teams/<id>/users/`.
pub async fn list_team_users(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in_list_taking_post(&req, &state, move |ctx, principal, list, wanted| {
        let (role, owner) = member_role(ctx, principal, id)?;
        roles::members_page(ctx, principal, list, wanted, (&role, Some(&owner)))
    })
    .await
}

/// `POST /api/v2/teams/<id>/users/`: 204 once added or removed.
pub async fn change_team_users(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in_no_content(&req, &state, move |ctx, principal| {
        let (role, owner) = member_role(ctx, principal, id)?;
        roles::change_member(ctx, principal, (&role, Some(&owner)), &body.0)
    })
    .await
}

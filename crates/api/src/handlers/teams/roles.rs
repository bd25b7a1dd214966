//! `/api/v2/teams/<id>/roles/`: the roles granted to the team that the caller may see (GET);
//! POST `{"id": <role>}` grants one, `{"id", "disassociate"}` revokes it.

use acs_app::role_grants::TeamChange;
use actix_web::{HttpRequest, HttpResponse, web};

use super::Teams;
use crate::error::{ApiError, ApiResult};
use crate::handlers::automation::visible;
use crate::handlers::frame::{signed_in_list_taking_post, signed_in_no_content};
use crate::handlers::roles::{self, association, deprecated, owner};
use crate::http::body::JsonObject;
use crate::state::AppState;

/// `GET /api/v2/teams/<id>/roles/`.
pub async fn list_team_roles(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    let reply = signed_in_list_taking_post(&req, &state, move |ctx, principal, list, wanted| {
        visible::<Teams>(ctx, principal, id)?;
        let granted = acs_storage::teams::roles_of(ctx.conn()?, id)?;
        let shown = roles::visible_role_records(ctx, principal, &granted)?;
        Ok((
            wanted && !principal.actor.read_only,
            list.envelope_of(shown)?,
        ))
    })
    .await?;
    Ok(deprecated(reply))
}

/// `POST /api/v2/teams/<id>/roles/`: 204 once granted or revoked.
pub async fn change_team_roles(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    let reply = signed_in_no_content(&req, &state, move |ctx, principal| {
        let (team, _) = visible::<Teams>(ctx, principal, id)?;
        let (role_id, disassociate) = association(&body.0, "Role")?;
        let role = acs_storage::roles::find(ctx.conn()?, role_id)?
            .ok_or_else(|| ApiError::BadRequest("Role matching query does not exist.".into()))?;
        let owner = owner::of(ctx, &role)?;
        // Here a system role is refused on revoke too, as the reference's view does.
        if owner.is_none() {
            acs_authz::check_method(&principal.actor, false)?;
            return Err(roles::refused(acs_app::role_grants::SYSTEM));
        }
        let change = TeamChange {
            role: (&role, owner.as_ref()),
            team: &team,
            disassociate,
        };
        let writer = ctx.writer(principal);
        Ok(acs_app::role_grants::change_team(
            &writer,
            ctx.conn()?,
            change,
        )?)
    })
    .await?;
    Ok(deprecated(reply))
}

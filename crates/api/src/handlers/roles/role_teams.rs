//! `/api/v2/roles/<id>/teams/`: the teams granted the role that the caller may see (GET);
//! POST `{"id": <team>}` grants it to one, `{"id", "disassociate": true}` revokes it.

use acs_app::role_grants::TeamChange;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::Value;

use super::role_users::{association, deprecated};
use super::{owner, visible_role};
use crate::error::{ApiError, ApiResult};
use crate::handlers::automation::Resource;
use crate::handlers::frame::{signed_in_list_taking_post, signed_in_no_content};
use crate::handlers::teams::Teams;
use crate::http::body::JsonObject;
use crate::state::AppState;

/// `GET /api/v2/roles/<id>/teams/`.
pub async fn list_role_teams(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    let reply = signed_in_list_taking_post(&req, &state, move |ctx, principal, list, wanted| {
        let (role, owner) = visible_role(ctx, principal, id)?;
        let holding = acs_storage::teams::holding(ctx.conn()?, role.id)?;
        let conn = ctx.conn()?;
        let mut shown = Vec::with_capacity(holding.len());
        for team in &holding {
            let governed = Teams::governed_by(conn, team)?;
            if acs_authz::can_view_object(&principal.actor, &governed) {
                shown.push(Teams::render(conn, principal, team)?);
            }
        }
        let may_change = wanted
            && (principal.actor.is_superuser
                || owner
                    .as_ref()
                    .is_some_and(|owner| owner.administered_by(&principal.actor).is_ok()));
        Ok((may_change, list.envelope_of::<Value>(shown)?))
    })
    .await?;
    Ok(deprecated(reply))
}

/// `POST /api/v2/roles/<id>/teams/`: 204 once granted or revoked. Unlike the other
/// association bodies, `disassociate` revokes only when true, as in the reference.
pub async fn change_role_teams(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    let reply = signed_in_no_content(&req, &state, move |ctx, principal| {
        let role = acs_storage::roles::find(ctx.conn()?, id)?
            .ok_or_else(|| ApiError::NotFound("Not found.".into()))?;
        let (team_id, _) = association(&body.0, "Team")?;
        let disassociate = body.0.get("disassociate").is_some_and(truthy);
        let team = match acs_storage::teams::find(ctx.conn()?, team_id) {
            Ok(team) => team,
            Err(acs_storage::StorageError::NotFound) => {
                return Err(ApiError::BadRequest(
                    "Team matching query does not exist.".into(),
                ));
            }
            Err(other) => return Err(other.into()),
        };
        let owner = owner::of(ctx, &role)?;
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

/// Whether a JSON value is true as Python tests it.
fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(flag) => *flag,
        Value::Number(number) => number.as_f64().is_some_and(|n| n != 0.0),
        Value::String(text) => !text.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(entries) => !entries.is_empty(),
    }
}

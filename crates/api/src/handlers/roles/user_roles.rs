//! `/api/v2/users/<id>/roles/`: the roles granted to a user directly that the caller may
//! see (GET); POST `{"id": <role>}` grants one, `{"id", "disassociate"}` revokes it.

use actix_web::{HttpRequest, HttpResponse, web};

use super::role_users::{association, deprecated};
use super::{owner, render};
use crate::error::{ApiError, ApiResult};
use crate::handlers::frame::{signed_in_list_taking_post, signed_in_no_content};
use crate::http::body::JsonObject;
use crate::state::AppState;

/// `GET /api/v2/users/<id>/roles/`.
pub async fn list_user_roles(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let segment = path.into_inner();
    let reply = signed_in_list_taking_post(&req, &state, move |ctx, principal, list, wanted| {
        let (user, _, _) = crate::handlers::users::visible(ctx, principal, &segment)?;
        let granted = acs_storage::roles::granted_to(ctx.conn()?, user.id)?;
        let shown = render::visible_role_records(ctx, principal, &granted)?;
        Ok((
            wanted && !principal.actor.read_only,
            list.envelope_of(shown)?,
        ))
    })
    .await?;
    Ok(deprecated(reply))
}

/// `POST /api/v2/users/<id>/roles/`: 204 once granted or revoked.
pub async fn change_user_roles(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    let segment = path.into_inner();
    let reply = signed_in_no_content(&req, &state, move |ctx, principal| {
        // The reference looks the user up with a 400, not a 404.
        let user = crate::handlers::users::resolve(ctx, &segment).map_err(|error| match error {
            ApiError::NotFound(_) => {
                ApiError::BadRequest("User matching query does not exist.".into())
            }
            other => other,
        })?;
        let (role_id, disassociate) = association(&body.0, "Role")?;
        let role = acs_storage::roles::find(ctx.conn()?, role_id)?
            .ok_or_else(|| ApiError::BadRequest("Role matching query does not exist.".into()))?;
        let owner = owner::of(ctx, &role)?;
        if let Some(owner) = &owner
            && !owner.visible_to(&principal.actor)
            && !principal.actor.is_superuser
        {
            return Err(ApiError::permission_denied());
        }
        let writer = ctx.writer(principal);
        let role = (&role, owner.as_ref());
        Ok(acs_app::role_grants::change_user(
            &writer,
            ctx.conn()?,
            role,
            &user,
            disassociate,
        )?)
    })
    .await?;
    Ok(deprecated(reply))
}

//! `PUT` and `PATCH /api/v2/organizations/<id>/`.

use acs_storage::StorageError;
use acs_storage::organizations::{OrganizationChanges, RoleCounts};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};

use super::input::OrganizationInput;
use super::render::render_organization;
use super::{NAME_TAKEN, visible};
use crate::context::run;
use crate::error::{ApiError, ApiResult};
use crate::http::body::JsonObject;
use crate::state::AppState;
use acs_app::activity::{self, Subject};

/// Full update.
pub async fn put_organization(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    update(req, state, path.into_inner(), body, true).await
}

/// Partial update.
pub async fn patch_organization(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    update(req, state, path.into_inner(), body, false).await
}

async fn update(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: i64,
    body: JsonObject,
    full: bool,
) -> ApiResult<HttpResponse> {
    let reply = run(&state, &req, move |ctx| {
        let principal = ctx.require_user()?;
        let before = visible(ctx, &principal, id)?;
        acs_authz::can_change_organization(&principal.actor, id)?;
        let input = OrganizationInput::read(&body.0, full)?;
        let changes = OrganizationChanges {
            name: input.name,
            description: input.description,
            modified: Some(ctx.now),
        };
        let now = ctx.now;
        let org = ctx.write(|conn| {
            let org =
                acs_storage::organizations::update(conn, id, &changes).map_err(
                    |error| match error {
                        StorageError::Conflict(_) => ApiError::field("name", NAME_TAKEN),
                        other => other.into(),
                    },
                )?;
            let counts = RoleCounts::default();
            activity::record(
                conn,
                now,
                Some(&principal.user),
                "update",
                &Subject::named(acs_storage::activity::ORGANIZATION, id, &org.name),
                None,
                activity::diff(
                    &render_organization(&principal, &before, counts),
                    &render_organization(&principal, &org, counts),
                )?,
            )?;
            Ok(org)
        })?;
        let counts = acs_storage::organizations::role_counts(ctx.conn()?, &[id])?;
        Ok(render_organization(
            &principal,
            &org,
            counts.get(&id).copied().unwrap_or_default(),
        ))
    })
    .await?;
    Ok(reply.json(StatusCode::OK))
}

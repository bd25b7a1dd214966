//! `POST /api/v2/organizations/`.

use acs_storage::StorageError;
use acs_storage::organizations::NewOrganization;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};

use super::NAME_TAKEN;
use super::input::OrganizationInput;
use super::render::render_organization;
use crate::error::{ApiError, ApiResult};
use crate::handlers::frame::signed_in;
use crate::http::body::JsonObject;
use crate::state::AppState;
use acs_app::activity::{self, Subject};

/// Creates an organization (superusers only).
pub async fn create_organization(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    signed_in(&req, &state, StatusCode::CREATED, move |ctx, principal| {
        acs_authz::can_create_organization(&principal.actor)?;
        let input = OrganizationInput::read(&body.0, true)?;
        let now = ctx.now;
        let org = ctx.write(|conn| {
            let new = NewOrganization {
                name: input.name.as_deref().unwrap_or_default(),
                description: input.description.as_deref().unwrap_or_default(),
                created: now,
                modified: now,
            };
            let org =
                acs_storage::organizations::insert(conn, &new).map_err(|error| match error {
                    StorageError::Conflict(_) => ApiError::field("name", NAME_TAKEN),
                    other => other.into(),
                })?;
            activity::record_creation(
                conn,
                now,
                &principal.user,
                &Subject::named(acs_storage::activity::ORGANIZATION, org.id, &org.name),
                &render_organization(principal, &org, Default::default()),
            )?;
            Ok(org)
        })?;
        tracing::info!(
            actor = principal.user.id,
            organization = org.id,
            "organization created"
        );
        Ok(render_organization(principal, &org, Default::default()))
    })
    .await
}

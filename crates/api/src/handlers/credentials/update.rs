//! `PUT` and `PATCH /api/v2/credentials/<id>/`. `inputs`, when sent, replaces the stored
//! inputs wholesale: `$encrypted$` keeps a stored secret, an empty secret removes it.

use acs_storage::credentials::CredentialChanges;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::Value;

use super::input::{self, Owner};
use super::render::render_one;
use super::{name_conflict, secrets, validate, visible};
use crate::activity::{self, Subject};
use crate::context::run;
use crate::error::{ApiError, ApiResult};
use crate::http::body::JsonObject;
use crate::state::AppState;

/// Full update.
pub async fn put_credential(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    update(req, state, path.into_inner(), body, true).await
}

/// Partial update.
pub async fn patch_credential(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    update(req, state, path.into_inner(), body, false).await
}

const TYPE_IN_USE: &str = "You cannot change the credential type of the credential, as it may break the functionality of the resources using it.";

async fn update(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: i64,
    body: JsonObject,
    full: bool,
) -> ApiResult<HttpResponse> {
    let reply = run(&state, &req, move |ctx| {
        let principal = ctx.require_user()?;
        let (stored, target) = visible(ctx, &principal, id)?;
        acs_authz::can_change_credential(&principal.actor, &target)?;
        let owner = Owner {
            organization: stored.organization_id,
            user: stored.user_id,
        };
        let input = input::read(&body.0, full, Some(owner))?;
        let type_id = input.credential_type.unwrap_or(stored.credential_type_id);
        let type_changes = type_id != stored.credential_type_id;
        if type_changes {
            validate::type_exists(ctx.conn()?, type_id)?;
            if acs_storage::credentials::in_use(ctx.conn()?, id)? {
                return Err(ApiError::field("credential_type", TYPE_IN_USE));
            }
        }
        let old_type = acs_storage::credential_types::find(ctx.conn()?, stored.credential_type_id)?;
        let old_config = crate::handlers::credential_types::input_configuration(&old_type)?;
        let before = render_one(ctx.conn()?, &principal, &stored, &old_type)?;
        let now = ctx.now;
        let state = ctx.state;
        ctx.write(|conn| {
            let previous = secrets::open(&state.input_cipher, &old_config, &stored.inputs)?;
            // New inputs replace the old; a new type re-checks the old ones against it.
            let submitted = match &input.inputs {
                Some(inputs) => Some(inputs.clone()),
                None if type_changes => Some(Value::Object(previous.clone())),
                None => None,
            };
            let (credential_type, inputs) = match &submitted {
                Some(submitted) => {
                    let (credential_type, inputs) =
                        validate::stored_inputs(conn, state, type_id, submitted, Some(&previous))?;
                    (credential_type, Some(inputs))
                }
                None => (acs_storage::credential_types::lock(conn, type_id)?, None),
            };
            validate::owner_allowed(&credential_type, stored.organization_id)?;
            let changes = CredentialChanges {
                name: input.name.clone(),
                description: input.description.clone(),
                credential_type_id: type_changes.then_some(type_id),
                inputs,
                modified_by: Some(Some(principal.user.id)),
                modified: Some(now),
            };
            let updated =
                acs_storage::credentials::update(conn, id, &changes).map_err(name_conflict)?;
            let after = render_one(conn, &principal, &updated, &credential_type)?;
            activity::record(
                conn,
                now,
                Some(&principal.user),
                "update",
                &Subject::named(acs_storage::activity::CREDENTIAL, id, &updated.name),
                None,
                activity::diff(&before, &after)?,
            )?;
            Ok(after)
        })
    })
    .await?;
    Ok(reply.json(StatusCode::OK))
}

//! `GET` and `POST /api/v2/credentials/<id>/copy/`, the reference's copy: `GET` says whether
//! the caller may copy the credential; `POST {"name": …}` makes a credential of the same type,
//! owner, description and inputs under the new name and answers it (201). Secret inputs are
//! copied sealed as they are stored, so they are never opened, and are shown masked as
//! everywhere.

use acs_storage::credentials::CredentialValues;
use acs_storage::stamps::Creation;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Value, json};

use super::render::render_one;
use super::{name_conflict, secrets, visible};
use crate::error::ApiResult;
use crate::handlers::frame::signed_in;
use crate::http::body::JsonObject;
use crate::http::fields::{FieldReader, Text};
use crate::http::options::{FieldMeta, ResourceMeta, answer_read_only};
use crate::state::AppState;
use acs_app::activity::{self, Subject};

/// What `OPTIONS` says of a copy (of a credential, or of an automation resource).
const META: ResourceMeta = ResourceMeta {
    name: "Copy",
    description: "Whether the caller may copy the record; POST {\"name\": …} copies it.",
    fields: &[
        FieldMeta::read_only("can_copy", "boolean", "Can copy"),
        FieldMeta::read_only(
            "can_copy_without_user_input",
            "boolean",
            "Can copy without input",
        ),
    ],
};

/// `OPTIONS`.
pub async fn options_copy(req: HttpRequest, state: web::Data<AppState>) -> ApiResult<HttpResponse> {
    answer_read_only(req, state, &META, "GET, POST, HEAD, OPTIONS").await
}

/// Whether the caller may copy the credential, in the reference's shape (a credential copies
/// nothing else, so the lists of what could not be copied are empty).
pub async fn copy_credential_check(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in(&req, &state, StatusCode::OK, move |ctx, principal| {
        let (_, target) = visible(ctx, principal, id)?;
        let allowed = acs_authz::can_copy_credential(&principal.actor, &target).is_ok();
        Ok(json!({
            "can_copy": allowed,
            "can_copy_without_user_input": allowed,
            "templates_unable_to_copy": [],
            "credentials_unable_to_copy": [],
            "inventories_unable_to_copy": [],
        }))
    })
    .await
}

/// Copies the credential under the name the body gives.
pub async fn copy_credential(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in(&req, &state, StatusCode::CREATED, move |ctx, principal| {
        let (original, target) = visible(ctx, principal, id)?;
        acs_authz::can_copy_credential(&principal.actor, &target)?;
        let mut fields = FieldReader::new(&body.0, true);
        let name = fields.text("name", Text::required(512));
        fields.finish()?;
        let name = name.unwrap_or_default();
        let now = ctx.now;
        ctx.write(|conn| {
            let credential_type =
                acs_storage::credential_types::find(conn, original.credential_type_id)?;
            let values = CredentialValues {
                name: Some(name),
                description: Some(original.description.clone()),
                credential_type_id: Some(original.credential_type_id),
                organization_id: Some(original.organization_id),
                user_id: Some(original.user_id),
                inputs: Some(original.inputs.clone()),
            };
            let stamps = Creation::by(Some(principal.user.id), now);
            let copy =
                acs_storage::credentials::insert(conn, &values, stamps).map_err(name_conflict)?;
            // A rotation that retired the key of a copied secret since it was read would
            // miss the copy: refused, and rolled back, as any other write of sealed inputs.
            for value in secrets::stored(&original.inputs)?.values() {
                if let Value::String(text) = value
                    && let Some(key) = acs_credential_types::cipher::sealed_key_id(text)
                {
                    acs_app::credential_inputs::confirm_key(conn, Some(key))?;
                }
            }
            let record = render_one(conn, principal, &copy, &credential_type)?;
            let subject = Subject::named(acs_storage::activity::CREDENTIAL, copy.id, &copy.name);
            activity::record_creation(conn, now, &principal.user, &subject, &record)?;
            tracing::info!(
                actor = principal.user.id,
                original = original.id,
                credential = copy.id,
                "credential copied"
            );
            Ok(record)
        })
    })
    .await
}

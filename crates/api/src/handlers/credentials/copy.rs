//! `GET` and `POST /api/v2/credentials/<id>/copy/`, the reference's copy: `GET` says whether
//! the caller may copy the credential; `POST {"name": …}` makes a credential of the same type,
//! owner, description and inputs under the new name and answers it (201). Secret inputs are
//! copied sealed as they are stored, so they are never opened, and are shown masked as
//! everywhere.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::json;

use super::{shown_to, visible};
use crate::error::ApiResult;
use crate::handlers::frame::signed_in;
use crate::http::body::JsonObject;
use crate::http::fields::{FieldReader, Text};
use crate::http::options::{FieldMeta, ResourceMeta, answer_read_only};
use crate::state::AppState;

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
        let writer = ctx.writer(principal);
        acs_app::credentials::copy(
            &writer,
            ctx.conn()?,
            (&original, &target),
            name,
            shown_to(principal),
        )
    })
    .await
}

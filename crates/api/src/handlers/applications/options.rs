//! `OPTIONS /api/v2/applications/` and `<id>/`.

use actix_web::{HttpRequest, HttpResponse, web};

use crate::context::run;
use crate::error::ApiResult;
use crate::handlers::frame::signed_in_options;
use crate::http::options::{FieldMeta, ResourceMeta};
use crate::state::AppState;

/// What the application resource says about its fields.
pub const META: ResourceMeta = ResourceMeta {
    name: "OAuth 2 Application List",
    description: "API clients: password-grant and authorization-code applications.",
    fields: &[
        FieldMeta::writable("name", "string", "Name", "Unique within the organization.")
            .required()
            .max_length(255),
        FieldMeta::writable("description", "string", "Description", ""),
        FieldMeta::read_only("client_id", "string", "Client ID").unfilterable(),
        FieldMeta::read_only("client_secret", "string", "Client secret").unfilterable(),
        FieldMeta::writable(
            "client_type",
            "choice",
            "Client type",
            "confidential or public.",
        )
        .required(),
        FieldMeta::writable(
            "redirect_uris",
            "string",
            "Redirect URIs",
            "Space-separated http(s) URIs; required for authorization-code.",
        ),
        FieldMeta::writable(
            "authorization_grant_type",
            "choice",
            "Authorization grant type",
            "password or authorization-code; fixed after creation.",
        )
        .required(),
        FieldMeta::writable(
            "skip_authorization",
            "boolean",
            "Skip authorization",
            "Skip the consent page.",
        ),
        FieldMeta::writable(
            "organization",
            "id",
            "Organization",
            "Fixed after creation.",
        )
        .required(),
        FieldMeta::writable(
            "user",
            "id",
            "User",
            "Optional owner; fixed after creation.",
        ),
    ],
};

/// Collection metadata; `POST` appears for superusers and organization admins.
pub async fn options_applications(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    let reply = run(&state, &req, |ctx| {
        let principal = ctx.require_user()?;
        let actor = &principal.actor;
        let can_create = !actor.read_only && (actor.is_superuser || actor.is_org_admin_anywhere());
        let (body, allow) = META.collection(can_create);
        Ok((body, allow.to_owned()))
    })
    .await?;
    Ok(reply.options())
}

/// Detail metadata; answers for any id.
pub async fn options_application(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in_options(&req, &state, move |ctx, principal| {
        let can_change = match acs_storage::applications::find(ctx.conn()?, id) {
            Ok(app) => {
                acs_authz::application_capabilities(&principal.actor, &super::target_of(&app)).edit
            }
            Err(_) => principal.actor.is_superuser && !principal.actor.read_only,
        };
        Ok(META.detail(can_change))
    })
    .await
}

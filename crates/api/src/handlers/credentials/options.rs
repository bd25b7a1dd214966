//! `OPTIONS /api/v2/credentials/` and `<id>/`.

use actix_web::{HttpRequest, HttpResponse, web};

use crate::context::run;
use crate::error::ApiResult;
use crate::handlers::frame::signed_in_options;
use crate::http::options::{FieldMeta, ResourceMeta};
use crate::state::AppState;

/// What the credential resource says about its fields. `inputs` is typed `json` (awxkit
/// parses it before sending) and cannot be filtered: it holds secrets.
pub const META: ResourceMeta = ResourceMeta {
    name: "Credential List",
    description: "Secrets and settings of a credential type, owned by an organization or a user.",
    fields: &[
        FieldMeta::writable("name", "string", "Name", "")
            .required()
            .max_length(512),
        FieldMeta::writable("description", "string", "Description", ""),
        FieldMeta::writable(
            "organization",
            "id",
            "Organization",
            "Owning organization; give this or user.",
        ),
        FieldMeta::writable(
            "user",
            "id",
            "User",
            "Owning user; give this or organization.",
        ),
        FieldMeta::writable(
            "credential_type",
            "id",
            "Credential Type",
            "The type defines the inputs; it cannot change while the credential is in use.",
        )
        .required(),
        FieldMeta::writable(
            "inputs",
            "json",
            "Inputs",
            "Values for the type's fields; secrets read back as $encrypted$.",
        )
        .unfilterable(),
        FieldMeta::read_only("managed", "boolean", "Managed"),
        FieldMeta::read_only("kind", "string", "Kind"),
        FieldMeta::read_only("cloud", "boolean", "Cloud"),
        FieldMeta::read_only("kubernetes", "boolean", "Kubernetes"),
    ],
};

/// Collection metadata; every user may create their own credentials.
pub async fn options_credentials(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    let reply = run(&state, &req, |ctx| {
        let principal = ctx.require_user()?;
        let (body, allow) = META.collection(!principal.actor.read_only);
        Ok((body, allow.to_owned()))
    })
    .await?;
    Ok(reply.options())
}

/// Detail metadata; answers for any id.
pub async fn options_credential(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in_options(&req, &state, move |ctx, principal| {
        let can_change = match acs_storage::credentials::find(ctx.conn()?, id) {
            Ok(credential) => {
                let target = super::target_of(ctx.conn()?, &credential)?;
                acs_authz::credential_capabilities(&principal.actor, &target).edit
            }
            Err(_) => principal.actor.is_superuser && !principal.actor.read_only,
        };
        Ok(META.detail(can_change))
    })
    .await
}

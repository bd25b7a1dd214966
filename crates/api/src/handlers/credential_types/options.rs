//! `OPTIONS /api/v2/credential_types/` and `<id>/`.

use actix_web::{HttpRequest, HttpResponse, web};

use crate::context::run;
use crate::error::ApiResult;
use crate::http::options::{FieldMeta, ResourceMeta};
use crate::state::AppState;

/// Every kind, as reads show them.
const KINDS: &[(&str, &str)] = &[
    ("ssh", "Machine"),
    ("vault", "Vault"),
    ("net", "Network"),
    ("scm", "Source Control"),
    ("cloud", "Cloud"),
    ("insights", "Insights"),
    ("source", "Content Source"),
];

/// The kinds a custom type may have.
const CUSTOM_KINDS: &[(&str, &str)] = &[("net", "Network"), ("cloud", "Cloud")];

/// What the credential type resource says about its fields. `inputs` and `injectors` are
/// typed `json` so that awxkit parses them from JSON or YAML before sending.
pub const META: ResourceMeta = ResourceMeta {
    name: "Credential Type List",
    description: "Kinds of credentials: the inputs they hold and how those reach a job.",
    fields: &[
        FieldMeta::writable("name", "string", "Name", "Unique together with the kind.")
            .required()
            .max_length(512),
        FieldMeta::writable("description", "string", "Description", ""),
        FieldMeta::writable("kind", "choice", "Kind", "cloud or net for custom types.")
            .required()
            .choices(KINDS)
            .write_choices(CUSTOM_KINDS),
        FieldMeta::read_only("namespace", "string", "Namespace"),
        FieldMeta::read_only("managed", "boolean", "Managed"),
        FieldMeta::writable(
            "inputs",
            "json",
            "Inputs",
            "Input configuration: fields and required ids, as JSON or YAML.",
        )
        .unfilterable(),
        FieldMeta::writable(
            "injectors",
            "json",
            "Injectors",
            "Injector configuration: env, extra_vars and file templates, as JSON or YAML.",
        )
        .unfilterable(),
    ],
};

/// Collection metadata; `POST` appears for superusers.
pub async fn options_credential_types(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    let reply = run(&state, &req, |ctx| {
        let principal = ctx.require_user()?;
        let can_create = acs_authz::can_write_credential_types(&principal.actor).is_ok();
        let (body, allow) = META.collection(can_create);
        Ok((body, allow.to_owned()))
    })
    .await?;
    Ok(reply.options())
}

/// Detail metadata; answers for any id.
pub async fn options_credential_type(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    let reply = run(&state, &req, |ctx| {
        let principal = ctx.require_user()?;
        let can_change = acs_authz::can_write_credential_types(&principal.actor).is_ok();
        Ok(META.detail(can_change))
    })
    .await?;
    Ok(reply.options())
}

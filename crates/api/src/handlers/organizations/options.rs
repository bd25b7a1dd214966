//! `OPTIONS /api/v2/organizations/` and `<id>/`.

use actix_web::{HttpRequest, HttpResponse, web};

use crate::context::run;
use crate::error::ApiResult;
use crate::handlers::frame::signed_in_options;
use crate::http::options::{FieldMeta, ResourceMeta};
use crate::state::AppState;

/// What the organization resource says about its fields.
pub const META: ResourceMeta = ResourceMeta {
    name: "Organization List",
    description: "Organizations group users; their admins manage them.",
    fields: &[
        FieldMeta::writable("name", "string", "Name", "Unique name.")
            .required()
            .max_length(512),
        FieldMeta::writable("description", "string", "Description", ""),
    ],
};

/// Collection metadata.
pub async fn options_organizations(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    let reply = run(&state, &req, |ctx| {
        let principal = ctx.require_user()?;
        let (body, allow) =
            META.collection(acs_authz::can_create_organization(&principal.actor).is_ok());
        Ok((body, allow.to_owned()))
    })
    .await?;
    Ok(reply.options())
}

/// Detail metadata.
pub async fn options_organization(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in_options(&req, &state, move |_ctx, principal| {
        let caps = acs_authz::organization_capabilities(&principal.actor, id);
        Ok(META.detail(caps.edit))
    })
    .await
}

//! `OPTIONS /api/v2/tokens/` (and the token sub-lists) and `/api/v2/tokens/<id>/`.

use actix_web::{HttpRequest, HttpResponse, web};

use crate::context::run;
use crate::error::ApiResult;
use crate::handlers::frame::signed_in_options;
use crate::http::options::{FieldMeta, ResourceMeta};
use crate::state::AppState;

/// What the token resource says about its fields.
pub const META: ResourceMeta = ResourceMeta {
    name: "OAuth 2 Token List",
    description: "Access tokens: personal (no application) and application tokens.",
    fields: &[
        FieldMeta::writable("description", "string", "Description", ""),
        FieldMeta::read_only("user", "id", "User"),
        FieldMeta::read_only("token", "string", "Token").unfilterable(),
        FieldMeta::read_only("refresh_token", "string", "Refresh token").unfilterable(),
        FieldMeta::writable(
            "application",
            "id",
            "Application",
            "Empty for a personal access token; fixed after creation.",
        ),
        FieldMeta::read_only("expires", "datetime", "Expires"),
        FieldMeta::writable(
            "scope",
            "string",
            "Scope",
            "Space-separated: read, write (write implies read). Default: write.",
        ),
    ],
};

/// Collection metadata: anyone may create tokens (for themselves).
pub async fn options_tokens(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    let reply = run(&state, &req, |ctx| {
        let principal = ctx.require_user()?;
        let can_create = acs_authz::can_create_token(&principal.actor, None).is_ok();
        let (body, allow) = META.collection(can_create);
        Ok((body, allow.to_owned()))
    })
    .await?;
    Ok(reply.options())
}

/// Detail metadata; answers for any id.
pub async fn options_token(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in_options(&req, &state, move |ctx, principal| {
        let can_change = match acs_storage::tokens::find(ctx.conn()?, id) {
            Ok(token) => {
                let target = super::target_of(ctx, &token)?;
                acs_authz::token_capabilities(&principal.actor, &target).edit
            }
            Err(_) => principal.actor.is_superuser && !principal.actor.read_only,
        };
        Ok(META.detail(can_change))
    })
    .await
}

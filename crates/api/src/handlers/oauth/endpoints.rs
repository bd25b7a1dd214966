//! `GET /api/o/` (the endpoint map, as AWX lists it, plus introspection) and
//! `GET /.well-known/oauth-authorization-server` (RFC 8414 metadata).

use acs_oauth2::AuthorizationServerMetadata;
use acs_oauth2::metadata::{AUTHORIZE_PATH, INTROSPECT_PATH, REVOKE_PATH, TOKEN_PATH};
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::json;

use crate::context::run;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// The paths of the OAuth 2 endpoints; anyone may read them.
pub async fn oauth_root() -> HttpResponse {
    HttpResponse::Ok().json(json!({
        "authorize": AUTHORIZE_PATH,
        "token": TOKEN_PATH,
        "revoke_token": REVOKE_PATH,
        "introspect": INTROSPECT_PATH,
    }))
}

/// The authorization server metadata. The issuer is the `BASE_URL` setting, or else the
/// scheme and host this request reached (through a trusted proxy's `X-Forwarded-Proto`).
pub async fn authorization_server_metadata(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    let reply = run(&state, &req, |ctx| {
        let base = ctx.base_url()?;
        AuthorizationServerMetadata::for_issuer(&base)
            .map_err(|error| ApiError::BadRequest(error.to_string()))
    })
    .await?;
    Ok(HttpResponse::Ok().json(reply.value))
}

//! `POST /api/o/introspect/` (RFC 7662): a client asks whether one of its tokens is active.
//! Only the client's own application tokens are ever shown active; any other token, unknown,
//! expired, revoked or of a deactivated user, is exactly `{"active": false}`.

use acs_oauth2::TokenReference;
use actix_web::{HttpRequest, HttpResponse, web};

use super::client;
use super::form::OAuthForm;
use super::reply::{OAuthResult, json_no_store, run_oauth};
use crate::state::AppState;

/// The state of the named token (see [`acs_app::client_tokens::introspect`]).
pub async fn introspect(
    req: HttpRequest,
    state: web::Data<AppState>,
    form: OAuthForm,
) -> OAuthResult<HttpResponse> {
    let response = run_oauth(&state, &req, move |ctx| {
        let application = client::authenticate(ctx, form.authorization.as_deref(), &form.params)?;
        let reference = TokenReference::from_form(&form.params)?;
        let (settings, now) = (ctx.settings()?, ctx.now);
        Ok(acs_app::client_tokens::introspect(
            ctx.conn()?,
            &settings,
            now,
            &application,
            &reference,
        )?)
    })
    .await?;
    Ok(json_no_store(&response))
}

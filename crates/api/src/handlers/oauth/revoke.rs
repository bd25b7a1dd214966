//! `POST /api/o/revoke_token/` (also `revoke-token/`), RFC 7009: a client revokes one of its
//! own tokens by value. Revoking an access token also revokes its refresh token and the other
//! way round; another client's token or an unknown value changes nothing and answers 200
//! alike, so the endpoint reveals nothing; a personal token is refused (contract §4).

use acs_oauth2::TokenReference;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};

use super::client;
use super::form::OAuthForm;
use super::reply::{OAuthResult, no_store, run_oauth};
use crate::state::AppState;

/// Revokes the named token (see [`acs_app::client_tokens::revoke`]); 200 with an empty body.
pub async fn revoke_token(
    req: HttpRequest,
    state: web::Data<AppState>,
    form: OAuthForm,
) -> OAuthResult<HttpResponse> {
    run_oauth(&state, &req, move |ctx| {
        let application = client::authenticate(ctx, form.authorization.as_deref(), &form.params)?;
        let reference = TokenReference::from_form(&form.params)?;
        let (pool, now) = (&ctx.state.pool, ctx.now);
        if acs_app::client_tokens::revoke(pool, ctx.store.conn()?, now, &application, &reference)? {
            tracing::info!(application = application.id, "token revoked by its client");
        }
        Ok(())
    })
    .await?;
    Ok(no_store(StatusCode::OK).finish())
}

//! `POST /api/o/introspect/` (RFC 7662): a client asks whether one of its tokens is active.
//! Only the client's own application tokens are ever shown active; any other token, unknown,
//! expired, revoked or of a deactivated user, is exactly `{"active": false}`.

use acs_oauth2::{ActiveToken, IntrospectionResponse, TokenReference};
use actix_web::{HttpRequest, HttpResponse, web};

use super::client;
use super::form::OAuthForm;
use super::lookup::{self, FoundToken};
use super::reply::{OAuthResult, json_no_store, run_oauth};
use crate::state::AppState;

/// The state of the named token.
pub async fn introspect(
    req: HttpRequest,
    state: web::Data<AppState>,
    form: OAuthForm,
) -> OAuthResult<HttpResponse> {
    let response = run_oauth(&state, &req, move |ctx| {
        let application = client::authenticate(ctx, form.authorization.as_deref(), &form.params)?;
        let reference = TokenReference::from_form(&form.params)?;
        let found = lookup::find(ctx.conn()?, &reference)?;
        let Some(found) = found.filter(|f| f.application_id() == Some(application.id)) else {
            return Ok(IntrospectionResponse::inactive());
        };
        let now = ctx.now;
        let lifetimes = ctx.settings()?.oauth2_provider();
        let (user_id, scope, created, expires) = match &found {
            FoundToken::Access(token) => {
                (token.user_id, &token.scope, token.created, token.expires)
            }
            FoundToken::Refresh(token) if token.revoked.is_none() => (
                token.user_id,
                &token.scope,
                token.created,
                lifetimes.refresh_token_expires(token.created),
            ),
            FoundToken::Refresh(_) => return Ok(IntrospectionResponse::inactive()),
        };
        let user = acs_storage::users::find(ctx.conn()?, user_id)?;
        if expires <= now || !user.is_active {
            return Ok(IntrospectionResponse::inactive());
        }
        Ok(IntrospectionResponse::active(ActiveToken::new(
            scope,
            application.client_id.clone(),
            user.username,
            created,
            expires,
        )))
    })
    .await?;
    Ok(json_no_store(&response))
}

//! `POST /api/o/token/` (RFC 6749 §3.2): the password, authorization-code and refresh-token
//! grants. The client is authenticated before the grant is even parsed, as AWX does, so a
//! request with bad client credentials learns nothing about its other parameters.

use acs_oauth2::{GrantRequest, GrantType, OAuthError, TokenResponse};
use actix_web::{HttpRequest, HttpResponse, web};

use super::client;
use super::form::OAuthForm;
use super::grants;
use super::reply::{OAuthResult, json_no_store, run_oauth};
use crate::state::AppState;

/// Issues a token pair for a grant.
pub async fn token(
    req: HttpRequest,
    state: web::Data<AppState>,
    form: OAuthForm,
) -> OAuthResult<HttpResponse> {
    let response = run_oauth(&state, &req, move |ctx| {
        let OAuthForm {
            params,
            authorization,
        } = form;
        let application = client::authenticate(ctx, authorization.as_deref(), &params)?;
        let grant = GrantRequest::from_form(&params)?;
        let grant_type = GrantType::parse(&application.authorization_grant_type)
            .map_err(|_| OAuthError::unauthorized_client())?;
        grant.check_application(grant_type)?;
        let issued = match &grant {
            GrantRequest::Password {
                username,
                password,
                scope,
            } => grants::password(
                ctx,
                &application,
                username,
                password,
                *scope,
                params.get("scope"),
            )?,
            GrantRequest::AuthorizationCode {
                code,
                redirect_uri,
                code_verifier,
            } => grants::authorization_code(
                ctx,
                &application,
                code,
                redirect_uri.as_deref(),
                code_verifier.as_deref(),
            )?,
            GrantRequest::RefreshToken {
                refresh_token,
                scope,
            } => grants::refresh_token(
                ctx,
                &application,
                refresh_token,
                *scope,
                params.get("scope"),
            )?,
        };
        tracing::info!(
            user = issued.row.token.user_id,
            application = application.id,
            token = issued.row.token.id,
            grant = grant.grant_type(),
            "token issued at the token endpoint"
        );
        let refresh = issued.refresh.ok_or_else(|| {
            crate::error::ApiError::Internal("an application token without refresh token".into())
        })?;
        Ok(TokenResponse::new(
            issued.value,
            refresh,
            issued.row.token.scope.clone(),
            ctx.now,
            issued.row.token.expires,
        ))
    })
    .await?;
    Ok(json_no_store(&response))
}

//! `POST /api/o/token/` (RFC 6749 §3.2): the password, authorization-code and refresh-token
//! grants, use cases of `acs_app::grants`. The client is authenticated before the grant is
//! even parsed, as AWX does, so a request with bad client credentials learns nothing about its
//! other parameters. What the HTTP side adds: the password grant's credential check (the login
//! form's, with its throttle), and this server's principal cache, which forgets the access
//! token a refresh replaced.

use acs_oauth2::{ErrorCode, GrantRequest, GrantType, OAuthError, SecretDigest, TokenResponse};
use actix_web::{HttpRequest, HttpResponse, web};

use super::client::{self, with_grantor};
use super::form::OAuthForm;
use super::reply::{OAuthFailure, OAuthResult, json_no_store, run_oauth};
use crate::auth::passwords;
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
            } => {
                let owner =
                    passwords::check(&mut ctx.store, &ctx.request, username, password.expose())?
                        .user()
                        .ok_or_else(|| {
                            OAuthError::new(ErrorCode::InvalidGrant, "Invalid credentials given.")
                        })?;
                with_grantor::<_, OAuthFailure>(ctx, &application, |grantor, conn| {
                    let asked = params.get("scope");
                    Ok(acs_app::grants::password(
                        grantor, conn, &owner, *scope, asked,
                    )?)
                })?
            }
            GrantRequest::AuthorizationCode {
                code,
                redirect_uri,
                code_verifier,
            } => with_grantor::<_, OAuthFailure>(ctx, &application, |grantor, conn| {
                Ok(acs_app::grants::authorization_code(
                    grantor,
                    conn,
                    code,
                    redirect_uri.as_deref(),
                    code_verifier.as_deref(),
                )?)
            })?,
            GrantRequest::RefreshToken {
                refresh_token,
                scope,
            } => {
                let principals = &ctx.state.principals;
                let forget =
                    |digest: &SecretDigest| principals.forget(&principals.bearer_key(digest));
                with_grantor::<_, OAuthFailure>(ctx, &application, |grantor, conn| {
                    let asked = params.get("scope");
                    Ok(acs_app::grants::refresh_token(
                        grantor,
                        conn,
                        refresh_token,
                        *scope,
                        asked,
                        &forget,
                    )?)
                })?
            }
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

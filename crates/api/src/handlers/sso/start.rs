//! `GET /sso/login/<name>/?next=…`: starts a sign-in at provider `name`.

use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, web};
use openidconnect::core::CoreAuthenticationFlow;
use openidconnect::{CsrfToken, Nonce, PkceCodeChallenge, Scope};

use super::provider::{discover, http_client};
use super::{SIGN_IN_SECONDS, binding, failure};
use crate::context::run;
use crate::error::{ApiError, ApiResult};
use crate::handlers::login::safe_next;
use crate::state::AppState;
use acs_app::settings::sso::ProviderConfig;

/// Where the provider sends the browser back for provider `name`.
pub fn redirect_uri(base: &str, name: &str) -> String {
    format!("{base}/sso/complete/{name}/")
}

/// Redirects to the provider's authorization endpoint.
pub async fn start_sign_in(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let name = path.into_inner();
    let next = web::Query::<Vec<(String, String)>>::from_query(req.query_string())
        .ok()
        .and_then(|query| {
            query
                .iter()
                .find(|(key, _)| key == "next")
                .map(|(_, value)| value.clone())
        })
        .and_then(|next| safe_next(Some(&next)).map(str::to_owned))
        .unwrap_or_default();
    let lookup = name.clone();
    let looked_up = run(&state, &req, move |ctx| {
        let settings = ctx.settings()?;
        let config = acs_app::settings::sso::provider(&settings, &lookup, &ctx.state.keys.cipher());
        Ok((config, ctx.base_url()?))
    })
    .await?;
    let secure = looked_up.secure;
    let (config, base) = looked_up.value;
    let Some(config) = config else {
        let message = format!("No single sign-on provider is named {name}.");
        return failure(&state, StatusCode::NOT_FOUND, &message);
    };
    let redirect = redirect_uri(&base, &name);
    let client = match http_client() {
        Ok(http) => discover(&http, &config, &redirect).await,
        Err(error) => Err(error),
    };
    let client = match client {
        Ok(client) => client,
        Err(error) => {
            tracing::warn!(provider = %name, %error, "single sign-on cannot start");
            return failure(&state, StatusCode::BAD_GATEWAY, &error.to_string());
        }
    };
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let mut request = client
        .authorize_url(
            CoreAuthenticationFlow::AuthorizationCode,
            CsrfToken::new_random,
            Nonce::new_random,
        )
        .set_pkce_challenge(challenge);
    for scope in config.scopes.iter().filter(|scope| *scope != "openid") {
        request = request.add_scope(Scope::new(scope.clone()));
    }
    let (url, csrf_state, nonce) = request.url();
    remember(
        &state,
        &req,
        &config,
        csrf_state.secret(),
        nonce.secret(),
        verifier.secret(),
        next,
    )
    .await?;
    Ok(HttpResponse::Found()
        .insert_header((header::LOCATION, url.to_string()))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .cookie(binding::cookie(csrf_state.secret(), secure))
        .finish())
}

/// Stores the sign-in by the digest of its state, nonce and verifier sealed.
async fn remember(
    state: &web::Data<AppState>,
    req: &HttpRequest,
    config: &ProviderConfig,
    csrf_state: &str,
    nonce: &str,
    verifier: &str,
    next: String,
) -> ApiResult<()> {
    let digest = acs_oauth2::PlainSecret::new(csrf_state.to_owned()).digest();
    let provider = config.name.clone();
    let (nonce, verifier) = (nonce.to_owned(), verifier.to_owned());
    run(state, req, move |ctx| {
        let cipher = ctx.state.keys.cipher();
        let seal = |label: &str, value: &str| {
            cipher
                .seal(&ctx.state.rng, label, value)
                .map_err(|error| ApiError::Internal(format!("sealing a sign-in: {error}")))
        };
        let row = acs_storage::sso_states::SsoState {
            digest: digest.as_bytes().to_vec(),
            nonce: seal(acs_app::sealed_values::SIGN_IN_NONCE, &nonce)?,
            pkce_verifier: seal(acs_app::sealed_values::SIGN_IN_PKCE, &verifier)?,
            provider,
            next,
            expires: ctx.now + chrono::Duration::seconds(SIGN_IN_SECONDS),
        };
        let now = ctx.now;
        ctx.write(|conn| {
            acs_storage::sso_states::insert(conn, &row, now)?;
            Ok(acs_app::secret_key::refuse_retired(
                conn,
                cipher.current_key_id(),
            )?)
        })
    })
    .await?;
    Ok(())
}

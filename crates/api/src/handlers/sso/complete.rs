//! `GET /sso/complete/<name>/?code=…&state=…`: finishes a sign-in at provider `name`, and
//! gives the user the organizations, teams and flags the single-sign-on maps decide
//! (`SOCIAL_AUTH_ORGANIZATION_MAP`, `SOCIAL_AUTH_TEAM_MAP` by username or email, and the
//! provider's own `groups` mapping by a claim of the verified ID token), in the same
//! transaction; a membership either adds is added.

use acs_storage::users::User;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};

use super::provider::{VerifiedClaims, exchange, http_client};
use super::start::redirect_uri;
use super::{SOURCE, binding, failure};
use crate::auth::session::SessionCookie;
use crate::auth::{csrf, session};
use crate::context::run;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// What the provider sent back.
#[derive(Debug, Default)]
struct Callback {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
}

fn callback(req: &HttpRequest) -> Callback {
    let pairs = web::Query::<Vec<(String, String)>>::from_query(req.query_string())
        .map(web::Query::into_inner)
        .unwrap_or_default();
    let get = |name: &str| {
        pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    Callback {
        code: get("code"),
        state: get("state"),
        error: get("error"),
    }
}

/// The sign-in the state names, taken (so it cannot be used again), with its opened nonce and
/// verifier, and the provider's configuration.
struct Pending {
    config: acs_app::settings::sso::ProviderConfig,
    nonce: String,
    verifier: String,
    next: String,
    base: String,
}

/// Completes the sign-in: a session and a redirect, or an error page.
pub async fn complete_sign_in(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let name = path.into_inner();
    let sent = callback(&req);
    let Some(csrf_state) = sent.state.clone() else {
        return failure(
            &state,
            StatusCode::BAD_REQUEST,
            "The provider's answer has no state.",
        );
    };
    let mut response = finish(req, state, name, sent, csrf_state.clone()).await?;
    // Over either way: the binding is of no further use.
    response
        .add_cookie(&binding::removal(&csrf_state))
        .map_err(|error| ApiError::Internal(format!("a cookie header: {error}")))?;
    Ok(response)
}

/// Completes the sign-in with `csrf_state`, in the browser that started it only.
async fn finish(
    req: HttpRequest,
    state: web::Data<AppState>,
    name: String,
    sent: Callback,
    csrf_state: String,
) -> ApiResult<HttpResponse> {
    if !binding::holds(&req, &csrf_state) {
        // Checked before the state is taken: a completion URL opened in another browser
        // (sent by whoever started the sign-in) signs nobody in and leaves it unused.
        return failure(
            &state,
            StatusCode::BAD_REQUEST,
            "This sign-in was not started in this browser.",
        );
    }
    let digest = acs_oauth2::PlainSecret::new(csrf_state).digest();
    let provider_name = name.clone();
    let pending = run(&state, &req, move |ctx| {
        let now = ctx.now;
        let taken =
            ctx.write(|conn| Ok(acs_storage::sso_states::take(conn, digest.as_bytes(), now)?))?;
        let Some(row) = taken.filter(|row| row.provider == provider_name) else {
            return Ok(None);
        };
        let settings = ctx.settings()?;
        let cipher = ctx.state.keys.cipher();
        let open = |label: &str, sealed: &str| {
            cipher
                .open(label, sealed)
                .map_err(|error| {
                    acs_app::secret_key::log_unopened("a sign-in in progress", sealed, error);
                })
                .ok()
        };
        let config = acs_app::settings::sso::provider(&settings, &provider_name, &cipher);
        let (Some(config), Some(nonce), Some(verifier)) = (
            config,
            open(acs_app::sealed_values::SIGN_IN_NONCE, &row.nonce),
            open(acs_app::sealed_values::SIGN_IN_PKCE, &row.pkce_verifier),
        ) else {
            return Ok(None);
        };
        Ok(Some(Pending {
            config,
            nonce,
            verifier,
            next: row.next,
            base: ctx.base_url()?,
        }))
    })
    .await?
    .value;
    let Some(pending) = pending else {
        return failure(
            &state,
            StatusCode::BAD_REQUEST,
            "This sign-in is unknown, expired or already used.",
        );
    };
    if let Some(error) = sent.error {
        return failure(
            &state,
            StatusCode::FORBIDDEN,
            &format!("The provider refused the sign-in ({error})."),
        );
    }
    let Some(code) = sent.code else {
        return failure(
            &state,
            StatusCode::BAD_REQUEST,
            "The provider's answer has no code.",
        );
    };
    let redirect = redirect_uri(&pending.base, &name);
    let claims = match http_client() {
        Ok(http) => {
            exchange(
                &http,
                &pending.config,
                &redirect,
                &code,
                &pending.verifier,
                &pending.nonce,
            )
            .await
        }
        Err(error) => Err(error),
    };
    let claims = match claims {
        Ok(claims) => claims,
        Err(error) => {
            tracing::warn!(provider = %name, %error, "single sign-on failed");
            let status = match error {
                super::provider::ProviderError::Unreachable(_) => StatusCode::BAD_GATEWAY,
                _ => StatusCode::FORBIDDEN,
            };
            return failure(&state, status, &error.to_string());
        }
    };
    // The groups the provider says the user is in, for its groups mapping.
    let groups = match &pending.config.groups {
        None => Vec::new(),
        Some(maps) => match maps.groups_in(&claims.additional_claims().claims) {
            Ok(groups) => groups,
            Err(error) => {
                tracing::warn!(provider = %name, %error, "single sign-on refused");
                return failure(&state, StatusCode::FORBIDDEN, &error.to_string());
            }
        },
    };
    let group_maps = pending.config.groups.clone();
    let next = pending.next.clone();
    let source = format!("{SOURCE}:{name}");
    let signed_in = run(&state, &req, move |ctx| {
        let now = ctx.now;
        let settings = ctx.settings()?;
        let maps = acs_app::settings::social_maps::of(&settings);
        let user = ctx.write(|conn| {
            let user = link(conn, &claims, now)?;
            if !user.is_active {
                return Ok(user);
            }
            let mut plan = maps.plan(&user.username, &user.email);
            if let Some(group_maps) = &group_maps {
                plan = plan.merge(group_maps.plan(&groups));
            }
            if plan.is_empty() {
                return Ok(user);
            }
            let applied = acs_app::login_mapping::apply(conn, &user, &plan, &source, now)?;
            if applied != Default::default() {
                tracing::info!(
                    user = user.id,
                    memberships = applied.memberships,
                    made = applied.made,
                    %source,
                    "single-sign-on maps applied"
                );
            }
            Ok(applied.user.unwrap_or(user))
        })?;
        if !user.is_active {
            return Err(ApiError::Forbidden("This account is disabled.".into()));
        }
        let session: SessionCookie = session::start(ctx, &user)?;
        let csrf = csrf::new_token(&ctx.state.rng)?;
        tracing::info!(user = user.id, provider = SOURCE, "single sign-on");
        Ok((user, session, csrf))
    })
    .await;
    match signed_in {
        Ok(reply) => {
            let (user, session, csrf) = reply.value;
            Ok(crate::handlers::login::logged_in(
                user,
                session,
                csrf,
                &next,
                reply.secure,
            ))
        }
        Err(ApiError::Forbidden(reason)) => failure(&state, StatusCode::FORBIDDEN, &reason),
        Err(other) => Err(other),
    }
}

/// The user linked to the token's issuer and subject, updated from its claims, or a new one.
fn link(
    conn: &mut acs_storage::DbConnection,
    claims: &VerifiedClaims,
    now: acs_storage::Timestamp,
) -> ApiResult<User> {
    let issuer = claims.issuer().as_str();
    let subject = claims.subject().as_str();
    let text = |claim: Option<String>| claim.unwrap_or_default();
    let first_name = text(
        claims
            .given_name()
            .and_then(|n| n.get(None))
            .map(|n| n.to_string()),
    );
    let last_name = text(
        claims
            .family_name()
            .and_then(|n| n.get(None))
            .map(|n| n.to_string()),
    );
    let email = text(claims.email().map(|e| e.to_string()));
    if let Some(user) = acs_storage::external_identities::find_user(conn, SOURCE, issuer, subject)?
    {
        return Ok(user);
    }
    let wanted = claims
        .preferred_username()
        .map(|name| name.to_string())
        .filter(|name| !name.is_empty() && name.len() <= 150 && !name.contains('\0'))
        .unwrap_or_else(|| format!("oidc-{}", subject.chars().take(40).collect::<String>()));
    let user = acs_storage::external_identities::create_user(
        conn,
        &acs_storage::external_identities::Vouched {
            source: SOURCE,
            issuer,
            subject,
            username: &wanted,
            first_name: &first_name,
            last_name: &last_name,
            email: &email,
        },
        now,
    )?;
    tracing::info!(user = user.id, username = %user.username, "single sign-on user created");
    Ok(user)
}

//! `/api/o/authorize/` (RFC 6749 §4.1.1, RFC 7636): the browser side of the authorization-code
//! grant. `GET` validates the request and shows the consent page (or, for an application with
//! `skip_authorization`, issues the code at once); the page posts back here with the user's
//! answer. Both need a browser session: anyone else is sent to the login page and returns.
//!
//! Errors before the client and its redirect URI are verified are shown on a page, never
//! redirected (no open redirector); later ones go back to the client (RFC 6749 §4.1.2.1).

use acs_app::grants::GrantError;
use acs_oauth2::{
    AuthorizeClient, AuthorizeError, AuthorizeRequest, ClientType, FormParams, GrantType,
    OAuthError, Scope, authorize_client_id, unknown_client,
};
use acs_storage::applications::Application;
use acs_storage::users::User;
use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, web};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

use super::client::with_grantor;
use crate::auth::csrf;
use crate::context::{Context, Reply, run};
use crate::error::{ApiError, ApiResult};
use crate::http::body::FormBody;
use crate::http::response::apply_session;
use crate::pages::{
    ConsentPage, HiddenField, MessagePage, message_page, page_response_with_form_target,
};
use crate::state::AppState;

/// The authorization parameters the consent form carries back.
const CARRIED: &[&str] = &[
    "client_id",
    "redirect_uri",
    "response_type",
    "scope",
    "state",
    "code_challenge",
    "code_challenge_method",
];

/// Fields of the consent form that are not authorization parameters.
const FORM_ONLY: &[&str] = &["csrfmiddlewaretoken", "allow", "deny"];

/// What `next` keeps unescaped, as AWX's login redirect does (`/` stays readable).
const NEXT_ESCAPES: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'/')
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// How an authorization step ends.
enum Outcome {
    /// No browser session: log in first, then come back to `next`.
    Login { next: String },
    /// The request cannot be answered to the client: an error page.
    Page(OAuthError),
    /// The consent form's CSRF check failed.
    Forbidden(String),
    /// Back to the client (a code or an error).
    Redirect(String),
    /// Ask the user.
    Consent(Box<Consent>),
}

/// What the consent page shows.
struct Consent {
    username: String,
    application: String,
    organization: String,
    scope: Scope,
    scope_words: String,
    fields: Vec<(String, String)>,
    /// Where Authorize and Deny send the browser: the page's policy must let its form go there.
    redirect_uri: String,
}

/// `GET /api/o/authorize/?response_type=code&client_id=…`.
pub async fn authorize_page(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    let params = FormParams::parse(url::form_urlencoded::parse(req.query_string().as_bytes()));
    let next = format!(
        "{}?{}",
        acs_oauth2::metadata::AUTHORIZE_PATH,
        req.query_string()
    );
    let reply = run(&state, &req, move |ctx| {
        let Some(user) = ctx.session_user()? else {
            return Ok(Outcome::Login { next });
        };
        let params = match params {
            Ok(params) => params,
            Err(error) => return Ok(Outcome::Page(error)),
        };
        let (application, request) = match validate(ctx, &params)? {
            Ok(valid) => valid,
            Err(refused) => return Ok(refused),
        };
        if request.skip_consent {
            return grant(ctx, &user, &application, &request).map(Outcome::Redirect);
        }
        let organization =
            acs_storage::organizations::find(ctx.conn()?, application.organization_id)?;
        let fields = CARRIED
            .iter()
            .filter_map(|name| Some(((*name).to_owned(), params.get(name)?.to_owned())))
            .collect();
        Ok(Outcome::Consent(Box::new(Consent {
            username: user.username,
            application: application.name,
            organization: organization.name,
            scope: request.scope,
            scope_words: request.scope_words,
            fields,
            redirect_uri: request.redirect_uri,
        })))
    })
    .await?;
    respond(&req, &state, reply)
}

/// `POST /api/o/authorize/`: the consent form, with `allow` or `deny`.
pub async fn authorize_decision(
    req: HttpRequest,
    state: web::Data<AppState>,
    form: FormBody,
) -> ApiResult<HttpResponse> {
    let sent_token = form.get("csrfmiddlewaretoken").map(str::to_owned);
    let allowed = form.get("allow").is_some();
    let carried: Vec<(String, String)> = form
        .0
        .into_iter()
        .filter(|(name, _)| !FORM_ONLY.contains(&name.as_str()))
        .collect();
    let next = format!(
        "{}?{}",
        acs_oauth2::metadata::AUTHORIZE_PATH,
        url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(&carried)
            .finish()
    );
    let reply = run(&state, &req, move |ctx| {
        let Some(user) = ctx.session_user()? else {
            return Ok(Outcome::Login { next });
        };
        let settings = ctx.settings()?;
        let https = ctx.request.is_https(settings.trusted_proxies());
        let sent = ctx.request.csrf_header.clone().or(sent_token);
        if let Err(error) = csrf::check_token(&ctx.request, sent.as_deref(), https) {
            return match error {
                ApiError::Forbidden(reason) => Ok(Outcome::Forbidden(reason)),
                other => Err(other),
            };
        }
        let params = match FormParams::parse(carried) {
            Ok(params) => params,
            Err(error) => return Ok(Outcome::Page(error)),
        };
        let (application, request) = match validate(ctx, &params)? {
            Ok(valid) => valid,
            Err(refused) => return Ok(refused),
        };
        if allowed {
            grant(ctx, &user, &application, &request).map(Outcome::Redirect)
        } else {
            Ok(Outcome::Redirect(request.denied_redirect()))
        }
    })
    .await?;
    respond(&req, &state, reply)
}

/// Where the authorization request in `next` (a path the login page returns to) would send
/// the browser at once: its verified redirect URI, with a code (an application that skips
/// consent) or an error for the client. `None` when `next` is no authorization request, or
/// one that names no genuine client and redirect URI (it ends on an error page here).
///
/// The login form's submission follows `next` through this endpoint's redirect, and browsers
/// enforce the login page's `form-action` on that whole chain, so the login page must allow
/// this origin as the consent page does.
pub(crate) fn redirect_target_of_next(
    ctx: &mut Context<'_>,
    next: &str,
) -> ApiResult<Option<String>> {
    let Some(query) = next
        .strip_prefix(acs_oauth2::metadata::AUTHORIZE_PATH)
        .and_then(|rest| rest.strip_prefix('?'))
    else {
        return Ok(None);
    };
    let Ok(params) = FormParams::parse(url::form_urlencoded::parse(query.as_bytes())) else {
        return Ok(None);
    };
    Ok(match validate(ctx, &params)? {
        Ok((_, request)) => Some(request.redirect_uri),
        Err(Outcome::Redirect(location)) => Some(location),
        Err(_) => None,
    })
}

/// The application named by `client_id` and the validated request, or how to refuse it.
fn validate(
    ctx: &mut Context<'_>,
    params: &FormParams,
) -> ApiResult<Result<(Application, AuthorizeRequest), Outcome>> {
    let refused = |error: AuthorizeError| match error.redirect_url() {
        Some(location) => Outcome::Redirect(location),
        None => Outcome::Page(error.error().clone()),
    };
    let client_id = match authorize_client_id(params) {
        Ok(client_id) => client_id,
        Err(error) => return Ok(Err(refused(error))),
    };
    let Some(application) = acs_storage::applications::find_by_client_id(ctx.conn()?, client_id)?
    else {
        return Ok(Err(refused(unknown_client())));
    };
    let (Some(client_type), Ok(grant_type)) = (
        ClientType::parse(&application.client_type),
        GrantType::parse(&application.authorization_grant_type),
    ) else {
        return Ok(Err(refused(unknown_client())));
    };
    let client = AuthorizeClient {
        client_type,
        grant_type,
        redirect_uris: &application.redirect_uris,
        skip_authorization: application.skip_authorization,
    };
    Ok(match AuthorizeRequest::validate(params, &client) {
        Ok(request) => Ok((application, request)),
        Err(error) => Err(refused(error)),
    })
}

/// Issues a code for `user` (see [`acs_app::grants::issue_code`]) and returns the redirect
/// carrying it, or the redirect refusing an external user while their tokens are not allowed.
fn grant(
    ctx: &mut Context<'_>,
    user: &User,
    application: &Application,
    request: &AuthorizeRequest,
) -> ApiResult<String> {
    let issued = with_grantor::<_, ApiError>(ctx, application, |grantor, conn| {
        Ok(acs_app::grants::issue_code(grantor, conn, user, request))
    })?;
    let code = match issued {
        Ok(code) => code,
        Err(GrantError::Refused(refused)) => return Ok(request.refused_redirect(&refused)),
        Err(GrantError::App(error)) => return Err(error.into()),
    };
    tracing::info!(
        user = user.id,
        application = application.id,
        "authorization code issued"
    );
    Ok(request.code_redirect(&code))
}

/// The HTTP answer of an authorization step. Redirects and the consent page re-arm the
/// session cookie, as every session-authenticated answer does.
fn respond(req: &HttpRequest, state: &AppState, reply: Reply<Outcome>) -> ApiResult<HttpResponse> {
    match reply.value {
        Outcome::Login { next } => {
            let location = format!(
                "/api/login/?next={}",
                utf8_percent_encode(&next, NEXT_ESCAPES)
            );
            Ok(HttpResponse::Found()
                .insert_header((header::LOCATION, location))
                .finish())
        }
        Outcome::Page(error) => message_page(
            &state.pages,
            StatusCode::BAD_REQUEST,
            &MessagePage {
                title: "Authorization failed",
                message: &error.description,
                detail: Some(&format!(
                    "The application sent an invalid request ({}). Nothing was authorized.",
                    error.code.as_str()
                )),
            },
        ),
        Outcome::Forbidden(reason) => csrf::failure_page(&state.pages, &reason),
        Outcome::Redirect(location) => {
            let mut builder = HttpResponse::Found();
            builder
                .insert_header((header::LOCATION, location))
                .insert_header((header::CACHE_CONTROL, "no-store"));
            apply_session(&mut builder, reply.session.as_ref(), reply.secure);
            Ok(builder.finish())
        }
        Outcome::Consent(consent) => {
            let (mut builder, html) = consent_page(req, state, &consent)?;
            apply_session(&mut builder, reply.session.as_ref(), reply.secure);
            Ok(builder.body(html))
        }
    }
}

/// The consent page, with the browser's CSRF token (set as a cookie if it had none).
fn consent_page(
    req: &HttpRequest,
    state: &AppState,
    consent: &Consent,
) -> ApiResult<(actix_web::HttpResponseBuilder, String)> {
    let (token, fresh) = csrf::page_token(req, &state.rng)?;
    let scope_description = if consent.scope.allows_write() {
        "Read and change everything you can"
    } else {
        "Read everything you can see"
    };
    let html = state.pages.html(
        "consent",
        &ConsentPage {
            username: &consent.username,
            application: &consent.application,
            organization: &consent.organization,
            scope: &consent.scope_words,
            scope_description,
            csrf_token: &token,
            fields: consent
                .fields
                .iter()
                .map(|(name, value)| HiddenField { name, value })
                .collect(),
        },
    )?;
    let mut response = page_response_with_form_target(StatusCode::OK, Some(&consent.redirect_uri));
    response.insert_header((header::CACHE_CONTROL, "no-store"));
    if fresh {
        response.cookie(csrf::cookie(req, token));
    }
    Ok((response, html))
}

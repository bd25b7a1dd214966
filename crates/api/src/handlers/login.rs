//! `GET /api/login/` (the form) and `POST /api/login/` (spec §4.4, contract §3).

use acs_storage::users::User;
use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::json;

use crate::auth::passwords::{self, Verdict};
use crate::auth::session::SessionCookie;
use crate::auth::{csrf, session};
use crate::context::run;
use crate::error::{ApiError, ApiResult};
use crate::handlers::oauth::authorize::redirect_target_of_next;
use crate::http::body::FormBody;
use crate::http::cookies::cookie;
use crate::http::response::apply_transport;
use crate::pages::{LoginPage, SignOnButton, page_response_with_form_target};
use crate::state::AppState;

/// Where a login without a usable `next` lands.
pub const DEFAULT_NEXT: &str = "/accounts/profile/";

const FAILED: &str =
    "Please enter a correct username and password. Note that both fields may be case-sensitive.";

/// `next` only when it is a path on this site (no scheme, no host, no `//` or `\` tricks).
pub fn safe_next(next: Option<&str>) -> Option<&str> {
    let next = next?.trim();
    let local = next.starts_with('/')
        && !next.starts_with("//")
        && !next.contains('\\')
        && !next.chars().any(char::is_control);
    local.then_some(next)
}

fn wants_only_json(req: &HttpRequest) -> bool {
    let accept = req
        .headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("*/*");
    accept.contains("application/json") && !accept.contains("html") && !accept.contains("*/*")
}

/// What the login page reads from the database: the single sign-on buttons, each carrying
/// `next`, and where the form may end after `next` ([`redirect_target_of_next`]). Nothing when
/// the database cannot be read: the form still shows, and says what went wrong when submitted.
async fn page_facts(
    req: &HttpRequest,
    state: &web::Data<AppState>,
    next: &str,
) -> (Vec<SignOnButton>, Option<String>) {
    let owned_next = next.to_owned();
    let (methods, form_target) = run(state, req, move |ctx| {
        let methods = crate::handlers::sso::sign_on_methods(&*ctx.settings()?, &ctx.base_url()?);
        Ok((methods, redirect_target_of_next(ctx, &owned_next)?))
    })
    .await
    .map(|reply| reply.value)
    .unwrap_or_default();
    let buttons = methods
        .into_iter()
        .map(|method| {
            let query = serde_urlencoded::to_string([("next", next)]).unwrap_or_default();
            let url = if next.is_empty() {
                method.login_url
            } else {
                format!("{}?{query}", method.login_url)
            };
            SignOnButton {
                label: method.label,
                url,
            }
        })
        .collect();
    (buttons, form_target)
}

async fn form_page(
    req: &HttpRequest,
    state: &web::Data<AppState>,
    status: StatusCode,
    error: Option<&str>,
    next: &str,
    username: &str,
) -> ApiResult<HttpResponse> {
    let (sign_on, form_target) = page_facts(req, state, next).await;
    let (token, fresh) = csrf::page_token(req, &state.rng)?;
    let html = state.pages.html(
        "login",
        &LoginPage {
            error,
            csrf_token: &token,
            next,
            username,
            sign_on: &sign_on,
        },
    )?;
    let mut response = page_response_with_form_target(status, form_target.as_deref());
    if fresh {
        response.cookie(csrf::cookie(req, token));
    }
    Ok(response.body(html))
}

/// `GET /api/login/`: the login form; sets the `csrftoken` cookie.
pub async fn login_page(req: HttpRequest, state: web::Data<AppState>) -> ApiResult<HttpResponse> {
    if wants_only_json(&req) {
        return Err(ApiError::NotAcceptable);
    }
    let query: Vec<(String, String)> =
        serde_urlencoded::from_str(req.query_string()).unwrap_or_default();
    let next = query
        .iter()
        .find(|(k, _)| k == "next")
        .map(|(_, v)| v.as_str());
    form_page(
        &req,
        &state,
        StatusCode::OK,
        None,
        safe_next(next).unwrap_or(""),
        "",
    )
    .await
}

enum Outcome {
    Success {
        user: Box<User>,
        session: SessionCookie,
        csrf: String,
    },
    /// Refused; with why the directory could not be asked, when that happened.
    Failed(Option<String>),
}

/// `POST /api/login/`: checks CSRF and the password, then starts a session and redirects.
pub async fn login_submit(
    req: HttpRequest,
    state: web::Data<AppState>,
    form: FormBody,
) -> ApiResult<HttpResponse> {
    let username = form.get("username").unwrap_or("").to_owned();
    let password = form.get("password").unwrap_or("").to_owned();
    let next = safe_next(form.get("next")).unwrap_or("").to_owned();
    let token = form.get("csrfmiddlewaretoken").map(str::to_owned);

    let name = username.clone();
    let result = run(&state, &req, move |ctx| {
        let sent = ctx.request.csrf_header.clone().or(token);
        let settings = ctx.settings()?;
        let https = ctx.request.is_https(settings.trusted_proxies());
        if let Err(ApiError::Forbidden(reason)) =
            csrf::check_token(&ctx.request, sent.as_deref(), https)
        {
            return Err(ApiError::Forbidden(reason));
        }
        if name.is_empty() || password.is_empty() {
            return Ok(Outcome::Failed(None));
        }
        match passwords::check(&mut ctx.store, &ctx.request, &name, &password)? {
            Verdict::Valid(user) => {
                let session = session::start(ctx, &user)?;
                let csrf = csrf::new_token(&ctx.state.rng)?;
                Ok(Outcome::Success {
                    user: Box::new(user),
                    session,
                    csrf,
                })
            }
            Verdict::Invalid { directory_problem } => {
                record_failure(ctx, &name)?;
                Ok(Outcome::Failed(directory_problem))
            }
        }
    })
    .await;

    match result {
        Ok(reply) => match reply.value {
            Outcome::Success {
                user,
                session,
                csrf,
            } => Ok(logged_in(*user, session, csrf, &next, reply.secure)),
            Outcome::Failed(problem) => {
                let message = problem.map_or_else(
                    || FAILED.to_owned(),
                    |problem| format!("{FAILED} Directory login is unavailable: {problem}."),
                );
                form_page(
                    &req,
                    &state,
                    StatusCode::UNAUTHORIZED,
                    Some(&message),
                    &next,
                    &username,
                )
                .await
            }
        },
        Err(ApiError::Forbidden(reason)) => csrf::failure_page(&state.pages, &reason),
        Err(ApiError::Throttled { retry_after }) => {
            let message =
                format!("Too many failed login attempts. Try again in {retry_after} seconds.");
            let mut response = form_page(
                &req,
                &state,
                StatusCode::TOO_MANY_REQUESTS,
                Some(&message),
                &next,
                &username,
            )
            .await?;
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, header::HeaderValue::from(retry_after));
            Ok(response)
        }
        Err(other) => Err(other),
    }
}

/// Records a failed form login: against the user when the name exists, else against id 0
/// (visible to superusers and auditors only), with the name that was tried.
fn record_failure(ctx: &mut crate::context::Context<'_>, username: &str) -> ApiResult<()> {
    let user = if username.contains('\0') {
        None
    } else {
        acs_storage::users::find_by_username(ctx.conn()?, username)?
    };
    let subject = match &user {
        Some(user) => acs_app::activity::Subject::user(user),
        None => acs_app::activity::Subject {
            kind: acs_storage::activity::USER,
            id: 0,
            summary: json!({ "id": 0, "username": username }),
        },
    };
    let now = ctx.now;
    ctx.write(|conn| {
        acs_app::activity::record(
            conn,
            now,
            None,
            "login_failed",
            &subject,
            None,
            json!({ "username": username }),
        )
        .map_err(Into::into)
    })
}

pub(crate) fn logged_in(
    user: User,
    session: SessionCookie,
    csrf_value: String,
    next: &str,
    secure: bool,
) -> HttpResponse {
    let current_user = json!({
        "id": user.id,
        "type": "user",
        "url": format!("/api/v2/users/{}/", user.id),
        "username": user.username,
    })
    .to_string();
    let encoded =
        percent_encoding::utf8_percent_encode(&current_user, percent_encoding::NON_ALPHANUMERIC)
            .to_string();
    let location = if next.is_empty() { DEFAULT_NEXT } else { next };
    let mut response = HttpResponse::Found();
    apply_transport(&mut response, secure);
    response
        .insert_header((header::LOCATION, location))
        .insert_header(("X-API-Session-Cookie-Name", session.name.clone()))
        .insert_header(("Session-Timeout", session.max_age.to_string()))
        .cookie(cookie(
            session.name,
            session.value,
            true,
            Some(session.max_age),
            secure,
        ))
        .cookie(cookie(
            "userLoggedIn".into(),
            "true".into(),
            false,
            None,
            secure,
        ))
        .cookie(cookie("current_user".into(), encoded, false, None, secure))
        .cookie(cookie(csrf::COOKIE.into(), csrf_value, false, None, secure))
        .finish()
}

#[cfg(test)]
mod tests {
    use super::safe_next;

    #[test]
    fn only_local_paths_are_followed() {
        assert_eq!(safe_next(Some("/api/")), Some("/api/"));
        assert_eq!(
            safe_next(Some("/api/o/authorize/?client_id=x")),
            Some("/api/o/authorize/?client_id=x")
        );
        for bad in [
            "//evil.example/",
            "https://evil.example/",
            "/\\evil",
            "evil",
            "",
            "/a\nb",
        ] {
            assert_eq!(safe_next(Some(bad)), None, "{bad:?}");
        }
    }
}

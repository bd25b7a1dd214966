//! What every account page shares: who is signed in, the CSRF check of a form, and turning
//! the API's errors into messages.

use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Serialize;

use crate::auth::{Principal, csrf};
use crate::context::{Context, Reply, run};
use crate::error::{ApiError, ApiResult};
use crate::http::body::FormBody;
use crate::http::response::apply_session;
use crate::pages::{MessagePage, message_page, page_response};
use crate::state::AppState;

/// Why a page did not do what was asked.
#[derive(Debug)]
pub enum Stop {
    /// Nobody is signed in with a browser session: go to the login page and come back.
    SignIn,
    /// The form's CSRF token or origin was wrong.
    Forgery(String),
}

/// How a page request is let in.
#[derive(Debug)]
pub enum Access {
    /// A page that only shows things: a browser session is enough.
    Show,
    /// A form post: a browser session, and the form's `csrfmiddlewaretoken` passing the very
    /// check the API applies to its `X-CSRFToken` header.
    Form(Option<String>),
}

impl Access {
    /// The access of a posted `form`.
    pub fn form(form: &FormBody) -> Self {
        Access::Form(form.get("csrfmiddlewaretoken").map(str::to_owned))
    }
}

/// Runs `work` on the blocking pool for the user of the browser session, let in by `access`;
/// `Err(Stop)` when nobody is signed in with a session (Basic and bearer credentials do not
/// count: a page acts for a person at a browser) or the form is forged.
pub async fn as_user<T, F>(
    state: &web::Data<AppState>,
    req: &HttpRequest,
    access: Access,
    work: F,
) -> ApiResult<Reply<Result<T, Stop>>>
where
    T: Send + 'static,
    F: FnOnce(&mut Context<'_>, Principal) -> ApiResult<T> + Send + 'static,
{
    run(state, req, move |ctx| {
        let session = ctx.principal()?.filter(|principal| principal.is_session());
        let Some(principal) = session.cloned() else {
            return Ok(Err(Stop::SignIn));
        };
        let principal = match access {
            Access::Show => principal,
            Access::Form(token) => {
                if ctx.request.csrf_header.is_none() {
                    ctx.request.csrf_header = token;
                }
                match ctx.require_user() {
                    Ok(principal) => principal,
                    Err(ApiError::Forbidden(reason)) => return Ok(Err(Stop::Forgery(reason))),
                    Err(other) => return Err(other),
                }
            }
        };
        work(ctx, principal).map(Ok)
    })
    .await
}

/// `GET` of a page of `template` at `path`: `view` makes what it shows for the user of the
/// browser session, given the notice the page's `done=` names; a visitor without a session
/// logs in and returns to `path`.
pub async fn show<T, F>(
    state: &web::Data<AppState>,
    req: &HttpRequest,
    (template, path): (&str, &str),
    view: F,
) -> ApiResult<HttpResponse>
where
    T: Serialize + Send + 'static,
    F: FnOnce(&mut Context<'_>, &Principal, Option<&'static str>) -> ApiResult<T> + Send + 'static,
{
    let shown = notice(req);
    let reply = as_user(state, req, Access::Show, move |ctx, principal| {
        view(ctx, &principal, shown)
    })
    .await?;
    match &reply.value {
        Ok(page) => render(req, state, StatusCode::OK, template, page, &reply),
        Err(stop) => stopped(state, stop, path),
    }
}

/// A form post that removes something with `remove` (the API's own function) and then goes
/// `back` (with its `done=` notice); a refusal shows the problem page, and a visitor without a
/// session logs in and returns to `from`.
pub async fn removal<F>(
    state: &web::Data<AppState>,
    req: &HttpRequest,
    form: &FormBody,
    (from, back): (&str, &str),
    remove: F,
) -> ApiResult<HttpResponse>
where
    F: FnOnce(&mut Context<'_>, &Principal) -> ApiResult<()> + Send + 'static,
{
    let reply = as_user(
        state,
        req,
        Access::form(form),
        move |ctx, principal| match remove(ctx, &principal) {
            Ok(()) => Ok(None),
            Err(error) => Ok(Some(Problem::from_error(error)?)),
        },
    )
    .await?;
    match &reply.value {
        Ok(None) => Ok(see_other(back, &reply)),
        Ok(Some(problem)) => problem.page(state),
        Err(stop) => stopped(state, stop, from),
    }
}

/// The response to a stopped page: the login page (coming back to `path`) or the CSRF page.
pub fn stopped(state: &AppState, stop: &Stop, path: &str) -> ApiResult<HttpResponse> {
    match stop {
        // The paths are ours (letters, digits and slashes): nothing to encode.
        Stop::SignIn => Ok(HttpResponse::Found()
            .insert_header((header::LOCATION, format!("/api/login/?next={path}")))
            .finish()),
        Stop::Forgery(reason) => csrf::failure_page(&state.pages, reason),
    }
}

/// Messages for a form from an error the API would have answered with 400 or 403, with the
/// status to answer; other errors (missing objects, server trouble) are returned as they are.
pub fn form_errors(error: ApiError) -> ApiResult<(StatusCode, Vec<String>)> {
    match error {
        ApiError::Fields(fields) => Ok((
            StatusCode::BAD_REQUEST,
            fields
                .iter()
                .flat_map(|(field, messages)| {
                    messages.iter().map(move |message| match field.as_str() {
                        "__all__" | "non_field_errors" => message.clone(),
                        field => format!("{}: {message}", label_of(field)),
                    })
                })
                .collect(),
        )),
        ApiError::BadRequest(message) => Ok((StatusCode::BAD_REQUEST, vec![message])),
        ApiError::Forbidden(message) => Ok((StatusCode::FORBIDDEN, vec![message])),
        other => Err(other),
    }
}

/// `redirect_uris` → `Redirect uris`: the API's field name as a reader would say it.
fn label_of(field: &str) -> String {
    let spaced = field.replace('_', " ");
    let mut chars = spaced.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// A page of `template` showing `view`, with the forms' CSRF token and the session cookie of
/// `reply` re-armed.
pub fn render<T: Serialize, U>(
    req: &HttpRequest,
    state: &AppState,
    status: StatusCode,
    template: &str,
    view: &T,
    reply: &Reply<U>,
) -> ApiResult<HttpResponse> {
    #[derive(Serialize)]
    struct WithToken<'a, T> {
        csrf_token: &'a str,
        #[serde(flatten)]
        view: &'a T,
    }
    let (token, fresh) = csrf::page_token(req, &state.rng)?;
    let html = state.pages.html(
        template,
        &WithToken {
            csrf_token: &token,
            view,
        },
    )?;
    let mut response = page_response(status);
    apply_session(&mut response, reply.session.as_ref(), reply.secure);
    if fresh {
        response.cookie(csrf::cookie(req, token));
    }
    Ok(response.body(html))
}

/// After a change: back to `location` with a GET, so reloading does not repeat the change.
pub fn see_other<T>(location: &str, reply: &Reply<T>) -> HttpResponse {
    let mut response = HttpResponse::SeeOther();
    apply_session(&mut response, reply.session.as_ref(), reply.secure);
    response
        .insert_header((header::LOCATION, location))
        .finish()
}

/// What went wrong when no form is left to show again (a missing object, a refusal).
#[derive(Debug)]
pub struct Problem {
    status: StatusCode,
    title: &'static str,
    message: String,
}

impl Problem {
    /// The problem an API error makes for a page; server trouble stays an error, so it keeps
    /// the API's response and logging.
    pub fn from_error(error: ApiError) -> ApiResult<Problem> {
        let status = actix_web::ResponseError::status_code(&error);
        let (title, message) = match error {
            ApiError::NotFound(message) => ("Not found", message),
            ApiError::Forbidden(message) => ("Forbidden", message),
            ApiError::BadRequest(message) => ("Bad request", message),
            other => return Err(other),
        };
        Ok(Problem {
            status,
            title,
            message,
        })
    }

    /// The page saying so.
    pub fn page(&self, state: &AppState) -> ApiResult<HttpResponse> {
        message_page(
            &state.pages,
            self.status,
            &MessagePage {
                title: self.title,
                message: &self.message,
                detail: None,
            },
        )
    }
}

/// The notice of a finished change, named by the `done` query parameter of the page it
/// returns to: fixed texts, so a link cannot put words in the page.
pub fn notice(req: &HttpRequest) -> Option<&'static str> {
    let query: Vec<(String, String)> =
        serde_urlencoded::from_str(req.query_string()).unwrap_or_default();
    let done = query
        .iter()
        .find(|(k, _)| k == "done")
        .map(|(_, v)| v.as_str())?;
    match done {
        "revoked" => Some("The token was revoked."),
        "saved" => Some("The application was saved."),
        "deleted" => Some("The application was deleted, with its tokens."),
        _ => None,
    }
}

/// The navigation bar of a signed-in page.
#[derive(Debug, Serialize)]
pub struct Nav {
    /// Who is signed in.
    pub username: String,
    /// Whether to link the applications page: superusers and organization admins.
    pub applications: bool,
}

impl Nav {
    /// The bar for `principal`.
    pub fn of(principal: &Principal) -> Self {
        Nav {
            username: principal.user.username.clone(),
            applications: principal.actor.is_superuser || !principal.actor.admin_of.is_empty(),
        }
    }
}

/// A timestamp as people read it.
pub fn when(at: &acs_storage::Timestamp) -> String {
    at.format("%Y-%m-%d %H:%M UTC").to_string()
}

/// The fields `names` of a form post as a JSON object of strings, for the API's body readers
/// (which then validate them as they validate JSON); fields missing from the form stay missing.
pub fn body_of(form: &FormBody, names: &[&str]) -> serde_json::Map<String, serde_json::Value> {
    names
        .iter()
        .filter_map(|name| {
            form.get(name)
                .map(|value| ((*name).to_owned(), serde_json::Value::from(value)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_errors_read_as_sentences() {
        let error = ApiError::Fields(
            [
                (
                    "redirect_uris".to_owned(),
                    vec!["Enter a valid URL.".to_owned()],
                ),
                ("__all__".to_owned(), vec!["Name taken.".to_owned()]),
            ]
            .into(),
        );
        let (status, messages) = form_errors(error).expect("a form error");
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(
            messages,
            ["Name taken.", "Redirect uris: Enter a valid URL."]
        );
        assert!(form_errors(ApiError::Internal("x".into())).is_err());
    }
}

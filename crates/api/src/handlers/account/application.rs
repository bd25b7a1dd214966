//! `GET /accounts/applications/<id>/`: the form to change one application; `POST` saves it as
//! `PATCH /api/v2/applications/<id>/` would, and `POST …/<id>/delete/` deletes it as
//! `DELETE` would.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Serialize;

use super::applications::{ApplicationForm, PATH as LIST, api_body};
use super::page::{
    Access, Nav, Problem, Stop, as_user, form_errors, removal, render, see_other, stopped,
};
use crate::auth::Principal;
use crate::context::{Context, Reply};
use crate::error::ApiResult;
use crate::handlers::applications::{self, Applications};
use crate::handlers::change::{Change, Edit};
use crate::handlers::detail::Delete;
use crate::http::body::FormBody;
use crate::state::AppState;

/// What the edit page shows.
#[derive(Debug, Serialize)]
struct ApplicationView {
    nav: Nav,
    id: i64,
    /// The stored name (the form may hold a refused one).
    name: String,
    errors: Vec<String>,
    organization: String,
    client_id: String,
    form: ApplicationForm,
}

/// What a request for the page came to.
enum Outcome {
    Page(StatusCode, Box<ApplicationView>),
    Saved(&'static str),
    Problem(Problem),
}

/// The page of application `id`, if `principal` may change it.
fn view(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<ApplicationView> {
    let app = applications::visible(ctx, principal, id)?;
    acs_authz::can_change_application(&principal.actor, &acs_app::applications::target_of(&app))?;
    let organization = acs_storage::organizations::find(ctx.conn()?, app.organization_id)?;
    Ok(ApplicationView {
        nav: Nav::of(principal),
        id,
        name: app.name.clone(),
        errors: Vec::new(),
        organization: organization.name,
        client_id: app.client_id,
        form: ApplicationForm {
            name: app.name,
            description: app.description,
            client_type: app.client_type,
            grant_type: app.authorization_grant_type,
            redirect_uris: app.redirect_uris,
            skip_authorization: app.skip_authorization,
        },
    })
}

fn path_of(id: i64) -> String {
    format!("{LIST}{id}/")
}

fn respond(
    req: &HttpRequest,
    state: &AppState,
    id: i64,
    reply: Reply<Result<Outcome, Stop>>,
) -> ApiResult<HttpResponse> {
    match &reply.value {
        Ok(Outcome::Page(status, page)) => {
            render(req, state, *status, "application", page.as_ref(), &reply)
        }
        Ok(Outcome::Saved(done)) => Ok(see_other(&format!("{LIST}?done={done}"), &reply)),
        Ok(Outcome::Problem(problem)) => problem.page(state),
        Err(stop) => stopped(state, stop, &path_of(id)),
    }
}

/// `GET /accounts/applications/<id>/`.
pub async fn application_page(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    let reply = as_user(
        &state,
        &req,
        Access::Show,
        move |ctx, principal| match view(ctx, &principal, id) {
            Ok(page) => Ok(Outcome::Page(StatusCode::OK, Box::new(page))),
            Err(error) => Ok(Outcome::Problem(Problem::from_error(error)?)),
        },
    )
    .await?;
    respond(&req, &state, id, reply)
}

/// `POST /accounts/applications/<id>/`: saves the form.
pub async fn update_application(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
    form: FormBody,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    let access = Access::form(&form);
    let body = api_body(
        &form,
        &["name", "description", "client_type", "redirect_uris"],
    );
    let values = ApplicationForm::read(&form);
    let reply = as_user(&state, &req, access, move |ctx, principal| {
        let edit = Edit {
            principal: &principal,
            key: id,
            body: &body.0,
            full: false,
        };
        let error = match <Applications as Change>::change(ctx, edit) {
            Ok(_) => return Ok(Outcome::Saved("saved")),
            Err(error) => error,
        };
        let (status, errors) = match form_errors(error) {
            Ok(refusal) => refusal,
            Err(other) => return Ok(Outcome::Problem(Problem::from_error(other)?)),
        };
        let mut page = match view(ctx, &principal, id) {
            Ok(page) => page,
            Err(error) => return Ok(Outcome::Problem(Problem::from_error(error)?)),
        };
        page.errors = errors;
        // The grant type is fixed: show the stored one, not what the form claimed.
        page.form = ApplicationForm {
            grant_type: page.form.grant_type,
            ..values
        };
        Ok(Outcome::Page(status, Box::new(page)))
    })
    .await?;
    respond(&req, &state, id, reply)
}

/// `POST /accounts/applications/<id>/delete/`: deletes the application and its tokens.
pub async fn delete_application(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
    form: FormBody,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    let back = format!("{LIST}?done=deleted");
    removal(
        &state,
        &req,
        &form,
        (&path_of(id), &back),
        move |ctx, principal| Applications::delete(ctx, principal, id),
    )
    .await
}

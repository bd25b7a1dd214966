//! `GET /accounts/applications/`: the applications the user manages and the form for a new
//! one; `POST` creates it, as `POST /api/v2/applications/` would, and shows its client id and
//! secret once.

use acs_storage::applications::ApplicationScope;
use acs_storage::list::{ListParams, OrderBy};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Serialize;
use serde_json::Value;

use super::page::{Access, Nav, as_user, body_of, form_errors, render, show, stopped};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::applications::Applications;
use crate::handlers::create::{Create, Submission};
use crate::http::body::{FormBody, JsonObject};
use crate::state::AppState;

/// The page's path.
pub const PATH: &str = "/accounts/applications/";

/// How many applications and organizations the page lists; the API lists them all.
const SHOWN: i64 = 200;

/// What the applications page shows.
#[derive(Debug, Serialize)]
struct ApplicationsView {
    nav: Nav,
    notice: Option<&'static str>,
    errors: Vec<String>,
    created: Option<Created>,
    applications: Vec<ApplicationItem>,
    organizations: Vec<Choice>,
    /// A superuser may create applications in every organization, so an empty
    /// `organizations` means there is none yet: the page says how to create one.
    superuser: bool,
    form: ApplicationForm,
}

/// The credentials of the application just created: shown once.
#[derive(Debug, Serialize)]
struct Created {
    id: i64,
    name: String,
    client_id: String,
    client_secret: Option<String>,
}

#[derive(Debug, Serialize)]
struct ApplicationItem {
    id: i64,
    name: String,
    organization: String,
    client_type: String,
    grant_type: String,
}

/// An organization the user may create applications in.
#[derive(Debug, Serialize)]
struct Choice {
    id: i64,
    name: String,
    selected: bool,
}

/// The creation form's values, kept after a refusal.
#[derive(Debug, Default, Serialize)]
pub struct ApplicationForm {
    pub name: String,
    pub description: String,
    pub client_type: String,
    pub grant_type: String,
    pub redirect_uris: String,
    pub skip_authorization: bool,
}

impl ApplicationForm {
    /// The values of a posted form.
    pub fn read(form: &FormBody) -> Self {
        let text = |name: &str| form.get(name).unwrap_or_default().to_owned();
        ApplicationForm {
            name: text("name"),
            description: text("description"),
            client_type: text("client_type"),
            grant_type: text("authorization_grant_type"),
            redirect_uris: text("redirect_uris"),
            skip_authorization: form.get("skip_authorization").is_some(),
        }
    }
}

/// The body the API would receive for the posted `form`: its text fields as they are, and the
/// checkbox as a boolean (an unticked box is not sent by browsers).
pub fn api_body(form: &FormBody, names: &[&str]) -> JsonObject {
    let mut body = body_of(form, names);
    body.insert(
        "skip_authorization".into(),
        Value::Bool(form.get("skip_authorization").is_some()),
    );
    JsonObject(body)
}

fn view(ctx: &mut Context<'_>, principal: &Principal) -> ApiResult<ApplicationsView> {
    Ok(ApplicationsView {
        nav: Nav::of(principal),
        notice: None,
        errors: Vec::new(),
        created: None,
        applications: managed(ctx, principal)?,
        organizations: organizations(ctx, principal)?,
        superuser: principal.actor.is_superuser,
        form: ApplicationForm {
            client_type: "confidential".into(),
            grant_type: "authorization-code".into(),
            ..ApplicationForm::default()
        },
    })
}

/// The visible applications `principal` may change, by name.
fn managed(ctx: &mut Context<'_>, principal: &Principal) -> ApiResult<Vec<ApplicationItem>> {
    let visibility = acs_authz::visible_applications(&principal.actor);
    let params = by_name();
    let page = acs_storage::applications::list(
        ctx.conn()?,
        &visibility,
        ApplicationScope::default(),
        &params,
    )??;
    let mut summaries = acs_storage::applications::summaries(ctx.conn()?, &page.items)?;
    Ok(page
        .items
        .iter()
        .filter(|app| {
            acs_authz::can_change_application(
                &principal.actor,
                &acs_app::applications::target_of(app),
            )
            .is_ok()
        })
        .map(|app| ApplicationItem {
            id: app.id,
            name: app.name.clone(),
            organization: summaries
                .remove(&app.id)
                .map(|summary| summary.organization.1)
                .unwrap_or_default(),
            client_type: app.client_type.clone(),
            grant_type: app.authorization_grant_type.clone(),
        })
        .collect())
}

/// The organizations `principal` may create an application in, by name.
fn organizations(ctx: &mut Context<'_>, principal: &Principal) -> ApiResult<Vec<Choice>> {
    let visibility = acs_authz::visible_organizations(&principal.actor);
    let page = acs_storage::organizations::list(ctx.conn()?, &visibility, &by_name())??;
    Ok(page
        .items
        .into_iter()
        .filter(|org| acs_authz::can_create_application(&principal.actor, org.id, None).is_ok())
        .map(|org| Choice {
            id: org.id,
            name: org.name,
            selected: false,
        })
        .collect())
}

fn by_name() -> ListParams {
    ListParams {
        order: vec![OrderBy {
            field: "name".into(),
            descending: false,
        }],
        limit: SHOWN,
        ..ListParams::default()
    }
}

/// `GET /accounts/applications/`.
pub async fn applications_page(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    show(
        &state,
        &req,
        ("applications", PATH),
        |ctx, principal, notice| {
            Ok(ApplicationsView {
                notice,
                ..view(ctx, principal)?
            })
        },
    )
    .await
}

/// `POST /accounts/applications/`: creates an application from the form.
pub async fn create_application(
    req: HttpRequest,
    state: web::Data<AppState>,
    form: FormBody,
) -> ApiResult<HttpResponse> {
    let access = Access::form(&form);
    let body = api_body(
        &form,
        &[
            "name",
            "description",
            "organization",
            "client_type",
            "authorization_grant_type",
            "redirect_uris",
        ],
    );
    let values = ApplicationForm::read(&form);
    let organization = form
        .get("organization")
        .and_then(|id| id.parse::<i64>().ok());
    let reply = as_user(&state, &req, access, move |ctx, principal| {
        let new = Submission {
            principal: &principal,
            body,
            scope: Default::default(),
        };
        let created = <Applications as Create>::create(ctx, new);
        let mut page = view(ctx, &principal)?;
        let status = match created {
            Ok(record) => {
                page.created = Some(Created {
                    id: record.id(),
                    name: values.name,
                    client_id: record.fields().client_id().to_owned(),
                    client_secret: record.fields().client_secret().map(str::to_owned),
                });
                StatusCode::CREATED
            }
            Err(error) => {
                let (status, errors) = form_errors(error)?;
                page.errors = errors;
                page.form = values;
                for choice in &mut page.organizations {
                    choice.selected = Some(choice.id) == organization;
                }
                status
            }
        };
        Ok((status, page))
    })
    .await?;
    match &reply.value {
        Ok((status, page)) => render(&req, &state, *status, "applications", page, &reply),
        Err(stop) => stopped(&state, stop, PATH),
    }
}

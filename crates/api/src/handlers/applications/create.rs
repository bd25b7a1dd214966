//! `POST /api/v2/applications/`, `/api/v2/users/<id>/applications/` (owned by that user) and
//! `/api/v2/organizations/<id>/applications/` (in that organization).

use acs_storage::applications::NewApplication;
use actix_web::{HttpRequest, HttpResponse, web};

use super::input::ApplicationInput;
use super::name_conflict;
use super::render::{ApplicationRecord, render_one};
use crate::auth::Principal;
use crate::context::{Context, run};
use crate::error::{ApiError, ApiResult};
use crate::http::body::JsonObject;
use crate::state::AppState;
use acs_app::activity::{self, Subject};

/// Creates an application from the body alone.
pub async fn create_application(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    let reply = run(&state, &req, move |ctx| {
        let principal = ctx.require_user()?;
        create(ctx, &principal, body, Parent::None)
    })
    .await?;
    Ok(created(reply))
}

/// Creates an application owned by the user in the path.
pub async fn create_user_application(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    let segment = path.into_inner();
    let reply = run(&state, &req, move |ctx| {
        let principal = ctx.require_user()?;
        let (user, _, _) = crate::handlers::users::visible(ctx, &principal, &segment)?;
        create(ctx, &principal, body, Parent::User(user.id))
    })
    .await?;
    Ok(created(reply))
}

/// Creates an application in the organization in the path.
pub async fn create_organization_application(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    let reply = run(&state, &req, move |ctx| {
        let principal = ctx.require_user()?;
        crate::handlers::organizations::visible(ctx, &principal, id)?;
        create(ctx, &principal, body, Parent::Organization(id))
    })
    .await?;
    Ok(created(reply))
}

fn created(reply: crate::context::Reply<ApplicationRecord>) -> HttpResponse {
    let location = format!("/api/v2/applications/{}/", reply.value.id());
    reply.created(&location)
}

/// What the path fixes about the new application.
#[derive(Debug, Clone, Copy)]
enum Parent {
    None,
    User(i64),
    Organization(i64),
}

/// Creates an application for `principal` from a body of the API's shape, under the API's
/// rules (the applications page uses it too). The record carries the client secret in clear.
pub fn create_from_body(
    ctx: &mut Context<'_>,
    principal: &Principal,
    body: JsonObject,
) -> ApiResult<ApplicationRecord> {
    create(ctx, principal, body, Parent::None)
}

fn create(
    ctx: &mut Context<'_>,
    principal: &Principal,
    mut body: JsonObject,
    parent: Parent,
) -> ApiResult<ApplicationRecord> {
    match parent {
        Parent::User(id) => {
            body.0.insert("user".into(), id.into());
        }
        Parent::Organization(id) => {
            body.0.insert("organization".into(), id.into());
        }
        Parent::None => {}
    }
    let input = ApplicationInput::read(&body.0, true, None)?;
    let (Some(organization), Some(grant_type), Some(client_type)) =
        (input.organization, input.grant_type, input.client_type)
    else {
        return Err(ApiError::Internal("validated fields missing".into()));
    };
    let invalid_pk = |field: &str, id: i64| {
        ApiError::field(
            field,
            format!("Invalid pk \"{id}\" - object does not exist."),
        )
    };
    match acs_storage::organizations::find(ctx.conn()?, organization) {
        Ok(_) => {}
        Err(acs_storage::StorageError::NotFound) => {
            return Err(invalid_pk("organization", organization));
        }
        Err(other) => return Err(other.into()),
    }
    let owner = match input.user {
        Some(id) => match acs_storage::users::find(ctx.conn()?, id) {
            Ok(user) => {
                let memberships = acs_storage::users::memberships_of(ctx.conn()?, id)?;
                Some(crate::handlers::users::target_of(&user, &memberships))
            }
            Err(acs_storage::StorageError::NotFound) => return Err(invalid_pk("user", id)),
            Err(other) => return Err(other.into()),
        },
        None => None,
    };
    acs_authz::can_create_application(&principal.actor, organization, owner.as_ref())?;

    let rng = &ctx.state.rng;
    let random_failed = |_| ApiError::Internal("random number generator failed".into());
    let client_id = acs_oauth2::generate_client_id(rng).map_err(random_failed)?;
    let secret = acs_oauth2::generate_client_secret(rng).map_err(random_failed)?;
    let digest = secret.digest();
    let now = ctx.now;
    let app = ctx.write(|conn| {
        let app = acs_storage::applications::insert(
            conn,
            &NewApplication {
                name: input.name.as_deref().unwrap_or_default(),
                description: input.description.as_deref().unwrap_or_default(),
                client_id: &client_id,
                client_secret_digest: digest.as_bytes(),
                client_type: client_type.as_str(),
                redirect_uris: input.redirect_uris.as_deref().unwrap_or_default(),
                authorization_grant_type: grant_type.as_str(),
                skip_authorization: input.skip_authorization.unwrap_or(false),
                organization_id: organization,
                user_id: input.user,
                created: now,
                modified: now,
            },
        )
        .map_err(name_conflict)?;
        let masked = render_one(conn, principal, &app, None)?;
        activity::record_creation(
            conn,
            now,
            &principal.user,
            &Subject::named(acs_storage::activity::APPLICATION, app.id, &app.name),
            &masked,
        )?;
        Ok(app)
    })?;
    tracing::info!(
        actor = principal.user.id,
        application = app.id,
        "application created"
    );
    render_one(ctx.conn()?, principal, &app, Some(&secret))
}

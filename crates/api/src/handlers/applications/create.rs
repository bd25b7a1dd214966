//! `POST /api/v2/applications/`, `/api/v2/users/<id>/applications/` (owned by that user) and
//! `/api/v2/organizations/<id>/applications/` (in that organization).

use acs_storage::applications::ApplicationValues;

use super::input::ApplicationInput;
use super::render::{ApplicationRecord, render_one};
use super::{Applications, name_conflict};
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::handlers::create::{Create, Submission};
use acs_app::activity::{self, Subject};

/// Creates an application; under a user, owned by them; under an organization, in it.
impl Create for Applications {
    type Created = ApplicationRecord;

    /// The record carries the client secret in clear.
    fn create(ctx: &mut Context<'_>, new: Submission<'_, Self::Scope>) -> ApiResult<Self::Created> {
        let (principal, mut body, scope) = (new.principal, new.body, new.scope);
        if let Some(user) = scope.user {
            body.0.insert("user".into(), user.into());
        }
        if let Some(organization) = scope.organization {
            body.0.insert("organization".into(), organization.into());
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
        let values = ApplicationValues {
            name: Some(input.name.unwrap_or_default()),
            description: Some(input.description.unwrap_or_default()),
            client_id: Some(client_id),
            client_secret_digest: Some(digest.as_bytes().to_vec()),
            client_type: Some(client_type.as_str().to_owned()),
            redirect_uris: Some(input.redirect_uris.unwrap_or_default()),
            authorization_grant_type: Some(grant_type.as_str().to_owned()),
            skip_authorization: Some(input.skip_authorization.unwrap_or(false)),
            organization_id: Some(organization),
            user_id: Some(input.user),
        };
        let app = ctx.write(|conn| {
            let app = acs_storage::applications::insert(conn, &values, now);
            let app = app.map_err(name_conflict)?;
            let masked = render_one(conn, principal, &app, None)?;
            let subject = Subject::named(acs_storage::activity::APPLICATION, app.id, &app.name);
            activity::record_creation(conn, now, &principal.user, &subject, &masked)?;
            Ok(app)
        })?;
        tracing::info!(
            actor = principal.user.id,
            application = app.id,
            "application created"
        );
        render_one(ctx.conn()?, principal, &app, Some(&secret))
    }

    fn location(created: &ApplicationRecord) -> Option<String> {
        Some(format!("/api/v2/applications/{}/", created.id()))
    }
}

//! `POST /api/v2/credentials/` and `/api/v2/credential_types/<id>/credentials/`.

use acs_storage::credentials::CredentialValues;
use acs_storage::stamps::Creation;

use super::render::{CredentialRecord, render_one};
use super::{Credentials, input, name_conflict, owner_of, validate};
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::handlers::create::{Create, Submission};
use acs_app::activity::{self, Subject};

/// Creates a credential; under a credential type, of that type.
impl Create for Credentials {
    type Created = CredentialRecord;

    fn create(ctx: &mut Context<'_>, new: Submission<'_, Self::Scope>) -> ApiResult<Self::Created> {
        let (principal, mut body, scope) = (new.principal, new.body, new.scope);
        if let Some(type_id) = scope.credential_type {
            body.0.insert("credential_type".into(), type_id.into());
        }
        let input = input::read(&body.0, true, None)?;
        let (Some(name), Some(type_id), Some(submitted)) = (
            input.name.as_deref(),
            input.credential_type,
            input.inputs.as_ref(),
        ) else {
            return Err(ApiError::Internal("validated fields missing".into()));
        };
        validate::type_exists(ctx.conn()?, type_id)?;
        if let Some(org) = input.organization {
            validate::organization_exists(ctx.conn()?, org)?;
        }
        if let Some(user) = input.user {
            validate::user_exists(ctx.conn()?, user)?;
        }
        let owner = owner_of(ctx.conn()?, input.organization, input.user)?;
        acs_authz::can_create_credential(&principal.actor, &owner)?;
        let now = ctx.now;
        let state = ctx.state;
        ctx.write(|conn| {
            let (credential_type, inputs, key) =
                validate::stored_inputs(conn, state, type_id, submitted, None)?;
            validate::owner_allowed(&credential_type, input.organization)?;
            let values = CredentialValues {
                name: Some(name.to_owned()),
                description: Some(input.description.clone().unwrap_or_default()),
                credential_type_id: Some(type_id),
                organization_id: Some(input.organization),
                user_id: Some(input.user),
                inputs: Some(inputs),
            };
            let stamps = Creation::by(Some(principal.user.id), now);
            let credential =
                acs_storage::credentials::insert(conn, &values, stamps).map_err(name_conflict)?;
            acs_app::credential_inputs::confirm_key(conn, key)?;
            let record = render_one(conn, principal, &credential, &credential_type)?;
            let subject = Subject::named(
                acs_storage::activity::CREDENTIAL,
                credential.id,
                &credential.name,
            );
            activity::record_creation(conn, now, &principal.user, &subject, &record)?;
            tracing::info!(
                actor = principal.user.id,
                credential = credential.id,
                "credential created"
            );
            Ok(record)
        })
    }

    fn location(created: &CredentialRecord) -> Option<String> {
        Some(format!("/api/v2/credentials/{}/", created.id()))
    }
}

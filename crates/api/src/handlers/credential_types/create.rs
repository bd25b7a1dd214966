//! `POST /api/v2/credential_types/`.

use acs_storage::credential_types::NewCredentialType;
use acs_storage::stamps::Creation;

use super::CredentialTypes;
use super::input;
use super::name_conflict;
use super::render::{CredentialTypeRecord, render_credential_type};
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::handlers::create::{Create, Submission};
use acs_app::activity::{self, Subject};

impl Create for CredentialTypes {
    type Created = CredentialTypeRecord;

    /// Creates a custom credential type (superusers only). `managed` and `namespace` are not
    /// writable: a created type is always custom.
    fn create(ctx: &mut Context<'_>, new: Submission<'_, Self::Scope>) -> ApiResult<Self::Created> {
        let (principal, body) = (new.principal, new.body);
        acs_authz::can_write_credential_types(&principal.actor)?;
        let input = input::read(&body.0, true, None)?;
        let (Some(name), Some(kind), Some(inputs), Some(injectors)) = (
            input.name.as_deref(),
            input.kind.as_deref(),
            input.inputs.as_ref(),
            input.injectors.as_ref(),
        ) else {
            return Err(ApiError::Internal("validated fields missing".into()));
        };
        let now = ctx.now;
        let inputs = inputs.to_string();
        let injectors = injectors.to_string();
        ctx.write(|conn| {
            let created = acs_storage::credential_types::insert(
                conn,
                &NewCredentialType {
                    name,
                    description: input.description.as_deref().unwrap_or_default(),
                    kind,
                    namespace: None,
                    managed: false,
                    inputs: &inputs,
                    injectors: &injectors,
                    stamps: Creation::by(Some(principal.user.id), now),
                },
            )
            .map_err(name_conflict)?;
            let record = render_credential_type(principal, &created)?;
            let subject = Subject::named(
                acs_storage::activity::CREDENTIAL_TYPE,
                created.id,
                &created.name,
            );
            activity::record_creation(conn, now, &principal.user, &subject, &record)?;
            tracing::info!(
                actor = principal.user.id,
                credential_type = created.id,
                "credential type created"
            );
            Ok(record)
        })
    }

    fn location(created: &CredentialTypeRecord) -> Option<String> {
        Some(format!("/api/v2/credential_types/{}/", created.id()))
    }
}

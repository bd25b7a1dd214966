//! `POST /api/v2/credential_types/`.

use acs_storage::credential_types::CredentialTypeValues;
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
        let values = CredentialTypeValues {
            name: input.name,
            description: Some(input.description.unwrap_or_default()),
            kind: input.kind,
            namespace: Some(None),
            managed: Some(false),
            inputs: input.inputs.map(|inputs| inputs.to_string()),
            injectors: input.injectors.map(|injectors| injectors.to_string()),
        };
        let given = [
            &values.name,
            &values.kind,
            &values.inputs,
            &values.injectors,
        ];
        if given.iter().any(|value| value.is_none()) {
            return Err(ApiError::Internal("validated fields missing".into()));
        }
        let now = ctx.now;
        ctx.write(|conn| {
            let stamps = Creation::by(Some(principal.user.id), now);
            let created = acs_storage::credential_types::insert(conn, &values, stamps)
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

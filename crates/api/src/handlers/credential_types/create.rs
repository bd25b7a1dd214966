//! `POST /api/v2/credential_types/`.

use acs_storage::credential_types::CredentialTypeValues;

use super::CredentialTypes;
use super::input;
use super::render::{CredentialTypeRecord, render_credential_type};
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::handlers::create::{Create, Submission};

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
        let writer = ctx.writer(principal);
        acs_app::credential_types::create(&writer, ctx.conn()?, &values, |created| {
            render_credential_type(principal, created)
        })
    }

    fn location(created: &CredentialTypeRecord) -> Option<String> {
        Some(format!("/api/v2/credential_types/{}/", created.id()))
    }
}

//! `PUT` and `PATCH /api/v2/credential_types/<id>/`.

use acs_storage::credential_types::CredentialTypeValues;

use super::CredentialTypes;
use super::render::render_credential_type;
use super::{find, input};
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::change::{Change, Edit};

impl Change for CredentialTypes {
    fn change(
        ctx: &mut Context<'_>,
        edit: Edit<'_, i64>,
    ) -> ApiResult<super::CredentialTypeRecord> {
        let (principal, id, body, full) = (edit.principal, edit.key, edit.body, edit.full);
        let stored = find(ctx, id)?;
        let writer = ctx.writer(principal);
        acs_app::credential_types::check_writable(&writer, &stored, "Modifications")?;
        let input = input::read(body, full, Some(&stored))?;
        let changes_inputs = input.changes_inputs(&stored);
        let values = CredentialTypeValues {
            name: input.name,
            description: input.description,
            kind: input.kind,
            inputs: input.inputs.map(|v| v.to_string()),
            injectors: input.injectors.map(|v| v.to_string()),
            ..CredentialTypeValues::default()
        };
        acs_app::credential_types::change(
            &writer,
            ctx.conn()?,
            (&stored, &values),
            changes_inputs,
            |credential_type| render_credential_type(principal, credential_type),
        )
    }
}

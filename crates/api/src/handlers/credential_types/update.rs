//! `PUT` and `PATCH /api/v2/credential_types/<id>/`.

use acs_storage::credential_types::CredentialTypeValues;
use acs_storage::stamps::Modification;

use super::CredentialTypes;
use super::render::render_credential_type;
use super::{find, input, name_conflict};
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::handlers::change::{Change, Edit};
use acs_app::activity::{self, Subject};

impl Change for CredentialTypes {
    fn change(
        ctx: &mut Context<'_>,
        edit: Edit<'_, i64>,
    ) -> ApiResult<super::CredentialTypeRecord> {
        let (principal, id, body, full) = (edit.principal, edit.key, edit.body, edit.full);
        let stored = find(ctx, id)?;
        acs_authz::can_write_credential_types(&principal.actor)?;
        if stored.managed {
            return Err(ApiError::Forbidden(
                "Modifications not allowed for managed credential types".into(),
            ));
        }
        let input = input::read(body, full, Some(&stored))?;
        let changes_inputs = input.changes_inputs(&stored);
        let before = render_credential_type(principal, &stored)?;
        let values = CredentialTypeValues {
            name: input.name,
            description: input.description,
            kind: input.kind,
            inputs: input.inputs.map(|v| v.to_string()),
            injectors: input.injectors.map(|v| v.to_string()),
            ..CredentialTypeValues::default()
        };
        let now = ctx.now;
        let stamps = Modification::by(Some(principal.user.id), now);
        ctx.write(|conn| {
            // The update takes the row's lock first; a credential being saved takes the same
            // lock, so the in-use count below cannot miss one validated against old inputs.
            let updated = acs_storage::credential_types::update(conn, id, &values, stamps)
                .map_err(name_conflict)?;
            if changes_inputs && acs_storage::credential_types::credential_count(conn, id)? > 0 {
                return Err(ApiError::Forbidden(
                    "Modifications to inputs are not allowed for credential types that are in use"
                        .into(),
                ));
            }
            let after = render_credential_type(principal, &updated)?;
            let subject = Subject::named(acs_storage::activity::CREDENTIAL_TYPE, id, &updated.name);
            activity::record_update(conn, now, &principal.user, &subject, &before, &after)?;
            Ok(after)
        })
    }
}

//! `PUT` and `PATCH /api/v2/credentials/<id>/`: the body read here, the change written by
//! `acs_app::credentials::change`.

use super::input::{self, Owner};
use super::{CredentialRecord, Credentials, sealer, shown_to, visible};
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::change::{Change, Edit};

impl Change for Credentials {
    fn change(ctx: &mut Context<'_>, edit: Edit<'_, i64>) -> ApiResult<CredentialRecord> {
        let (principal, id, body, full) = (edit.principal, edit.key, edit.body, edit.full);
        let (stored, target) = visible(ctx, principal, id)?;
        // Refused before the body is read: a caller who may not change it learns nothing more.
        acs_authz::can_change_credential(&principal.actor, &target)?;
        let owner = Owner {
            organization: stored.organization_id,
            user: stored.user_id,
        };
        let input = input::read(body, full, Some(owner))?;
        let cipher = ctx.state.keys.cipher();
        let (writer, sealer) = (ctx.writer(principal), sealer(ctx, &cipher));
        acs_app::credentials::change(
            &writer,
            &sealer,
            ctx.conn()?,
            (&stored, &target),
            &input,
            shown_to(principal),
        )
    }
}

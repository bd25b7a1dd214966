//! `POST /api/v2/credentials/` and `/api/v2/credential_types/<id>/credentials/`.

use super::render::CredentialRecord;
use super::{Credentials, input, sealer, shown_to};
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::create::{Create, Submission};

/// Creates a credential; under a credential type, of that type.
impl Create for Credentials {
    type Created = CredentialRecord;

    fn create(ctx: &mut Context<'_>, new: Submission<'_, Self::Scope>) -> ApiResult<Self::Created> {
        let (principal, mut body, scope) = (new.principal, new.body, new.scope);
        if let Some(type_id) = scope.credential_type {
            body.0.insert("credential_type".into(), type_id.into());
        }
        let input = input::read(&body.0, true, None)?;
        let cipher = ctx.state.keys.cipher();
        let (writer, sealer) = (ctx.writer(principal), sealer(ctx, &cipher));
        acs_app::credentials::create(&writer, &sealer, ctx.conn()?, &input, shown_to(principal))
    }

    fn location(created: &CredentialRecord) -> Option<String> {
        Some(format!("/api/v2/credentials/{}/", created.id()))
    }
}

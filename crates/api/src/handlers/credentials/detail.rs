//! `GET` and `OPTIONS /api/v2/credentials/<id>/`, `OPTIONS` of the collection (see
//! [`crate::handlers::detail`]).

use super::render::{CredentialRecord, render_one};
use super::{Credentials, visible};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::detail::{Detail, Options};
use crate::handlers::listing::Parent;
use crate::http::options::ResourceMeta;

impl Detail for Credentials {
    type Key = i64;
    type Shown = CredentialRecord;

    /// One credential, its secrets shown as `$encrypted$`.
    fn get(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<CredentialRecord> {
        let (credential, _) = visible(ctx, principal, id)?;
        let credential_type =
            acs_storage::credential_types::find(ctx.conn()?, credential.credential_type_id)?;
        render_one(ctx.conn()?, principal, &credential, &credential_type)
    }
}

impl Options for Credentials {
    const ROLE_KIND: Option<acs_authz::roles::ResourceKind> =
        Some(acs_authz::roles::ResourceKind::Credential);
    const META: ResourceMeta = super::META;

    fn can_create(principal: &Principal) -> bool {
        !principal.actor.read_only
    }

    fn can_change(ctx: &mut Context<'_>, principal: &Principal, key: i64) -> ApiResult<bool> {
        Ok(match acs_storage::credentials::find(ctx.conn()?, key) {
            Ok(credential) => {
                let target = acs_app::credentials::target_of(ctx.conn()?, &credential)?;
                acs_authz::credential_capabilities(&principal.actor, &target).edit
            }
            Err(_) => principal.actor.is_superuser && !principal.actor.read_only,
        })
    }
}

impl Parent for Credentials {
    const KIND: &'static str = acs_storage::activity::CREDENTIAL;

    fn visible_id(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<i64> {
        visible(ctx, principal, id).map(|_| id)
    }
}

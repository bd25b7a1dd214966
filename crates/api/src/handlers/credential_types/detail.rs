//! `GET` and `OPTIONS /api/v2/credential_types/<id>/`, `OPTIONS` of the collection (see
//! [`crate::handlers::detail`]).

use super::render::{CredentialTypeRecord, render_credential_type};
use super::{CredentialTypes, find};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::detail::{Detail, Options};
use crate::handlers::listing::Parent;
use crate::http::options::ResourceMeta;

impl Detail for CredentialTypes {
    type Key = i64;
    type Shown = CredentialTypeRecord;

    /// One credential type.
    fn get(
        ctx: &mut Context<'_>,
        principal: &Principal,
        id: i64,
    ) -> ApiResult<CredentialTypeRecord> {
        let credential_type = find(ctx, id)?;
        render_credential_type(principal, &credential_type)
    }
}

impl Options for CredentialTypes {
    const META: ResourceMeta = super::META;

    fn can_create(principal: &Principal) -> bool {
        acs_authz::can_write_credential_types(&principal.actor).is_ok()
    }

    fn can_change(_: &mut Context<'_>, principal: &Principal, _: i64) -> ApiResult<bool> {
        Ok(acs_authz::can_write_credential_types(&principal.actor).is_ok())
    }
}

impl Parent for CredentialTypes {
    const KIND: &'static str = acs_storage::activity::CREDENTIAL_TYPE;

    fn visible_id(ctx: &mut Context<'_>, _: &Principal, id: i64) -> ApiResult<i64> {
        find(ctx, id).map(|_| id)
    }
}

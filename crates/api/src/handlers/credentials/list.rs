//! `GET /api/v2/credentials/` and `/api/v2/credential_types/<id>/credentials/` (see
//! [`crate::handlers::listing`]).

use acs_storage::credentials::CredentialScope;

use super::Credentials;
use super::render::{CredentialRecord, render_page};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::credential_types::CredentialTypes;
use crate::handlers::listing::{Listing, SubList};
use crate::http::list::{ListPage, ListRequest};

/// Every credential the caller may see, within the scope.
impl Listing for Credentials {
    type Scope = CredentialScope;
    type Item = CredentialRecord;

    fn page(
        ctx: &mut Context<'_>,
        principal: &Principal,
        scope: CredentialScope,
        list: &ListRequest,
    ) -> ApiResult<ListPage<CredentialRecord>> {
        let visibility = acs_authz::visible_credentials(&principal.actor);
        let page = acs_storage::credentials::list(ctx.conn()?, &visibility, scope, &list.params)??;
        let results = render_page(ctx.conn()?, principal, &page.items)?;
        list.envelope(page.count, results)
    }
}

/// `/api/v2/credential_types/<id>/credentials/`: the credentials of one type.
#[derive(Debug)]
pub struct TypeCredentials;

impl SubList for TypeCredentials {
    type Parent = CredentialTypes;
    type Of = Credentials;

    fn scope(credential_type: i64, _: &Principal) -> CredentialScope {
        CredentialScope {
            credential_type: Some(credential_type),
        }
    }
}

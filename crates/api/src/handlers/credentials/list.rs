//! `GET /api/v2/credentials/` and `/api/v2/credential_types/<id>/credentials/` (see
//! [`crate::handlers::listing`]).

use acs_storage::credentials::CredentialScope;

use super::Credentials;
use super::render::{CredentialRecord, render_page};
use crate::context::Context;
use crate::handlers::credential_types::CredentialTypes;
use crate::handlers::listing::{ListAsked, Listing, PageResult, declare_sub_list};

/// Every credential the caller may see, within the scope.
impl Listing for Credentials {
    type Scope = CredentialScope;
    type Item = CredentialRecord;

    fn page(ctx: &mut Context<'_>, asked: ListAsked<'_, Self::Scope>) -> PageResult<Self::Item> {
        let (principal, scope, list) = (asked.principal, asked.scope, asked.list);
        let visibility = acs_authz::visible_credentials(&principal.actor);
        let page = acs_storage::credentials::list(ctx.conn()?, &visibility, scope, &list.params)??;
        let results = render_page(ctx.conn()?, principal, &page.items)?;
        list.envelope(page.count, results)
    }
}

declare_sub_list!(
    /// `/api/v2/credential_types/<id>/credentials/`: the credentials of one type.
    TypeCredentials: CredentialTypes => Credentials,
    |credential_type, _| CredentialScope {
        credential_type: Some(credential_type),
    }
);

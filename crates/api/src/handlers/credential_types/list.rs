//! `GET /api/v2/credential_types/` (see [`crate::handlers::listing`]).

use super::CredentialTypes;
use super::render::{CredentialTypeRecord, render_credential_type};
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::listing::{ListAsked, Listing, PageResult};

/// Every credential type (every authenticated user sees them all), ordered by kind and name.
impl Listing for CredentialTypes {
    type Scope = ();
    type Item = CredentialTypeRecord;

    fn page(ctx: &mut Context<'_>, asked: ListAsked<'_, Self::Scope>) -> PageResult<Self::Item> {
        let (principal, list) = (asked.principal, asked.list);
        let page = acs_storage::credential_types::list(ctx.conn()?, &list.params)??;
        let results = page
            .items
            .iter()
            .map(|item| render_credential_type(principal, item))
            .collect::<ApiResult<Vec<_>>>()?;
        list.envelope(page.count, results)
    }
}

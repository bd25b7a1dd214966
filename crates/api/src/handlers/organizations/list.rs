//! `GET /api/v2/organizations/` (see [`crate::handlers::listing`]).

use super::Organizations;
use super::render::render_organization;
use crate::context::Context;
use crate::handlers::listing::{ListAsked, Listing, PageResult};
use serde_json::Value;

/// The organizations the caller may see.
impl Listing for Organizations {
    type Scope = ();
    type Item = Value;

    fn page(ctx: &mut Context<'_>, asked: ListAsked<'_, Self::Scope>) -> PageResult<Self::Item> {
        let (principal, list) = (asked.principal, asked.list);
        let visibility = acs_authz::visible_organizations(&principal.actor);
        let page = acs_storage::organizations::list(ctx.conn()?, &visibility, &list.params)??;
        let ids: Vec<i64> = page.items.iter().map(|o| o.id).collect();
        let counts = acs_storage::organizations::role_counts(ctx.conn()?, &ids)?;
        let mut roles = crate::handlers::roles::summaries_of(
            ctx.conn()?,
            acs_authz::roles::ResourceKind::Organization,
            &ids,
        )?;
        let mut results = Vec::with_capacity(page.items.len());
        for org in &page.items {
            let object_roles = roles
                .remove(&org.id)
                .unwrap_or_else(|| serde_json::json!({}));
            results.push(render_organization(
                principal,
                org,
                counts.get(&org.id).copied().unwrap_or_default(),
                object_roles,
            ));
        }
        list.envelope(page.count, results)
    }
}

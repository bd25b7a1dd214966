//! `GET /api/v2/applications/`, `/api/v2/users/<id>/applications/` and
//! `/api/v2/organizations/<id>/applications/` (see [`crate::handlers::listing`]).

use acs_storage::applications::ApplicationScope;

use super::Applications;
use super::render::{ApplicationRecord, render_application};
use crate::context::Context;
use crate::handlers::listing::{ListAsked, Listing, PageResult, declare_sub_list};
use crate::handlers::organizations::Organizations;
use crate::handlers::users::Users;

/// Every application the caller may see, within the scope.
impl Listing for Applications {
    type Scope = ApplicationScope;
    type Item = ApplicationRecord;

    fn page(ctx: &mut Context<'_>, asked: ListAsked<'_, Self::Scope>) -> PageResult<Self::Item> {
        let (principal, scope, list) = (asked.principal, asked.scope, asked.list);
        let visibility = acs_authz::visible_applications(&principal.actor);
        let page = acs_storage::applications::list(ctx.conn()?, &visibility, scope, &list.params)??;
        let mut summaries = acs_storage::applications::summaries(ctx.conn()?, &page.items)?;
        let results = page
            .items
            .iter()
            .map(|app| {
                let summary = summaries.remove(&app.id).unwrap_or_default();
                render_application(principal, app, &summary, None)
            })
            .collect();
        list.envelope(page.count, results)
    }
}

declare_sub_list!(
    /// `/api/v2/users/<user>/applications/`: the applications the user owns.
    UserApplications: Users => Applications,
    |user, _| ApplicationScope {
        user: Some(user),
        ..ApplicationScope::default()
    }
);

declare_sub_list!(
    /// `/api/v2/organizations/<id>/applications/`: the organization's applications.
    OrganizationApplications: Organizations => Applications,
    |organization, _| ApplicationScope {
        organization: Some(organization),
        ..ApplicationScope::default()
    }
);

//! `GET /api/v2/applications/`, `/api/v2/users/<id>/applications/` and
//! `/api/v2/organizations/<id>/applications/` (see [`crate::handlers::listing`]).

use acs_storage::applications::ApplicationScope;

use super::Applications;
use super::render::{ApplicationRecord, render_application};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::listing::{Listing, SubList};
use crate::handlers::organizations::Organizations;
use crate::handlers::users::Users;
use crate::http::list::{ListPage, ListRequest};

/// Every application the caller may see, within the scope.
impl Listing for Applications {
    type Scope = ApplicationScope;
    type Item = ApplicationRecord;

    fn page(
        ctx: &mut Context<'_>,
        principal: &Principal,
        scope: ApplicationScope,
        list: &ListRequest,
    ) -> ApiResult<ListPage<ApplicationRecord>> {
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

/// `/api/v2/users/<user>/applications/`: the applications the user owns.
#[derive(Debug)]
pub struct UserApplications;

impl SubList for UserApplications {
    type Parent = Users;
    type Of = Applications;

    fn scope(user: i64, _: &Principal) -> ApplicationScope {
        ApplicationScope {
            user: Some(user),
            ..ApplicationScope::default()
        }
    }
}

/// `/api/v2/organizations/<id>/applications/`: the organization's applications.
#[derive(Debug)]
pub struct OrganizationApplications;

impl SubList for OrganizationApplications {
    type Parent = Organizations;
    type Of = Applications;

    fn scope(organization: i64, _: &Principal) -> ApplicationScope {
        ApplicationScope {
            organization: Some(organization),
            ..ApplicationScope::default()
        }
    }
}

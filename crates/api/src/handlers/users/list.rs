//! `GET /api/v2/users/` (see [`crate::handlers::listing`]).

use super::{UserRecord, Users, render_user};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::listing::{ListAsked, Listing, PageResult};
use crate::http::list::{ListPage, ListRequest};

/// The users the caller may see.
impl Listing for Users {
    type Scope = ();
    type Item = UserRecord;

    fn page(ctx: &mut Context<'_>, asked: ListAsked<'_, Self::Scope>) -> PageResult<Self::Item> {
        let (principal, list) = (asked.principal, asked.list);
        let visibility = acs_authz::visible_users(&principal.actor);
        let page = acs_storage::users::list(ctx.conn()?, &visibility, None, &list.params)??;
        render_page(ctx, principal, list, page)
    }
}

/// Renders a page of users with their memberships (one query for the whole page).
pub fn render_page(
    ctx: &mut Context<'_>,
    principal: &Principal,
    list: &ListRequest,
    page: acs_storage::list::Page<acs_storage::users::User>,
) -> ApiResult<ListPage<UserRecord>> {
    let ids: Vec<i64> = page.items.iter().map(|u| u.id).collect();
    let mut memberships = acs_storage::users::memberships(ctx.conn()?, &ids)?;
    let results = page
        .items
        .iter()
        .map(|user| {
            render_user(
                principal,
                user,
                &memberships.remove(&user.id).unwrap_or_default(),
            )
        })
        .collect();
    list.envelope(page.count, results)
}

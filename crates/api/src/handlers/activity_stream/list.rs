//! `GET /api/v2/activity_stream/` and the per-object sub-lists (see
//! [`crate::handlers::listing`]). A sub-list needs the object to be visible and then shows the
//! entries about it that the caller may read: an entry that also names another object (a
//! credential associated with the organization, say) shows no more in the sub-list than its
//! own detail would.

use std::marker::PhantomData;

use super::ActivityStream;
use super::render::{ActivityRecord, render_activity};
use crate::auth::Principal;
use crate::context::Context;
use crate::handlers::listing::{ListAsked, Listing, PageResult, Parent, SubList};

/// Every entry the caller may read; with a scope, those of them about that object (whose
/// visibility the sub-list checked).
impl Listing for ActivityStream {
    type Scope = Option<(&'static str, i64)>;
    type Item = ActivityRecord;

    fn page(ctx: &mut Context<'_>, asked: ListAsked<'_, Self::Scope>) -> PageResult<Self::Item> {
        let (principal, about, list) = (asked.principal, asked.scope, asked.list);
        let visibility = super::visibility(principal);
        let page = acs_storage::activity::list(ctx.conn()?, &visibility, about, &list.params)??;
        let results = page
            .items
            .iter()
            .map(|entry| render_activity(entry, principal))
            .collect();
        list.envelope(page.count, results)
    }
}

/// The entries about one record: `GET /api/v2/<collection>/<key>/activity_stream/`.
#[derive(Debug)]
pub struct ActivityOf<P>(PhantomData<P>);

impl<P: Parent> SubList for ActivityOf<P> {
    type Parent = P;
    type Of = ActivityStream;

    fn scope(id: i64, _: &Principal) -> Option<(&'static str, i64)> {
        Some((P::KIND, id))
    }
}

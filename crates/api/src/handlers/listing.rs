//! `GET` of a resource's collection, and of the lists under one of its records
//! (`/api/v2/users/<user>/tokens/`, `…/activity_stream/`). A resource says how it lists
//! ([`Listing`]), a list under a record which records and what of them ([`SubList`]); the
//! handlers are these.

use actix_web::{HttpRequest, HttpResponse, web};
use serde::Serialize;

use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::detail::{Detail, Options};
use crate::handlers::frame::signed_in_list_taking_post;
use crate::http::list::{ListPage, ListRequest};
use crate::state::AppState;

/// A resource listed a page at a time, among what the caller may see. A list's page shows
/// the create form to whom [`Options::can_create`] allows.
pub trait Listing: Options {
    /// Narrows the list (the default: the whole collection).
    type Scope: Default + Send + 'static;
    /// One item as the list shows it.
    type Item: Serialize + Send + 'static;

    /// The page `asked` asks for.
    fn page(ctx: &mut Context<'_>, asked: ListAsked<'_, Self::Scope>) -> PageResult<Self::Item>;
}

/// One `GET` of a list as its handler read it.
#[derive(Debug)]
pub struct ListAsked<'r, S> {
    /// The signed-in caller.
    pub principal: &'r Principal,
    /// What the list's path narrows it to.
    pub scope: S,
    /// The page, filters and ordering the query asks for.
    pub list: &'r ListRequest,
}

/// A page of a list, or why there is none.
pub type PageResult<T> = ApiResult<ListPage<T>>;

/// A resource whose records have lists under them.
pub trait Parent: Detail {
    /// The activity-stream kind of its records.
    const KIND: &'static str;

    /// The id of the record at `key`, if `principal` may see it: 404 when there is none, 403
    /// when they may not see it.
    fn visible_id(ctx: &mut Context<'_>, principal: &Principal, key: Self::Key) -> ApiResult<i64>;
}

/// A list of [`SubList::Of`] under the records of [`SubList::Parent`].
pub trait SubList: 'static {
    /// The records the list is under.
    type Parent: Parent;
    /// What it lists.
    type Of: Listing;

    /// What the list holds under record `parent`, for `caller`.
    fn scope(parent: i64, caller: &Principal) -> <Self::Of as Listing>::Scope;
}

/// Declares a unit struct that is a [`SubList`]: its doc, `Name: Parent => Of`, then the
/// scope under a parent record as a closure of the parent's id and the caller.
macro_rules! declare_sub_list {
    (
        $(#[$doc:meta])*
        $name:ident: $parent:ty => $of:ty,
        |$id:pat_param, $caller:pat_param| $scope:expr
    ) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name;

        impl $crate::handlers::listing::SubList for $name {
            type Parent = $parent;
            type Of = $of;

            fn scope(
                $id: i64,
                $caller: &$crate::auth::Principal,
            ) -> <$of as $crate::handlers::listing::Listing>::Scope {
                $scope
            }
        }
    };
}
pub(crate) use declare_sub_list;

/// `GET` of a collection.
pub async fn list<L: Listing>(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    respond::<L>(req, state, |_, _| Ok(L::Scope::default())).await
}

/// `GET` of a list under one record, once the caller may see that record.
pub async fn sub_list<S: SubList>(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<<S::Parent as Detail>::Key>,
) -> ApiResult<HttpResponse> {
    let key = path.into_inner();
    respond::<S::Of>(req, state, move |ctx, principal| {
        let parent = S::Parent::visible_id(ctx, principal, key)?;
        Ok(S::scope(parent, principal))
    })
    .await
}

/// The page of `L` within the scope `scope` finds (or refuses) for the signed-in caller;
/// for a browser's page, whether the caller may create there too.
async fn respond<L: Listing>(
    req: HttpRequest,
    state: web::Data<AppState>,
    scope: impl FnOnce(&mut Context<'_>, &Principal) -> ApiResult<L::Scope> + Send + 'static,
) -> ApiResult<HttpResponse> {
    signed_in_list_taking_post(&req, &state, move |ctx, principal, list, page_wanted| {
        let scope = scope(ctx, principal)?;
        let asked = ListAsked {
            principal,
            scope,
            list,
        };
        let page = L::page(ctx, asked)?;
        Ok((page_wanted && L::can_create(principal), page))
    })
    .await
}

//! Token lists: `GET /api/v2/tokens/`, `/api/v2/users/<id>/tokens/`, `…/personal_tokens/`,
//! `…/authorized_tokens/` and `/api/v2/applications/<id>/tokens/` (see
//! [`crate::handlers::listing`]). Values are always masked.

use acs_storage::tokens::TokenScope;

use super::Tokens;
use super::render::{TokenRecord, render_token};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::applications::Applications;
use crate::handlers::listing::{Listing, SubList};
use crate::handlers::users::Users;
use crate::http::list::{ListPage, ListRequest};

/// Every token the caller may see, within the scope.
impl Listing for Tokens {
    type Scope = TokenScope;
    type Item = TokenRecord;

    fn page(
        ctx: &mut Context<'_>,
        principal: &Principal,
        scope: TokenScope,
        list: &ListRequest,
    ) -> ApiResult<ListPage<TokenRecord>> {
        let visibility = acs_authz::visible_tokens(&principal.actor);
        let page = acs_storage::tokens::list(ctx.conn()?, &visibility, scope, &list.params)??;
        let rows = acs_storage::tokens::rows(ctx.conn()?, page.items)?;
        let results = rows.iter().map(|row| render_token(row, None)).collect();
        list.envelope(page.count, results)
    }
}

/// `/api/v2/users/<user>/tokens/`: the user's tokens.
#[derive(Debug)]
pub struct UserTokens;

impl SubList for UserTokens {
    type Parent = Users;
    type Of = Tokens;

    fn scope(user: i64, _: &Principal) -> TokenScope {
        TokenScope {
            user: Some(user),
            ..TokenScope::default()
        }
    }
}

/// `/api/v2/users/<user>/personal_tokens/`: the caller's own personal tokens (the user in the
/// path only has to be visible, as in the reference).
#[derive(Debug)]
pub struct PersonalTokens;

impl SubList for PersonalTokens {
    type Parent = Users;
    type Of = Tokens;

    fn scope(_: i64, caller: &Principal) -> TokenScope {
        TokenScope {
            user: Some(caller.user.id),
            personal: Some(true),
            ..TokenScope::default()
        }
    }
}

/// `/api/v2/users/<user>/authorized_tokens/`: the caller's own application tokens (the user
/// in the path only has to be visible).
#[derive(Debug)]
pub struct AuthorizedTokens;

impl SubList for AuthorizedTokens {
    type Parent = Users;
    type Of = Tokens;

    fn scope(_: i64, caller: &Principal) -> TokenScope {
        TokenScope {
            user: Some(caller.user.id),
            personal: Some(false),
            ..TokenScope::default()
        }
    }
}

/// `/api/v2/applications/<id>/tokens/`: the application's tokens.
#[derive(Debug)]
pub struct ApplicationTokens;

impl SubList for ApplicationTokens {
    type Parent = Applications;
    type Of = Tokens;

    fn scope(application: i64, _: &Principal) -> TokenScope {
        TokenScope {
            application: Some(application),
            ..TokenScope::default()
        }
    }
}

//! Token lists: `GET /api/v2/tokens/`, `/api/v2/users/<id>/tokens/`, `…/personal_tokens/`,
//! `…/authorized_tokens/` and `/api/v2/applications/<id>/tokens/` (see
//! [`crate::handlers::listing`]). Values are always masked.

use acs_storage::tokens::TokenScope;

use super::Tokens;
use super::render::{TokenRecord, render_token};
use crate::context::Context;
use crate::handlers::applications::Applications;
use crate::handlers::listing::{ListAsked, Listing, PageResult, declare_sub_list};
use crate::handlers::users::Users;

/// Every token the caller may see, within the scope.
impl Listing for Tokens {
    type Scope = TokenScope;
    type Item = TokenRecord;

    fn page(ctx: &mut Context<'_>, asked: ListAsked<'_, Self::Scope>) -> PageResult<Self::Item> {
        let (principal, scope, list) = (asked.principal, asked.scope, asked.list);
        let visibility = acs_authz::visible_tokens(&principal.actor);
        let page = acs_storage::tokens::list(ctx.conn()?, &visibility, scope, &list.params)??;
        let rows = acs_storage::tokens::rows(ctx.conn()?, page.items)?;
        let results = rows.iter().map(|row| render_token(row, None)).collect();
        list.envelope(page.count, results)
    }
}

declare_sub_list!(
    /// `/api/v2/users/<user>/tokens/`: the user's tokens.
    UserTokens: Users => Tokens,
    |user, _| TokenScope {
        user: Some(user),
        ..TokenScope::default()
    }
);

declare_sub_list!(
    /// `/api/v2/users/<user>/personal_tokens/`: the caller's own personal tokens (the user in the
    /// path only has to be visible, as in the reference).
    PersonalTokens: Users => Tokens,
    |_, caller| TokenScope {
        user: Some(caller.user.id),
        personal: Some(true),
        ..TokenScope::default()
    }
);

declare_sub_list!(
    /// `/api/v2/users/<user>/authorized_tokens/`: the caller's own application tokens (the user
    /// in the path only has to be visible).
    AuthorizedTokens: Users => Tokens,
    |_, caller| TokenScope {
        user: Some(caller.user.id),
        personal: Some(false),
        ..TokenScope::default()
    }
);

declare_sub_list!(
    /// `/api/v2/applications/<id>/tokens/`: the application's tokens.
    ApplicationTokens: Applications => Tokens,
    |application, _| TokenScope {
        application: Some(application),
        ..TokenScope::default()
    }
);

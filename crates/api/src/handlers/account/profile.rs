//! `GET /accounts/profile/`: who I am, my personal tokens, the applications I authorized, and
//! the form for a new personal token. Where a login without `next` lands.

use acs_storage::list::{ListParams, OrderBy};
use acs_storage::tokens::{TokenRow, TokenScope};
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Serialize;

use super::page::{Nav, show, when};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::state::AppState;

/// The page's path.
pub const PATH: &str = "/accounts/profile/";

/// How many tokens of each kind the page lists (the newest); the API lists them all.
const SHOWN: i64 = 100;

/// What the profile page shows.
#[derive(Debug, Serialize)]
pub struct ProfileView {
    nav: Nav,
    first_name: String,
    last_name: String,
    email: String,
    role: &'static str,
    /// The result of the last change, if any.
    pub notice: Option<&'static str>,
    /// Why the token form was refused.
    pub errors: Vec<String>,
    /// The value of the token just created: shown once.
    pub new_token: Option<String>,
    /// The token form's description, kept after a refusal.
    pub description: String,
    /// The token form's scope, kept after a refusal.
    pub scope: String,
    personal: Vec<TokenItem>,
    personal_count: i64,
    authorized: Vec<TokenItem>,
    authorized_count: i64,
}

/// One token in a list.
#[derive(Debug, Serialize)]
struct TokenItem {
    id: i64,
    description: String,
    scope: String,
    created: String,
    expires: String,
    application: Option<String>,
}

impl From<&TokenRow> for TokenItem {
    fn from(row: &TokenRow) -> Self {
        TokenItem {
            id: row.token.id,
            description: row.token.description.clone(),
            scope: row.token.scope.clone(),
            created: when(&row.token.created),
            expires: when(&row.token.expires),
            application: row.application.as_ref().map(|(_, name, _)| name.clone()),
        }
    }
}

/// The page for `principal`, with their newest tokens of each kind.
pub fn view(ctx: &mut Context<'_>, principal: &Principal) -> ApiResult<ProfileView> {
    let (personal, personal_count) = own_tokens(ctx, principal, true)?;
    let (authorized, authorized_count) = own_tokens(ctx, principal, false)?;
    let user = &principal.user;
    let role = if user.is_superuser {
        "Superuser"
    } else if user.is_system_auditor {
        "System auditor"
    } else {
        "User"
    };
    Ok(ProfileView {
        nav: Nav::of(principal),
        first_name: user.first_name.clone(),
        last_name: user.last_name.clone(),
        email: user.email.clone(),
        role,
        notice: None,
        errors: Vec::new(),
        new_token: None,
        description: String::new(),
        scope: "write".into(),
        personal,
        personal_count,
        authorized,
        authorized_count,
    })
}

/// The caller's own tokens, personal or for applications, newest first, as the API's
/// `personal_tokens/` and `authorized_tokens/` lists select them.
fn own_tokens(
    ctx: &mut Context<'_>,
    principal: &Principal,
    personal: bool,
) -> ApiResult<(Vec<TokenItem>, i64)> {
    let visibility = acs_authz::visible_tokens(&principal.actor);
    let scope = TokenScope {
        user: Some(principal.user.id),
        personal: Some(personal),
        ..TokenScope::default()
    };
    let params = ListParams {
        order: vec![OrderBy {
            field: "created".into(),
            descending: true,
        }],
        limit: SHOWN,
        ..ListParams::default()
    };
    let page = acs_storage::tokens::list(ctx.conn()?, &visibility, scope, &params)??;
    let rows = acs_storage::tokens::rows(ctx.conn()?, page.items)?;
    Ok((rows.iter().map(TokenItem::from).collect(), page.count))
}

/// `GET /accounts/profile/`. Anonymous visitors are sent to the login page and come back.
pub async fn profile(req: HttpRequest, state: web::Data<AppState>) -> ApiResult<HttpResponse> {
    show(&state, &req, ("profile", PATH), |ctx, principal, notice| {
        Ok(ProfileView {
            notice,
            ..view(ctx, principal)?
        })
    })
    .await
}

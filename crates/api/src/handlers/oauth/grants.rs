//! The three grants of `POST /api/o/token/`, as use cases of `acs_app::grants`: what the HTTP
//! side adds is the request's settings, time and connection, the password grant's credential
//! check (the login form's, with its throttle), and this server's principal cache, which
//! forgets the access token a refresh replaced.

use acs_app::grants::Grantor;
use acs_oauth2::{ErrorCode, OAuthError, PlainSecret, Scope};
use acs_storage::applications::Application;

use super::reply::OAuthResult;
use crate::auth::passwords;
use crate::context::Context;
use crate::handlers::tokens::Issued;

/// Runs `grant` with a [`Grantor`] for `application` and the request's connection.
fn with_grantor<T>(
    ctx: &mut Context<'_>,
    application: &Application,
    grant: impl FnOnce(&Grantor<'_>, &mut acs_storage::DbConnection) -> OAuthResult<T>,
) -> OAuthResult<T> {
    let settings = ctx.settings()?;
    let state = ctx.state;
    let grantor = Grantor {
        pool: &state.pool,
        rng: &state.rng,
        settings: &settings,
        now: ctx.now,
        application,
    };
    grant(&grantor, ctx.conn()?)
}

/// `grant_type=password`: the resource owner's username and password, checked (and
/// throttled) exactly as the login form and Basic check them. `asked` is the request's
/// `scope` as sent, which `scope` was parsed from.
pub fn password(
    ctx: &mut Context<'_>,
    application: &Application,
    username: &str,
    password: &PlainSecret,
    scope: Option<Scope>,
    asked: Option<&str>,
) -> OAuthResult<Issued> {
    let owner = passwords::check(&mut ctx.store, &ctx.request, username, password.expose())?
        .user()
        .ok_or_else(|| OAuthError::new(ErrorCode::InvalidGrant, "Invalid credentials given."))?;
    with_grantor(ctx, application, |grantor, conn| {
        Ok(acs_app::grants::password(
            grantor, conn, &owner, scope, asked,
        )?)
    })
}

/// `grant_type=authorization_code`: see [`acs_app::grants::authorization_code`].
pub fn authorization_code(
    ctx: &mut Context<'_>,
    application: &Application,
    code: &PlainSecret,
    redirect_uri: Option<&str>,
    code_verifier: Option<&str>,
) -> OAuthResult<Issued> {
    with_grantor(ctx, application, |grantor, conn| {
        Ok(acs_app::grants::authorization_code(
            grantor,
            conn,
            code,
            redirect_uri,
            code_verifier,
        )?)
    })
}

/// `grant_type=refresh_token`: see [`acs_app::grants::refresh_token`]. This server's cached
/// principal of the replaced access token goes with it.
pub fn refresh_token(
    ctx: &mut Context<'_>,
    application: &Application,
    token: &PlainSecret,
    scope: Option<Scope>,
    asked: Option<&str>,
) -> OAuthResult<Issued> {
    let state = ctx.state;
    let principals = &state.principals;
    let forget =
        |digest: &acs_oauth2::SecretDigest| principals.forget(&principals.bearer_key(digest));
    with_grantor(ctx, application, |grantor, conn| {
        Ok(acs_app::grants::refresh_token(
            grantor, conn, token, scope, asked, &forget,
        )?)
    })
}

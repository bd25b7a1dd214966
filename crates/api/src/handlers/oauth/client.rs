//! Client authentication of the token, revocation and introspection endpoints: the
//! application whose credentials the request presents (RFC 6749 §2.3); and the [`Grantor`]
//! that issues to an application with the request's settings, time and connection.

use acs_oauth2::{ClientCredentials, ClientType, FormParams, OAuthError, SecretDigest};
use std::sync::Arc;

use acs_storage::applications::Application;

use acs_app::grants::Grantor;

use super::reply::OAuthResult;
use crate::context::Context;
use crate::error::ApiError;

/// The application the request authenticates as, or `invalid_client` (one answer for an
/// unknown client, a wrong secret and a confidential client without one, so the response
/// does not tell which client ids exist).
pub fn authenticate(
    ctx: &mut Context<'_>,
    authorization: Option<&str>,
    params: &FormParams,
) -> OAuthResult<Arc<Application>> {
    let credentials = ClientCredentials::extract(authorization, params)?;
    let application = application(ctx, &credentials.client_id)?;
    // A row that no longer parses (hand-edited) authenticates nobody.
    let client_type =
        ClientType::parse(&application.client_type).ok_or_else(OAuthError::invalid_client)?;
    let stored = SecretDigest::from_slice(&application.client_secret_digest)
        .ok_or_else(OAuthError::invalid_client)?;
    credentials.verify(client_type, &stored)?;
    Ok(application)
}

/// The application of `client_id`: from the server's cache while the `applications` change
/// counter holds, else read (and cached). Unknown client ids are not cached.
fn application(ctx: &mut Context<'_>, client_id: &str) -> OAuthResult<Arc<Application>> {
    let revisions = ctx.store.revisions()?;
    if let Some(application) = ctx.store.state.clients.get(client_id, &revisions) {
        return Ok(application);
    }
    let application = acs_storage::applications::find_by_client_id(ctx.conn()?, client_id)?
        .map(Arc::new)
        .ok_or_else(OAuthError::invalid_client)?;
    ctx.store
        .state
        .clients
        .insert(&revisions, Arc::clone(&application));
    Ok(application)
}

/// Runs `grant` with a [`Grantor`] for `application` and the request's settings, time and
/// connection.
pub fn with_grantor<T, E: From<ApiError>>(
    ctx: &mut Context<'_>,
    application: &Application,
    grant: impl FnOnce(&Grantor<'_>, &mut acs_storage::DbConnection) -> Result<T, E>,
) -> Result<T, E> {
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

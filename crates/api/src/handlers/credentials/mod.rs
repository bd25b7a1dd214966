//! `/api/v2/credentials/`, `<id>/`, and `/api/v2/credential_types/<id>/credentials/`.

mod copy;
mod create;
mod delete;
mod detail;
mod input;
mod list;
mod options;
mod render;
mod update;

pub use copy::{copy_credential, copy_credential_check, options_copy};
pub use list::TypeCredentials;
pub use options::META;
pub use render::{CredentialRecord, render_page};

use acs_app::credentials::{Sealer, Stored};
use acs_credential_types::InputCipher;
use acs_storage::DbConnection;
use acs_storage::credentials::Credential;

use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;

/// The resource: its handlers are generic ([`crate::handlers::detail`],
/// [`crate::handlers::change`]).
#[derive(Debug)]
pub struct Credentials;

/// The page (`offset`, `limit`) of `credentials` that `actor` may view, and how many of them
/// it may view: a list of credentials under any parent (a template, an organization's content
/// sources) shows no more than each credential's own detail would.
pub fn viewable_page(
    conn: &mut DbConnection,
    actor: &acs_authz::Actor,
    credentials: Vec<Credential>,
    offset: i64,
    limit: i64,
) -> ApiResult<(i64, Vec<Credential>)> {
    let mut viewable = Vec::with_capacity(credentials.len());
    for credential in credentials {
        let target = acs_app::credentials::target_of(conn, &credential)?;
        if acs_authz::can_view_credential(actor, &target) {
            viewable.push(credential);
        }
    }
    let count = i64::try_from(viewable.len()).unwrap_or(i64::MAX);
    let offset = usize::try_from(offset).unwrap_or(usize::MAX);
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    Ok((
        count,
        viewable.into_iter().skip(offset).take(limit).collect(),
    ))
}

/// The credential `id`, if the caller may see it: 404 if missing, 403 if invisible.
pub fn visible(
    ctx: &mut Context<'_>,
    principal: &Principal,
    id: i64,
) -> ApiResult<(Credential, acs_authz::TargetCredential)> {
    Ok(acs_app::credentials::visible(
        ctx.conn()?,
        &principal.actor,
        id,
    )?)
}

/// What seals a credential write's secret inputs: `cipher` (the keys in force) and the
/// server's random source.
fn sealer<'a>(ctx: &Context<'a>, cipher: &'a InputCipher) -> Sealer<'a> {
    let state = ctx.state;
    Sealer {
        cipher,
        rng: &state.rng,
    }
}

/// A stored credential as `viewer` sees it: what a write answers and records.
fn shown_to(
    viewer: &Principal,
) -> impl Fn(&mut DbConnection, &Stored) -> ApiResult<CredentialRecord> + '_ {
    move |conn, stored| {
        render::render_one(conn, viewer, &stored.credential, &stored.credential_type)
    }
}

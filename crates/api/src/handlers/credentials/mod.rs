//! `/api/v2/credentials/`, `<id>/`, and `/api/v2/credential_types/<id>/credentials/`.

mod copy;
mod create;
mod delete;
mod detail;
mod input;
mod list;
mod options;
mod render;
pub(crate) mod secrets;
mod update;
mod validate;

pub use copy::{copy_credential, copy_credential_check, options_copy};
pub use list::TypeCredentials;
pub use options::META;
pub use render::{CredentialRecord, render_page};

use acs_authz::{CredentialOwner, TargetCredential};
use acs_storage::DbConnection;
use acs_storage::credentials::Credential;

use crate::auth::Principal;
use crate::context::Context;
use crate::error::{ApiError, ApiResult};

/// The resource: its handlers are generic ([`crate::handlers::detail`],
/// [`crate::handlers::change`]).
#[derive(Debug)]
pub struct Credentials;

/// The facts `authz` needs about a credential (a user owner's roles are read).
pub fn target_of(conn: &mut DbConnection, credential: &Credential) -> ApiResult<TargetCredential> {
    Ok(TargetCredential {
        id: credential.id,
        owner: owner_of(conn, credential.organization_id, credential.user_id)?,
    })
}

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
        if acs_authz::can_view_credential(actor, &target_of(conn, &credential)?) {
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

/// The owner of a credential owned by `organization` or `user`.
pub fn owner_of(
    conn: &mut DbConnection,
    organization: Option<i64>,
    user: Option<i64>,
) -> ApiResult<CredentialOwner> {
    match (organization, user) {
        (Some(org), _) => Ok(CredentialOwner::Organization(org)),
        (None, Some(id)) => {
            let user = acs_storage::users::find(conn, id)?;
            let memberships = acs_storage::users::memberships_of(conn, id)?;
            Ok(CredentialOwner::User(crate::handlers::users::target_of(
                &user,
                &memberships,
            )))
        }
        (None, None) => Err(ApiError::Internal("credential without owner".into())),
    }
}

/// The credential `id`, if the caller may see it: 404 if missing, 403 if invisible.
pub fn visible(
    ctx: &mut Context<'_>,
    principal: &Principal,
    id: i64,
) -> ApiResult<(Credential, TargetCredential)> {
    let credential =
        acs_storage::credentials::find(ctx.conn()?, id).map_err(|error| match error {
            acs_storage::StorageError::NotFound => ApiError::no_such("Credential"),
            other => other.into(),
        })?;
    let target = target_of(ctx.conn()?, &credential)?;
    if !acs_authz::can_view_credential(&principal.actor, &target) {
        return Err(ApiError::permission_denied());
    }
    Ok((credential, target))
}

/// The message for a name taken within the organization and type.
pub const NAME_TAKEN: &str =
    "Credential with this Organization, Name and Credential type already exists.";

/// Maps a uniqueness conflict on write to the documented object-level error.
pub fn name_conflict(error: acs_storage::StorageError) -> ApiError {
    match error {
        acs_storage::StorageError::Conflict(_) => ApiError::field("__all__", NAME_TAKEN),
        other => other.into(),
    }
}

//! What a credential refers to: its type and owner exist, a content source belongs to an
//! organization, and the facts the rules need about who owns it.

use acs_authz::{Actor, CredentialOwner, TargetCredential};
use acs_storage::credential_types::CredentialType;
use acs_storage::credentials::Credential;
use acs_storage::{DbConnection, StorageError};

use crate::error::referenced;
use crate::{AppError, AppResult};

/// The credential type `id`, or a refusal naming `credential_type`.
pub(super) fn type_exists(conn: &mut DbConnection, id: i64) -> AppResult<CredentialType> {
    referenced(
        acs_storage::credential_types::find(conn, id),
        "credential_type",
        id,
    )
}

/// The credential type `id` under its row lock (its inputs cannot change before the
/// transaction commits), or a refusal naming `credential_type`.
pub(super) fn locked_type(conn: &mut DbConnection, id: i64) -> AppResult<CredentialType> {
    referenced(
        acs_storage::credential_types::lock(conn, id),
        "credential_type",
        id,
    )
}

/// Refuses a new credential whose organization or user does not exist, naming the field.
pub(super) fn owner_exists(
    conn: &mut DbConnection,
    organization: Option<i64>,
    user: Option<i64>,
) -> AppResult<()> {
    if let Some(id) = organization {
        referenced(
            acs_storage::organizations::find(conn, id),
            "organization",
            id,
        )?;
    }
    if let Some(id) = user {
        referenced(acs_storage::users::find(conn, id), "user", id)?;
    }
    Ok(())
}

/// Content sources serve an organization's project updates, so an organization owns them.
pub(super) fn owner_allowed(
    credential_type: &CredentialType,
    organization: Option<i64>,
) -> AppResult<()> {
    if credential_type.kind == "source" && organization.is_none() {
        return Err(AppError::invalid(
            "organization",
            "Content source credentials must be owned by an Organization.",
        ));
    }
    Ok(())
}

/// The owner of a credential owned by `organization` or `user`, as the rules see it (a user
/// owner's organization roles are read).
pub fn owner_of(
    conn: &mut DbConnection,
    organization: Option<i64>,
    user: Option<i64>,
) -> AppResult<CredentialOwner> {
    match (organization, user) {
        (Some(organization), _) => Ok(CredentialOwner::Organization(organization)),
        (None, Some(id)) => {
            let user = acs_storage::users::find(conn, id)?;
            let memberships = acs_storage::users::memberships_of(conn, id)?;
            Ok(CredentialOwner::User(crate::users::target_of(
                &user,
                &memberships,
            )))
        }
        (None, None) => Err(AppError::Damaged("credential without owner".into())),
    }
}

/// The facts the rules need about `credential`.
pub fn target_of(conn: &mut DbConnection, credential: &Credential) -> AppResult<TargetCredential> {
    Ok(TargetCredential {
        id: credential.id,
        owner: owner_of(conn, credential.organization_id, credential.user_id)?,
    })
}

/// The credential `id` with its facts, if `actor` may see it: [`AppError::NoSuch`] if it does
/// not exist, [`AppError::Forbidden`] if it is not theirs to see.
pub fn visible(
    conn: &mut DbConnection,
    actor: &Actor,
    id: i64,
) -> AppResult<(Credential, TargetCredential)> {
    let credential = acs_storage::credentials::find(conn, id).map_err(|error| match error {
        StorageError::NotFound => AppError::NoSuch("Credential"),
        other => other.into(),
    })?;
    let target = target_of(conn, &credential)?;
    if !acs_authz::can_view_credential(actor, &target) {
        return Err(acs_authz::Denied::NotPermitted.into());
    }
    Ok((credential, target))
}

//! Creating a credential, and copying one under a new name.

use acs_authz::TargetCredential;
use acs_credential_types::cipher::sealed_key_id;
use acs_storage::DbConnection;
use acs_storage::credentials::{Credential, CredentialValues};
use acs_storage::stamps::Creation;
use serde::Serialize;
use serde_json::Value;

use super::references::{locked_type, owner_allowed, owner_exists, owner_of, type_exists};
use super::{CredentialInput, Sealer, Stored, name_conflict, subject};
use crate::credential_inputs::{confirm_key, sealed_inputs, stored_object};
use crate::{AppError, AppResult, CallerError, Writer};

/// Creates the credential `input` describes (its name, type and inputs given, and one
/// owner): the type and owner exist and the writer may create a credential for that owner
/// (read before the write), then in one transaction the inputs are validated against the
/// type and sealed, the row stored and the creation recorded with the record `render` shows.
pub fn create<R, E>(
    writer: &Writer<'_>,
    sealer: &Sealer<'_>,
    conn: &mut DbConnection,
    input: &CredentialInput,
    render: impl Fn(&mut DbConnection, &Stored) -> Result<R, E>,
) -> Result<R, E>
where
    R: Serialize,
    E: CallerError,
{
    let (Some(name), Some(type_id), Some(submitted)) = (
        input.name.as_deref(),
        input.credential_type,
        input.inputs.as_ref(),
    ) else {
        return Err(
            AppError::Damaged("a new credential without its name, type or inputs".into()).into(),
        );
    };
    type_exists(conn, type_id)?;
    owner_exists(conn, input.organization, input.user)?;
    let owner = owner_of(conn, input.organization, input.user)?;
    acs_authz::can_create_credential(writer.actor, &owner).map_err(AppError::from)?;
    writer.pool.transaction(conn, |conn| {
        let credential_type = locked_type(conn, type_id)?;
        let (inputs, key) =
            sealed_inputs(sealer.cipher, sealer.rng, &credential_type, submitted, None)?;
        owner_allowed(&credential_type, input.organization)?;
        let values = CredentialValues {
            name: Some(name.to_owned()),
            description: Some(input.description.clone().unwrap_or_default()),
            credential_type_id: Some(type_id),
            organization_id: Some(input.organization),
            user_id: Some(input.user),
            inputs: Some(inputs),
        };
        let credential = insert(writer, conn, &values)?;
        confirm_key(conn, key).map_err(AppError::from)?;
        let stored = Stored {
            credential,
            credential_type,
        };
        let record = recorded(writer, conn, &stored, &render)?;
        tracing::info!(
            actor = writer.user.id,
            credential = stored.credential.id,
            "credential created"
        );
        Ok(record)
    })
}

/// Copies `original` (whose facts are `target`) under `name`, if the writer may: same type,
/// owner, description and inputs, the secret ones copied sealed as they are stored, so never
/// opened. Recorded as a creation with the record `render` shows.
pub fn copy<R, E>(
    writer: &Writer<'_>,
    conn: &mut DbConnection,
    (original, target): (&Credential, &TargetCredential),
    name: String,
    render: impl Fn(&mut DbConnection, &Stored) -> Result<R, E>,
) -> Result<R, E>
where
    R: Serialize,
    E: CallerError,
{
    acs_authz::can_copy_credential(writer.actor, target).map_err(AppError::from)?;
    writer.pool.transaction(conn, |conn| {
        let credential_type =
            acs_storage::credential_types::find(conn, original.credential_type_id)
                .map_err(AppError::from)?;
        let values = CredentialValues {
            name: Some(name),
            description: Some(original.description.clone()),
            credential_type_id: Some(original.credential_type_id),
            organization_id: Some(original.organization_id),
            user_id: Some(original.user_id),
            inputs: Some(original.inputs.clone()),
        };
        let credential = insert(writer, conn, &values)?;
        // A rotation that retired the key of a copied secret since it was read would miss the
        // copy: refused, and rolled back, as any other write of sealed inputs.
        for value in stored_object(&original.inputs)?.values() {
            if let Value::String(text) = value
                && let Some(key) = sealed_key_id(text)
            {
                confirm_key(conn, Some(key)).map_err(AppError::from)?;
            }
        }
        let stored = Stored {
            credential,
            credential_type,
        };
        let record = recorded(writer, conn, &stored, &render)?;
        tracing::info!(
            actor = writer.user.id,
            original = original.id,
            credential = stored.credential.id,
            "credential copied"
        );
        Ok(record)
    })
}

/// The record `render` shows of the new credential `stored`, its creation recorded with it.
fn recorded<R, E>(
    writer: &Writer<'_>,
    conn: &mut DbConnection,
    stored: &Stored,
    render: &impl Fn(&mut DbConnection, &Stored) -> Result<R, E>,
) -> Result<R, E>
where
    R: Serialize,
    E: From<AppError>,
{
    let record = render(conn, stored)?;
    let subject = subject(&stored.credential);
    writer.record_creation(conn, &subject, &record)?;
    Ok(record)
}

/// Inserts `values` as a credential the writer creates now.
fn insert(
    writer: &Writer<'_>,
    conn: &mut DbConnection,
    values: &CredentialValues,
) -> AppResult<Credential> {
    let stamps = Creation::by(Some(writer.user.id), writer.now);
    acs_storage::credentials::insert(conn, values, stamps).map_err(name_conflict)
}

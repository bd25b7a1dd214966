//! Custom credential types written by superusers: created, changed while no credential's
//! inputs depend on them, deleted while no credential uses them. Managed types are the
//! registry's, rewritten at start, and refused here. Each write is one transaction with its
//! activity-stream entry, which keeps the record as the caller renders it (`render`).

use acs_storage::credential_types::{CredentialType, CredentialTypeValues};
use acs_storage::stamps::{Creation, Modification};
use acs_storage::{DbConnection, StorageError};
use serde::Serialize;

use crate::activity::{self, Subject};
use crate::{AppError, AppResult, CallerError, Writer};

/// The message for a name taken within the kind.
pub const NAME_TAKEN: &str = "Credential type with this Name and Kind already exists.";

/// Why a type in use keeps its inputs.
const INPUTS_IN_USE: &str =
    "Modifications to inputs are not allowed for credential types that are in use";

/// Why a type in use stays.
const DELETE_IN_USE: &str = "Credential types that are in use cannot be deleted";

/// The credential type `id` ([`AppError::NoSuch`] if there is none): every authenticated user
/// may read every type.
pub fn find(conn: &mut DbConnection, id: i64) -> AppResult<CredentialType> {
    acs_storage::credential_types::find(conn, id).map_err(|error| match error {
        StorageError::NotFound => AppError::NoSuch("CredentialType"),
        other => other.into(),
    })
}

/// Refuses a writer who may not write credential types, or a write of a managed one (`what`
/// names the write in the refusal).
pub fn check_writable(writer: &Writer<'_>, stored: &CredentialType, what: &str) -> AppResult<()> {
    acs_authz::can_write_credential_types(writer.actor)?;
    if stored.managed {
        return Err(AppError::Forbidden(format!(
            "{what} not allowed for managed credential types"
        )));
    }
    Ok(())
}

/// Creates a custom credential type from `values` (name, kind, inputs and injectors given,
/// validated by the caller), if the writer may. Recorded as a creation with the record
/// `render` shows, which is returned.
pub fn create<R, E>(
    writer: &Writer<'_>,
    conn: &mut DbConnection,
    values: &CredentialTypeValues,
    render: impl Fn(&CredentialType) -> Result<R, E>,
) -> Result<R, E>
where
    R: Serialize,
    E: CallerError,
{
    acs_authz::can_write_credential_types(writer.actor).map_err(AppError::from)?;
    let stamps = Creation::by(Some(writer.user.id), writer.now);
    writer.pool.transaction(conn, |conn| {
        let created =
            acs_storage::credential_types::insert(conn, values, stamps).map_err(name_conflict)?;
        let shown = render(&created)?;
        writer.record_creation(conn, &subject(&created), &shown)?;
        tracing::info!(
            actor = writer.user.id,
            credential_type = created.id,
            "credential type created"
        );
        Ok(shown)
    })
}

/// Writes what `values` changes of the custom type `before`, if the writer may; new inputs
/// (`changes_inputs`) are refused while a credential has the type. Recorded as an update
/// from the record `render` shows before to the one after, which is returned.
pub fn change<R, E>(
    writer: &Writer<'_>,
    conn: &mut DbConnection,
    (before, values): (&CredentialType, &CredentialTypeValues),
    changes_inputs: bool,
    render: impl Fn(&CredentialType) -> Result<R, E>,
) -> Result<R, E>
where
    R: Serialize,
    E: CallerError,
{
    check_writable(writer, before, "Modifications")?;
    let shown_before = render(before)?;
    let stamps = Modification::by(Some(writer.user.id), writer.now);
    writer.pool.transaction(conn, |conn| {
        // The update takes the row's lock first; a credential being saved takes the same lock,
        // so the in-use count below cannot miss one validated against old inputs.
        let updated = acs_storage::credential_types::update(conn, before.id, values, stamps)
            .map_err(name_conflict)?;
        if changes_inputs && in_use(conn, before.id)? {
            return Err(AppError::Forbidden(INPUTS_IN_USE.into()).into());
        }
        let shown_after = render(&updated)?;
        writer.record_update(conn, &subject(&updated), &shown_before, &shown_after)?;
        Ok(shown_after)
    })
}

/// Deletes the custom type `stored` if the writer may and no credential has it. Recorded
/// with its last record `shown`.
pub fn delete(
    writer: &Writer<'_>,
    conn: &mut DbConnection,
    stored: &CredentialType,
    shown: &impl Serialize,
) -> AppResult<Subject> {
    check_writable(writer, stored, "Deletion")?;
    let subject = subject(stored);
    writer.pool.transaction(conn, |conn| {
        if in_use(conn, stored.id)? {
            return Err(AppError::Forbidden(DELETE_IN_USE.into()));
        }
        // The foreign key refuses too, should a credential arrive between count and delete.
        acs_storage::credential_types::delete(conn, stored.id).map_err(|error| match error {
            StorageError::Conflict(_) => AppError::Forbidden(DELETE_IN_USE.into()),
            other => other.into(),
        })?;
        activity::record_deletion(conn, writer.now, writer.user, &subject, shown)
    })?;
    Ok(subject)
}

fn in_use(conn: &mut DbConnection, id: i64) -> AppResult<bool> {
    Ok(acs_storage::credential_types::credential_count(conn, id)? > 0)
}

/// The activity stream's name of `credential_type`.
fn subject(credential_type: &CredentialType) -> Subject {
    Subject::named(
        acs_storage::activity::CREDENTIAL_TYPE,
        credential_type.id,
        &credential_type.name,
    )
}

/// A uniqueness conflict on write is the name taken within the kind.
fn name_conflict(error: StorageError) -> AppError {
    match error {
        StorageError::Conflict(_) => AppError::invalid("__all__", NAME_TAKEN),
        other => other.into(),
    }
}

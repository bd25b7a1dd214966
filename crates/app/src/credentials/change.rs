//! Changing a credential (`PUT` and `PATCH`), and deleting one. `inputs`, when given,
//! replaces the stored inputs wholesale: `$encrypted$` keeps a stored secret, an empty secret
//! removes it.

use acs_authz::TargetCredential;
use acs_credential_types::{ENCRYPTED_PLACEHOLDER, InputConfiguration};
use acs_storage::DbConnection;
use acs_storage::credentials::{Credential, CredentialValues};
use acs_storage::stamps::Modification;
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::references::{locked_type, owner_allowed, type_exists, visible};
use super::{CredentialInput, Sealer, Stored, name_conflict, subject};
use crate::activity::{self, Subject};
use crate::credential_inputs::{
    UNREADABLE, confirm_key, opened, sealed_inputs, type_configuration,
};
use crate::{AppError, CallerError, Writer};

/// Why a stored secret is not carried into a type where its field is not secret.
const GIVE_AGAIN: &str = "This field is secret under the credential's current type and not under the new one: give its value again in inputs.";

/// Why a used credential keeps its type.
const TYPE_IN_USE: &str = "You cannot change the credential type of the credential, as it may break the functionality of the resources using it.";

/// Changes the stored credential `before` (whose facts are `target`) as `input` says, if the
/// writer may. A new type must not be in use by a template or source, must exist, and takes
/// the old inputs re-checked against it unless new ones are given; a stored secret that does
/// not open may be replaced, never kept; a secret the new type does not keep secret must be
/// given again. Recorded as an update from the record `render` showed before to the one it
/// shows after, which is returned.
pub fn change<R, E>(
    writer: &Writer<'_>,
    sealer: &Sealer<'_>,
    conn: &mut DbConnection,
    (before, target): (&Credential, &TargetCredential),
    input: &CredentialInput,
    render: impl Fn(&mut DbConnection, &Stored) -> Result<R, E>,
) -> Result<R, E>
where
    R: Serialize,
    E: CallerError,
{
    acs_authz::can_change_credential(writer.actor, target).map_err(AppError::from)?;
    let id = before.id;
    let type_id = input.credential_type.unwrap_or(before.credential_type_id);
    let type_changes = type_id != before.credential_type_id;
    if type_changes {
        type_exists(conn, type_id)?;
        if acs_storage::credentials::in_use(conn, id).map_err(AppError::from)? {
            return Err(AppError::invalid("credential_type", TYPE_IN_USE).into());
        }
    }
    let old_type = acs_storage::credential_types::find(conn, before.credential_type_id)
        .map_err(AppError::from)?;
    let old_config = type_configuration(&old_type)?;
    let shown_before = render(
        conn,
        &Stored {
            credential: before.clone(),
            credential_type: old_type,
        },
    )?;
    writer.pool.transaction(conn, |conn| {
        let opened = opened(sealer.cipher, &old_config, &before.inputs)?;
        refuse_unreadable(&opened.unreadable, input.inputs.as_ref(), type_changes)?;
        let previous = opened.values;
        let credential_type = locked_type(conn, type_id)?;
        if type_changes {
            let new_config = type_configuration(&credential_type)?;
            refuse_declassified(&old_config, &new_config, &previous, input.inputs.as_ref())?;
        }
        // New inputs replace the old; a new type re-checks the old ones against it.
        let submitted = match &input.inputs {
            Some(inputs) => Some(inputs.clone()),
            None if type_changes => Some(Value::Object(previous.clone())),
            None => None,
        };
        let (inputs, key) = match &submitted {
            Some(submitted) => {
                let (inputs, key) = sealed_inputs(
                    sealer.cipher,
                    sealer.rng,
                    &credential_type,
                    submitted,
                    Some(&previous),
                )?;
                (Some(inputs), key)
            }
            None => (None, None),
        };
        owner_allowed(&credential_type, before.organization_id)?;
        let values = CredentialValues {
            name: input.name.clone(),
            description: input.description.clone(),
            credential_type_id: type_changes.then_some(type_id),
            inputs,
            ..CredentialValues::default()
        };
        let stamps = Modification::by(Some(writer.user.id), writer.now);
        let credential =
            acs_storage::credentials::update(conn, id, &values, stamps).map_err(name_conflict)?;
        confirm_key(conn, key).map_err(AppError::from)?;
        let stored = Stored {
            credential,
            credential_type,
        };
        let shown_after = render(conn, &stored)?;
        let subject = subject(&stored.credential);
        writer.record_update(conn, &subject, &shown_before, &shown_after)?;
        Ok(shown_after)
    })
}

/// Deletes the credential `id` if the writer may see and delete it; it leaves every
/// content-source list it was in. Recorded with its last record as `render` shows it.
pub fn delete<R, E>(
    writer: &Writer<'_>,
    conn: &mut DbConnection,
    id: i64,
    render: impl Fn(&mut DbConnection, &Stored) -> Result<R, E>,
) -> Result<Subject, E>
where
    R: Serialize,
    E: CallerError,
{
    let (credential, target) = visible(conn, writer.actor, id)?;
    acs_authz::can_delete_credential(writer.actor, &target).map_err(AppError::from)?;
    let credential_type = acs_storage::credential_types::find(conn, credential.credential_type_id)
        .map_err(AppError::from)?;
    let subject = subject(&credential);
    let shown = render(
        conn,
        &Stored {
            credential,
            credential_type,
        },
    )?;
    writer.pool.transaction(conn, |conn| {
        acs_storage::credentials::delete(conn, id).map_err(AppError::from)?;
        activity::record_deletion(conn, writer.now, writer.user, &subject, &shown)?;
        Ok(subject.clone())
    })
}

/// Refuses a type change that would carry a stored secret into a field the new type does not
/// keep secret: carried over, the value would be stored, answered and recorded in clear. Such
/// a field must be given anew in `inputs` (not absent, not `$encrypted$`). Refused naming
/// every such field under `inputs`; nothing of the values is said.
fn refuse_declassified(
    old: &InputConfiguration,
    new: &InputConfiguration,
    previous: &Map<String, Value>,
    submitted: Option<&Value>,
) -> Result<(), AppError> {
    let errors: Map<String, Value> = previous
        .keys()
        .filter(|field| old.is_secret(field) && new.field(field).is_some() && !new.is_secret(field))
        .filter(|field| {
            let given = submitted.and_then(|inputs| inputs.get(field.as_str()));
            given.is_none_or(|value| value == ENCRYPTED_PLACEHOLDER)
        })
        .map(|field| (field.clone(), json!([GIVE_AGAIN])))
        .collect();
    if errors.is_empty() {
        return Ok(());
    }
    Err(AppError::Rejected(Map::from_iter([(
        "inputs".to_owned(),
        Value::Object(errors),
    )])))
}

/// A stored secret the server cannot open may be replaced, never kept: neither by
/// `$encrypted$` nor by a change of type that carries the stored inputs over.
fn refuse_unreadable(
    unreadable: &[String],
    submitted: Option<&Value>,
    type_changes: bool,
) -> Result<(), AppError> {
    let kept = unreadable.iter().find(|field| match submitted {
        Some(inputs) => {
            inputs.get(field.as_str()).and_then(Value::as_str) == Some(ENCRYPTED_PLACEHOLDER)
        }
        None => type_changes,
    });
    match kept {
        Some(field) => Err(AppError::Rejected(Map::from_iter([(
            "inputs".to_owned(),
            json!({ field.as_str(): [UNREADABLE] }),
        )]))),
        None => Ok(()),
    }
}

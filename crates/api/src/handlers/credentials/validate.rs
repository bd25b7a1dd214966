//! The checks a credential write makes against other records: the type and owner exist, a
//! content source belongs to an organization, and the inputs fit the type.

use acs_credential_types::cipher::KeyId;
use acs_storage::DbConnection;
use acs_storage::credential_types::CredentialType;
use serde_json::{Map, Value};

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

fn invalid_pk(field: &str, id: i64) -> ApiError {
    ApiError::field(
        field,
        format!("Invalid pk \"{id}\" - object does not exist."),
    )
}

fn exists<T>(result: acs_storage::StorageResult<T>, field: &str, id: i64) -> ApiResult<T> {
    result.map_err(|error| match error {
        acs_storage::StorageError::NotFound => invalid_pk(field, id),
        other => other.into(),
    })
}

/// 400 naming `credential_type` unless the type exists.
pub fn type_exists(conn: &mut DbConnection, id: i64) -> ApiResult<CredentialType> {
    exists(
        acs_storage::credential_types::find(conn, id),
        "credential_type",
        id,
    )
}

/// 400 naming `organization` unless it exists.
pub fn organization_exists(conn: &mut DbConnection, id: i64) -> ApiResult<()> {
    exists(
        acs_storage::organizations::find(conn, id),
        "organization",
        id,
    )
    .map(drop)
}

/// 400 naming `user` unless it exists.
pub fn user_exists(conn: &mut DbConnection, id: i64) -> ApiResult<()> {
    exists(acs_storage::users::find(conn, id), "user", id).map(drop)
}

/// Content sources serve an organization's project updates, so an organization owns them.
pub fn owner_allowed(credential_type: &CredentialType, organization: Option<i64>) -> ApiResult<()> {
    if credential_type.kind == "source" && organization.is_none() {
        return Err(ApiError::field(
            "organization",
            "Content source credentials must be owned by an Organization.",
        ));
    }
    Ok(())
}

/// Validates `submitted` against the type `type_id`, read under its row lock so its inputs
/// cannot change before this transaction commits, and returns the type with the inputs to
/// store (secrets sealed) and the key that sealed them. `previous` holds the opened stored
/// values on update.
pub fn stored_inputs(
    conn: &mut DbConnection,
    state: &AppState,
    type_id: i64,
    submitted: &Value,
    previous: Option<&Map<String, Value>>,
) -> ApiResult<(CredentialType, String, Option<KeyId>)> {
    let credential_type = exists(
        acs_storage::credential_types::lock(conn, type_id),
        "credential_type",
        type_id,
    )?;
    let config = crate::handlers::credential_types::input_configuration(&credential_type)?;
    let values = acs_credential_types::validate_credential_inputs(&config, submitted, previous)
        .map_err(|errors| {
            ApiError::Invalid(Map::from_iter([("inputs".to_owned(), errors.to_value())]))
        })?;
    let (stored, key) =
        acs_app::credential_inputs::seal(&state.keys.cipher(), &state.rng, &config, values)?;
    Ok((credential_type, stored, key))
}

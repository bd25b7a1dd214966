//! The credential type record (spec §2.4, contract §5).

use acs_storage::credential_types::CredentialType;
use serde::Serialize;
use serde_json::Value;

use crate::auth::Principal;
use crate::error::{ApiError, ApiResult};
use crate::http::render::{Capabilities, Record};

/// A credential type as the API shows it. `injectors` appears only for superusers.
pub type CredentialTypeRecord = Record<Related, SummaryFields, CredentialTypeFields>;

/// A credential type record's own fields.
#[derive(Debug, Clone, Serialize)]
pub struct CredentialTypeFields {
    name: String,
    description: String,
    kind: String,
    namespace: Option<String>,
    managed: bool,
    inputs: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    injectors: Option<Value>,
}

/// A credential type record's links.
#[derive(Debug, Clone, Serialize)]
pub struct Related {
    credentials: String,
    activity_stream: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    created_by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    modified_by: Option<String>,
}

/// What a credential type record summarizes: what the viewer may do to it.
#[derive(Debug, Clone, Serialize)]
pub struct SummaryFields {
    user_capabilities: Capabilities,
}

/// Renders `credential_type` as `viewer` sees it.
pub fn render_credential_type(
    viewer: &Principal,
    credential_type: &CredentialType,
) -> ApiResult<CredentialTypeRecord> {
    let parse = |text: &str, what: &str| {
        serde_json::from_str::<Value>(text)
            .map_err(|e| ApiError::Internal(format!("stored credential type {what}: {e}")))
    };
    let superuser = viewer.actor.is_superuser;
    // Managed types cannot be changed or deleted, so nobody is offered to.
    let writable =
        !credential_type.managed && acs_authz::can_write_credential_types(&viewer.actor).is_ok();
    let base = format!("/api/v2/credential_types/{}/", credential_type.id);
    let related = Related {
        credentials: format!("{base}credentials/"),
        activity_stream: format!("{base}activity_stream/"),
        created_by: credential_type
            .created_by
            .map(|id| format!("/api/v2/users/{id}/")),
        modified_by: credential_type
            .modified_by
            .map(|id| format!("/api/v2/users/{id}/")),
    };
    let summary_fields = SummaryFields {
        user_capabilities: acs_authz::Capabilities {
            edit: writable,
            delete: writable,
        }
        .into(),
    };
    let fields = CredentialTypeFields {
        name: credential_type.name.clone(),
        description: credential_type.description.clone(),
        kind: credential_type.kind.clone(),
        namespace: credential_type.namespace.clone(),
        managed: credential_type.managed,
        inputs: parse(&credential_type.inputs, "inputs")?,
        injectors: if superuser {
            Some(parse(&credential_type.injectors, "injectors")?)
        } else {
            None
        },
    };
    let stamps = (&credential_type.created, &credential_type.modified);
    let (kind, id) = ("credential_type", credential_type.id);
    Ok(Record::new(
        kind,
        id,
        base,
        stamps,
        related,
        summary_fields,
        fields,
    ))
}

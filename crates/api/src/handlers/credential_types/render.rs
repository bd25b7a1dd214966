//! The credential type record (spec §2.4, contract §5).

use acs_storage::credential_types::CredentialType;
use serde::Serialize;
use serde_json::Value;

use crate::auth::Principal;
use crate::error::{ApiError, ApiResult};
use crate::http::render::{Capabilities, timestamp};

/// A credential type as the API shows it. `injectors` appears only for superusers.
#[derive(Debug, Clone, Serialize)]
pub struct CredentialTypeRecord {
    id: i64,
    #[serde(rename = "type")]
    kind_of_record: &'static str,
    url: String,
    related: Related,
    summary_fields: SummaryFields,
    created: String,
    modified: String,
    name: String,
    description: String,
    kind: String,
    namespace: Option<String>,
    managed: bool,
    inputs: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    injectors: Option<Value>,
}

#[derive(Debug, Clone, Serialize)]
struct Related {
    credentials: String,
    activity_stream: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    created_by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    modified_by: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
struct SummaryFields {
    user_capabilities: Capabilities,
}

impl CredentialTypeRecord {
    /// The type's id.
    pub fn id(&self) -> i64 {
        self.id
    }
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
    Ok(CredentialTypeRecord {
        id: credential_type.id,
        kind_of_record: "credential_type",
        related: Related {
            credentials: format!("{base}credentials/"),
            activity_stream: format!("{base}activity_stream/"),
            created_by: credential_type
                .created_by
                .map(|id| format!("/api/v2/users/{id}/")),
            modified_by: credential_type
                .modified_by
                .map(|id| format!("/api/v2/users/{id}/")),
        },
        url: base,
        summary_fields: SummaryFields {
            user_capabilities: acs_authz::Capabilities {
                edit: writable,
                delete: writable,
            }
            .into(),
        },
        created: timestamp(&credential_type.created),
        modified: timestamp(&credential_type.modified),
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
    })
}

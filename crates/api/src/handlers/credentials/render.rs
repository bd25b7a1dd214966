//! The credential record: secret inputs always shown as `$encrypted$`.

use std::collections::HashMap;

use acs_credential_types::InputConfiguration;
use acs_storage::credential_types::CredentialType;
use acs_storage::credentials::{Credential, CredentialSummaries};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::auth::Principal;
use crate::error::ApiResult;
use crate::http::render::{NamedSummary, Record, UserSummary};

/// A credential as the API shows it.
pub type CredentialRecord = Record<Related, SummaryFields, CredentialFields>;

/// A credential record's own fields.
#[derive(Debug, Clone, Serialize)]
pub struct CredentialFields {
    name: String,
    description: String,
    organization: Option<i64>,
    user: Option<i64>,
    credential_type: i64,
    managed: bool,
    inputs: Map<String, Value>,
    kind: Option<String>,
    cloud: bool,
    kubernetes: bool,
}

/// A credential record's links.
#[derive(Debug, Clone, Serialize)]
pub struct Related {
    credential_type: String,
    activity_stream: String,
    object_roles: String,
    access_list: String,
    copy: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    organization: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    user: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    created_by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    modified_by: Option<String>,
}

/// What a credential record summarizes: its type, its owner, the viewer's rights.
#[derive(Debug, Clone, Serialize)]
pub struct SummaryFields {
    credential_type: NamedSummary,
    #[serde(skip_serializing_if = "Option::is_none")]
    organization: Option<NamedSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    user: Option<UserSummary>,
    object_roles: serde_json::Value,
    user_capabilities: Capabilities,
}

#[derive(Debug, Clone, Serialize)]
struct Capabilities {
    edit: bool,
    delete: bool,
    copy: bool,
    #[serde(rename = "use")]
    use_: bool,
}

/// Renders `credential` for `viewer`; `config` is its type's input configuration and
/// `summaries` its type and owner summaries.
fn render(
    viewer: &Principal,
    credential: &Credential,
    target: &acs_authz::TargetCredential,
    config: &InputConfiguration,
    summaries: &CredentialSummaries,
    object_roles: serde_json::Value,
) -> ApiResult<CredentialRecord> {
    let caps = acs_authz::credential_capabilities(&viewer.actor, target);
    let usable = acs_authz::can_use_credential(&viewer.actor, target).is_ok();
    let base = format!("/api/v2/credentials/{}/", credential.id);
    let (type_id, type_name, type_description, type_kind, namespace) =
        summaries.credential_type.clone();
    let stored = acs_app::credential_inputs::stored_object(&credential.inputs)?;
    let related = Related {
        credential_type: format!(
            "/api/v2/credential_types/{}/",
            credential.credential_type_id
        ),
        activity_stream: format!("{base}activity_stream/"),
        object_roles: format!("{base}object_roles/"),
        access_list: format!("{base}access_list/"),
        copy: format!("{base}copy/"),
        organization: credential
            .organization_id
            .map(|id| format!("/api/v2/organizations/{id}/")),
        user: credential.user_id.map(|id| format!("/api/v2/users/{id}/")),
        created_by: credential
            .created_by
            .map(|id| format!("/api/v2/users/{id}/")),
        modified_by: credential
            .modified_by
            .map(|id| format!("/api/v2/users/{id}/")),
    };
    let summary_fields = SummaryFields {
        credential_type: NamedSummary::from((type_id, type_name, type_description)),
        organization: summaries.organization.clone().map(NamedSummary::from),
        user: summaries.user.clone().map(UserSummary::from),
        object_roles,
        user_capabilities: Capabilities {
            edit: caps.edit,
            delete: caps.delete,
            copy: acs_authz::can_copy_credential(&viewer.actor, target).is_ok(),
            use_: usable,
        },
    };
    let fields = CredentialFields {
        name: credential.name.clone(),
        description: credential.description.clone(),
        organization: credential.organization_id,
        user: credential.user_id,
        credential_type: credential.credential_type_id,
        managed: false,
        inputs: acs_credential_types::masked(config, &stored),
        kind: namespace,
        cloud: type_kind == "cloud",
        kubernetes: false,
    };
    let stamps = (&credential.created, &credential.modified);
    let kind = "credential";
    Ok(Record::new(
        kind,
        credential.id,
        base,
        stamps,
        related,
        summary_fields,
        fields,
    ))
}

/// Renders a page of credentials, reading each type's configuration and each owner once.
pub fn render_page(
    conn: &mut acs_storage::DbConnection,
    viewer: &Principal,
    items: &[Credential],
) -> ApiResult<Vec<CredentialRecord>> {
    let mut summaries = acs_storage::credentials::summaries(conn, items)?;
    let ids: Vec<i64> = items.iter().map(|credential| credential.id).collect();
    let mut roles = crate::handlers::roles::summaries_of(
        conn,
        acs_authz::roles::ResourceKind::Credential,
        &ids,
    )?;
    let mut configs: HashMap<i64, InputConfiguration> = HashMap::new();
    let mut records = Vec::with_capacity(items.len());
    for credential in items {
        if let std::collections::hash_map::Entry::Vacant(slot) =
            configs.entry(credential.credential_type_id)
        {
            let credential_type =
                acs_storage::credential_types::find(conn, credential.credential_type_id)?;
            slot.insert(acs_app::credential_inputs::type_configuration(
                &credential_type,
            )?);
        }
        let target = acs_app::credentials::target_of(conn, credential)?;
        let summary = summaries.remove(&credential.id).unwrap_or_default();
        let object_roles = roles
            .remove(&credential.id)
            .unwrap_or_else(|| serde_json::json!({}));
        records.push(render(
            viewer,
            credential,
            &target,
            &configs[&credential.credential_type_id],
            &summary,
            object_roles,
        )?);
    }
    Ok(records)
}

/// Renders one credential of `credential_type`.
pub fn render_one(
    conn: &mut acs_storage::DbConnection,
    viewer: &Principal,
    credential: &Credential,
    credential_type: &CredentialType,
) -> ApiResult<CredentialRecord> {
    let mut summaries =
        acs_storage::credentials::summaries(conn, std::slice::from_ref(credential))?;
    let summary = summaries.remove(&credential.id).unwrap_or_default();
    let config = acs_app::credential_inputs::type_configuration(credential_type)?;
    let target = acs_app::credentials::target_of(conn, credential)?;
    let object_roles = object_roles(conn, credential.id)?;
    render(viewer, credential, &target, &config, &summary, object_roles)
}

/// `summary_fields.object_roles` of credential `id`.
fn object_roles(conn: &mut acs_storage::DbConnection, id: i64) -> ApiResult<serde_json::Value> {
    crate::handlers::roles::summary_of(conn, acs_authz::roles::ResourceKind::Credential, id)
}

//! The activity stream entry record.

use acs_storage::activity::Activity;
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::auth::Principal;
use crate::http::render::timestamp;

/// An entry as the API shows it.
#[derive(Debug, Clone, Serialize)]
pub struct ActivityRecord {
    id: i64,
    #[serde(rename = "type")]
    kind: &'static str,
    url: String,
    related: Map<String, Value>,
    summary_fields: Value,
    timestamp: String,
    operation: String,
    changes: Value,
    object1: String,
    object2: String,
}

/// The API path of an object of `kind`.
fn object_url(kind: &str, id: i64) -> Option<String> {
    let collection = match kind {
        acs_storage::activity::USER => "users",
        acs_storage::activity::ORGANIZATION => "organizations",
        acs_storage::activity::APPLICATION => "applications",
        acs_storage::activity::TOKEN => "tokens",
        acs_storage::activity::CREDENTIAL_TYPE => "credential_types",
        acs_storage::activity::CREDENTIAL => "credentials",
        _ => return None,
    };
    Some(format!("/api/v2/{collection}/{id}/"))
}

/// Renders one entry for `viewer`. Stored JSON that does not parse (it never should) renders
/// as `{}`. A credential type's `injectors` are recorded in full, but, as on the type itself,
/// only superusers see them.
pub fn render_activity(entry: &Activity, viewer: &Principal) -> ActivityRecord {
    let mut related = Map::new();
    if let Some(actor) = entry.actor_id {
        related.insert("actor".into(), json!(format!("/api/v2/users/{actor}/")));
    }
    let objects = [
        (Some(entry.object1.as_str()), Some(entry.object1_id)),
        (
            Some(entry.object2.as_str()).filter(|k| !k.is_empty()),
            entry.object2_id,
        ),
    ];
    for (kind, id) in objects {
        if let (Some(kind), Some(id)) = (kind, id)
            && let Some(url) = object_url(kind, id)
        {
            let list = related
                .entry(kind.to_owned())
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(urls) = list {
                urls.push(json!(url));
            }
        }
    }
    let parse = |text: &str| serde_json::from_str(text).unwrap_or_else(|_| json!({}));
    let mut changes: Value = parse(&entry.changes);
    if entry.object1 == acs_storage::activity::CREDENTIAL_TYPE
        && !viewer.actor.is_superuser
        && let Value::Object(fields) = &mut changes
    {
        fields.remove("injectors");
    }
    ActivityRecord {
        id: entry.id,
        kind: "activity_stream",
        url: format!("/api/v2/activity_stream/{}/", entry.id),
        related,
        summary_fields: parse(&entry.summary),
        timestamp: timestamp(&entry.timestamp),
        operation: entry.operation.clone(),
        changes,
        object1: entry.object1.clone(),
        object2: entry.object2.clone(),
    }
}

//! Shared pieces of every record: timestamps, links and the common envelope fields.

use serde::Serialize;
use serde_json::{Map, Value, json};

pub use acs_app::timestamp;

/// `user_capabilities` as most records show them: may the caller change and delete it.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Capabilities {
    edit: bool,
    delete: bool,
}

impl From<acs_authz::Capabilities> for Capabilities {
    fn from(caps: acs_authz::Capabilities) -> Self {
        Capabilities {
            edit: caps.edit,
            delete: caps.delete,
        }
    }
}

/// A user as other records' `summary_fields` show it.
#[derive(Debug, Clone, Serialize)]
pub struct UserSummary {
    id: i64,
    username: String,
    first_name: String,
    last_name: String,
}

/// From storage's summary tuple: id, username, first and last name.
impl From<(i64, String, String, String)> for UserSummary {
    fn from((id, username, first_name, last_name): (i64, String, String, String)) -> Self {
        UserSummary {
            id,
            username,
            first_name,
            last_name,
        }
    }
}

/// A named record (an organization, a credential type) as other records' `summary_fields`
/// show it.
#[derive(Debug, Clone, Serialize)]
pub struct NamedSummary {
    id: i64,
    name: String,
    description: String,
}

/// From storage's summary tuple: id, name and description.
impl From<(i64, String, String)> for NamedSummary {
    fn from((id, name, description): (i64, String, String)) -> Self {
        NamedSummary {
            id,
            name,
            description,
        }
    }
}

/// A record as the API shows it: the fields every record starts with (`id`, `type`, `url`,
/// `related`, `summary_fields`, `created`, `modified`), then its own, in their order.
#[derive(Debug, Clone, Serialize)]
pub struct Record<Related, Summary, Fields> {
    id: i64,
    #[serde(rename = "type")]
    kind: &'static str,
    url: String,
    related: Related,
    summary_fields: Summary,
    created: String,
    modified: String,
    #[serde(flatten)]
    fields: Fields,
}

impl<Related, Summary, Fields> Record<Related, Summary, Fields> {
    /// Record `id` of type `kind` at `url`, made and last changed at `stamps`.
    pub fn new(
        kind: &'static str,
        id: i64,
        url: String,
        stamps: (&chrono::NaiveDateTime, &chrono::NaiveDateTime),
        related: Related,
        summary_fields: Summary,
        fields: Fields,
    ) -> Self {
        Record {
            id,
            kind,
            url,
            related,
            summary_fields,
            created: timestamp(stamps.0),
            modified: timestamp(stamps.1),
            fields,
        }
    }

    /// The record's id.
    pub fn id(&self) -> i64 {
        self.id
    }

    /// The record's own fields.
    pub fn fields(&self) -> &Fields {
        &self.fields
    }
}

/// An optional timestamp (null when absent).
pub fn optional_timestamp(t: Option<&chrono::NaiveDateTime>) -> Value {
    t.map_or(Value::Null, |t| Value::String(timestamp(t)))
}

/// The fields every record starts with: `id, type, url, related, summary_fields, created,
/// modified`; resource fields are appended by the caller.
pub fn envelope(
    id: i64,
    kind: &str,
    url: String,
    related: Value,
    summary_fields: Value,
    created: &chrono::NaiveDateTime,
    modified: &chrono::NaiveDateTime,
) -> Map<String, Value> {
    let mut record = Map::new();
    record.insert("id".into(), json!(id));
    record.insert("type".into(), json!(kind));
    record.insert("url".into(), json!(url));
    record.insert("related".into(), related);
    record.insert("summary_fields".into(), summary_fields);
    record.insert("created".into(), json!(timestamp(created)));
    record.insert("modified".into(), json!(timestamp(modified)));
    record
}

/// `user_capabilities` as the summary shows them, as JSON.
pub fn capabilities(caps: acs_authz::Capabilities) -> Value {
    json!(Capabilities::from(caps))
}

#[cfg(test)]
mod tests {
    #[test]
    fn timestamps_have_microseconds_and_z() {
        let t = chrono::NaiveDate::from_ymd_opt(2018, 2, 23)
            .and_then(|d| d.and_hms_micro_opt(14, 39, 32, 618_932))
            .expect("valid");
        assert_eq!(super::timestamp(&t), "2018-02-23T14:39:32.618932Z");
        let whole = chrono::NaiveDate::from_ymd_opt(2026, 1, 2)
            .and_then(|d| d.and_hms_opt(3, 4, 5))
            .expect("valid");
        assert_eq!(super::timestamp(&whole), "2026-01-02T03:04:05.000000Z");
    }
}

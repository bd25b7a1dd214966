//! Writing activity stream entries (contract §4): handlers call [`record`] inside the write
//! transaction of the change, so the change and its entry commit together. Rendered records
//! are turned into change sets here, and every secret-bearing key is masked on the way in.

use acs_storage::DbConnection;
use acs_storage::activity::NewActivity;
use acs_storage::users::User;
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::AppResult;

/// Keys whose values never reach the activity stream in clear.
const SECRET_KEYS: &[&str] = &["password", "token", "refresh_token", "client_secret"];

/// Keys every record starts with; they describe the record, not the change.
const ENVELOPE_KEYS: &[&str] = &[
    "id",
    "type",
    "url",
    "related",
    "summary_fields",
    "created",
    "modified",
];

/// One object an entry is about: its kind (`acs_storage::activity::USER`, …), id and the
/// summary shown with the entry (kept as it was, so entries of deleted objects still read).
#[derive(Debug, Clone)]
pub struct Subject {
    /// Kind of the object.
    pub kind: &'static str,
    /// Its id.
    pub id: i64,
    /// `{id, name}` or `{id, username}` at the time.
    pub summary: Value,
}

impl Subject {
    /// A user.
    pub fn user(user: &User) -> Self {
        Subject {
            kind: acs_storage::activity::USER,
            id: user.id,
            summary: json!({ "id": user.id, "username": user.username }),
        }
    }

    /// Any other object with a name.
    pub fn named(kind: &'static str, id: i64, name: &str) -> Self {
        Subject {
            kind,
            id,
            summary: json!({ "id": id, "name": name }),
        }
    }
}

/// The fields of a rendered record, without the envelope and with secrets masked: the change
/// set of a create or a delete.
pub fn fields_of(record: &impl Serialize) -> AppResult<Value> {
    let Value::Object(mut fields) = serde_json::to_value(record)? else {
        return Ok(json!({}));
    };
    for key in ENVELOPE_KEYS {
        // `shift_remove` keeps the record's order (`remove` swaps the last key into the gap).
        fields.shift_remove(*key);
    }
    Ok(Value::Object(masked(fields)))
}

/// `{field: [old, new]}` for every field that differs between two renderings of one record:
/// the change set of an update.
pub fn diff(before: &impl Serialize, after: &impl Serialize) -> AppResult<Value> {
    let (Value::Object(before), Value::Object(after)) = (fields_of(before)?, fields_of(after)?)
    else {
        return Ok(json!({}));
    };
    let changes: Map<String, Value> = after
        .into_iter()
        .filter_map(|(key, new)| {
            let old = before.get(&key).cloned().unwrap_or(Value::Null);
            (old != new).then(|| (key, json!([old, new])))
        })
        .collect();
    Ok(Value::Object(changes))
}

/// `fields` with the value of every [`SECRET_KEYS`] key masked, at every depth (a
/// credential's `inputs.password`, a setting's nested `client_secret`), so that a secret that
/// reaches a record in clear by any path still never reaches the stream. `null` stays `null`
/// (nothing was set) and `$encrypted$` stays as it is (already masked).
fn masked(mut fields: Map<String, Value>) -> Map<String, Value> {
    for (key, value) in fields.iter_mut() {
        if SECRET_KEYS.contains(&key.as_str()) {
            let shown = value.is_null()
                || value.as_str() == Some(acs_credential_types::ENCRYPTED_PLACEHOLDER);
            if !shown {
                *value = json!(acs_oauth2::MASK);
            }
        } else {
            mask_within(value);
        }
    }
    fields
}

fn mask_within(value: &mut Value) {
    match value {
        Value::Object(fields) => *fields = masked(std::mem::take(fields)),
        Value::Array(items) => items.iter_mut().for_each(mask_within),
        _ => {}
    }
}

/// Records that `actor` created `subject`, whose record (as the API renders it) is `rendered`.
pub fn record_creation(
    conn: &mut DbConnection,
    now: acs_storage::Timestamp,
    actor: &User,
    subject: &Subject,
    rendered: &impl Serialize,
) -> AppResult<()> {
    let fields = fields_of(rendered)?;
    record(conn, now, Some(actor), "create", subject, None, fields)
}

/// Records that `actor` changed `subject` from the record `before` to `after`.
pub fn record_update(
    conn: &mut DbConnection,
    now: acs_storage::Timestamp,
    actor: &User,
    subject: &Subject,
    before: &impl Serialize,
    after: &impl Serialize,
) -> AppResult<()> {
    let changes = diff(before, after)?;
    record(conn, now, Some(actor), "update", subject, None, changes)
}

/// Records that `actor` deleted `subject`, whose last record was `rendered`.
pub fn record_deletion(
    conn: &mut DbConnection,
    now: acs_storage::Timestamp,
    actor: &User,
    subject: &Subject,
    rendered: &impl Serialize,
) -> AppResult<()> {
    let fields = fields_of(rendered)?;
    record(conn, now, Some(actor), "delete", subject, None, fields)
}

/// Appends an entry: `actor` did `operation` to `object1` (and `object2`, for associations).
pub fn record(
    conn: &mut DbConnection,
    now: acs_storage::Timestamp,
    actor: Option<&User>,
    operation: &str,
    object1: &Subject,
    object2: Option<&Subject>,
    changes: Value,
) -> AppResult<()> {
    let entry = Entry::new(now, actor, operation, object1, object2, changes);
    acs_storage::activity::record(conn, &entry.as_new())?;
    Ok(())
}

/// An entry ready to be stored, as [`record`] stores it; for a write that stores it with
/// other rows in one statement.
#[derive(Debug, Clone)]
pub struct Entry<'a> {
    timestamp: acs_storage::Timestamp,
    actor_id: Option<i64>,
    operation: &'a str,
    object1: &'static str,
    object1_id: i64,
    object2: &'static str,
    object2_id: Option<i64>,
    changes: String,
    summary: String,
}

impl<'a> Entry<'a> {
    /// `actor` did `operation` to `object1` (and `object2`) at `now`, changing `changes`
    /// (secrets are masked here).
    pub fn new(
        now: acs_storage::Timestamp,
        actor: Option<&User>,
        operation: &'a str,
        object1: &Subject,
        object2: Option<&Subject>,
        changes: Value,
    ) -> Self {
        let changes = match changes {
            Value::Object(fields) => Value::Object(masked(fields)),
            other => other,
        };
        Entry {
            timestamp: now,
            actor_id: actor.map(|a| a.id),
            operation,
            object1: object1.kind,
            object1_id: object1.id,
            object2: object2.map_or("", |o| o.kind),
            object2_id: object2.map(|o| o.id),
            changes: changes.to_string(),
            summary: summary_of(actor, object1, object2).to_string(),
        }
    }

    /// The row to insert.
    pub fn as_new(&self) -> NewActivity<'_> {
        NewActivity {
            timestamp: self.timestamp,
            actor_id: self.actor_id,
            operation: self.operation,
            object1: self.object1,
            object1_id: self.object1_id,
            object2: self.object2,
            object2_id: self.object2_id,
            changes: &self.changes,
            summary: &self.summary,
        }
    }
}

/// Stands for a new row's id in a summary written before the database assigns it: a text no
/// stored name can hold, since neither database stores a NUL in text.
const NEW_ROW_ID: &str = "\u{0}new row id\u{0}";

/// The texts of the entry recording that `actor` created a row of kind `kind` named `name`,
/// when the database assigns the row's id in the same write as the entry (a new token's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewRowCreation {
    /// The change set: the fields of the rendered record, secrets masked.
    pub changes: String,
    /// The summary up to the row's id.
    pub summary_before_id: String,
    /// The summary after the row's id.
    pub summary_after_id: String,
}

impl NewRowCreation {
    /// The entry for `rendered`, the record of the new row as the API renders it.
    pub fn of(
        actor: Option<&User>,
        kind: &'static str,
        name: &str,
        rendered: &impl Serialize,
    ) -> AppResult<Self> {
        let subject = Subject {
            kind,
            id: 0,
            summary: json!({ "id": NEW_ROW_ID, "name": name }),
        };
        let summary = summary_of(actor, &subject, None).to_string();
        let slot = Value::from(NEW_ROW_ID).to_string();
        let (before, after) = summary.split_once(&slot).ok_or_else(|| {
            <serde_json::Error as serde::ser::Error>::custom("the new row's id has no place")
        })?;
        Ok(NewRowCreation {
            changes: fields_of(rendered)?.to_string(),
            summary_before_id: before.to_owned(),
            summary_after_id: after.to_owned(),
        })
    }
}

/// The summaries of an entry: the actor's, and each object's under its kind.
fn summary_of(actor: Option<&User>, object1: &Subject, object2: Option<&Subject>) -> Value {
    let mut summary = Map::new();
    if let Some(actor) = actor {
        summary.insert(
            "actor".into(),
            json!({
                "id": actor.id,
                "username": actor.username,
                "first_name": actor.first_name,
                "last_name": actor.last_name,
            }),
        );
    }
    summary.insert(object1.kind.into(), json!([object1.summary]));
    if let Some(object2) = object2 {
        let entry = summary
            .entry(object2.kind)
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(items) = entry {
            items.push(object2.summary.clone());
        }
    }
    Value::Object(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_masked_and_envelopes_dropped() {
        let record = json!({
            "id": 1, "type": "o_auth2_access_token", "url": "/x/", "related": {},
            "summary_fields": {}, "created": "t", "modified": "t",
            "token": "plain", "refresh_token": null, "scope": "read",
        });
        assert_eq!(
            fields_of(&record).expect("fields"),
            json!({"token": "************", "refresh_token": null, "scope": "read"})
        );
    }

    #[test]
    fn secrets_are_masked_at_every_depth() {
        let changes = json!({
            "inputs": [
                {"username": "u", "password": "old-in-clear"},
                {"username": "u", "password": "$encrypted$"},
            ],
            "OIDC_PROVIDERS": [{"name": "corp", "client_secret": "cs", "nested": {"token": "t"}}],
            "password": null,
        });
        let Value::Object(fields) = changes else {
            unreachable!("an object")
        };
        assert_eq!(
            Value::Object(masked(fields)),
            json!({
                "inputs": [
                    {"username": "u", "password": "************"},
                    {"username": "u", "password": "$encrypted$"},
                ],
                "OIDC_PROVIDERS": [
                    {"name": "corp", "client_secret": "************", "nested": {"token": "************"}}
                ],
                "password": null,
            })
        );
    }

    #[test]
    fn a_new_rows_summary_is_split_where_its_id_goes() {
        let actor = User {
            id: 7,
            username: "erin".into(),
            password: "!".into(),
            first_name: "E\"rin".into(),
            is_active: true,
            ..User::default()
        };
        let creation = NewRowCreation::of(
            Some(&actor),
            acs_storage::activity::TOKEN,
            "ci \"x\"",
            &json!({"id": 1, "token": "plain", "scope": "read"}),
        )
        .expect("the entry's texts");
        let whole = format!(
            "{}42{}",
            creation.summary_before_id, creation.summary_after_id
        );
        let summary = summary_of(
            Some(&actor),
            &Subject::named(acs_storage::activity::TOKEN, 42, "ci \"x\""),
            None,
        );
        assert_eq!(whole, summary.to_string());
        assert_eq!(
            creation.changes,
            r#"{"token":"************","scope":"read"}"#
        );
    }

    #[test]
    fn diffs_list_only_changed_fields() {
        let before = json!({"id": 1, "modified": "a", "scope": "read", "description": "x"});
        let after = json!({"id": 1, "modified": "b", "scope": "write", "description": "x"});
        assert_eq!(
            diff(&before, &after).expect("diff"),
            json!({"scope": ["read", "write"]})
        );
    }
}

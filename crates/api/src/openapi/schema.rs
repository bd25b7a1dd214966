//! JSON Schemas (OpenAPI 3.0 dialect) of records and request bodies, derived from the same
//! [`ResourceMeta`] tables that `OPTIONS` serves and the handlers validate against.

use serde_json::{Map, Value, json};

use crate::http::options::{ENVELOPE_FIELDS, FieldMeta, ResourceMeta};

/// The schema of one field's value. Reads are nullable (a record may hold no value where
/// the field is optional); writes carry the limits and choices the handlers enforce.
fn field_schema(field: &FieldMeta, for_write: bool) -> Value {
    let mut schema = match field.kind {
        "string" | "datetime" | "choice" => json!({ "type": "string" }),
        "integer" | "id" => json!({ "type": "integer" }),
        "boolean" => json!({ "type": "boolean" }),
        "decimal" => json!({ "type": "number" }),
        "object" => json!({ "type": "object" }),
        // `json` fields take an object or a YAML/JSON string; `field` is awxkit's any-type.
        _ => json!({}),
    };
    let object = schema.as_object_mut().expect("a schema is an object");
    if !field.label.is_empty() {
        object.insert("title".into(), json!(field.label));
    }
    if !field.help_text.is_empty() {
        object.insert("description".into(), json!(field.help_text));
    }
    if for_write {
        if let Some(max) = field.max_length {
            object.insert("maxLength".into(), json!(max));
        }
        let choices = field.write_choices.unwrap_or(field.choices);
        if !choices.is_empty() {
            let values: Vec<&str> = choices.iter().map(|(value, _)| *value).collect();
            object.insert("enum".into(), json!(values));
        }
    } else if !field_is_always_present(field) {
        object.insert("nullable".into(), json!(true));
    }
    schema
}

/// Envelope fields every record carries with a value.
fn field_is_always_present(field: &FieldMeta) -> bool {
    matches!(
        field.name,
        "id" | "type" | "url" | "related" | "summary_fields"
    )
}

/// The schema of a record as `GET` renders it: the envelope plus the resource's fields.
/// Records may carry more fields than the table names (sub-resources add their own), so
/// other properties are allowed.
pub fn record(meta: &ResourceMeta) -> Value {
    let fields: Vec<&FieldMeta> = ENVELOPE_FIELDS.iter().chain(meta.fields).collect();
    let properties: Map<String, Value> = fields
        .iter()
        .map(|field| (field.name.to_owned(), field_schema(field, false)))
        .collect();
    json!({
        "type": "object",
        "required": ["id", "type", "url"],
        "properties": properties,
    })
}

/// The schema of a write body: the writable fields, with those required on create (or on a
/// full replacement) when `full`. Unknown fields are ignored by the server, as DRF does.
pub fn write_body(fields: &[FieldMeta], full: bool) -> Value {
    let writable = fields.iter().filter(|field| !field.read_only);
    let properties: Map<String, Value> = writable
        .clone()
        .map(|field| (field.name.to_owned(), field_schema(field, true)))
        .collect();
    let mut schema = json!({ "type": "object", "properties": properties });
    let required: Vec<&str> = writable
        .filter(|field| full && field.required)
        .map(|field| field.name)
        .collect();
    if !required.is_empty() {
        schema["required"] = json!(required);
    }
    schema
}

/// The `{count, next, previous, results}` envelope of a page of `item`s.
pub fn page_of(item: Value) -> Value {
    json!({
        "type": "object",
        "required": ["count", "next", "previous", "results"],
        "properties": {
            "count": { "type": "integer", "minimum": 0 },
            "next": { "type": "string", "nullable": true },
            "previous": { "type": "string", "nullable": true },
            "results": { "type": "array", "items": item },
        },
    })
}

/// Any JSON object.
pub fn any_object() -> Value {
    json!({ "type": "object" })
}

/// The query parameters of a list: paging, ordering, search, and one filter per filterable
/// field (exact match; lookups such as `name__icontains` work too but are not enumerated).
pub fn list_parameters(fields: &[FieldMeta]) -> Vec<Value> {
    let mut parameters = vec![
        query(
            "page",
            json!({ "type": "integer", "minimum": 1 }),
            "Page number, from 1.",
        ),
        query(
            "page_size",
            json!({ "type": "integer", "minimum": 1 }),
            "Items per page (25 by default, at most 200).",
        ),
        query(
            "order_by",
            json!({ "type": "string" }),
            "Comma-separated fields to order by; a leading `-` reverses.",
        ),
        query(
            "search",
            json!({ "type": "string" }),
            "Words that must all appear in the searchable fields.",
        ),
    ];
    let filters = ENVELOPE_FIELDS.iter().chain(fields).filter(|field| {
        field.filterable && matches!(field.kind, "string" | "integer" | "id" | "boolean")
    });
    for field in filters {
        parameters.push(query(
            field.name,
            field_schema(field, true),
            "Exact-match filter.",
        ));
    }
    parameters
}

fn query(name: &str, schema: Value, description: &str) -> Value {
    json!({
        "name": name,
        "in": "query",
        "required": false,
        "description": description,
        "schema": schema,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const META: ResourceMeta = ResourceMeta {
        name: "Thing List",
        description: "Things.",
        fields: &[
            FieldMeta::name("", 10),
            FieldMeta::writable("scope", "choice", "Scope", "")
                .choices(&[("read", "Read"), ("write", "Write")]),
            FieldMeta::read_only("last_used", "datetime", "Last used"),
            FieldMeta::writable("secret", "string", "Secret", "").unfilterable(),
        ],
    };

    #[test]
    fn records_have_the_envelope_and_nullable_optional_fields() {
        let schema = record(&META);
        assert_eq!(schema["properties"]["id"]["type"], "integer");
        assert!(schema["properties"]["id"].get("nullable").is_none());
        assert_eq!(schema["properties"]["last_used"]["nullable"], true);
        assert_eq!(schema["required"], json!(["id", "type", "url"]));
    }

    #[test]
    fn write_bodies_carry_limits_choices_and_required_fields_only_when_full() {
        let full = write_body(META.fields, true);
        assert_eq!(full["required"], json!(["name"]));
        assert_eq!(full["properties"]["name"]["maxLength"], 10);
        assert_eq!(
            full["properties"]["scope"]["enum"],
            json!(["read", "write"])
        );
        assert!(full["properties"].get("last_used").is_none());
        assert!(write_body(META.fields, false).get("required").is_none());
    }

    #[test]
    fn secrets_are_not_offered_as_filters() {
        let names: Vec<String> = list_parameters(META.fields)
            .iter()
            .map(|p| p["name"].as_str().unwrap_or_default().to_owned())
            .collect();
        assert!(names.contains(&"name".to_owned()));
        assert!(!names.contains(&"secret".to_owned()));
        assert!(!names.contains(&"last_used".to_owned()));
    }
}

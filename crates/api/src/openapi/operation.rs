//! What one route does, in the terms of an OpenAPI Operation Object: its parameters, body and
//! the responses it can give, built from the resource tables the handler itself uses.

use serde_json::{Map, Value, json};

use super::schema;
use crate::http::options::{FieldMeta, ResourceMeta};

/// The errors any JSON operation may answer, each rendered in the documented shapes (contract
/// §3): field errors or `detail` for 400, `detail` for the others.
const API_ERRORS: &[u16] = &[400, 401, 403, 404, 405, 413, 415, 429, 503];

/// The media type of a body or response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Media {
    Json,
    Form,
    Html,
    Text(&'static str),
}

impl Media {
    fn name(self) -> &'static str {
        match self {
            Media::Json => "application/json",
            Media::Form => "application/x-www-form-urlencoded",
            Media::Html => "text/html",
            Media::Text(name) => name,
        }
    }
}

/// The description of one operation.
#[derive(Debug, Clone)]
pub struct Operation {
    summary: String,
    /// What the resource is, for the operations on one (its `ResourceMeta` description).
    description: Option<&'static str>,
    parameters: Vec<Value>,
    body: Option<(Media, Value)>,
    responses: Vec<(u16, Vec<(Media, Value)>)>,
    public: bool,
}

impl Operation {
    fn new(summary: impl Into<String>) -> Self {
        Operation {
            summary: summary.into(),
            description: None,
            parameters: Vec::new(),
            body: None,
            responses: Vec::new(),
            public: false,
        }
    }

    fn json_api(summary: impl Into<String>, status: u16, body: Value) -> Self {
        Operation::api(summary, status, Some((Media::Json, body)))
    }

    /// An API operation answering `status` with `content`, or one of the API errors.
    fn api(summary: impl Into<String>, status: u16, content: Option<(Media, Value)>) -> Self {
        let mut operation = Operation::new(summary).respond(status, content);
        for code in API_ERRORS {
            operation = operation.respond(*code, Some((Media::Json, error_schema())));
        }
        operation
    }

    fn respond(self, status: u16, content: Option<(Media, Value)>) -> Self {
        self.respond_with(status, content.into_iter().collect())
    }

    fn respond_with(mut self, status: u16, content: Vec<(Media, Value)>) -> Self {
        self.responses.retain(|(code, _)| *code != status);
        self.responses.push((status, content));
        self
    }

    /// `GET` of a collection of `meta`'s records, with paging, ordering, search and filters.
    pub fn list(meta: &ResourceMeta) -> Self {
        let mut operation = Operation::json_api(
            format!("List: {}", meta.name),
            200,
            schema::page_of(schema::record(meta)),
        );
        operation.parameters = schema::list_parameters(meta.fields);
        operation.description = Some(meta.description);
        operation
    }

    /// `GET` of a paged collection of records described elsewhere (activity, events).
    pub fn list_records(summary: &str) -> Self {
        let mut operation =
            Operation::json_api(summary, 200, schema::page_of(schema::any_object()));
        operation.parameters = schema::list_parameters(&[]);
        operation
    }

    /// `POST` to a collection: a new record of `meta` from a body of its writable fields.
    pub fn create(meta: &ResourceMeta) -> Self {
        Operation::json_api(
            format!("Create in: {}", meta.name),
            201,
            schema::record(meta),
        )
        .with_json_body(schema::write_body(meta.fields, true))
    }

    /// `GET` of one record.
    pub fn detail(meta: &ResourceMeta) -> Self {
        let mut operation = Operation::json_api(
            format!("Read one of: {}", meta.name),
            200,
            schema::record(meta),
        );
        operation.description = Some(meta.description);
        operation
    }

    /// `PUT` of one record: every required field again.
    pub fn replace(meta: &ResourceMeta) -> Self {
        Operation::json_api(
            format!("Replace one of: {}", meta.name),
            200,
            schema::record(meta),
        )
        .with_json_body(schema::write_body(meta.fields, true))
    }

    /// `PATCH` of one record: the fields given.
    pub fn modify(meta: &ResourceMeta) -> Self {
        Operation::json_api(
            format!("Change one of: {}", meta.name),
            200,
            schema::record(meta),
        )
        .with_json_body(schema::write_body(meta.fields, false))
    }

    /// `DELETE` of one record (or of a whole settings category): 204, no body.
    pub fn delete(summary: &str) -> Self {
        Operation::api(summary, 204, None)
    }

    /// `OPTIONS`: the metadata awxkit reads (`actions`, `Allow`).
    pub fn metadata(summary: &str) -> Self {
        Operation::json_api(summary, 200, schema::any_object())
    }

    /// `GET` of a JSON object.
    pub fn read(summary: &str) -> Self {
        Operation::json_api(summary, 200, schema::any_object())
    }

    /// `POST` of a JSON object of `fields` (none required) answered with `status` and an
    /// object.
    pub fn action(summary: &str, fields: &[FieldMeta], status: u16) -> Self {
        Operation::json_api(summary, status, schema::any_object())
            .with_json_body(schema::write_body(fields, false))
    }

    /// `POST` of a JSON object of `fields` answered with `status` and no body
    /// (associations, cancel requests).
    pub fn command(summary: &str, fields: &[FieldMeta], status: u16) -> Self {
        Operation::api(summary, status, None).with_json_body(schema::write_body(fields, true))
    }

    /// `POST` of any JSON object (a settings category, an association) answered with
    /// `status`.
    pub fn write(summary: &str, status: u16) -> Self {
        Operation::json_api(summary, status, schema::any_object())
            .with_json_body(schema::any_object())
    }

    /// `GET` of plain text (output, metrics) of `media_type`.
    pub fn text(summary: &str, media_type: &'static str) -> Self {
        let text = json!({ "type": "string" });
        Operation::api(summary, 200, Some((Media::Text(media_type), text)))
    }

    /// A run's output: plain text, or JSON with `format=json`.
    pub fn output(summary: &str) -> Self {
        let text = (Media::Text("text/plain"), json!({ "type": "string" }));
        let json = (Media::Json, schema::any_object());
        let mut operation = Operation::api(summary, 200, None).respond_with(200, vec![text, json]);
        operation.parameters.push(json!({
            "name": "format",
            "in": "query",
            "required": false,
            "schema": { "type": "string", "enum": ["txt", "ansi", "json", "txt_download", "ansi_download"] },
        }));
        operation
    }

    /// A server-rendered page: HTML, or a redirect (to log in, or onwards).
    pub fn page(summary: &str) -> Self {
        let html = || Some((Media::Html, json!({ "type": "string" })));
        let mut operation = Operation::new(summary);
        for code in [200, 400, 401, 403, 404, 429, 502, 503] {
            operation = operation.respond(code, html());
        }
        operation.respond(302, None).public()
    }

    /// A form posted by a page (`fields` by name), answered with a page or a redirect.
    pub fn form(summary: &str, fields: &[&str]) -> Self {
        Operation::page(summary).with_body(Media::Form, form_schema(fields))
    }

    /// An OAuth 2 protocol endpoint: a form of `fields`, answered with JSON (RFC 6749 §5).
    pub fn oauth(summary: &str, fields: &[&str]) -> Self {
        let mut operation = Operation::new(summary).with_body(Media::Form, form_schema(fields));
        for code in [200, 400, 401, 403, 413, 415, 429, 503] {
            operation = operation.respond(code, Some((Media::Json, schema::any_object())));
        }
        operation.public()
    }

    /// A static asset of `media_type`.
    pub fn asset(summary: &str, media_type: &'static str) -> Self {
        Operation::new(summary)
            .respond(
                200,
                Some((Media::Text(media_type), json!({ "type": "string" }))),
            )
            .public()
    }

    /// Needs no authentication.
    pub fn public(mut self) -> Self {
        self.public = true;
        self
    }

    fn with_json_body(self, schema: Value) -> Self {
        self.with_body(Media::Json, schema)
    }

    fn with_body(mut self, media: Media, schema: Value) -> Self {
        self.body = Some((media, schema));
        self
    }

    /// The Operation Object; `path_parameters` are the path's own.
    pub fn to_json(&self, operation_id: &str, tag: &str, path_parameters: &[Value]) -> Value {
        let mut operation = Map::new();
        operation.insert("operationId".into(), json!(operation_id));
        operation.insert("summary".into(), json!(self.summary));
        if let Some(description) = self.description {
            operation.insert("description".into(), json!(description));
        }
        operation.insert("tags".into(), json!([tag]));
        let parameters: Vec<Value> = path_parameters
            .iter()
            .chain(&self.parameters)
            .cloned()
            .collect();
        if !parameters.is_empty() {
            operation.insert("parameters".into(), Value::Array(parameters));
        }
        if let Some((media, schema)) = &self.body {
            operation.insert(
                "requestBody".into(),
                json!({ "content": { media.name(): { "schema": schema } } }),
            );
        }
        let mut responses = Map::new();
        for (code, content) in &self.responses {
            let mut response = Map::new();
            response.insert("description".into(), json!(describe_status(*code)));
            if !content.is_empty() {
                let media_types: Map<String, Value> = content
                    .iter()
                    .map(|(media, schema)| (media.name().to_owned(), json!({ "schema": schema })))
                    .collect();
                response.insert("content".into(), Value::Object(media_types));
            }
            responses.insert(code.to_string(), Value::Object(response));
        }
        operation.insert("responses".into(), Value::Object(responses));
        if self.public {
            operation.insert("security".into(), json!([]));
        }
        Value::Object(operation)
    }
}

/// Error bodies: `{"detail": …}`, field errors `{"field": ["…"]}`, or the reference's
/// `{"error": …}`; always an object.
fn error_schema() -> Value {
    json!({ "type": "object" })
}

fn form_schema(fields: &[&str]) -> Value {
    let properties: Map<String, Value> = fields
        .iter()
        .map(|name| ((*name).to_owned(), json!({ "type": "string" })))
        .collect();
    json!({ "type": "object", "properties": properties })
}

fn describe_status(code: u16) -> &'static str {
    match code {
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        204 => "No content",
        302 => "Redirect",
        400 => "Invalid input; the body names each field and its problem",
        401 => "Not authenticated",
        403 => "Not allowed",
        404 => "Not found",
        405 => "Not allowed in the record's present state",
        413 => "Body too large",
        415 => "Unsupported media type",
        429 => "Too many failed attempts; retry later",
        502 => "An upstream identity provider failed",
        503 => {
            "Busy (the database, password checks, or, for a launch, the run queue); retry after Retry-After"
        }
        _ => "Other",
    }
}

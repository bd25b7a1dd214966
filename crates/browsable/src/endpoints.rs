//! What the OpenAPI document says about each endpoint the pages show: the resource's name and
//! description, its methods, its list's parameters, and the fields its changes take.

use serde_json::Value;

use crate::PREFIX;
use crate::fields::FieldSpec;
use crate::page::Parameter;

/// What the OpenAPI document says about one endpoint.
#[derive(Debug)]
pub struct EndpointInfo {
    segments: Vec<String>,
    /// The `GET` operation's summary: the resource's name.
    pub summary: String,
    /// What the resource is.
    pub description: String,
    /// The methods it takes (`HEAD` with `GET`).
    pub methods: Vec<String>,
    /// The query parameters of its `GET`: paging, ordering, search, filters.
    pub parameters: Vec<Parameter>,
    /// The fields a `PATCH` takes.
    pub(crate) writable: Vec<String>,
    /// The fields a `POST` takes, each with the empty value of its type.
    pub(crate) creatable: Vec<(String, Value)>,
    /// The typed fields of a `POST` and of a `PATCH` (or `PUT`).
    post_fields: Vec<FieldSpec>,
    patch_fields: Vec<FieldSpec>,
}

impl EndpointInfo {
    /// The page's title: the resource's name as the reference system's pages give it ("User
    /// List" for a list, "User Detail" for one record), read from the `GET` summary the API
    /// document gives ("List: User List", "Read one of: User List"); other summaries as they are.
    pub fn title(&self) -> String {
        if let Some(name) = self.summary.strip_prefix("List: ") {
            return name.to_owned();
        }
        if let Some(name) = self.summary.strip_prefix("Read one of: ") {
            let resource = name.strip_suffix(" List").unwrap_or(name);
            return format!("{resource} Detail");
        }
        self.summary.clone()
    }

    /// The typed fields of a change by `method`.
    pub fn fields_for(&self, method: &str) -> &[FieldSpec] {
        if method == "POST" {
            &self.post_fields
        } else {
            &self.patch_fields
        }
    }
}

/// Every endpoint of the API under [`PREFIX`].
#[derive(Debug)]
pub struct Endpoints(Vec<EndpointInfo>);

impl Endpoints {
    /// The endpoint whose path template matches `path`, literal segments before parameters.
    pub fn find(&self, path: &str) -> Option<&EndpointInfo> {
        let segments: Vec<_> = path.split('/').collect();
        self.0
            .iter()
            .filter(|e| {
                e.segments.len() == segments.len()
                    && e.segments
                        .iter()
                        .zip(&segments)
                        .all(|(t, s)| t == s || (t.starts_with('{') && !s.is_empty()))
            })
            .max_by_key(|e| e.segments.iter().filter(|t| !t.starts_with('{')).count())
    }
}

impl Endpoints {
    /// The endpoints the OpenAPI `document` describes under [`PREFIX`].
    pub fn from_document(document: &Value) -> Endpoints {
        let paths = document["paths"].as_object().cloned().unwrap_or_default();
        Endpoints(
            paths
                .into_iter()
                .filter(|(path, _)| path.starts_with(PREFIX))
                .map(|(path, operations)| {
                    let get = &operations["get"];
                    let mut methods: Vec<String> = operations
                        .as_object()
                        .map(|ops| ops.keys().map(|m| m.to_ascii_uppercase()).collect())
                        .unwrap_or_default();
                    if methods.iter().any(|m| m == "GET") {
                        methods.push("HEAD".into());
                    }
                    let parameters = get["parameters"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter(|p| p["in"] == "query")
                        .map(|p| Parameter {
                            name: p["name"].as_str().unwrap_or_default().to_owned(),
                            description: p["description"].as_str().unwrap_or_default().to_owned(),
                        })
                        .collect();
                    let writable =
                        operations["patch"]["requestBody"]["content"]["application/json"]["schema"]
                            ["properties"]
                            .as_object()
                            .map(|p| p.keys().cloned().collect())
                            .unwrap_or_default();
                    let creatable =
                        operations["post"]["requestBody"]["content"]["application/json"]["schema"]
                            ["properties"]
                            .as_object()
                            .map(|p| {
                                p.iter()
                                    .filter(|(_, schema)| schema["readOnly"] != true)
                                    .map(|(name, schema)| (name.clone(), empty_value(schema)))
                                    .collect()
                            })
                            .unwrap_or_default();
                    let body_schema = |method: &str| {
                        &operations[method]["requestBody"]["content"]["application/json"]["schema"]
                    };
                    EndpointInfo {
                        post_fields: FieldSpec::from_schema(body_schema("post")),
                        patch_fields: FieldSpec::from_schema(body_schema("put")),
                        writable,
                        creatable,
                        segments: path.split('/').map(str::to_owned).collect(),
                        summary: get["summary"].as_str().unwrap_or(&path).to_owned(),
                        description: get["description"].as_str().unwrap_or_default().to_owned(),
                        methods,
                        parameters,
                    }
                })
                .collect(),
        )
    }
}

/// The empty value of a field of JSON schema `schema`: its default when it has one.
fn empty_value(schema: &Value) -> Value {
    if let Some(default) = schema.get("default") {
        return default.clone();
    }
    match schema["type"].as_str() {
        Some("string") => Value::from(""),
        Some("boolean") => Value::from(false),
        Some("object") => Value::Object(serde_json::Map::new()),
        Some("array") => Value::Array(Vec::new()),
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn endpoints_are_found_by_their_templates() {
        let endpoints = Endpoints::from_document(&json!({"paths": {
            "/api/v2/users/": {
                "get": {"summary": "List: User List", "description": "Users.",
                        "parameters": [{"name": "order_by", "in": "query", "description": "Order."}]},
                "post": {"requestBody": {"content": {"application/json": {"schema": {
                    "type": "object", "required": ["username"],
                    "properties": {"username": {"type": "string"}, "is_superuser": {"type": "boolean"}}
                }}}}},
            },
            "/api/v2/users/{user}/": {"get": {"summary": "Read one of: User List"}, "patch": {}, "put": {}},
            "/api/v2/users/me/": {"get": {"summary": "Me"}},
            "/api/o/token/": {"post": {}},
        }}));
        let users = endpoints.find("/api/v2/users/").expect("users");
        assert_eq!(users.methods, ["GET", "POST", "HEAD"]);
        assert_eq!(users.description, "Users.");
        assert_eq!(users.parameters[0].name, "order_by");
        assert_eq!(users.fields_for("POST").len(), 2);
        assert_eq!(users.title(), "User List");
        assert_eq!(
            endpoints.find("/api/v2/users/7/").expect("a user").title(),
            "User Detail"
        );
        assert_eq!(
            endpoints.find("/api/v2/users/me/").expect("me").title(),
            "Me"
        );
        assert!(endpoints.find("/api/v2/nothing/here/").is_none());
        assert!(endpoints.find("/api/o/token/").is_none());
    }
}

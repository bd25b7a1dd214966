//! The OpenAPI 3.0 description of every endpoint, served at `/api/v2/openapi.json`.
//!
//! It is not written by hand: `routes` registers each handler through an [`Endpoint`] that
//! records the handler's [`Operation`] beside it, and the operations are built from the same
//! field tables the handlers validate with and `OPTIONS` serves. A route cannot exist without
//! its description, nor a description without its route.
//!
//! The bodies are `serde_json::Value`s described by those tables rather than Rust types, so
//! there is nothing for a derive (utoipa's `ToSchema`) to read; the document is assembled as
//! JSON and checked against the OpenAPI schema by schemathesis in the test suite.

mod endpoint;
mod operation;
mod schema;
mod served;

pub use served::ServedDocument;

use std::collections::BTreeMap;

use actix_web::http::Method;
use serde_json::{Map, Value, json};

pub use endpoint::{Endpoint, Routes};
pub use operation::Operation;

/// The operations recorded so far, by path and method.
#[derive(Debug, Default)]
pub struct Document {
    paths: BTreeMap<String, Map<String, Value>>,
}

impl Document {
    /// Records `operation` as `method` on `path` (an actix path pattern such as
    /// `/api/v2/users/{user}/`, which is also OpenAPI's template syntax).
    pub fn add(&mut self, path: &str, method: &Method, operation: &Operation) {
        let method = method.as_str().to_ascii_lowercase();
        let operation_id = format!("{method}{}", operation_id_suffix(path));
        let json = operation.to_json(&operation_id, tag_of(path), &path_parameters(path));
        self.paths
            .entry(path.to_owned())
            .or_default()
            .insert(method, json);
    }

    /// The whole OpenAPI document.
    pub fn to_json(&self) -> Value {
        json!({
            "openapi": "3.0.3",
            "info": {
                "title": "ACS",
                "description": "Authentication, OAuth 2 tokens and credential types for an \
                                automation controller. Bodies and errors follow the \
                                conventions of the reference controller's REST API.",
                "version": env!("CARGO_PKG_VERSION"),
            },
            "servers": [{ "url": "/" }],
            "security": [{ "basic": [] }, { "bearer": [] }, { "session": [] }],
            "components": {
                "securitySchemes": {
                    "basic": { "type": "http", "scheme": "basic" },
                    "bearer": { "type": "http", "scheme": "bearer" },
                    "session": { "type": "apiKey", "in": "cookie", "name": "sessionid" },
                },
            },
            "paths": self.paths,
        })
    }
}

/// `/api/v2/users/{user}/tokens/` → `_api_v2_users_user_tokens`.
fn operation_id_suffix(path: &str) -> String {
    path.split('/')
        .filter(|segment| !segment.is_empty())
        .map(|segment| {
            let bare = segment.trim_start_matches('{').trim_end_matches('}');
            let cleaned: String = bare
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect();
            format!("_{cleaned}")
        })
        .collect()
}

/// The group an operation is listed under: the collection of `/api/v2/<collection>/…`, else
/// the first segment (`o` for OAuth 2, `accounts`, `sso`, `static`).
fn tag_of(path: &str) -> &str {
    let mut segments = path.split('/').filter(|segment| !segment.is_empty());
    match (segments.next(), segments.next(), segments.next()) {
        (Some("api"), Some("v2"), Some(collection)) => collection,
        (Some("api"), Some(second), _) if second != "v2" => second,
        (Some(first), _, _) => first,
        (None, _, _) => "api",
    }
}

/// The parameters named in `path`: `{id}` is a positive integer, any other a string segment
/// (`{user}` takes an id or a username, `{category}` and `{name}` a name).
fn path_parameters(path: &str) -> Vec<Value> {
    path.split('/')
        .filter_map(|segment| segment.strip_prefix('{')?.strip_suffix('}'))
        .map(|name| {
            let schema = if name == "id" {
                json!({ "type": "integer" })
            } else {
                json!({ "type": "string", "pattern": "^[^/]+$" })
            };
            json!({ "name": name, "in": "path", "required": true, "schema": schema })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operation_ids_and_tags_follow_the_path() {
        assert_eq!(
            operation_id_suffix("/api/v2/users/{user}/tokens/"),
            "_api_v2_users_user_tokens"
        );
        assert_eq!(
            operation_id_suffix("/.well-known/oauth-authorization-server"),
            "__well_known_oauth_authorization_server"
        );
        assert_eq!(tag_of("/api/v2/users/{user}/tokens/"), "users");
        assert_eq!(tag_of("/api/o/token/"), "o");
        assert_eq!(tag_of("/api/v2/"), "api");
        assert_eq!(tag_of("/accounts/profile/"), "accounts");
    }

    #[test]
    fn path_parameters_are_typed() {
        let parameters = path_parameters("/api/v2/users/{user}/tokens/{id}/");
        assert_eq!(parameters.len(), 2);
        assert_eq!(parameters[0]["name"], "user");
        assert_eq!(parameters[0]["schema"]["type"], "string");
        assert_eq!(parameters[1]["schema"]["type"], "integer");
    }

    #[test]
    fn every_operation_lands_under_its_path_and_method() {
        let mut document = Document::default();
        document.add(
            "/api/v2/ping/",
            &Method::GET,
            &Operation::read("Ping").public(),
        );
        let json = document.to_json();
        let get = &json["paths"]["/api/v2/ping/"]["get"];
        assert_eq!(get["operationId"], "get_api_v2_ping");
        assert_eq!(get["security"], json!([]));
        assert!(get["responses"]["200"].is_object());
    }
}

//! The document as the server serves it: built once from the routes when the server starts
//! (`server::http_server` registers it as app data), serialized once, and read by the
//! browsable API for each endpoint's fields. Handed to the handlers rather than reached
//! through `routes`, so that no handler imports the route table that imports it.

use acs_browsable::Endpoints;
use actix_web::web::Bytes;
use serde_json::Value;

/// The OpenAPI document of every route, ready to serve.
#[derive(Debug)]
pub struct ServedDocument {
    /// The document's JSON text.
    pub json: Bytes,
    /// Its endpoints, for the browsable API's pages and forms.
    pub endpoints: Endpoints,
}

impl ServedDocument {
    /// The served form of `document`.
    pub fn new(document: &Value) -> Self {
        ServedDocument {
            json: Bytes::from(document.to_string()),
            endpoints: Endpoints::from_document(document),
        }
    }
}

//! The document as the server serves it: built from the routes the first time it is asked
//! for (as before, nothing at start-up), serialized once, and read by the browsable API for
//! each endpoint's fields. `server::http_server` registers it as app data with the route
//! table's builder, so that no handler imports the route table that imports it.

use std::sync::OnceLock;

use acs_browsable::Endpoints;
use actix_web::web::Bytes;
use serde_json::Value;

/// The OpenAPI document of every route, built on first use.
#[derive(Debug)]
pub struct ServedDocument {
    build: fn() -> Value,
    built: OnceLock<(Bytes, Endpoints)>,
}

impl ServedDocument {
    /// The document `build` returns, once asked for.
    pub fn new(build: fn() -> Value) -> Self {
        ServedDocument {
            build,
            built: OnceLock::new(),
        }
    }

    fn built(&self) -> &(Bytes, Endpoints) {
        self.built.get_or_init(|| {
            let document = (self.build)();
            (
                Bytes::from(document.to_string()),
                Endpoints::from_document(&document),
            )
        })
    }

    /// The document's JSON text.
    pub fn json(&self) -> Bytes {
        self.built().0.clone()
    }

    /// Its endpoints, for the browsable API's pages and forms.
    pub fn endpoints(&self) -> &Endpoints {
        &self.built().1
    }
}

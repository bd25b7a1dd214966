//! The browsable API's presentation, without I/O: which requests get a page
//! ([`wants_page`]), what the page shows ([`ApiPage`]: the resource's name, methods and list
//! parameters read from the OpenAPI document ([`Endpoints`]), the JSON answer with its API
//! URLs as links), and the forms of the changes the caller may make, with typed fields read
//! back into a JSON body ([`body_from_fields`]). The server's middleware does the HTTP.

mod endpoints;
mod fields;
mod json;
mod negotiation;
mod page;

pub use endpoints::{EndpointInfo, Endpoints};
pub use fields::{FieldSpec, FormField, body_from_fields, form_fields};
pub use json::{api_link, is_api_url, json_html};
pub use negotiation::wants_page;
pub use page::{ApiPage, Change, Crumb, Forms, Offer, Parameter, Viewer, crumbs};

/// Where the browsable API is served.
pub const PREFIX: &str = "/api/v2/";

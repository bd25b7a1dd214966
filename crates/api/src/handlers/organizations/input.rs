//! Reading an organization body.

use acs_storage::organizations::OrganizationValues;
use serde_json::{Map, Value};

use crate::error::ApiResult;
use crate::http::fields::{FieldReader, Text};

/// Reads a body into the values an organization is written with (`None`: not given); `full`
/// for create and PUT.
pub fn read(body: &Map<String, Value>, full: bool) -> ApiResult<OrganizationValues> {
    let mut fields = FieldReader::new(body, full);
    let name = fields.text("name", Text::required(512));
    let description = fields.text("description", Text::optional(4096));
    fields.finish()?;
    Ok(OrganizationValues {
        name,
        description: if full {
            Some(description.unwrap_or_default())
        } else {
            description
        },
    })
}

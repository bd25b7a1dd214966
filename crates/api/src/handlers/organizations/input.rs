//! Reading an organization body.

use serde_json::{Map, Value};

use crate::error::ApiResult;
use crate::http::fields::{FieldReader, Text};

/// Validated organization fields; `None` means "not given".
#[derive(Debug, Default)]
pub struct OrganizationInput {
    pub name: Option<String>,
    pub description: Option<String>,
}

impl OrganizationInput {
    /// Reads a body; `full` for create and PUT.
    pub fn read(body: &Map<String, Value>, full: bool) -> ApiResult<Self> {
        let mut fields = FieldReader::new(body, full);
        let name = fields.text("name", Text::required(512));
        let description = fields.text("description", Text::optional(4096));
        fields.finish()?;
        Ok(OrganizationInput {
            name,
            description: if full {
                Some(description.unwrap_or_default())
            } else {
                description
            },
        })
    }
}

//! Reading and validating a token body: only `description` and `scope` are ever written, plus
//! `application` on creation.

use acs_oauth2::Scope;
use serde_json::{Map, Value};

use crate::error::ApiResult;
use crate::http::fields::{FieldReader, Text};

/// Validated token fields; `None` means "not given".
#[derive(Debug, Default)]
pub struct TokenInput {
    pub description: Option<String>,
    /// The scope as sent (validated), kept verbatim as the reference stores it.
    pub scope: Option<String>,
    /// `Some(None)`: an explicit null (a personal token).
    pub application: Option<Option<i64>>,
}

impl TokenInput {
    /// Reads a body; `full` for create and PUT (an absent scope becomes `write`, an absent
    /// description empty). `with_application` reads the `application` field (creation).
    pub fn read(body: &Map<String, Value>, full: bool, with_application: bool) -> ApiResult<Self> {
        let mut fields = FieldReader::new(body, false);
        let description = fields.text(
            "description",
            Text::optional(acs_app::tokens::MAX_DESCRIPTION_CHARS),
        );
        let scope =
            match body.get("scope") {
                None => None,
                // DRF coerces null to "" for this field, which then fails validation.
                Some(Value::Null) => {
                    fields.error("scope", acs_oauth2::ScopeError::Invalid.to_string());
                    None
                }
                Some(_) => fields.text("scope", Text::optional(64)).and_then(|text| {
                    match Scope::parse(&text) {
                        Ok(_) => Some(text),
                        Err(error) => {
                            fields.error("scope", error.to_string());
                            None
                        }
                    }
                }),
            };
        let application = if with_application {
            match body.get("application") {
                None => None,
                Some(Value::Null) => Some(None),
                Some(_) => fields.id("application", false).map(Some),
            }
        } else {
            None
        };
        fields.finish()?;
        Ok(TokenInput {
            description: if full {
                Some(description.unwrap_or_default())
            } else {
                description
            },
            scope: if full {
                Some(scope.unwrap_or_else(|| acs_oauth2::DEFAULT_SCOPE.to_owned()))
            } else {
                scope
            },
            application,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(body: Value, full: bool) -> ApiResult<TokenInput> {
        TokenInput::read(body.as_object().expect("object"), full, true)
    }

    #[test]
    fn scope_defaults_to_write_and_is_validated() {
        let input = read(json!({}), true).expect("valid");
        assert_eq!(input.scope.as_deref(), Some("write"));
        assert_eq!(input.description.as_deref(), Some(""));
        assert_eq!(input.application, None);
        for bad in [
            json!(""),
            json!(null),
            json!("Write"),
            json!("read read"),
            json!(5),
        ] {
            assert!(read(json!({ "scope": bad }), true).is_err(), "{bad}");
        }
        let input = read(json!({"scope": "read write", "application": null}), true).expect("valid");
        assert_eq!(input.scope.as_deref(), Some("read write"));
        assert_eq!(input.application, Some(None));
    }

    #[test]
    fn patch_leaves_absent_fields_alone() {
        let input = read(json!({"description": "x"}), false).expect("valid");
        assert_eq!(input.scope, None);
        assert_eq!(input.description.as_deref(), Some("x"));
    }
}

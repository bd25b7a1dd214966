//! Reading and validating the fields of a JSON object body, collecting every problem so the
//! client sees them all at once, in DRF's wording.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::error::{ApiError, ApiResult};

/// Reads typed fields from a body and gathers errors per field.
#[derive(Debug)]
pub struct FieldReader<'a> {
    body: &'a Map<String, Value>,
    errors: BTreeMap<String, Vec<String>>,
    /// PUT replaces the object: absent optional fields take their defaults.
    pub full: bool,
}

/// Limits on a string field.
#[derive(Debug, Clone, Copy)]
pub struct Text {
    /// Must be present (on create and PUT).
    pub required: bool,
    /// May be the empty string.
    pub allow_blank: bool,
    /// Maximum number of characters.
    pub max_length: usize,
}

impl Text {
    /// Required, non-blank, at most `max_length` characters.
    pub const fn required(max_length: usize) -> Self {
        Text {
            required: true,
            allow_blank: false,
            max_length,
        }
    }

    /// Optional, may be blank.
    pub const fn optional(max_length: usize) -> Self {
        Text {
            required: false,
            allow_blank: true,
            max_length,
        }
    }
}

impl<'a> FieldReader<'a> {
    /// A reader over `body`; `full` for create and PUT (required fields must be present).
    pub fn new(body: &'a Map<String, Value>, full: bool) -> Self {
        FieldReader {
            body,
            errors: BTreeMap::new(),
            full,
        }
    }

    /// Adds an error for `field`.
    pub fn error(&mut self, field: &str, message: impl Into<String>) {
        self.errors
            .entry(field.to_owned())
            .or_default()
            .push(message.into());
    }

    /// True if `field` already has an error.
    pub fn has_error(&self, field: &str) -> bool {
        self.errors.contains_key(field)
    }

    fn present(&mut self, field: &str, required: bool) -> Option<&'a Value> {
        match self.body.get(field) {
            Some(Value::Null) => {
                self.error(field, "This field may not be null.");
                None
            }
            Some(value) => Some(value),
            None => {
                if required && self.full {
                    self.error(field, "This field is required.");
                }
                None
            }
        }
    }

    /// A string field; `None` if absent or invalid.
    pub fn text(&mut self, field: &str, rule: Text) -> Option<String> {
        let value = self.present(field, rule.required)?;
        let Some(text) = value.as_str() else {
            self.error(field, "Not a valid string.");
            return None;
        };
        if text.contains('\0') {
            self.error(field, "Null characters are not allowed.");
            return None;
        }
        if !rule.allow_blank && text.trim().is_empty() {
            self.error(field, "This field may not be blank.");
            return None;
        }
        if text.chars().count() > rule.max_length {
            self.error(
                field,
                format!(
                    "Ensure this field has no more than {} characters.",
                    rule.max_length
                ),
            );
            return None;
        }
        Some(text.to_owned())
    }

    /// A boolean field; `None` if absent or invalid.
    pub fn boolean(&mut self, field: &str) -> Option<bool> {
        match self.present(field, false)? {
            Value::Bool(b) => Some(*b),
            Value::String(s) if matches!(s.as_str(), "true" | "True") => Some(true),
            Value::String(s) if matches!(s.as_str(), "false" | "False") => Some(false),
            _ => {
                self.error(field, "Must be a valid boolean.");
                None
            }
        }
    }

    /// An integer id field; `None` if absent or invalid.
    pub fn id(&mut self, field: &str, required: bool) -> Option<i64> {
        let value = self.present(field, required)?;
        match value
            .as_i64()
            .or_else(|| value.as_str().and_then(|s| s.trim().parse().ok()))
        {
            Some(id) if id > 0 => Some(id),
            _ => {
                self.error(field, "A valid integer is required.");
                None
            }
        }
    }

    /// An integer field within `min..=max`; `None` if absent or invalid.
    pub fn integer(&mut self, field: &str, min: i64, max: i64) -> Option<i64> {
        let value = self.present(field, false)?;
        let Some(number) = value
            .as_i64()
            .or_else(|| value.as_str().and_then(|s| s.trim().parse().ok()))
        else {
            self.error(field, "A valid integer is required.");
            return None;
        };
        if number < min {
            self.error(
                field,
                format!("Ensure this value is greater than or equal to {min}."),
            );
            return None;
        }
        if number > max {
            self.error(
                field,
                format!("Ensure this value is less than or equal to {max}."),
            );
            return None;
        }
        Some(number)
    }

    /// A string field that must be one of `choices`; `None` if absent or invalid.
    pub fn choice(&mut self, field: &str, choices: &[&str]) -> Option<String> {
        let value = self.present(field, false)?;
        match value.as_str() {
            Some(text) if choices.contains(&text) => Some(text.to_owned()),
            _ => {
                let shown = value
                    .as_str()
                    .map_or_else(|| value.to_string(), str::to_owned);
                self.error(field, format!("\"{shown}\" is not a valid choice."));
                None
            }
        }
    }

    /// Ends reading: `Err` with every collected field error, if any.
    pub fn finish(self) -> ApiResult<()> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(ApiError::Fields(self.errors))
        }
    }

    /// Like [`finish`](Self::finish), adding errors already shaped as JSON (`{"inputs":
    /// {"url": ["…"]}}`) to the per-field lists.
    pub fn finish_with(self, shaped: Map<String, Value>) -> ApiResult<()> {
        if self.errors.is_empty() && shaped.is_empty() {
            return Ok(());
        }
        let mut body: Map<String, Value> = self
            .errors
            .into_iter()
            .map(|(field, messages)| (field, Value::from(messages)))
            .collect();
        body.extend(shaped);
        Err(ApiError::Invalid(body))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn body(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn errors_are_collected_per_field() {
        let b =
            body(json!({"name": 5, "flag": "maybe", "blank": " ", "long": "abcdef", "none": null}));
        let mut reader = FieldReader::new(&b, true);
        assert_eq!(reader.text("name", Text::required(10)), None);
        assert_eq!(reader.boolean("flag"), None);
        assert_eq!(reader.text("blank", Text::required(10)), None);
        assert_eq!(reader.text("long", Text::required(3)), None);
        assert_eq!(reader.text("none", Text::optional(3)), None);
        assert_eq!(reader.text("missing", Text::required(3)), None);
        let Err(ApiError::Fields(errors)) = reader.finish() else {
            panic!("expected field errors")
        };
        assert_eq!(errors["name"], ["Not a valid string."]);
        assert_eq!(errors["flag"], ["Must be a valid boolean."]);
        assert_eq!(errors["blank"], ["This field may not be blank."]);
        assert_eq!(
            errors["long"],
            ["Ensure this field has no more than 3 characters."]
        );
        assert_eq!(errors["none"], ["This field may not be null."]);
        assert_eq!(errors["missing"], ["This field is required."]);
    }

    #[test]
    fn partial_updates_do_not_require_fields() {
        let b = body(json!({}));
        let mut reader = FieldReader::new(&b, false);
        assert_eq!(reader.text("username", Text::required(10)), None);
        assert!(reader.finish().is_ok());
    }
}

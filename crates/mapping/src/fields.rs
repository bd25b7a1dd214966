//! Reading a map setting's JSON: entries, dictionaries, allowed keys, the reference's
//! boolean words, a team's organization; each refusal with the reference's message.

use serde_json::{Map, Value};

use crate::MapError;

/// A team entry's `organization`: required, not blank.
pub(crate) fn organization_of(fields: &Map<String, Value>) -> Result<String, MapError> {
    match fields.get("organization") {
        None | Some(Value::Null) => Err(MapError::at(&["organization"], "This field is required.")),
        Some(Value::String(name)) if name.trim().is_empty() => Err(MapError::at(
            &["organization"],
            "This field may not be blank.",
        )),
        Some(Value::String(name)) => Ok(name.clone()),
        Some(_) => Err(MapError::at(&["organization"], "Not a valid string.")),
    }
}

/// The entries of a map setting: `{}` or `null` for none.
pub(crate) fn entries(value: &Value) -> Result<Vec<(String, Value)>, MapError> {
    match value {
        Value::Null => Ok(Vec::new()),
        other => Ok(dictionary(other)?
            .iter()
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect()),
    }
}

pub(crate) fn dictionary(value: &Value) -> Result<&Map<String, Value>, MapError> {
    value.as_object().ok_or_else(|| {
        let kind = match value {
            Value::Array(_) => "list",
            Value::String(_) => "str",
            Value::Number(_) => "int",
            Value::Bool(_) => "bool",
            _ => "NoneType",
        };
        MapError::at(
            &[],
            format!("Expected a dictionary of items but got type \"{kind}\"."),
        )
    })
}

/// Refuses a key that is neither one of `values` nor one of `flags` ("Invalid field.").
pub(crate) fn allow_only(
    fields: &Map<String, Value>,
    values: &[&str],
    flags: &[&str],
) -> Result<(), MapError> {
    match fields
        .keys()
        .find(|key| !values.contains(&key.as_str()) && !flags.contains(&key.as_str()))
    {
        Some(key) => Err(MapError::at(&[key], "Invalid field.")),
        None => Ok(()),
    }
}

/// A remove flag: a boolean, or what the reference's boolean field reads as one.
pub(crate) fn boolean(value: &Value) -> Result<bool, MapError> {
    match value {
        Value::Bool(flag) => Ok(*flag),
        Value::Number(n) if n.as_i64() == Some(1) => Ok(true),
        Value::Number(n) if n.as_i64() == Some(0) => Ok(false),
        Value::String(text) => match text.to_lowercase().as_str() {
            "t" | "y" | "yes" | "true" | "on" | "1" => Ok(true),
            "f" | "n" | "no" | "false" | "off" | "0" => Ok(false),
            _ => Err(MapError::at(&[], "Must be a valid boolean.")),
        },
        _ => Err(MapError::at(&[], "Must be a valid boolean.")),
    }
}

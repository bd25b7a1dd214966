//! Reading a credential body (create, PUT, PATCH). The inputs are validated later, against
//! the type, inside the write transaction (`acs_app::credentials`).

use serde_json::{Map, Value, json};

pub use acs_app::credentials::CredentialInput;

use crate::error::ApiResult;
use crate::http::fields::{FieldReader, Text};

/// The owner of a credential being updated; it is fixed after creation.
#[derive(Debug, Clone, Copy)]
pub struct Owner {
    /// Owning organization.
    pub organization: Option<i64>,
    /// Owning user.
    pub user: Option<i64>,
}

const FIXED: &str = "This field cannot be changed after creation.";

/// Reads `body`; `existing` is the owner of the credential being updated (`None` on create).
pub fn read(
    body: &Map<String, Value>,
    full: bool,
    existing: Option<Owner>,
) -> ApiResult<CredentialInput> {
    let mut fields = FieldReader::new(body, full);
    let name = fields.text("name", Text::required(512));
    let description = fields.text("description", Text::optional(8192));
    let credential_type = fields.id("credential_type", true);
    let given = |key: &str| !matches!(body.get(key), None | Some(Value::Null));
    if given("team") {
        fields.error(
            "team",
            "Teams are not supported; give 'user' or 'organization'.",
        );
    }
    let (organization, user) = match existing {
        None => {
            let organization = if given("organization") {
                fields.id("organization", false)
            } else {
                None
            };
            let user = if given("user") {
                fields.id("user", false)
            } else {
                None
            };
            match (given("organization"), given("user")) {
                (false, false) => fields.error("detail", "Missing 'user' or 'organization'."),
                (true, true) => fields.error(
                    "detail",
                    "Only one of 'user' or 'organization' should be provided, received organization, user fields.",
                ),
                _ => {}
            }
            (organization, user)
        }
        Some(owner) => {
            if let Some(value) = body.get("organization")
                && value.as_i64() != owner.organization
            {
                fields.error("organization", FIXED);
            }
            if let Some(value) = body.get("user")
                && value.as_i64() != owner.user
            {
                fields.error("user", FIXED);
            }
            (None, None)
        }
    };
    let mut shaped = Map::new();
    let inputs = match body.get("inputs") {
        None if full => Some(json!({})),
        None => None,
        Some(Value::Null) => {
            shaped.insert("inputs".into(), json!(["This field may not be null."]));
            None
        }
        Some(value) => Some(value.clone()),
    };
    fields.finish_with(shaped)?;
    let blank = |v: Option<String>| if full { Some(v.unwrap_or_default()) } else { v };
    Ok(CredentialInput {
        name,
        description: blank(description),
        credential_type,
        organization,
        user,
        inputs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ApiError;

    fn errors(body: Value, existing: Option<Owner>) -> Value {
        match read(body.as_object().expect("object"), true, existing) {
            Err(ApiError::Fields(fields)) => json!(fields),
            Err(ApiError::Invalid(body)) => Value::Object(body),
            Err(other) => json!(other.to_string()),
            Ok(_) => json!("ok"),
        }
    }

    #[test]
    fn exactly_one_owner() {
        let none = errors(json!({"name": "c", "credential_type": 1}), None);
        assert_eq!(none["detail"], json!(["Missing 'user' or 'organization'."]));
        let both = errors(
            json!({"name": "c", "credential_type": 1, "user": 1, "organization": 1}),
            None,
        );
        assert!(
            both["detail"][0]
                .as_str()
                .expect("text")
                .starts_with("Only one of")
        );
        let null_counts_as_absent = errors(
            json!({"name": "c", "credential_type": 1, "user": null, "organization": 2}),
            None,
        );
        assert_eq!(null_counts_as_absent, json!("ok"));
    }

    #[test]
    fn owner_is_fixed_on_update() {
        let owner = Owner {
            organization: Some(2),
            user: None,
        };
        let echo = errors(
            json!({"name": "c", "credential_type": 1, "organization": 2}),
            Some(owner),
        );
        assert_eq!(echo, json!("ok"));
        let moved = errors(
            json!({"name": "c", "credential_type": 1, "organization": 3}),
            Some(owner),
        );
        assert_eq!(moved["organization"], json!([FIXED]));
    }

    #[test]
    fn null_inputs_are_refused() {
        let body = json!({"name": "c", "credential_type": 1, "user": 1, "inputs": null});
        assert_eq!(
            errors(body, None)["inputs"],
            json!(["This field may not be null."])
        );
    }
}

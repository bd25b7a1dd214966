//! Reading and validating an application body (create, PUT, PATCH).

use acs_oauth2::{ClientType, GrantType};
use serde_json::{Map, Value};

use crate::error::{ApiError, ApiResult};
use crate::http::fields::{FieldReader, Text};

pub use acs_app::applications::ApplicationInput;

/// What an update must not change.
#[derive(Debug, Clone, Copy)]
pub struct Fixed {
    /// The stored grant type.
    pub grant_type: GrantType,
    /// The stored organization.
    pub organization: i64,
    /// The stored owner.
    pub user: Option<i64>,
}

const FIXED: &str = "This field cannot be changed after creation.";

/// Reads a body. `existing` is `None` on create; on update it holds the fields that are
/// fixed after creation (sending them unchanged is accepted, as clients echo records).
pub fn read(
    body: &Map<String, Value>,
    full: bool,
    existing: Option<Fixed>,
) -> ApiResult<ApplicationInput> {
    let creating = existing.is_none();
    let mut fields = FieldReader::new(body, full);
    let name = fields.text("name", Text::required(255));
    let description = fields.text("description", Text::optional(4096));
    let client_type = fields
        .text("client_type", Text::required(32))
        .and_then(|text| match ClientType::parse(&text) {
            Some(kind) => Some(kind),
            None => {
                fields.error("client_type", format!("\"{text}\" is not a valid choice."));
                None
            }
        });
    let grant_type = match existing {
        None => fields
            .text("authorization_grant_type", Text::required(32))
            .and_then(|text| match GrantType::parse(&text) {
                Ok(grant) => Some(grant),
                Err(error) => {
                    fields.error("authorization_grant_type", error.to_string());
                    None
                }
            }),
        Some(fixed) => {
            if let Some(value) = body.get("authorization_grant_type")
                && value.as_str() != Some(fixed.grant_type.as_str())
            {
                fields.error("authorization_grant_type", FIXED);
            }
            Some(fixed.grant_type)
        }
    };
    let redirect_uris = fields.text("redirect_uris", Text::optional(8192));
    let skip_authorization = fields.boolean("skip_authorization");
    let (organization, user) = match existing {
        None => (
            fields.id("organization", true),
            match body.get("user") {
                Some(Value::Null) | None => None,
                Some(_) => fields.id("user", false),
            },
        ),
        Some(fixed) => {
            if let Some(value) = body.get("organization")
                && value.as_i64() != Some(fixed.organization)
            {
                fields.error("organization", FIXED);
            }
            if let Some(value) = body.get("user")
                && value.as_i64() != fixed.user
            {
                fields.error("user", FIXED);
            }
            (None, None)
        }
    };
    // Redirect URIs are checked against the grant type once both are known. An empty list
    // for an authorization-code application is an object-level error, as the reference
    // reports it; the other problems belong to the field.
    let redirect_uris = match (grant_type, redirect_uris) {
        (Some(grant), Some(uris)) => check_redirect_uris(&mut fields, &uris, grant),
        (Some(grant), None) if full => check_redirect_uris(&mut fields, "", grant),
        (_, uris) => uris,
    };
    fields.finish()?;
    if creating && organization.is_none() {
        return Err(ApiError::field("organization", "This field is required."));
    }
    let blank = |v: Option<String>| if full { Some(v.unwrap_or_default()) } else { v };
    Ok(ApplicationInput {
        name,
        description: blank(description),
        client_type,
        redirect_uris,
        grant_type,
        skip_authorization: if full {
            Some(skip_authorization.unwrap_or(false))
        } else {
            skip_authorization
        },
        organization,
        user,
    })
}

fn check_redirect_uris(
    fields: &mut FieldReader<'_>,
    uris: &str,
    grant: GrantType,
) -> Option<String> {
    match acs_oauth2::validate_redirect_uris(uris, grant) {
        Ok(normalized) => Some(normalized),
        Err(error @ acs_oauth2::RedirectUriError::EmptyForAuthorizationCode) => {
            fields.error("__all__", error.to_string());
            None
        }
        Err(error) => {
            fields.error("redirect_uris", error.to_string());
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(body: Value, full: bool, existing: Option<Fixed>) -> ApiResult<ApplicationInput> {
        super::read(body.as_object().expect("object"), full, existing)
    }

    fn field_errors(result: ApiResult<ApplicationInput>) -> Vec<String> {
        match result {
            Err(ApiError::Fields(errors)) => errors.keys().cloned().collect(),
            other => panic!("expected field errors, got {other:?}"),
        }
    }

    #[test]
    fn create_needs_name_type_grant_and_organization() {
        assert_eq!(
            field_errors(read(json!({}), true, None)),
            [
                "authorization_grant_type",
                "client_type",
                "name",
                "organization"
            ]
        );
        let ok = read(
            json!({"name": "a", "client_type": "public", "authorization_grant_type": "password", "organization": 1}),
            true,
            None,
        )
        .expect("valid");
        assert_eq!(ok.redirect_uris.as_deref(), Some(""));
        assert_eq!(ok.skip_authorization, Some(false));
    }

    #[test]
    fn authorization_code_needs_redirect_uris() {
        let body = json!({"name": "a", "client_type": "confidential",
            "authorization_grant_type": "authorization-code", "organization": 1});
        assert_eq!(field_errors(read(body, true, None)), ["__all__"]);
        let body = json!({"name": "a", "client_type": "confidential", "redirect_uris": "ftp://x/",
            "authorization_grant_type": "authorization-code", "organization": 1});
        assert_eq!(field_errors(read(body, true, None)), ["redirect_uris"]);
    }

    #[test]
    fn fixed_fields_refuse_changes_but_accept_echoes() {
        let fixed = Fixed {
            grant_type: GrantType::Password,
            organization: 3,
            user: None,
        };
        let echo = json!({"authorization_grant_type": "password", "organization": 3, "user": null});
        assert!(read(echo, false, Some(fixed)).is_ok());
        let change = json!({"authorization_grant_type": "authorization-code", "organization": 4});
        assert_eq!(
            field_errors(read(change, false, Some(fixed))),
            ["authorization_grant_type", "organization"]
        );
    }
}

//! The single-sign-on maps of category `authentication` (the reference's names):
//! `SOCIAL_AUTH_ORGANIZATION_MAP` and `SOCIAL_AUTH_TEAM_MAP`, which give an OpenID Connect
//! user organizations and teams by their username or email at every sign-in. Rules and
//! messages are `acs_mapping`'s; values are stored normalised (every key of an entry,
//! patterns as `/pattern/flags`).

use acs_mapping::SocialMaps;
use serde_json::{Map, Value};

use super::Settings;

/// `SOCIAL_AUTH_ORGANIZATION_MAP`.
pub const ORGANIZATION_MAP: &str = "SOCIAL_AUTH_ORGANIZATION_MAP";
/// `SOCIAL_AUTH_TEAM_MAP`.
pub const TEAM_MAP: &str = "SOCIAL_AUTH_TEAM_MAP";

/// The maps in `settings`. Stored values the validators would refuse (written around them by
/// `ACS_*` variables) map nothing, logged: a sign-in still works, as it did before any map.
pub fn of(settings: &Settings) -> SocialMaps {
    SocialMaps::parse(&settings.value(ORGANIZATION_MAP), &settings.value(TEAM_MAP)).unwrap_or_else(
        |error| {
            tracing::error!(%error, "the single-sign-on maps cannot be read; none is applied");
            SocialMaps::default()
        },
    )
}

/// `SOCIAL_AUTH_ORGANIZATION_MAP`: `null`, or organizations by name.
pub fn organization_map(value: &Value) -> Result<Value, String> {
    if value.is_null() {
        return Ok(Value::Null);
    }
    let maps = SocialMaps::parse(value, &Value::Null).map_err(|error| error.to_string())?;
    Ok(Value::Object(
        maps.organizations
            .into_iter()
            .map(|(name, entry)| (name, entry.json()))
            .collect::<Map<_, _>>(),
    ))
}

/// `SOCIAL_AUTH_TEAM_MAP`: `null`, or teams by name, each with its organization.
pub fn team_map(value: &Value) -> Result<Value, String> {
    if value.is_null() {
        return Ok(Value::Null);
    }
    let maps = SocialMaps::parse(&Value::Null, value).map_err(|error| error.to_string())?;
    Ok(Value::Object(
        maps.teams
            .into_iter()
            .map(|(name, entry)| (name, entry.json()))
            .collect::<Map<_, _>>(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn maps_are_stored_normalised_and_refused_with_where_and_why() {
        assert_eq!(organization_map(&Value::Null), Ok(Value::Null));
        assert_eq!(
            organization_map(&json!({"Eng": {"users": "/^[^@]+@example\\.com$/mi"}})),
            Ok(json!({"Eng": {
                "admins": null,
                "users": "/^[^@]+@example\\.com$/im",
                "organization_alias": null,
                "remove_admins": true,
                "remove_users": true,
            }}))
        );
        assert_eq!(
            organization_map(&json!({"Eng": {"auditors": true}})),
            Err("Eng: auditors: Invalid field.".to_owned())
        );
        assert_eq!(
            team_map(&json!({"Oncall": {"users": true}})),
            Err("Oncall: organization: This field is required.".to_owned())
        );
        assert_eq!(
            team_map(&json!({"Oncall": {"organization": "Eng", "users": ["bob"]}})),
            Ok(json!({"Oncall": {"organization": "Eng", "users": "bob", "remove": true}}))
        );
    }
}

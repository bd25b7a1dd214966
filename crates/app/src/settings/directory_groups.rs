//! The `ldap` settings of groups (the reference's names): where a login finds the user's
//! groups, which groups may or may not log in, and the maps from groups to organizations,
//! teams and flags. Each is checked alone by its validator (rules and messages in
//! `acs-mapping`), and the ones that depend on each other by [`check_together`] before a
//! change is stored, so no stored combination fails every login.

use acs_mapping::{
    GroupGates, GroupSearch, GroupType, LdapMaps, OrganizationEntry, TeamEntry, UserFlagsByGroup,
    parse_gate,
};
use serde_json::{Map, Value, json};

use super::Settings;

/// `AUTH_LDAP_GROUP_SEARCH`.
pub const GROUP_SEARCH: &str = "AUTH_LDAP_GROUP_SEARCH";
/// `AUTH_LDAP_GROUP_TYPE`.
pub const GROUP_TYPE: &str = "AUTH_LDAP_GROUP_TYPE";
/// `AUTH_LDAP_GROUP_TYPE_PARAMS`.
pub const GROUP_TYPE_PARAMS: &str = "AUTH_LDAP_GROUP_TYPE_PARAMS";
/// `AUTH_LDAP_REQUIRE_GROUP`.
pub const REQUIRE_GROUP: &str = "AUTH_LDAP_REQUIRE_GROUP";
/// `AUTH_LDAP_DENY_GROUP`.
pub const DENY_GROUP: &str = "AUTH_LDAP_DENY_GROUP";
/// `AUTH_LDAP_USER_FLAGS_BY_GROUP`.
pub const USER_FLAGS_BY_GROUP: &str = "AUTH_LDAP_USER_FLAGS_BY_GROUP";
/// `AUTH_LDAP_ORGANIZATION_MAP`.
pub const ORGANIZATION_MAP: &str = "AUTH_LDAP_ORGANIZATION_MAP";
/// `AUTH_LDAP_TEAM_MAP`.
pub const TEAM_MAP: &str = "AUTH_LDAP_TEAM_MAP";

/// The settings that read the groups a search finds, so need one.
const NEED_A_SEARCH: [&str; 5] = [
    REQUIRE_GROUP,
    DENY_GROUP,
    USER_FLAGS_BY_GROUP,
    ORGANIZATION_MAP,
    TEAM_MAP,
];

/// What a login does with the user's groups; `None` from [`DirectoryGroups::of`] when no
/// group search is set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectoryGroups {
    /// Where groups are looked for.
    pub search: GroupSearch,
    /// How a group names its members.
    pub kind: GroupType,
    /// Who may log in.
    pub gates: GroupGates,
    /// What the groups give.
    pub maps: LdapMaps,
}

/// Why the stored group settings cannot be used (a combination written around the checks,
/// by `ACS_*` variables): directory login is then refused for everyone rather than let in
/// users a required group would have kept out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{setting}: {reason}")]
pub struct UnusableGroups {
    /// The setting at fault.
    pub setting: &'static str,
    /// Why.
    pub reason: String,
}

impl DirectoryGroups {
    /// The group configuration in `settings`: `Ok(None)` when there is no group search and
    /// nothing needs one.
    pub fn of(settings: &Settings) -> Result<Option<DirectoryGroups>, UnusableGroups> {
        let unusable = |setting: &'static str| {
            move |error: acs_mapping::MapError| UnusableGroups {
                setting,
                reason: error.to_string(),
            }
        };
        let search =
            GroupSearch::parse(&settings.value(GROUP_SEARCH)).map_err(unusable(GROUP_SEARCH))?;
        let Some(search) = search else {
            return match NEED_A_SEARCH
                .into_iter()
                .find(|name| is_set(&settings.value(name)))
            {
                Some(setting) => Err(UnusableGroups {
                    setting,
                    reason: needs_a_search(),
                }),
                None => Ok(None),
            };
        };
        let kind = GroupType::new(
            &settings.value(GROUP_TYPE),
            &settings.value(GROUP_TYPE_PARAMS),
        )
        .map_err(unusable(GROUP_TYPE_PARAMS))?;
        let gate = |name: &'static str| {
            parse_gate(&settings.value(name))
                .map(|gate| gate.map(|(_, dn)| dn))
                .map_err(unusable(name))
        };
        let gates = GroupGates {
            require: gate(REQUIRE_GROUP)?,
            deny: gate(DENY_GROUP)?,
        };
        let maps = LdapMaps::parse(
            &settings.value(ORGANIZATION_MAP),
            &settings.value(TEAM_MAP),
            &settings.value(USER_FLAGS_BY_GROUP),
        )
        .map_err(unusable(ORGANIZATION_MAP))?;
        Ok(Some(DirectoryGroups {
            search,
            kind,
            gates,
            maps,
        }))
    }
}

/// The user flags `AUTH_LDAP_USER_FLAGS_BY_GROUP` sets at every directory login
/// (`is_superuser`, `is_system_auditor`): a directory user's are the directory's, not an
/// admin's to change by hand.
pub fn flags_owned_by_directory(settings: &Settings) -> Vec<&'static str> {
    let flags = UserFlagsByGroup::parse(&settings.value(USER_FLAGS_BY_GROUP)).unwrap_or_default();
    [
        ("is_superuser", flags.superuser.is_some()),
        ("is_system_auditor", flags.system_auditor.is_some()),
    ]
    .into_iter()
    .filter_map(|(flag, owned)| owned.then_some(flag))
    .collect()
}

/// Whether a group setting holds something (not its empty default).
fn is_set(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::String(text) => !text.trim().is_empty(),
        Value::Object(map) => !map.is_empty(),
        Value::Array(items) => !items.is_empty(),
        _ => true,
    }
}

fn needs_a_search() -> String {
    format!(
        "Set {GROUP_SEARCH} first (or in the same change): this setting reads the groups it finds."
    )
}

/// The rules between the group settings, over the values they would have after a change
/// (`value` gives each, changed or stored) and for the settings the change `written`: a
/// group type takes only its own parameters, and what reads groups needs a group search.
/// Each refusal is of a setting the change names, with the reason.
pub fn check_together(
    value: &dyn Fn(&str) -> Value,
    written: &dyn Fn(&str) -> bool,
) -> Vec<(&'static str, String)> {
    let mut refused = Vec::new();
    if (written(GROUP_TYPE) || written(GROUP_TYPE_PARAMS))
        && let Err(error) = GroupType::new(&value(GROUP_TYPE), &value(GROUP_TYPE_PARAMS))
    {
        let at = if written(GROUP_TYPE_PARAMS) {
            GROUP_TYPE_PARAMS
        } else {
            GROUP_TYPE
        };
        refused.push((at, error.to_string()));
    }
    let searched = is_set(&value(GROUP_SEARCH));
    if !searched {
        let readers: Vec<&str> = NEED_A_SEARCH
            .into_iter()
            .filter(|name| is_set(&value(name)))
            .collect();
        for name in &readers {
            if written(name) {
                refused.push((*name, needs_a_search()));
            }
        }
        if written(GROUP_SEARCH) && !readers.is_empty() {
            refused.push((
                GROUP_SEARCH,
                format!(
                    "{} read the groups this search finds: clear them first (or in the same change).",
                    readers.join(", ")
                ),
            ));
        }
    }
    refused
}

fn refusal(error: acs_mapping::MapError) -> String {
    error.to_string()
}

/// `AUTH_LDAP_GROUP_SEARCH`: `[]`, or `[base DN, scope, filter]`.
pub fn group_search(value: &Value) -> Result<Value, String> {
    match GroupSearch::parse(value).map_err(refusal)? {
        None => Ok(json!([])),
        Some(_) => Ok(value.clone()),
    }
}

/// `AUTH_LDAP_GROUP_TYPE`: a type the reference offers (its parameters are checked with
/// [`check_together`]).
pub fn group_type(value: &Value) -> Result<Value, String> {
    GroupType::check_name(value).map_err(refusal)?;
    Ok(value.clone())
}

/// `AUTH_LDAP_GROUP_TYPE_PARAMS`: attribute names under keys some type takes.
pub fn group_type_params(value: &Value) -> Result<Value, String> {
    GroupType::check_params(value).map_err(refusal)?;
    Ok(value.clone())
}

/// `AUTH_LDAP_REQUIRE_GROUP` and `AUTH_LDAP_DENY_GROUP`: a DN, or `null` (`""` too).
pub fn group_gate(value: &Value) -> Result<Value, String> {
    Ok(match parse_gate(value).map_err(refusal)? {
        None => Value::Null,
        Some((written, _)) => json!(written),
    })
}

/// `AUTH_LDAP_USER_FLAGS_BY_GROUP`, stored with every flag's groups as a list.
pub fn user_flags_by_group(value: &Value) -> Result<Value, String> {
    Ok(UserFlagsByGroup::parse(value).map_err(refusal)?.json())
}

/// `AUTH_LDAP_ORGANIZATION_MAP`, stored with every key of each entry.
pub fn organization_map(value: &Value) -> Result<Value, String> {
    let entries = OrganizationEntry::parse_map(value).map_err(refusal)?;
    Ok(Value::Object(
        entries
            .into_iter()
            .map(|(name, entry)| (name, entry.json()))
            .collect::<Map<_, _>>(),
    ))
}

/// `AUTH_LDAP_TEAM_MAP`, stored with every key of each entry.
pub fn team_map(value: &Value) -> Result<Value, String> {
    let entries = TeamEntry::parse_map(value).map_err(refusal)?;
    Ok(Value::Object(
        entries
            .into_iter()
            .map(|(name, entry)| (name, entry.json()))
            .collect::<Map<_, _>>(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEARCH: &str = "ou=groups,dc=example,dc=org";

    fn check(values: &[(&str, Value)], written: &[&str]) -> Vec<(&'static str, String)> {
        let value = |name: &str| {
            values.iter().find(|(key, _)| *key == name).map_or_else(
                || super::super::registry::find(name).map_or(Value::Null, |def| (def.default)()),
                |(_, value)| value.clone(),
            )
        };
        check_together(&value, &|name| written.contains(&name))
    }

    #[test]
    fn what_reads_groups_needs_a_search() {
        let map = json!({"Ops": {"users": true}});
        let refused = check(&[(ORGANIZATION_MAP, map.clone())], &[ORGANIZATION_MAP]);
        assert_eq!(refused.len(), 1);
        assert_eq!(refused[0].0, ORGANIZATION_MAP);
        assert!(refused[0].1.contains(GROUP_SEARCH), "{refused:?}");
        let search = json!([SEARCH, "SCOPE_SUBTREE", "(objectClass=groupOfNames)"]);
        assert!(
            check(
                &[(ORGANIZATION_MAP, map.clone()), (GROUP_SEARCH, search)],
                &[ORGANIZATION_MAP, GROUP_SEARCH]
            )
            .is_empty()
        );
        let cleared = check(
            &[(ORGANIZATION_MAP, map), (GROUP_SEARCH, json!([]))],
            &[GROUP_SEARCH],
        );
        assert_eq!(cleared.len(), 1);
        assert_eq!(cleared[0].0, GROUP_SEARCH);
        assert!(cleared[0].1.contains(ORGANIZATION_MAP), "{cleared:?}");
    }

    #[test]
    fn a_type_and_its_parameters_agree() {
        let refused = check(&[(GROUP_TYPE, json!("GroupOfNamesType"))], &[GROUP_TYPE]);
        assert_eq!(
            refused,
            [(GROUP_TYPE, "Invalid key(s): \"member_attr\".".to_owned())]
        );
        assert!(
            check(
                &[
                    (GROUP_TYPE, json!("GroupOfNamesType")),
                    (GROUP_TYPE_PARAMS, json!({"name_attr": "cn"}))
                ],
                &[GROUP_TYPE, GROUP_TYPE_PARAMS]
            )
            .is_empty()
        );
    }

    #[test]
    fn values_are_stored_normalised() {
        assert_eq!(group_gate(&json!("")), Ok(Value::Null));
        assert_eq!(
            group_gate(&json!("CN=Ops,DC=org")),
            Ok(json!("CN=Ops,DC=org"))
        );
        assert_eq!(
            user_flags_by_group(&json!({"is_superuser": "cn=admins,dc=org"})),
            Ok(json!({"is_superuser": ["cn=admins,dc=org"]}))
        );
        assert_eq!(
            organization_map(&json!({"Ops": {"remove": true}})),
            Err("Ops: remove: Invalid field.".to_owned())
        );
        assert_eq!(group_search(&Value::Null), Ok(json!([])));
    }
}

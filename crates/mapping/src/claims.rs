//! A provider's groups-claim mapping: the organizations, teams and user flags the values of
//! one claim of its verified ID tokens (such as `groups`) give. The reference has no such map
//! (its OpenID sign-in reads only the username and email, which users may edit); the shapes
//! follow its LDAP maps, with group names where those take DNs:
//!
//! ```json
//! {"claim": "groups",
//!  "organizations": {"Ops": {"admins": "ops-admins", "users": ["ops", "sre"], "remove_users": false}},
//!  "teams": {"On-call": {"organization": "Ops", "users": "sre"}},
//!  "flags": {"is_system_auditor": "auditors"}}
//! ```
//!
//! Group names compare exactly (case counts). Each remove flag defaults to true on its own.

use serde_json::{Map, Value, json};

use crate::fields::{allow_only, boolean, dictionary, entries, organization_of};
use crate::{MapError, OrganizationRole, Plan};

/// Who a role of a claim map entry is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameMatch {
    /// `null` (or the key left out): the sign-in leaves the role as it is.
    Unchanged,
    /// `true`: everyone who signs in at the provider.
    Everyone,
    /// `false`: nobody.
    Nobody,
    /// The members of any of these groups; an empty list is nobody.
    AnyOf(Vec<String>),
}

impl NameMatch {
    /// Reads a map value: `true`, `false`, `null`, a group name, or a list of group names.
    pub fn parse(value: &Value) -> Result<NameMatch, MapError> {
        match value {
            Value::Null => Ok(NameMatch::Unchanged),
            Value::Bool(true) => Ok(NameMatch::Everyone),
            Value::Bool(false) => Ok(NameMatch::Nobody),
            Value::String(_) | Value::Array(_) => group_names(value).map(NameMatch::AnyOf),
            _ => Err(MapError::at(
                &[],
                "Expected None, True, False, a group name or a list of group names.",
            )),
        }
    }

    /// The value as stored and shown: booleans and `null`, or the list of names.
    pub fn json(&self) -> Value {
        match self {
            NameMatch::Unchanged => Value::Null,
            NameMatch::Everyone => json!(true),
            NameMatch::Nobody => json!(false),
            NameMatch::AnyOf(names) => json!(names),
        }
    }

    /// Whether a user in `groups` is one this value is for; `None` when it leaves the role
    /// as it is.
    pub fn matches(&self, groups: &[String]) -> Option<bool> {
        match self {
            NameMatch::Unchanged => None,
            NameMatch::Everyone => Some(true),
            NameMatch::Nobody => Some(false),
            NameMatch::AnyOf(names) => Some(names.iter().any(|name| groups.contains(name))),
        }
    }
}

/// One name or a list of names, none blank.
fn group_names(value: &Value) -> Result<Vec<String>, MapError> {
    let name = |item: &Value| match item {
        Value::String(text) if text.trim().is_empty() => {
            Err(MapError::at(&[], "This field may not be blank."))
        }
        Value::String(text) => Ok(text.clone()),
        _ => Err(MapError::at(&[], "Not a valid string.")),
    };
    match value {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(at, item)| name(item).map_err(|error| error.under(&at.to_string())))
            .collect(),
        single => Ok(vec![name(single)?]),
    }
}

/// One organization's entry of a claim map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimOrganizationEntry {
    /// Who is its admin.
    pub admins: NameMatch,
    /// Who is its auditor.
    pub auditors: NameMatch,
    /// Who is its member.
    pub users: NameMatch,
    /// Whether a user `admins` does not match loses the admin role (default true).
    pub remove_admins: bool,
    /// Whether a user `auditors` does not match loses the auditor role (default true).
    pub remove_auditors: bool,
    /// Whether a user `users` does not match loses the membership (default true).
    pub remove_users: bool,
}

/// One team's entry of a claim map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimTeamEntry {
    /// The team's organization, by name.
    pub organization: String,
    /// Who is its member.
    pub users: NameMatch,
    /// Whether a user `users` does not match leaves the team (default true).
    pub remove: bool,
}

/// The groups whose members have each flag; a flag not listed is the admins' to set.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ClaimFlags {
    /// The groups of `is_superuser`.
    pub superuser: Option<Vec<String>>,
    /// The groups of `is_system_auditor`.
    pub system_auditor: Option<Vec<String>>,
}

/// A provider's groups-claim mapping, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupClaimMaps {
    /// The ID-token claim that lists the user's groups.
    pub claim: String,
    /// By organization name, in the setting's order.
    pub organizations: Vec<(String, ClaimOrganizationEntry)>,
    /// By team name, in the setting's order.
    pub teams: Vec<(String, ClaimTeamEntry)>,
    /// The flags.
    pub flags: ClaimFlags,
}

/// Why a verified token's groups claim cannot be read (the sign-in is then refused: its
/// maps could otherwise take away what the user holds, or give nothing a gate needs).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("The identity token's claim \"{claim}\" is not a group name or a list of group names.")]
pub struct UnreadableClaim {
    /// The claim's name.
    pub claim: String,
}

const ORGANIZATION_ROLES: [(&str, &str); 3] = [
    ("admins", "remove_admins"),
    ("auditors", "remove_auditors"),
    ("users", "remove_users"),
];

impl GroupClaimMaps {
    /// Reads a provider's `groups` value; `null` (or absent) is no mapping.
    pub fn parse(value: &Value) -> Result<Option<GroupClaimMaps>, MapError> {
        if value.is_null() {
            return Ok(None);
        }
        let fields = dictionary(value)?;
        allow_only(fields, &["claim", "organizations", "teams", "flags"], &[])?;
        let claim = match fields.get("claim") {
            Some(Value::String(claim)) if !claim.trim().is_empty() => claim.clone(),
            Some(Value::String(_)) => {
                return Err(MapError::at(&["claim"], "This field may not be blank."));
            }
            None | Some(Value::Null) => {
                return Err(MapError::at(&["claim"], "This field is required."));
            }
            Some(_) => return Err(MapError::at(&["claim"], "Not a valid string.")),
        };
        let field = |key: &str| fields.get(key).cloned().unwrap_or(Value::Null);
        Ok(Some(GroupClaimMaps {
            claim,
            organizations: organizations(&field("organizations"))
                .map_err(|error| error.under("organizations"))?,
            teams: teams(&field("teams")).map_err(|error| error.under("teams"))?,
            flags: flags(&field("flags")).map_err(|error| error.under("flags"))?,
        }))
    }

    /// The mapping as stored and shown: every key of each entry, names as lists.
    pub fn json(&self) -> Value {
        let organizations: Map<String, Value> = self
            .organizations
            .iter()
            .map(|(name, entry)| {
                let shown = json!({
                    "admins": entry.admins.json(),
                    "auditors": entry.auditors.json(),
                    "users": entry.users.json(),
                    "remove_admins": entry.remove_admins,
                    "remove_auditors": entry.remove_auditors,
                    "remove_users": entry.remove_users,
                });
                (name.clone(), shown)
            })
            .collect();
        let teams: Map<String, Value> = self
            .teams
            .iter()
            .map(|(name, entry)| {
                let shown = json!({
                    "organization": entry.organization,
                    "users": entry.users.json(),
                    "remove": entry.remove,
                });
                (name.clone(), shown)
            })
            .collect();
        let mut shown_flags = Map::new();
        for (flag, groups) in [
            ("is_superuser", &self.flags.superuser),
            ("is_system_auditor", &self.flags.system_auditor),
        ] {
            if let Some(groups) = groups {
                shown_flags.insert(flag.to_owned(), json!(groups));
            }
        }
        json!({
            "claim": self.claim,
            "organizations": organizations,
            "teams": teams,
            "flags": shown_flags,
        })
    }

    /// The groups `claims` (a verified token's claims) list for this mapping's claim: one
    /// name, a list of names, or none when the claim is absent or `null`.
    pub fn groups_in(&self, claims: &Map<String, Value>) -> Result<Vec<String>, UnreadableClaim> {
        let unreadable = || UnreadableClaim {
            claim: self.claim.clone(),
        };
        match claims.get(&self.claim) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::String(name)) => Ok(vec![name.clone()]),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| item.as_str().map(str::to_owned).ok_or_else(unreadable))
                .collect(),
            Some(_) => Err(unreadable()),
        }
    }

    /// What a sign-in of a user in `groups` changes.
    pub fn plan(&self, groups: &[String]) -> Plan {
        let mut plan = Plan::default();
        for (name, entry) in &self.organizations {
            for (role, matched, remove) in [
                (OrganizationRole::Admin, &entry.admins, entry.remove_admins),
                (
                    OrganizationRole::Auditor,
                    &entry.auditors,
                    entry.remove_auditors,
                ),
                (OrganizationRole::Member, &entry.users, entry.remove_users),
            ] {
                plan.organization_role(name, role, (matched.matches(groups), remove));
            }
        }
        for (name, entry) in &self.teams {
            plan.team(
                &entry.organization,
                name,
                (entry.users.matches(groups), entry.remove),
            );
        }
        let member = |wanted: &Option<Vec<String>>| {
            wanted
                .as_ref()
                .map(|wanted| wanted.iter().any(|name| groups.contains(name)))
        };
        plan.flags.superuser = member(&self.flags.superuser);
        plan.flags.system_auditor = member(&self.flags.system_auditor);
        plan
    }
}

fn organizations(value: &Value) -> Result<Vec<(String, ClaimOrganizationEntry)>, MapError> {
    entries(value)?
        .into_iter()
        .map(|(name, entry)| {
            organization_entry(&entry)
                .map(|parsed| (name.clone(), parsed))
                .map_err(|error| error.under(&name))
        })
        .collect()
}

fn organization_entry(value: &Value) -> Result<ClaimOrganizationEntry, MapError> {
    let fields = dictionary(value)?;
    allow_only(
        fields,
        &ORGANIZATION_ROLES.map(|(role, _)| role),
        &ORGANIZATION_ROLES.map(|(_, remove)| remove),
    )?;
    Ok(ClaimOrganizationEntry {
        admins: role(fields, "admins")?,
        auditors: role(fields, "auditors")?,
        users: role(fields, "users")?,
        remove_admins: remove(fields, "remove_admins")?,
        remove_auditors: remove(fields, "remove_auditors")?,
        remove_users: remove(fields, "remove_users")?,
    })
}

fn teams(value: &Value) -> Result<Vec<(String, ClaimTeamEntry)>, MapError> {
    entries(value)?
        .into_iter()
        .map(|(name, entry)| {
            team_entry(&entry)
                .map(|parsed| (name.clone(), parsed))
                .map_err(|error| error.under(&name))
        })
        .collect()
}

fn team_entry(value: &Value) -> Result<ClaimTeamEntry, MapError> {
    let fields = dictionary(value)?;
    allow_only(fields, &["organization", "users"], &["remove"])?;
    Ok(ClaimTeamEntry {
        organization: organization_of(fields)?,
        users: role(fields, "users")?,
        remove: remove(fields, "remove")?,
    })
}

/// `is_superuser` and `is_system_auditor`, each a group name or a non-empty list of them.
fn flags(value: &Value) -> Result<ClaimFlags, MapError> {
    let mut flags = ClaimFlags::default();
    for (flag, groups) in entries(value)? {
        let slot = match flag.as_str() {
            "is_superuser" => &mut flags.superuser,
            "is_system_auditor" => &mut flags.system_auditor,
            _ => return Err(MapError::at(&[&flag], "Invalid field.")),
        };
        let names = group_names(&groups).map_err(|error| error.under(&flag))?;
        if names.is_empty() {
            return Err(MapError::at(
                &[&flag],
                "Name at least one group: an empty list would take the flag from everyone.",
            ));
        }
        *slot = Some(names);
    }
    Ok(flags)
}

fn role(fields: &Map<String, Value>, key: &str) -> Result<NameMatch, MapError> {
    fields.get(key).map_or(Ok(NameMatch::Unchanged), |value| {
        NameMatch::parse(value).map_err(|error| error.under(key))
    })
}

fn remove(fields: &Map<String, Value>, key: &str) -> Result<bool, MapError> {
    fields.get(key).map_or(Ok(true), |value| {
        boolean(value).map_err(|error| error.under(key))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Change::{Add, Remove};

    fn example() -> GroupClaimMaps {
        GroupClaimMaps::parse(&json!({
            "claim": "groups",
            "organizations": {"Ops": {"admins": "ops-admins", "users": ["ops", "sre"], "remove_users": false}},
            "teams": {"On-call": {"organization": "Ops", "users": "sre"}},
            "flags": {"is_system_auditor": "auditors"},
        }))
        .expect("a valid mapping")
        .expect("a mapping")
    }

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|name| (*name).to_owned()).collect()
    }

    #[test]
    fn a_sign_in_gets_what_its_groups_give() {
        let maps = example();
        let plan = maps.plan(&names(&["sre", "auditors"]));
        assert_eq!(
            plan.organizations,
            [
                ("Ops".to_owned(), OrganizationRole::Admin, Remove),
                ("Ops".to_owned(), OrganizationRole::Member, Add),
            ]
        );
        assert_eq!(plan.teams, [("Ops".to_owned(), "On-call".to_owned(), Add)]);
        assert_eq!(plan.flags.system_auditor, Some(true));
        assert_eq!(plan.flags.superuser, None);
        // Case counts; the member remove flag is off, the team's is on by default.
        let plan = maps.plan(&names(&["SRE"]));
        assert!(
            !plan
                .organizations
                .iter()
                .any(|(_, role, _)| *role == OrganizationRole::Member)
        );
        assert_eq!(
            plan.teams,
            [("Ops".to_owned(), "On-call".to_owned(), Remove)]
        );
        assert_eq!(plan.flags.system_auditor, Some(false));
    }

    #[test]
    fn the_claim_is_one_name_a_list_or_nothing() {
        let maps = example();
        let claims = |value: Value| {
            let mut claims = Map::new();
            claims.insert("groups".to_owned(), value);
            claims
        };
        assert_eq!(
            maps.groups_in(&claims(json!(["a", "b"]))),
            Ok(names(&["a", "b"]))
        );
        assert_eq!(maps.groups_in(&claims(json!("a"))), Ok(names(&["a"])));
        assert_eq!(maps.groups_in(&claims(Value::Null)), Ok(Vec::new()));
        assert_eq!(maps.groups_in(&Map::new()), Ok(Vec::new()));
        assert!(maps.groups_in(&claims(json!([1]))).is_err());
        assert!(maps.groups_in(&claims(json!({"a": true}))).is_err());
    }

    #[test]
    fn mappings_are_refused_with_where_and_why_and_stored_whole() {
        #[rustfmt::skip]
        let refused = [
            (json!({"organizations": {}}), "claim: This field is required."),
            (json!({"claim": " "}), "claim: This field may not be blank."),
            (json!({"claim": "groups", "roles": {}}), "roles: Invalid field."),
            (json!({"claim": "groups", "organizations": {"Ops": {"users": [""]}}}),
             "organizations: Ops: users: 0: This field may not be blank."),
            (json!({"claim": "groups", "organizations": {"Ops": {"remove": true}}}),
             "organizations: Ops: remove: Invalid field."),
            (json!({"claim": "groups", "teams": {"T": {"users": "x"}}}),
             "teams: T: organization: This field is required."),
            (json!({"claim": "groups", "flags": {"is_superuser": []}}),
             "flags: is_superuser: Name at least one group: an empty list would take the flag from everyone."),
            (json!({"claim": "groups", "flags": {"is_admin": "x"}}), "flags: is_admin: Invalid field."),
            (json!(["groups"]), "Expected a dictionary of items but got type \"list\"."),
        ];
        for (value, message) in refused {
            let error = GroupClaimMaps::parse(&value).expect_err(message);
            assert_eq!(error.to_string(), message);
        }
        assert_eq!(GroupClaimMaps::parse(&Value::Null), Ok(None));
        let shown = example().json();
        assert_eq!(
            shown["organizations"]["Ops"]["admins"],
            json!(["ops-admins"])
        );
        assert_eq!(shown["organizations"]["Ops"]["remove_auditors"], true);
        assert_eq!(shown["flags"], json!({"is_system_auditor": ["auditors"]}));
        assert_eq!(
            GroupClaimMaps::parse(&shown).map(|m| m.map(|m| m.json())),
            Ok(Some(shown))
        );
    }
}

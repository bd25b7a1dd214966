//! The directory's maps: `AUTH_LDAP_ORGANIZATION_MAP`, `AUTH_LDAP_TEAM_MAP` and
//! `AUTH_LDAP_USER_FLAGS_BY_GROUP`, with the reference's shapes and messages.
//!
//! Two departures from the reference, both where it has a known bug: each `remove_*` flag
//! of an organization entry defaults to true on its own (the reference's loop chains them,
//! so `remove_admins: false` also turned `remove_users` off), and a flag's group list may not
//! be empty (the reference accepts `[]` and then fails every login).

use serde_json::{Map, Value, json};

use crate::fields::{allow_only, boolean, dictionary, entries, organization_of};
use crate::{Dn, GroupMatch, MapError, OrganizationRole, Plan};

/// One organization's entry of `AUTH_LDAP_ORGANIZATION_MAP`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrganizationEntry {
    /// Who is its admin.
    pub admins: GroupMatch,
    /// Who is its auditor.
    pub auditors: GroupMatch,
    /// Who is its member.
    pub users: GroupMatch,
    /// Whether a user `admins` does not match loses the admin role (default true).
    pub remove_admins: bool,
    /// Whether a user `auditors` does not match loses the auditor role (default true).
    pub remove_auditors: bool,
    /// Whether a user `users` does not match loses the membership (default true).
    pub remove_users: bool,
}

/// One team's entry of `AUTH_LDAP_TEAM_MAP`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamEntry {
    /// The team's organization, by name.
    pub organization: String,
    /// Who is its member.
    pub users: GroupMatch,
    /// Whether a user `users` does not match leaves the team (default true).
    pub remove: bool,
}

/// `AUTH_LDAP_USER_FLAGS_BY_GROUP`: the groups whose members have each flag; a flag not
/// listed is the admins' to set.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UserFlagsByGroup {
    /// The groups of `is_superuser`.
    pub superuser: Option<Vec<(String, Dn)>>,
    /// The groups of `is_system_auditor`.
    pub system_auditor: Option<Vec<(String, Dn)>>,
}

/// The three maps of one directory, read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LdapMaps {
    /// By organization name, in the setting's order.
    pub organizations: Vec<(String, OrganizationEntry)>,
    /// By team name, in the setting's order.
    pub teams: Vec<(String, TeamEntry)>,
    /// The flags.
    pub flags: UserFlagsByGroup,
}

/// The keys of an organization entry: the roles, then their remove flags.
const ORGANIZATION_ROLES: [(&str, &str, OrganizationRole); 3] = [
    ("admins", "remove_admins", OrganizationRole::Admin),
    ("auditors", "remove_auditors", OrganizationRole::Auditor),
    ("users", "remove_users", OrganizationRole::Member),
];

impl LdapMaps {
    /// Reads the three settings' values (each `{}` or `null` when unset); the error names the
    /// setting's key path.
    pub fn parse(
        organizations: &Value,
        teams: &Value,
        flags: &Value,
    ) -> Result<LdapMaps, MapError> {
        Ok(LdapMaps {
            organizations: OrganizationEntry::parse_map(organizations)?,
            teams: TeamEntry::parse_map(teams)?,
            flags: UserFlagsByGroup::parse(flags)?,
        })
    }

    /// What a login whose user is in `groups` changes.
    pub fn plan(&self, groups: &[Dn]) -> Plan {
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
        let member = |wanted: &Option<Vec<(String, Dn)>>| {
            wanted
                .as_ref()
                .map(|wanted| wanted.iter().any(|(_, dn)| groups.contains(dn)))
        };
        plan.flags.superuser = member(&self.flags.superuser);
        plan.flags.system_auditor = member(&self.flags.system_auditor);
        plan
    }
}

impl OrganizationEntry {
    /// Reads `AUTH_LDAP_ORGANIZATION_MAP`.
    pub fn parse_map(value: &Value) -> Result<Vec<(String, OrganizationEntry)>, MapError> {
        entries(value)?
            .iter()
            .map(|(name, entry)| {
                OrganizationEntry::parse(entry)
                    .map(|entry| (name.clone(), entry))
                    .map_err(|error| error.under(name))
            })
            .collect()
    }

    fn parse(value: &Value) -> Result<OrganizationEntry, MapError> {
        let fields = dictionary(value)?;
        allow_only(
            fields,
            &ORGANIZATION_ROLES.map(|(k, _, _)| k),
            &ORGANIZATION_ROLES.map(|(_, r, _)| r),
        )?;
        let role = |key: &str| -> Result<GroupMatch, MapError> {
            fields.get(key).map_or(Ok(GroupMatch::Unchanged), |v| {
                GroupMatch::parse(v).map_err(|error| error.under(key))
            })
        };
        let remove = |key: &str| -> Result<bool, MapError> {
            fields
                .get(key)
                .map_or(Ok(true), |v| boolean(v).map_err(|e| e.under(key)))
        };
        Ok(OrganizationEntry {
            admins: role("admins")?,
            auditors: role("auditors")?,
            users: role("users")?,
            remove_admins: remove("remove_admins")?,
            remove_auditors: remove("remove_auditors")?,
            remove_users: remove("remove_users")?,
        })
    }

    /// The entry as it is stored and shown.
    pub fn json(&self) -> Value {
        json!({
            "admins": self.admins.json(),
            "auditors": self.auditors.json(),
            "users": self.users.json(),
            "remove_admins": self.remove_admins,
            "remove_auditors": self.remove_auditors,
            "remove_users": self.remove_users,
        })
    }
}

impl TeamEntry {
    /// Reads `AUTH_LDAP_TEAM_MAP`.
    pub fn parse_map(value: &Value) -> Result<Vec<(String, TeamEntry)>, MapError> {
        entries(value)?
            .iter()
            .map(|(name, entry)| {
                TeamEntry::parse(entry)
                    .map(|entry| (name.clone(), entry))
                    .map_err(|error| error.under(name))
            })
            .collect()
    }

    fn parse(value: &Value) -> Result<TeamEntry, MapError> {
        let fields = dictionary(value)?;
        allow_only(fields, &["organization", "users"], &["remove"])?;
        let organization = organization_of(fields)?;
        let users = fields.get("users").map_or(Ok(GroupMatch::Unchanged), |v| {
            GroupMatch::parse(v).map_err(|error| error.under("users"))
        })?;
        let remove = fields
            .get("remove")
            .map_or(Ok(true), |v| boolean(v).map_err(|e| e.under("remove")))?;
        Ok(TeamEntry {
            organization,
            users,
            remove,
        })
    }

    /// The entry as it is stored and shown.
    pub fn json(&self) -> Value {
        json!({
            "organization": self.organization,
            "users": self.users.json(),
            "remove": self.remove,
        })
    }
}

impl UserFlagsByGroup {
    /// Reads `AUTH_LDAP_USER_FLAGS_BY_GROUP`: `is_superuser` and `is_system_auditor`, each a
    /// DN or a non-empty list of DNs.
    pub fn parse(value: &Value) -> Result<UserFlagsByGroup, MapError> {
        let mut flags = UserFlagsByGroup::default();
        for (flag, groups) in entries(value)? {
            let flag = flag.as_str();
            let slot = match flag {
                "is_superuser" => &mut flags.superuser,
                "is_system_auditor" => &mut flags.system_auditor,
                other => {
                    return Err(MapError::at(
                        &[],
                        format!("Invalid user flag: \"{other}\"."),
                    ));
                }
            };
            let listed = match groups {
                Value::String(text) => vec![Value::String(text)],
                Value::Array(items) if items.is_empty() => {
                    return Err(MapError::at(&[flag], "This list may not be empty."));
                }
                Value::Array(items) => items,
                _ => {
                    return Err(MapError::at(&[flag], "Expected a DN or a list of DNs."));
                }
            };
            let parsed = listed
                .iter()
                .enumerate()
                .map(|(at, item)| match item.as_str() {
                    Some(text) if !text.trim().is_empty() => Dn::parse(text)
                        .map(|dn| (text.to_owned(), dn))
                        .map_err(|error| error.under(&at.to_string()).under(flag)),
                    _ => Err(MapError::at(
                        &[flag, &at.to_string()],
                        "This field may not be blank.",
                    )),
                })
                .collect::<Result<Vec<_>, _>>()?;
            *slot = Some(parsed);
        }
        Ok(flags)
    }

    /// The setting as it is stored and shown: every flag's groups as a list.
    pub fn json(&self) -> Value {
        let mut shown = Map::new();
        for (flag, groups) in [
            ("is_superuser", &self.superuser),
            ("is_system_auditor", &self.system_auditor),
        ] {
            if let Some(groups) = groups {
                shown.insert(
                    flag.to_owned(),
                    json!(
                        groups
                            .iter()
                            .map(|(written, _)| written)
                            .collect::<Vec<_>>()
                    ),
                );
            }
        }
        Value::Object(shown)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Change::{Add, Remove};
    use crate::OrganizationRole::{Admin, Auditor, Member};

    const OPS: &str = "cn=ops,ou=groups,dc=example,dc=org";
    const ADMINS: &str = "cn=admins,ou=groups,dc=example,dc=org";

    fn dn(text: &str) -> Dn {
        Dn::parse(text).expect("a DN")
    }

    fn maps(organizations: Value, teams: Value, flags: Value) -> LdapMaps {
        LdapMaps::parse(&organizations, &teams, &flags).expect("valid maps")
    }

    #[test]
    fn a_login_adds_what_its_groups_match_and_removes_the_rest() {
        let maps = maps(
            json!({
                "Ops": {"admins": ADMINS, "users": [OPS, ADMINS]},
                "Everyone": {"users": true, "admins": false, "remove_admins": false},
            }),
            json!({"On-call": {"organization": "Ops", "users": OPS}}),
            json!({"is_superuser": [ADMINS], "is_system_auditor": "cn=auditors,dc=org"}),
        );
        let ops_user = maps.plan(&[dn(OPS)]);
        assert_eq!(
            ops_user.organizations,
            [
                ("Ops".to_owned(), Admin, Remove),
                ("Ops".to_owned(), Member, Add),
                ("Everyone".to_owned(), Member, Add),
            ]
        );
        assert_eq!(
            ops_user.teams,
            [("Ops".to_owned(), "On-call".to_owned(), Add)]
        );
        assert_eq!(ops_user.flags.superuser, Some(false));
        assert_eq!(ops_user.flags.system_auditor, Some(false));

        let admin = maps.plan(&[dn(ADMINS)]);
        assert!(
            admin
                .organizations
                .contains(&("Ops".to_owned(), Admin, Add))
        );
        assert_eq!(
            admin.teams,
            [("Ops".to_owned(), "On-call".to_owned(), Remove)]
        );
        assert_eq!(admin.flags.superuser, Some(true));
        // The auditors role was left out of the map: nobody's is touched.
        assert!(
            admin
                .organizations
                .iter()
                .all(|(_, role, _)| *role != Auditor)
        );
    }

    #[test]
    fn each_remove_flag_stands_alone() {
        // The reference's loop chains the defaults: remove_admins false turned remove_users
        // off too. Here each one defaults to true by itself.
        let maps = maps(
            json!({"Ops": {"admins": ADMINS, "remove_admins": false, "users": OPS}}),
            json!({"On-call": {"organization": "Ops", "users": OPS, "remove": false}}),
            json!({}),
        );
        let outsider = maps.plan(&[]);
        assert_eq!(outsider.organizations, [("Ops".to_owned(), Member, Remove)]);
        assert!(outsider.teams.is_empty());
        assert_eq!(outsider.flags, crate::FlagPlan::default());
    }

    #[test]
    fn settings_are_refused_with_where_and_why() {
        #[rustfmt::skip]
        let rows: Vec<(Value, Value, Value, &str)> = vec![
            (json!({"Ops": {"remove": true}}), json!({}), json!({}), "Ops: remove: Invalid field."),
            (json!({"Ops": {"remove_users": "maybe"}}), json!({}), json!({}),
             "Ops: remove_users: Must be a valid boolean."),
            (json!({"Ops": {"users": "ops"}}), json!({}), json!({}), "Ops: users: Invalid DN: ops"),
            (json!({"Ops": []}), json!({}), json!({}),
             "Ops: Expected a dictionary of items but got type \"list\"."),
            (json!({}), json!({"On-call": {"users": OPS}}), json!({}),
             "On-call: organization: This field is required."),
            (json!({}), json!({"On-call": {"organization": " "}}), json!({}),
             "On-call: organization: This field may not be blank."),
            (json!({}), json!({"On-call": {"organization": "Ops", "admins": OPS}}), json!({}),
             "On-call: admins: Invalid field."),
            (json!({}), json!({}), json!({"is_staff": OPS}), "Invalid user flag: \"is_staff\"."),
            (json!({}), json!({}), json!({"is_superuser": []}),
             "is_superuser: This list may not be empty."),
            (json!({}), json!({}), json!({"is_superuser": [""]}),
             "is_superuser: 0: This field may not be blank."),
            (json!({}), json!({}), json!({"is_superuser": ["x"]}), "is_superuser: 0: Invalid DN: x"),
        ];
        for (organizations, teams, flags, message) in rows {
            let refused = LdapMaps::parse(&organizations, &teams, &flags).expect_err(message);
            assert_eq!(refused.to_string(), message);
        }
    }

    #[test]
    fn settings_are_stored_normalised() {
        let maps = maps(
            json!({"Ops": {"users": "CN=Ops,DC=org", "remove_users": "no"}}),
            json!({"On-call": {"organization": "Ops", "users": "yes"}}),
            json!({"is_superuser": "cn=admins,dc=org"}),
        );
        assert_eq!(
            maps.organizations[0].1.json(),
            json!({"admins": null, "auditors": null, "users": "cn=ops,dc=org",
                   "remove_admins": true, "remove_auditors": true, "remove_users": false})
        );
        assert_eq!(
            maps.teams[0].1.json(),
            json!({"organization": "Ops", "users": true, "remove": true})
        );
        assert_eq!(
            maps.flags.json(),
            json!({"is_superuser": ["cn=admins,dc=org"]})
        );
    }
}

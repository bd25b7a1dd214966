//! The single-sign-on maps: `SOCIAL_AUTH_ORGANIZATION_MAP` and `SOCIAL_AUTH_TEAM_MAP`, whose
//! values match a user by username or email (literals, or `/regex/flags` anchored at the
//! start, as the reference's `re.match`), with the reference's shapes and messages.

use regex::Regex;
use serde_json::{Map, Value, json};

use crate::{MapError, OrganizationRole, Plan};

/// One literal or pattern of a map value.
#[derive(Debug, Clone)]
pub enum Matcher {
    /// Equal to the username or the email (case counts).
    Literal(String),
    /// `/pattern/flags`: matches the username or the email from its start.
    Pattern {
        /// As stored: `/pattern/` and the flags (`i`, `m`).
        written: String,
        /// Compiled, anchored at the start.
        regex: Regex,
    },
}

impl PartialEq for Matcher {
    fn eq(&self, other: &Matcher) -> bool {
        self.written() == other.written()
    }
}

impl Eq for Matcher {}

impl Matcher {
    fn parse(text: &str) -> Result<Matcher, MapError> {
        let Some(body) = text.strip_prefix('/') else {
            return Ok(Matcher::Literal(text.to_owned()));
        };
        let Some((pattern, flags)) = body.rsplit_once('/') else {
            return Ok(Matcher::Literal(text.to_owned()));
        };
        if !flags.chars().all(|flag| matches!(flag, 'i' | 'm')) {
            return Ok(Matcher::Literal(text.to_owned()));
        }
        let mut inline = String::new();
        for flag in ['i', 'm'] {
            if flags.contains(flag) {
                inline.push(flag);
            }
        }
        // `\A`, not `^`: with `m`, `^` would also match after a newline, where the
        // reference's `re.match` only ever matches at the start.
        let anchored = if inline.is_empty() {
            format!("\\A(?:{pattern})")
        } else {
            format!("(?{inline})\\A(?:{pattern})")
        };
        let regex =
            Regex::new(&anchored).map_err(|error| MapError::at(&[], format!("{error}: {text}")))?;
        Ok(Matcher::Pattern {
            written: format!("/{pattern}/{inline}"),
            regex,
        })
    }

    fn written(&self) -> &str {
        match self {
            Matcher::Literal(text) => text,
            Matcher::Pattern { written, .. } => written,
        }
    }

    fn matches(&self, username: &str, email: &str) -> bool {
        match self {
            Matcher::Literal(text) => text == username || text == email,
            Matcher::Pattern { regex, .. } => regex.is_match(username) || regex.is_match(email),
        }
    }
}

/// Who a role of a single-sign-on map entry is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UserMatch {
    /// `null`: the login leaves the role as it is.
    Unchanged,
    /// `true`: everyone who signs in.
    Everyone,
    /// `false`: nobody.
    Nobody,
    /// The users any of these match; an empty list is nobody.
    AnyOf(Vec<Matcher>),
}

/// The exact words the reference reads as booleans (here not lowercased first: `"True"` is a
/// username).
const TRUE_WORDS: [&str; 6] = ["t", "y", "yes", "true", "on", "1"];
const FALSE_WORDS: [&str; 6] = ["f", "n", "no", "false", "off", "0"];

impl UserMatch {
    /// Reads a map value: `true`, `false`, `null`, 1 and 0, a boolean word, `"null"`/`""`, a
    /// literal or a `/regex/`; or a list of literals and regexes.
    pub fn parse(value: &Value) -> Result<UserMatch, MapError> {
        match value {
            Value::Null => Ok(UserMatch::Unchanged),
            Value::Bool(true) => Ok(UserMatch::Everyone),
            Value::Bool(false) => Ok(UserMatch::Nobody),
            Value::Number(n) if n.as_i64() == Some(1) => Ok(UserMatch::Everyone),
            Value::Number(n) if n.as_i64() == Some(0) => Ok(UserMatch::Nobody),
            Value::String(text) if TRUE_WORDS.contains(&text.as_str()) => Ok(UserMatch::Everyone),
            Value::String(text) if FALSE_WORDS.contains(&text.as_str()) => Ok(UserMatch::Nobody),
            Value::String(text) if text.is_empty() || text == "null" => Ok(UserMatch::Unchanged),
            Value::String(text) => Ok(UserMatch::AnyOf(vec![Matcher::parse(text)?])),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(at, item)| match item.as_str() {
                    Some(text) => Matcher::parse(text).map_err(|e| e.under(&at.to_string())),
                    None => Err(MapError::at(&[&at.to_string()], "Not a valid string.")),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(UserMatch::AnyOf),
            _ => Err(MapError::at(
                &[],
                "Expected None, True, False, a string or list of strings but got \
                 <class 'dict'> instead.",
            )),
        }
    }

    /// The value as stored: booleans and `null`, one string, or a list.
    pub fn json(&self) -> Value {
        match self {
            UserMatch::Unchanged => Value::Null,
            UserMatch::Everyone => json!(true),
            UserMatch::Nobody => json!(false),
            UserMatch::AnyOf(matchers) => match matchers.as_slice() {
                [one] => json!(one.written()),
                _ => json!(matchers.iter().map(Matcher::written).collect::<Vec<_>>()),
            },
        }
    }

    /// Whether the user `username` with `email` is one this value is for; `None` when it
    /// leaves the role as it is.
    pub fn matches(&self, username: &str, email: &str) -> Option<bool> {
        match self {
            UserMatch::Unchanged => None,
            UserMatch::Everyone => Some(true),
            UserMatch::Nobody => Some(false),
            UserMatch::AnyOf(matchers) => Some(matchers.iter().any(|m| m.matches(username, email))),
        }
    }
}

/// One organization's entry of `SOCIAL_AUTH_ORGANIZATION_MAP`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SocialOrganizationEntry {
    /// The organization's name when not the key (`organization_alias`).
    pub alias: Option<String>,
    /// Who is its admin.
    pub admins: UserMatch,
    /// Who is its member.
    pub users: UserMatch,
    /// Whether a user `admins` does not match loses the admin role (default true).
    pub remove_admins: bool,
    /// Whether a user `users` does not match loses the membership (default true).
    pub remove_users: bool,
}

/// One team's entry of `SOCIAL_AUTH_TEAM_MAP`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SocialTeamEntry {
    /// The team's organization, by name.
    pub organization: String,
    /// Who is its member.
    pub users: UserMatch,
    /// Whether a user `users` does not match leaves the team (default true).
    pub remove: bool,
}

/// The two single-sign-on maps, read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SocialMaps {
    /// By key, in the setting's order.
    pub organizations: Vec<(String, SocialOrganizationEntry)>,
    /// By team name, in the setting's order.
    pub teams: Vec<(String, SocialTeamEntry)>,
}

impl SocialMaps {
    /// Reads the two settings' values (`null` or `{}` when unset).
    pub fn parse(organizations: &Value, teams: &Value) -> Result<SocialMaps, MapError> {
        let organizations = crate::fields::entries(organizations)?
            .into_iter()
            .map(|(name, entry)| {
                organization_entry(&entry)
                    .map(|entry| (name.clone(), entry))
                    .map_err(|error| error.under(&name))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let teams = crate::fields::entries(teams)?
            .into_iter()
            .map(|(name, entry)| {
                team_entry(&entry)
                    .map(|entry| (name.clone(), entry))
                    .map_err(|error| error.under(&name))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(SocialMaps {
            organizations,
            teams,
        })
    }

    /// What a sign-in of `username` with `email` changes (never the user flags: the
    /// reference's maps do not set them).
    pub fn plan(&self, username: &str, email: &str) -> Plan {
        let mut plan = Plan::default();
        for (key, entry) in &self.organizations {
            let name = entry.alias.as_deref().unwrap_or(key);
            for (role, matched, remove) in [
                (OrganizationRole::Admin, &entry.admins, entry.remove_admins),
                (OrganizationRole::Member, &entry.users, entry.remove_users),
            ] {
                plan.organization_role(name, role, (matched.matches(username, email), remove));
            }
        }
        for (name, entry) in &self.teams {
            plan.team(
                &entry.organization,
                name,
                (entry.users.matches(username, email), entry.remove),
            );
        }
        plan
    }
}

impl SocialOrganizationEntry {
    /// The entry as it is stored and shown (every key, patterns as `/pattern/flags`).
    pub fn json(&self) -> Value {
        json!({
            "admins": self.admins.json(),
            "users": self.users.json(),
            "organization_alias": self.alias,
            "remove_admins": self.remove_admins,
            "remove_users": self.remove_users,
        })
    }
}

impl SocialTeamEntry {
    /// The entry as it is stored and shown.
    pub fn json(&self) -> Value {
        json!({
            "organization": self.organization,
            "users": self.users.json(),
            "remove": self.remove,
        })
    }
}

fn organization_entry(value: &Value) -> Result<SocialOrganizationEntry, MapError> {
    let fields = crate::fields::dictionary(value)?;
    crate::fields::allow_only(
        fields,
        &["admins", "users", "organization_alias"],
        &["remove_admins", "remove_users"],
    )?;
    let alias = match fields.get("organization_alias") {
        None | Some(Value::Null) => None,
        Some(Value::String(alias)) if alias.is_empty() => None,
        Some(Value::String(alias)) => Some(alias.clone()),
        Some(_) => {
            return Err(MapError::at(&["organization_alias"], "Not a valid string."));
        }
    };
    Ok(SocialOrganizationEntry {
        alias,
        admins: role(fields, "admins")?,
        users: role(fields, "users")?,
        remove_admins: remove(fields, "remove_admins")?,
        remove_users: remove(fields, "remove_users")?,
    })
}

fn team_entry(value: &Value) -> Result<SocialTeamEntry, MapError> {
    let fields = crate::fields::dictionary(value)?;
    crate::fields::allow_only(fields, &["organization", "users"], &["remove"])?;
    Ok(SocialTeamEntry {
        organization: crate::fields::organization_of(fields)?,
        users: role(fields, "users")?,
        remove: remove(fields, "remove")?,
    })
}

fn role(fields: &Map<String, Value>, key: &str) -> Result<UserMatch, MapError> {
    fields.get(key).map_or(Ok(UserMatch::Unchanged), |value| {
        UserMatch::parse(value).map_err(|error| error.under(key))
    })
}

fn remove(fields: &Map<String, Value>, key: &str) -> Result<bool, MapError> {
    fields.get(key).map_or(Ok(true), |value| {
        crate::fields::boolean(value).map_err(|error| error.under(key))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Change::{Add, Remove};
    use crate::OrganizationRole::{Admin, Member};

    /// The reference note's example.
    fn example() -> SocialMaps {
        SocialMaps::parse(
            &json!({
                "Default": {"users": true},
                "Eng": {
                    "admins": ["alice@example.com", "/^adm-.*@example\\.com$/i"],
                    "users": "/^[^@]+@example\\.com$/",
                    "remove_users": false,
                },
            }),
            &json!({"Oncall": {"organization": "Eng", "users": ["bob"]}}),
        )
        .expect("the example")
    }

    #[test]
    fn the_reference_example_maps_as_described() {
        let maps = example();
        let alice = maps.plan("alice", "alice@example.com");
        assert_eq!(
            alice.organizations,
            [
                ("Default".to_owned(), Member, Add),
                ("Eng".to_owned(), Admin, Add),
                ("Eng".to_owned(), Member, Add),
            ]
        );
        assert_eq!(
            alice.teams,
            [("Eng".to_owned(), "Oncall".to_owned(), Remove)]
        );
        let admin = maps.plan("x", "ADM-x@EXAMPLE.com");
        assert!(
            admin
                .organizations
                .contains(&("Eng".to_owned(), Admin, Add))
        );
        // Not of example.com: loses Eng admin, keeps (is not removed from) Eng membership.
        let other = maps.plan("carol", "carol@elsewhere.org");
        assert_eq!(
            other.organizations,
            [
                ("Default".to_owned(), Member, Add),
                ("Eng".to_owned(), Admin, Remove),
            ]
        );
        let bob = maps.plan("bob", "");
        assert_eq!(bob.teams, [("Eng".to_owned(), "Oncall".to_owned(), Add)]);
        assert_eq!(bob.flags, crate::FlagPlan::default());
    }

    #[test]
    fn patterns_are_anchored_at_the_start_and_words_are_not_lowercased() {
        let end = UserMatch::parse(&json!("/@example\\.com$/")).expect("a pattern");
        assert_eq!(end.matches("alice", "alice@example.com"), Some(false));
        assert_eq!(
            UserMatch::parse(&json!("True")).map(|m| m.matches("True", "")),
            Ok(Some(true))
        );
        assert_eq!(UserMatch::parse(&json!("true")), Ok(UserMatch::Everyone));
        let listed = UserMatch::parse(&json!(["true"])).expect("a literal in a list");
        assert_eq!(listed.matches("true", ""), Some(true));
        assert_eq!(listed.matches("bob", ""), Some(false));
        assert_eq!(
            UserMatch::parse(&json!("/^Adm/mi")).map(|m| m.json()),
            Ok(json!("/^Adm/im"))
        );
        // `m` changes what `^` means within the pattern, never where a match starts.
        let multiline = UserMatch::parse(&json!("/bob/m")).expect("a pattern");
        assert_eq!(multiline.matches("x\nbob", ""), Some(false));
        assert_eq!(multiline.matches("bobby", ""), Some(true));
    }

    #[test]
    fn settings_are_refused_with_where_and_why() {
        #[rustfmt::skip]
        let rows: Vec<(Value, Value, &str)> = vec![
            (json!({"Eng": {"auditors": true}}), json!({}), "Eng: auditors: Invalid field."),
            (json!({"Eng": {"remove": true}}), json!({}), "Eng: remove: Invalid field."),
            (json!({"Eng": {"users": [true]}}), json!({}), "Eng: users: 0: Not a valid string."),
            (json!({}), json!({"Oncall": {"users": "bob"}}),
             "Oncall: organization: This field is required."),
        ];
        for (organizations, teams, message) in rows {
            let refused = SocialMaps::parse(&organizations, &teams).expect_err(message);
            assert_eq!(refused.to_string(), message);
        }
        let refused = UserMatch::parse(&json!("/(/")).expect_err("a bad pattern");
        assert!(refused.message.ends_with(": /(/"), "{}", refused.message);
    }
}

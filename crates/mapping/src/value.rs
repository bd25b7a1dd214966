//! Which users a map entry's role is for: the reference's map value (`true`, `false`, `null`,
//! a group's DN, or a list of them), read with its rules.

use serde_json::{Value, json};

use crate::{Dn, MapError};

/// Who a role of a map entry is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GroupMatch {
    /// `null` (or the key left out): the login leaves the role as it is.
    Unchanged,
    /// `true`: every user of the directory.
    Everyone,
    /// `false`: nobody (so, with the entry's remove flag, everyone loses the role).
    Nobody,
    /// The members of any of these groups (as written, and parsed); an empty list is nobody.
    AnyOf(Vec<(String, Dn)>),
}

/// The strings the reference reads as booleans, once lowercased.
const TRUE_WORDS: [&str; 6] = ["t", "y", "yes", "true", "on", "1"];
const FALSE_WORDS: [&str; 6] = ["f", "n", "no", "false", "off", "0"];

impl GroupMatch {
    /// Reads a map value: `true`, `false`, `null`, 1 and 0; a list of DNs; or one string,
    /// lowercased, which is a boolean word, `"null"`/`""`, or a DN.
    pub fn parse(value: &Value) -> Result<GroupMatch, MapError> {
        match value {
            Value::Null => Ok(GroupMatch::Unchanged),
            Value::Bool(true) => Ok(GroupMatch::Everyone),
            Value::Bool(false) => Ok(GroupMatch::Nobody),
            Value::Number(n) if n.as_i64() == Some(1) => Ok(GroupMatch::Everyone),
            Value::Number(n) if n.as_i64() == Some(0) => Ok(GroupMatch::Nobody),
            Value::String(text) => {
                let text = text.to_lowercase();
                if TRUE_WORDS.contains(&text.as_str()) {
                    Ok(GroupMatch::Everyone)
                } else if FALSE_WORDS.contains(&text.as_str()) {
                    Ok(GroupMatch::Nobody)
                } else if text.is_empty() || text == "null" {
                    Ok(GroupMatch::Unchanged)
                } else {
                    let dn = Dn::parse(&text)?;
                    Ok(GroupMatch::AnyOf(vec![(text, dn)]))
                }
            }
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(at, item)| {
                    let index = at.to_string();
                    match item.as_str() {
                        Some(text) if !text.trim().is_empty() => Dn::parse(text)
                            .map(|dn| (text.to_owned(), dn))
                            .map_err(|error| error.under(&index)),
                        Some(_) => Err(MapError::at(&[&index], "This field may not be blank.")),
                        None => Err(MapError::at(&[&index], "Not a valid string.")),
                    }
                })
                .collect::<Result<Vec<_>, _>>()
                .map(GroupMatch::AnyOf),
            other => Err(MapError::at(
                &[],
                format!(
                    "Expected None, True, False, a string or list of strings but got {} instead.",
                    python_type(other)
                ),
            )),
        }
    }

    /// The value as it is stored and shown: booleans and `null` as such, a list as written,
    /// a single DN lowercased (as the reference stores it).
    pub fn json(&self) -> Value {
        match self {
            GroupMatch::Unchanged => Value::Null,
            GroupMatch::Everyone => json!(true),
            GroupMatch::Nobody => json!(false),
            GroupMatch::AnyOf(groups) => match groups.as_slice() {
                [(written, _)] if written.to_lowercase() == *written => json!(written),
                _ => json!(
                    groups
                        .iter()
                        .map(|(written, _)| written)
                        .collect::<Vec<_>>()
                ),
            },
        }
    }

    /// Whether a user in `groups` is one this value is for; `None` when it leaves the role
    /// as it is.
    pub fn matches(&self, groups: &[Dn]) -> Option<bool> {
        match self {
            GroupMatch::Unchanged => None,
            GroupMatch::Everyone => Some(true),
            GroupMatch::Nobody => Some(false),
            GroupMatch::AnyOf(wanted) => Some(wanted.iter().any(|(_, dn)| groups.contains(dn))),
        }
    }
}

/// How the reference's message names a JSON value's type.
pub(crate) fn python_type(value: &Value) -> &'static str {
    match value {
        Value::Object(_) => "<class 'dict'>",
        Value::Array(_) => "<class 'list'>",
        Value::String(_) => "<class 'str'>",
        Value::Bool(_) => "<class 'bool'>",
        Value::Number(number) if number.is_f64() => "<class 'float'>",
        Value::Number(_) => "<class 'int'>",
        Value::Null => "<class 'NoneType'>",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dn(text: &str) -> Dn {
        Dn::parse(text).expect("a DN")
    }

    #[test]
    fn values_read_as_the_reference_reads_them() {
        #[rustfmt::skip]
        let rows: Vec<(Value, GroupMatch)> = vec![
            (json!(null), GroupMatch::Unchanged),
            (json!(true), GroupMatch::Everyone),
            (json!(false), GroupMatch::Nobody),
            (json!(1), GroupMatch::Everyone),
            (json!(0), GroupMatch::Nobody),
            (json!("Yes"), GroupMatch::Everyone),
            (json!("OFF"), GroupMatch::Nobody),
            (json!("null"), GroupMatch::Unchanged),
            (json!(""), GroupMatch::Unchanged),
            (json!("CN=Ops,DC=org"),
             GroupMatch::AnyOf(vec![("cn=ops,dc=org".into(), dn("cn=ops,dc=org"))])),
            (json!([]), GroupMatch::AnyOf(vec![])),
            (json!(["CN=Ops,DC=org", "cn=dev,dc=org"]), GroupMatch::AnyOf(vec![
                ("CN=Ops,DC=org".into(), dn("cn=ops,dc=org")),
                ("cn=dev,dc=org".into(), dn("cn=dev,dc=org")),
            ])),
        ];
        for (value, expected) in rows {
            assert_eq!(GroupMatch::parse(&value), Ok(expected), "{value}");
        }
        // Stored as the reference stores them: one DN lowercased, a list as written.
        assert_eq!(
            GroupMatch::parse(&json!("CN=Ops,DC=org")).map(|m| m.json()),
            Ok(json!("cn=ops,dc=org"))
        );
        assert_eq!(
            GroupMatch::parse(&json!(["CN=Ops,DC=org"])).map(|m| m.json()),
            Ok(json!(["CN=Ops,DC=org"]))
        );
    }

    #[test]
    fn what_is_not_a_value_is_refused_with_where_and_why() {
        let refused = GroupMatch::parse(&json!({"a": 1})).expect_err("a dict");
        assert_eq!(
            refused.message,
            "Expected None, True, False, a string or list of strings but got <class 'dict'> instead."
        );
        let refused = GroupMatch::parse(&json!(["cn=ops,dc=org", true])).expect_err("a boolean");
        assert_eq!(refused.to_string(), "1: Not a valid string.");
        let refused = GroupMatch::parse(&json!(["  "])).expect_err("a blank");
        assert_eq!(refused.to_string(), "0: This field may not be blank.");
        let refused = GroupMatch::parse(&json!("ops")).expect_err("not a DN");
        assert_eq!(refused.to_string(), "Invalid DN: ops");
    }

    #[test]
    fn a_value_matches_its_groups_members() {
        let groups = [dn("cn=ops,dc=org")];
        let ops = GroupMatch::parse(&json!(["cn=OPS, dc=org"])).expect("a list");
        assert_eq!(ops.matches(&groups), Some(true));
        assert_eq!(ops.matches(&[]), Some(false));
        assert_eq!(GroupMatch::AnyOf(vec![]).matches(&groups), Some(false));
        assert_eq!(GroupMatch::Unchanged.matches(&groups), None);
        assert_eq!(GroupMatch::Everyone.matches(&[]), Some(true));
    }
}

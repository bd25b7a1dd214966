//! Where a directory user's groups are found: `AUTH_LDAP_GROUP_SEARCH`, the kind of group
//! (`AUTH_LDAP_GROUP_TYPE` with `AUTH_LDAP_GROUP_TYPE_PARAMS`), and the two gates
//! `AUTH_LDAP_REQUIRE_GROUP` and `AUTH_LDAP_DENY_GROUP`, with the reference's shapes and
//! messages. The search itself is the caller's: [`GroupType::membership`] says which filter
//! finds the groups that hold a user.

use serde_json::{Map, Value, json};

use crate::fields::dictionary;
use crate::{Dn, MapError};

/// How far a group search reaches below its base.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchScope {
    /// `SCOPE_BASE`: the base entry only.
    Base,
    /// `SCOPE_ONELEVEL`: the base's children.
    OneLevel,
    /// `SCOPE_SUBTREE`: the base and everything below it.
    Subtree,
}

/// `AUTH_LDAP_GROUP_SEARCH`: the groups a login may find.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupSearch {
    /// Base DN, as written.
    pub base: String,
    /// Scope.
    pub scope: SearchScope,
    /// Filter every group matches, such as `(objectClass=groupOfNames)`.
    pub filter: String,
}

impl GroupSearch {
    /// Reads the setting: `[]` (or `null`) is no search; otherwise exactly
    /// `[base_dn, scope, filter]`.
    pub fn parse(value: &Value) -> Result<Option<GroupSearch>, MapError> {
        let items = match value {
            Value::Null => return Ok(None),
            Value::Array(items) if items.is_empty() => return Ok(None),
            Value::Array(items) => items,
            _ => return Err(MapError::at(&[], "Expected a list of items.")),
        };
        let [base, scope, filter] = items.as_slice() else {
            return Err(MapError::at(
                &[],
                format!(
                    "Expected a list of three items but got {} instead.",
                    items.len()
                ),
            ));
        };
        let text = |value: &Value, at: &str| {
            value
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| MapError::at(&[at], "Not a valid string."))
        };
        let (base, scope, filter) = (text(base, "0")?, text(scope, "1")?, text(filter, "2")?);
        Dn::parse(&base).map_err(|error| error.under("0"))?;
        let scope = match scope.as_str() {
            "SCOPE_BASE" => SearchScope::Base,
            "SCOPE_ONELEVEL" => SearchScope::OneLevel,
            "SCOPE_SUBTREE" => SearchScope::Subtree,
            other => {
                return Err(MapError::at(
                    &["1"],
                    format!("\"{other}\" is not a valid choice."),
                ));
            }
        };
        if !is_filter(&filter) {
            return Err(MapError::at(&["2"], format!("Invalid filter: {filter}")));
        }
        Ok(Some(GroupSearch {
            base,
            scope,
            filter,
        }))
    }
}

/// Whether `text` is one parenthesised LDAP filter whose parentheses balance (RFC 4515: an
/// unescaped parenthesis in a value is written `\28` or `\29`).
fn is_filter(text: &str) -> bool {
    let text = text.trim();
    if !text.starts_with('(') || !text.ends_with(')') {
        return false;
    }
    let mut depth = 0usize;
    for (at, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth = match depth.checked_sub(1) {
                    Some(depth) => depth,
                    None => return false,
                };
                // The outer filter closes only at the very end.
                if depth == 0 && at + 1 != text.len() {
                    return false;
                }
            }
            '\0' => return false,
            _ => {}
        }
    }
    depth == 0
}

/// How a group names its members.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Membership {
    /// Each member's DN in attribute `member_attr` (`member`, `uniqueMember`,
    /// `roleOccupant`); when `nested`, the members of a member group are members too.
    ByDn {
        /// The attribute holding members' DNs.
        member_attr: String,
        /// Whether groups within groups count.
        nested: bool,
    },
    /// A POSIX group: the user's `uid` (or `user_attr`) in `memberUid`, or the user's
    /// `gidNumber` as the group's.
    Posix {
        /// The user's attribute whose value `memberUid` holds (`uid`).
        user_attr: String,
    },
}

/// `AUTH_LDAP_GROUP_TYPE` with its `AUTH_LDAP_GROUP_TYPE_PARAMS`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupType {
    /// The type's name as the setting gives it.
    pub name: String,
    /// How its groups name members.
    pub membership: Membership,
    /// The attribute that names a group (`cn`).
    pub name_attr: String,
}

/// A group type the reference offers: its name, the member attribute it fixes (`None`: the
/// `member_attr` parameter gives it), whether it is nested, whether it is POSIX, and the
/// parameters its constructor takes.
struct Kind {
    name: &'static str,
    member_attr: Option<&'static str>,
    nested: bool,
    posix: bool,
    params: &'static [&'static str],
}

const MEMBER_DN_PARAMS: &[&str] = &["member_attr", "name_attr"];
const NAME_PARAMS: &[&str] = &["name_attr"];

/// The reference's group types (django-auth-ldap's and AWX's `PosixUIDGroupType`).
const KINDS: &[Kind] = &[
    Kind::by_dn("MemberDNGroupType", None, false, MEMBER_DN_PARAMS),
    Kind::by_dn("NestedMemberDNGroupType", None, true, MEMBER_DN_PARAMS),
    Kind::by_dn("GroupOfNamesType", Some("member"), false, NAME_PARAMS),
    Kind::by_dn("NestedGroupOfNamesType", Some("member"), true, NAME_PARAMS),
    Kind::by_dn(
        "GroupOfUniqueNamesType",
        Some("uniqueMember"),
        false,
        NAME_PARAMS,
    ),
    Kind::by_dn(
        "NestedGroupOfUniqueNamesType",
        Some("uniqueMember"),
        true,
        NAME_PARAMS,
    ),
    Kind::by_dn(
        "ActiveDirectoryGroupType",
        Some("member"),
        false,
        NAME_PARAMS,
    ),
    Kind::by_dn(
        "NestedActiveDirectoryGroupType",
        Some("member"),
        true,
        NAME_PARAMS,
    ),
    Kind::by_dn(
        "OrganizationalRoleGroupType",
        Some("roleOccupant"),
        false,
        NAME_PARAMS,
    ),
    Kind::by_dn(
        "NestedOrganizationalRoleGroupType",
        Some("roleOccupant"),
        true,
        NAME_PARAMS,
    ),
    Kind::posix("PosixGroupType", NAME_PARAMS),
    Kind::posix("PosixUIDGroupType", &["name_attr", "ldap_group_user_attr"]),
];

impl Kind {
    const fn by_dn(
        name: &'static str,
        member_attr: Option<&'static str>,
        nested: bool,
        params: &'static [&'static str],
    ) -> Kind {
        Kind {
            name,
            member_attr,
            nested,
            posix: false,
            params,
        }
    }

    const fn posix(name: &'static str, params: &'static [&'static str]) -> Kind {
        Kind {
            name,
            member_attr: None,
            nested: false,
            posix: true,
            params,
        }
    }
}

/// `AUTH_LDAP_GROUP_TYPE`'s default.
pub const DEFAULT_GROUP_TYPE: &str = "MemberDNGroupType";

/// `AUTH_LDAP_GROUP_TYPE_PARAMS`'s default.
pub fn default_group_type_params() -> Value {
    json!({"member_attr": "member", "name_attr": "cn"})
}

impl GroupType {
    /// Checks `AUTH_LDAP_GROUP_TYPE` alone: one of the types the reference offers.
    pub fn check_name(value: &Value) -> Result<(), MapError> {
        let name = value
            .as_str()
            .ok_or_else(|| MapError::at(&[], "Not a valid string."))?;
        if KINDS.iter().any(|kind| kind.name == name) {
            Ok(())
        } else {
            Err(MapError::at(
                &[],
                format!("\"{name}\" is not a valid choice."),
            ))
        }
    }

    /// Checks `AUTH_LDAP_GROUP_TYPE_PARAMS` alone: a dictionary of attribute names under
    /// keys some type takes.
    pub fn check_params(value: &Value) -> Result<(), MapError> {
        let params = params_of(value)?;
        let known = |key: &str| KINDS.iter().any(|kind| kind.params.contains(&key));
        match params.keys().find(|key| !known(key)) {
            Some(key) => Err(MapError::at(&[], format!("Invalid key(s): \"{key}\"."))),
            None => Ok(()),
        }
    }

    /// The type `name` built with `params`, which must be parameters of that type; a
    /// member-DN type needs `member_attr`.
    pub fn new(name: &Value, params: &Value) -> Result<GroupType, MapError> {
        GroupType::check_name(name)?;
        let name = name.as_str().unwrap_or_default();
        let Some(kind) = KINDS.iter().find(|kind| kind.name == name) else {
            return Err(MapError::at(
                &[],
                format!("\"{name}\" is not a valid choice."),
            ));
        };
        let params = params_of(params)?;
        let invalid: Vec<String> = params
            .keys()
            .filter(|key| !kind.params.contains(&key.as_str()))
            .map(|key| format!("\"{key}\""))
            .collect();
        if !invalid.is_empty() {
            return Err(MapError::at(
                &[],
                format!("Invalid key(s): {}.", invalid.join(", ")),
            ));
        }
        let param = |key: &str, default: &str| {
            params
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or(default)
                .to_owned()
        };
        let membership = if kind.posix {
            Membership::Posix {
                user_attr: param("ldap_group_user_attr", "uid"),
            }
        } else {
            let member_attr = match kind.member_attr {
                Some(fixed) => fixed.to_owned(),
                None => params
                    .get("member_attr")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .ok_or_else(|| {
                        MapError::at(
                            &[],
                            "Missing required parameters in AUTH_LDAP_GROUP_TYPE_PARAMS.",
                        )
                    })?,
            };
            Membership::ByDn {
                member_attr,
                nested: kind.nested,
            }
        };
        Ok(GroupType {
            name: name.to_owned(),
            membership,
            name_attr: param("name_attr", "cn"),
        })
    }

    /// The user's attributes the search needs beyond its DN (a POSIX group's `uid` and
    /// `gidNumber`).
    pub fn user_attributes(&self) -> Vec<&str> {
        match &self.membership {
            Membership::ByDn { .. } => Vec::new(),
            Membership::Posix { user_attr } => vec![user_attr.as_str(), "gidNumber"],
        }
    }
}

fn params_of(value: &Value) -> Result<&Map<String, Value>, MapError> {
    let params = dictionary(value).map_err(|_| {
        MapError::at(
            &[],
            format!(
                "Invalid group_type parameters. Expected instance of dict but got {} instead.",
                crate::value::python_type(value)
            ),
        )
    })?;
    for (key, attribute) in params {
        let valid = attribute.as_str().is_some_and(|name| {
            !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == ';')
        });
        if !valid {
            return Err(MapError::at(&[key], "Enter an attribute name."));
        }
    }
    Ok(params)
}

/// `AUTH_LDAP_REQUIRE_GROUP` or `AUTH_LDAP_DENY_GROUP`: one group's DN, or none (`null`,
/// `""`). Case is kept as written.
pub fn parse_gate(value: &Value) -> Result<Option<(String, Dn)>, MapError> {
    match value {
        Value::Null => Ok(None),
        Value::String(text) if text.trim().is_empty() => Ok(None),
        Value::String(text) => Dn::parse(text).map(|dn| Some((text.clone(), dn))),
        _ => Err(MapError::at(&[], "Not a valid string.")),
    }
}

/// The two gates of a directory login.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GroupGates {
    /// Only members of this group may log in.
    pub require: Option<Dn>,
    /// Members of this group may not log in.
    pub deny: Option<Dn>,
}

impl GroupGates {
    /// Whether a user in `groups` may log in: inside the required group (when one is set),
    /// and outside the denied one.
    pub fn admit(&self, groups: &[Dn]) -> bool {
        let required = self.require.as_ref().is_none_or(|dn| groups.contains(dn));
        let denied = self.deny.as_ref().is_some_and(|dn| groups.contains(dn));
        required && !denied
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GROUPS: &str = "ou=groups,dc=example,dc=org";

    #[test]
    fn a_group_search_is_three_checked_parts() {
        let search = GroupSearch::parse(&json!([
            GROUPS,
            "SCOPE_SUBTREE",
            "(objectClass=groupOfNames)"
        ]))
        .expect("valid")
        .expect("set");
        assert_eq!(search.scope, SearchScope::Subtree);
        assert_eq!(GroupSearch::parse(&json!([])), Ok(None));
        #[rustfmt::skip]
        let refused = [
            (json!([GROUPS, "SCOPE_SUBTREE"]), "Expected a list of three items but got 2 instead."),
            (json!(["groups", "SCOPE_SUBTREE", "(cn=*)"]), "0: Invalid DN: groups"),
            (json!([GROUPS, "SCOPE_ALL", "(cn=*)"]), "1: \"SCOPE_ALL\" is not a valid choice."),
            (json!([GROUPS, "SCOPE_BASE", "cn=*"]), "2: Invalid filter: cn=*"),
            (json!([GROUPS, "SCOPE_BASE", "(cn=*))("]), "2: Invalid filter: (cn=*))("),
            (json!([GROUPS, "SCOPE_BASE", "(&(cn=*)"]), "2: Invalid filter: (&(cn=*)"),
            (json!("x"), "Expected a list of items."),
        ];
        for (value, message) in refused {
            assert_eq!(
                GroupSearch::parse(&value).expect_err(message).to_string(),
                message
            );
        }
        assert!(is_filter("(&(objectClass=posixGroup)(cn=a\\29b))"));
    }

    #[test]
    fn a_group_type_takes_only_its_own_parameters() {
        let member_dn = GroupType::new(&json!(DEFAULT_GROUP_TYPE), &default_group_type_params())
            .expect("the defaults agree");
        assert_eq!(
            member_dn.membership,
            Membership::ByDn {
                member_attr: "member".into(),
                nested: false
            }
        );
        let unique = GroupType::new(
            &json!("NestedGroupOfUniqueNamesType"),
            &json!({"name_attr": "cn"}),
        )
        .expect("valid");
        assert_eq!(
            unique.membership,
            Membership::ByDn {
                member_attr: "uniqueMember".into(),
                nested: true
            }
        );
        let posix = GroupType::new(&json!("PosixGroupType"), &json!({})).expect("valid");
        assert_eq!(posix.user_attributes(), ["uid", "gidNumber"]);
        #[rustfmt::skip]
        let refused = [
            ("GroupOfNamesType", default_group_type_params(), "Invalid key(s): \"member_attr\"."),
            ("MemberDNGroupType", json!({"name_attr": "cn"}),
             "Missing required parameters in AUTH_LDAP_GROUP_TYPE_PARAMS."),
            ("MemberDNGroupType", json!([]),
             "Invalid group_type parameters. Expected instance of dict but got <class 'list'> instead."),
            ("LDAPGroupType", json!({}), "\"LDAPGroupType\" is not a valid choice."),
            ("PosixGroupType", json!({"name_attr": "c n"}), "name_attr: Enter an attribute name."),
        ];
        for (name, params, message) in refused {
            let error = GroupType::new(&json!(name), &params).expect_err(message);
            assert_eq!(error.to_string(), message);
        }
        assert!(GroupType::check_params(&json!({"ldap_group_user_attr": "uid"})).is_ok());
        assert!(GroupType::check_params(&json!({"group_attr": "uid"})).is_err());
    }

    #[test]
    fn the_gates_require_then_deny() {
        let ops = Dn::parse("cn=ops,ou=groups,dc=example,dc=org").expect("a DN");
        let banned = Dn::parse("cn=banned,ou=groups,dc=example,dc=org").expect("a DN");
        let gates = GroupGates {
            require: Some(ops.clone()),
            deny: Some(banned.clone()),
        };
        assert!(gates.admit(std::slice::from_ref(&ops)));
        assert!(!gates.admit(&[]));
        assert!(!gates.admit(&[ops, banned]));
        assert!(GroupGates::default().admit(&[]));
        assert_eq!(parse_gate(&json!("")), Ok(None));
        assert_eq!(
            parse_gate(&json!("ops")).expect_err("not a DN").to_string(),
            "Invalid DN: ops"
        );
    }
}

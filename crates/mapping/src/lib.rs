//! Which organizations, teams and flags a directory user holds, from the groups the directory
//! puts them in: the reference's `AUTH_LDAP_ORGANIZATION_MAP`, `AUTH_LDAP_TEAM_MAP` and
//! `AUTH_LDAP_USER_FLAGS_BY_GROUP`, read and checked ([`LdapMaps::parse`] and the parsers of
//! each setting) and applied to one login's groups ([`LdapMaps::plan`]); and the
//! single-sign-on maps `SOCIAL_AUTH_ORGANIZATION_MAP` and `SOCIAL_AUTH_TEAM_MAP`, which match
//! the username or email ([`SocialMaps`]). Where a directory's groups are and who may log in
//! by them: `AUTH_LDAP_GROUP_SEARCH` ([`GroupSearch`]), `AUTH_LDAP_GROUP_TYPE` with its
//! parameters ([`GroupType`], how a group names its members) and the require and deny groups
//! ([`GroupGates`]). No I/O: the caller reads the settings and the directory, and carries out
//! the [`Plan`].
//!
//! # Example
//!
//! ```
//! use acs_mapping::{Change, Dn, LdapMaps, OrganizationRole};
//! use serde_json::json;
//!
//! let maps = LdapMaps::parse(
//!     &json!({"Ops": {"users": "cn=ops,ou=groups,dc=example,dc=org"}}),
//!     &json!({"On-call": {"organization": "Ops", "users": ["cn=ops,ou=groups,dc=example,dc=org"]}}),
//!     &json!({"is_system_auditor": "cn=auditors,ou=groups,dc=example,dc=org"}),
//! )
//! .expect("valid maps");
//! let groups = [Dn::parse("CN=ops, ou=groups, dc=example, dc=org").expect("a DN")];
//! let plan = maps.plan(&groups);
//! assert!(plan.organizations.contains(&(
//!     "Ops".to_owned(),
//!     OrganizationRole::Member,
//!     Change::Add
//! )));
//! assert_eq!(plan.flags.system_auditor, Some(false));
//! ```

mod claims;
mod dn;
mod error;
mod fields;
mod groups;
mod ldap;
mod plan;
mod social;
mod value;

pub use claims::{
    ClaimFlags, ClaimOrganizationEntry, ClaimTeamEntry, GroupClaimMaps, NameMatch, UnreadableClaim,
};
pub use dn::Dn;
pub use error::MapError;
pub use groups::{
    DEFAULT_GROUP_TYPE, GroupGates, GroupSearch, GroupType, Membership, SearchScope,
    default_group_type_params, parse_gate,
};
pub use ldap::{LdapMaps, OrganizationEntry, TeamEntry, UserFlagsByGroup};
pub use plan::{Change, FlagPlan, OrganizationRole, Plan};
pub use social::{Matcher, SocialMaps, SocialOrganizationEntry, SocialTeamEntry, UserMatch};
pub use value::GroupMatch;

//! Directory (LDAP) login: finds a user's entry, checks the password by binding as it, and
//! reads the attributes the user record takes. Every check asks the directory (nothing is
//! cached), so a password changed or an entry removed there counts at the next attempt.
//!
//! Values from the login form are escaped before they reach a DN (RFC 4514) or a filter
//! (RFC 4515), so a username cannot widen a search or name another entry.

use std::time::Duration;

use ldap3::{LdapConn, LdapConnSettings, Scope, SearchEntry, dn_escape, ldap_escape};

use acs_app::settings::directory::{DirectoryConfig, UserLookup};
use acs_app::settings::directory_groups::DirectoryGroups;
use acs_mapping::{Dn, GroupSearch, Membership, SearchScope};

/// How long connecting and each operation may take.
const TIMEOUT: Duration = Duration::from_secs(5);

/// How many levels of groups within groups a nested group type follows: a cycle in the
/// directory, or an unreasonably deep tree, stops there.
const MAX_NESTING: usize = 16;

/// A user the directory vouched for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectoryUser {
    /// The entry's DN as the directory spells it.
    pub dn: String,
    /// `first_name`, `last_name` and `email` from the attribute map (empty when absent).
    pub fields: Vec<(String, String)>,
    /// The groups the group search found the user in (none when no search is set).
    pub groups: Vec<Dn>,
}

impl DirectoryUser {
    /// The value of user field `field`.
    pub fn field(&self, field: &str) -> &str {
        self.fields
            .iter()
            .find(|(name, _)| name == field)
            .map_or("", |(_, value)| value.as_str())
    }
}

/// Why the directory could not answer (as opposed to answering no).
#[derive(Debug, thiserror::Error)]
pub enum DirectoryError {
    /// The server cannot be reached or spoke no LDAP.
    #[error("the directory server cannot be reached: {0}")]
    Unreachable(String),
    /// The server refused the configured bind DN and password.
    #[error("the directory refused the configured bind DN or password")]
    BindRefused,
    /// Another LDAP failure (a search the server refused, …).
    #[error("the directory answered with an error: {0}")]
    Protocol(String),
}

/// Checks `username` and `password` against the directory: `Some(user)` when the directory
/// knows the user and the password binds, `None` when it does not.
///
/// # Errors
///
/// A [`DirectoryError`] when the directory cannot give an answer.
pub fn authenticate(
    config: &DirectoryConfig,
    username: &str,
    password: &str,
) -> Result<Option<DirectoryUser>, DirectoryError> {
    // An empty password would be an unauthenticated bind, which LDAP answers with success.
    if password.is_empty() || username.is_empty() {
        return Ok(None);
    }
    let settings = LdapConnSettings::new()
        .set_conn_timeout(TIMEOUT)
        .set_starttls(config.start_tls);
    let mut conn = LdapConn::with_settings(settings, &config.uri)
        .map_err(|error| DirectoryError::Unreachable(error.to_string()))?;
    conn.with_timeout(TIMEOUT);
    let result = check(&mut conn, config, username, password);
    let _ = conn.unbind();
    result
}

fn check(
    conn: &mut LdapConn,
    config: &DirectoryConfig,
    username: &str,
    password: &str,
) -> Result<Option<DirectoryUser>, DirectoryError> {
    let dn = match &config.lookup {
        UserLookup::Template(template) => template.replace("%(user)s", &dn_escape(username)),
        UserLookup::Search {
            base,
            subtree,
            filter,
        } => {
            bind_service(conn, config)?;
            let scope = if *subtree {
                Scope::Subtree
            } else {
                Scope::OneLevel
            };
            let filter = filter.replace("%(user)s", &ldap_escape(username));
            let (entries, _) = conn
                .search(base, scope, &filter, vec!["1.1"])
                .and_then(ldap3::SearchResult::success)
                .map_err(protocol)?;
            // No entry, or several (an ambiguous filter): nobody to log in.
            let [entry] = entries.as_slice() else {
                return Ok(None);
            };
            SearchEntry::construct(entry.clone()).dn
        }
    };
    let bound = conn.simple_bind(&dn, password).map_err(protocol)?;
    if bound.rc != 0 {
        return Ok(None);
    }
    let mut attributes: Vec<&str> = config.attributes.iter().map(|(_, a)| a.as_str()).collect();
    if let Some(groups) = &config.groups {
        attributes.extend(groups.kind.user_attributes());
    }
    let read = conn
        .search(&dn, Scope::Base, "(objectClass=*)", attributes)
        .and_then(ldap3::SearchResult::success);
    let entry = match read {
        Ok((entries, _)) => entries.into_iter().next().map(SearchEntry::construct),
        Err(error) => {
            tracing::warn!(%error, "a directory user cannot read its own entry");
            None
        }
    };
    let fields = config
        .attributes
        .iter()
        .map(|(field, attribute)| {
            let value = entry
                .as_ref()
                .and_then(|entry| entry.attrs.get(attribute))
                .and_then(|values| values.first())
                .cloned()
                .unwrap_or_default();
            (field.clone(), value)
        })
        .collect();
    let groups = match &config.groups {
        None => Vec::new(),
        Some(wanted) => {
            // Groups are searched as the service account, as the users are.
            rebind_service(conn, config)?;
            let groups = groups_of(conn, wanted, &dn, entry.as_ref())?;
            if !wanted.gates.admit(&groups) {
                tracing::info!(dn = %dn, "directory login refused by the require or deny group");
                return Ok(None);
            }
            groups
        }
    };
    let dn = entry.map_or(dn, |entry| entry.dn);
    Ok(Some(DirectoryUser { dn, fields, groups }))
}

/// The groups the search finds `user_dn` in: by its DN in their member attribute (and, for a
/// nested type, by the DN of a group found so far, level by level), or for POSIX groups by
/// the user's `uid` in `memberUid` or its `gidNumber`.
fn groups_of(
    conn: &mut LdapConn,
    groups: &DirectoryGroups,
    user_dn: &str,
    entry: Option<&SearchEntry>,
) -> Result<Vec<Dn>, DirectoryError> {
    let search = &groups.search;
    match &groups.kind.membership {
        Membership::ByDn {
            member_attr,
            nested,
        } => {
            let mut found: Vec<(String, Dn)> = Vec::new();
            let mut frontier = vec![user_dn.to_owned()];
            for _ in 0..MAX_NESTING {
                let members: String = frontier
                    .iter()
                    .map(|dn| format!("({member_attr}={})", ldap_escape(dn)))
                    .collect();
                let hits = search_groups(conn, search, &format!("(|{members})"))?;
                frontier.clear();
                for hit in hits {
                    if !found.iter().any(|(_, known)| *known == hit.1) {
                        frontier.push(hit.0.clone());
                        found.push(hit);
                    }
                }
                if !nested || frontier.is_empty() {
                    break;
                }
            }
            Ok(found.into_iter().map(|(_, dn)| dn).collect())
        }
        Membership::Posix { user_attr } => {
            let first = |attribute: &str| {
                entry
                    .and_then(|entry| entry.attrs.get(attribute))
                    .and_then(|values| values.first())
                    .map(|value| ldap_escape(value).into_owned())
            };
            let mut either = String::new();
            if let Some(uid) = first(user_attr) {
                either.push_str(&format!("(memberUid={uid})"));
            }
            if let Some(gid) = first("gidNumber") {
                either.push_str(&format!("(gidNumber={gid})"));
            }
            if either.is_empty() {
                return Ok(Vec::new());
            }
            let hits = search_groups(conn, search, &format!("(|{either})"))?;
            Ok(hits.into_iter().map(|(_, dn)| dn).collect())
        }
    }
}

/// The groups under the search's base matching its filter and `membership`: each DN as the
/// directory spells it, and parsed.
fn search_groups(
    conn: &mut LdapConn,
    search: &GroupSearch,
    membership: &str,
) -> Result<Vec<(String, Dn)>, DirectoryError> {
    let scope = match search.scope {
        SearchScope::Base => Scope::Base,
        SearchScope::OneLevel => Scope::OneLevel,
        SearchScope::Subtree => Scope::Subtree,
    };
    let filter = format!("(&{}{membership})", search.filter);
    let (entries, _) = conn
        .search(&search.base, scope, &filter, vec!["1.1"])
        .and_then(ldap3::SearchResult::success)
        .map_err(protocol)?;
    Ok(entries
        .into_iter()
        .filter_map(|entry| {
            let dn = SearchEntry::construct(entry).dn;
            match Dn::parse(&dn) {
                Ok(parsed) => Some((dn, parsed)),
                Err(_) => {
                    tracing::warn!(%dn, "a group whose DN cannot be read is left out");
                    None
                }
            }
        })
        .collect())
}

/// Binds again as the service account after the user's bind (anonymously when none is set).
fn rebind_service(conn: &mut LdapConn, config: &DirectoryConfig) -> Result<(), DirectoryError> {
    if config.bind_dn.is_empty() {
        conn.simple_bind("", "").map_err(protocol)?;
        return Ok(());
    }
    bind_service(conn, config)
}

/// Binds as the configured service account, when there is one.
fn bind_service(conn: &mut LdapConn, config: &DirectoryConfig) -> Result<(), DirectoryError> {
    if config.bind_dn.is_empty() {
        return Ok(());
    }
    let bound = conn
        .simple_bind(&config.bind_dn, &config.bind_password)
        .map_err(protocol)?;
    if bound.rc == 0 {
        Ok(())
    } else {
        Err(DirectoryError::BindRefused)
    }
}

fn protocol(error: ldap3::LdapError) -> DirectoryError {
    match error {
        ldap3::LdapError::Io { .. } | ldap3::LdapError::Timeout { .. } => {
            DirectoryError::Unreachable(error.to_string())
        }
        other => DirectoryError::Protocol(other.to_string()),
    }
}

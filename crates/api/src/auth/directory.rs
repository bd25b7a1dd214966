//! Directory (LDAP) login: finds a user's entry, checks the password by binding as it, and
//! reads the attributes the user record takes. Every check asks the directory (nothing is
//! cached), so a password changed or an entry removed there counts at the next attempt.
//!
//! Values from the login form are escaped before they reach a DN (RFC 4514) or a filter
//! (RFC 4515), so a username cannot widen a search or name another entry.

use std::time::Duration;

use ldap3::{LdapConn, LdapConnSettings, Scope, SearchEntry, dn_escape, ldap_escape};

use acs_app::settings::directory::{DirectoryConfig, UserLookup};

/// How long connecting and each operation may take.
const TIMEOUT: Duration = Duration::from_secs(5);

/// A user the directory vouched for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectoryUser {
    /// The entry's DN as the directory spells it.
    pub dn: String,
    /// `first_name`, `last_name` and `email` from the attribute map (empty when absent).
    pub fields: Vec<(String, String)>,
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
    let attributes: Vec<&str> = config.attributes.iter().map(|(_, a)| a.as_str()).collect();
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
    let dn = entry.map_or(dn, |entry| entry.dn);
    Ok(Some(DirectoryUser { dn, fields }))
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

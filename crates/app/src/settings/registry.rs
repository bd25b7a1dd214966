//! The list of settings: name, category, default and validation of each.

use serde_json::{Value, json};

use super::{directory, directory_groups, social_maps};

/// A settings category served at `/api/v2/settings/<slug>/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Category {
    /// URL slug.
    pub slug: &'static str,
    /// Display name.
    pub name: &'static str,
}

/// The categories, in the order `GET /api/v2/settings/` lists them.
pub const CATEGORIES: &[Category] = &[
    Category {
        slug: "authentication",
        name: "Authentication",
    },
    Category {
        slug: "system",
        name: "System",
    },
    Category {
        slug: "jobs",
        name: "Jobs",
    },
    Category {
        slug: "ldap",
        name: "LDAP",
    },
    Category {
        slug: "oidc",
        name: "OpenID Connect",
    },
];

/// The scope of `/api/v2/settings/all/`: not a category of its own but every setting of
/// every category, listed first by `GET /api/v2/settings/` as the reference controller does.
pub const ALL: Category = Category {
    slug: "all",
    name: "All",
};

/// The category a setting names by slug (`None` for a slug no category has).
pub fn category(slug: &str) -> Option<&'static Category> {
    CATEGORIES.iter().find(|c| c.slug == slug)
}

/// Checks a proposed value and returns it normalised, or says what is wrong.
pub type Validator = fn(&Value) -> Result<Value, String>;

/// One setting.
#[derive(Debug, Clone, Copy)]
pub struct Definition {
    /// Name, as in the API and in `ACS_<NAME>`.
    pub name: &'static str,
    /// Category slug.
    pub category: &'static str,
    /// Short label.
    pub label: &'static str,
    /// What it does.
    pub help_text: &'static str,
    /// Value when none is stored.
    pub default: fn() -> Value,
    /// Validation.
    pub validate: Validator,
    /// The value is a secret: shown as `$encrypted$`.
    pub secret: bool,
}

/// Every setting.
pub const SETTINGS: &[Definition] = &[
    Definition {
        name: "AUTH_BASIC_ENABLED",
        category: "authentication",
        label: "Enable HTTP Basic Auth",
        help_text: "Accept HTTP Basic authentication on the API.",
        default: || json!(true),
        validate: boolean,
        secret: false,
    },
    Definition {
        name: "SESSION_COOKIE_AGE",
        category: "authentication",
        label: "Idle Time Force Log Out",
        help_text: "Seconds a session may stay idle before the user must log in again.",
        default: || json!(1800),
        validate: |v| integer_in(v, 60, 30_000_000_000),
        secret: false,
    },
    Definition {
        name: "SESSIONS_PER_USER",
        category: "authentication",
        label: "Maximum number of simultaneous logged in sessions",
        help_text: "Sessions one user may hold at once; -1 means no limit.",
        default: || json!(-1),
        validate: |v| integer_in(v, -1, i64::MAX),
        secret: false,
    },
    Definition {
        name: "SESSION_COOKIE_NAME",
        category: "authentication",
        label: "Session cookie name",
        help_text: "Name of the cookie that carries the session id.",
        default: || json!("acs_sessionid"),
        validate: cookie_name,
        secret: false,
    },
    Definition {
        name: "ALLOW_OAUTH2_FOR_EXTERNAL_USERS",
        category: "authentication",
        label: "Allow External Users to Create OAuth2 Tokens",
        help_text: "Let users from an external identity source (LDAP, OIDC) create OAuth 2 tokens.",
        default: || json!(false),
        validate: boolean,
        secret: false,
    },
    Definition {
        name: "SOCIAL_AUTH_ORGANIZATION_MAP",
        category: "authentication",
        label: "Social Auth Organization Map",
        help_text: "{organization: {admins, users: true, false, null, a username or email, a /regex/ (flags i, m; anchored at the start), or a list of them; remove_admins, remove_users: boolean, default true; organization_alias}}, applied at every single sign-on; an organization is made when a user is first added to it.",
        default: || Value::Null,
        validate: social_maps::organization_map,
        secret: false,
    },
    Definition {
        name: "SOCIAL_AUTH_TEAM_MAP",
        category: "authentication",
        label: "Social Auth Team Map",
        help_text: "{team: {organization: name, users: as in the organization map; remove: boolean, default true}}, applied at every single sign-on; a team is found by name within its organization, and made when a user is first added to it.",
        default: || Value::Null,
        validate: social_maps::team_map,
        secret: false,
    },
    Definition {
        name: "OAUTH2_PROVIDER",
        category: "authentication",
        label: "OAuth 2 Timeout Settings",
        help_text: "Lifetimes in seconds: ACCESS_TOKEN_EXPIRE_SECONDS, PERSONAL_ACCESS_TOKEN_EXPIRE_SECONDS, REFRESH_TOKEN_EXPIRE_SECONDS, AUTHORIZATION_CODE_EXPIRE_SECONDS, REFRESH_TOKEN_REUSE_GRACE_SECONDS.",
        default: || json!({}),
        validate: oauth2_provider,
        secret: false,
    },
    Definition {
        name: "CORS_ALLOWED_ORIGIN_REGEXES",
        category: "authentication",
        label: "CORS allowed origin regular expressions",
        help_text: "Origins matching one of these regular expressions may call the API from a browser.",
        default: || json!([]),
        validate: regex_list,
        secret: false,
    },
    Definition {
        name: "BASE_URL",
        category: "system",
        label: "Base URL of the service",
        help_text: "Public URL of this service, used to build absolute links; empty means taken from each request.",
        default: || json!(""),
        validate: base_url,
        secret: false,
    },
    Definition {
        name: "PROXY_IP_ALLOWED_LIST",
        category: "system",
        label: "Trusted proxy addresses",
        help_text: "Addresses of reverse proxies whose X-Forwarded-For and X-Forwarded-Proto headers are believed.",
        default: || json!([]),
        validate: ip_list,
        secret: false,
    },
    Definition {
        name: "CLEANUP_TOKENS_INTERVAL_SECONDS",
        category: "system",
        label: "Token clean-up interval",
        help_text: "Seconds between two runs of the clean-up of expired tokens and sessions each server does on its own (what cleanup_tokens does); 0 turns it off.",
        default: || json!(3600),
        validate: |v| integer_in(v, 0, MAX_CLEANUP_INTERVAL_SECONDS),
        secret: false,
    },
    Definition {
        name: "PROJECTS_ROOT",
        category: "jobs",
        label: "Projects root directory",
        help_text: "Directory under which project directories live.",
        default: || json!("/var/lib/acs/projects"),
        validate: absolute_path,
        secret: false,
    },
    Definition {
        name: "ANSIBLE_PLAYBOOK_PATH",
        category: "jobs",
        label: "ansible-playbook executable",
        help_text: "Path or name (looked up on PATH) of ansible-playbook.",
        default: || json!("ansible-playbook"),
        validate: executable,
        secret: false,
    },
    Definition {
        name: "ANSIBLE_INVENTORY_PATH",
        category: "jobs",
        label: "ansible-inventory executable",
        help_text: "Path or name (looked up on PATH) of ansible-inventory.",
        default: || json!("ansible-inventory"),
        validate: executable,
        secret: false,
    },
    Definition {
        name: "ANSIBLE_GALAXY_PATH",
        category: "jobs",
        label: "ansible-galaxy executable",
        help_text: "Path or name (looked up on PATH) of ansible-galaxy.",
        default: || json!("ansible-galaxy"),
        validate: executable,
        secret: false,
    },
    Definition {
        name: "ANSIBLE_CONFIG_PATH",
        category: "jobs",
        label: "ansible-config executable",
        help_text: "Path or name (looked up on PATH) of ansible-config; project updates show the content-source configuration with it.",
        default: || json!("ansible-config"),
        validate: executable,
        secret: false,
    },
    Definition {
        name: "PROJECT_UPDATE_VVV",
        category: "jobs",
        label: "Run Project Updates With Higher Verbosity",
        help_text: "Adds -vvv to the ansible-galaxy commands of project updates, for debugging.",
        default: || json!(false),
        validate: boolean,
        secret: false,
    },
    Definition {
        name: "DEFAULT_JOB_TIMEOUT",
        category: "jobs",
        label: "Default run timeout",
        help_text: "Seconds a job, project update or inventory update may run before it is stopped and marked failed; 0 means no limit.",
        default: || json!(0),
        validate: |v| integer_in(v, 0, MAX_JOB_TIMEOUT_SECONDS),
        secret: false,
    },
    Definition {
        name: "JOB_ISOLATION_ENABLED",
        category: "jobs",
        label: "Run isolation",
        help_text: "Run every job, project update and inventory update inside a bubblewrap sandbox that hides the server's files, other projects, home directories and logs. Turning it off lets every run read what the server can read.",
        default: || json!(true),
        validate: boolean,
        secret: false,
    },
    Definition {
        name: "JOB_ISOLATION_NETWORK",
        category: "jobs",
        label: "Network of isolated runs",
        help_text: "\"isolated\": each run has a network of its own, where 127.0.0.1 is the run itself, and reaches other machines through slirp4netns, never the host's own addresses; \"none\": only the run's own loopback; \"host\": the server's network and every service listening on the host (each such run logs a warning).",
        default: || json!("isolated"),
        validate: network_mode,
        secret: false,
    },
    Definition {
        name: "JOB_ISOLATION_SLIRP4NETNS_PATH",
        category: "jobs",
        label: "slirp4netns executable",
        help_text: "Path or name (looked up on PATH) of slirp4netns, the user-mode network stack of \"isolated\" runs.",
        default: || json!("slirp4netns"),
        validate: executable,
        secret: false,
    },
    Definition {
        name: "JOB_ISOLATION_TMPFS_MB",
        category: "jobs",
        label: "In-memory space of a run",
        help_text: "MiB each of a run's in-memory directories (/tmp, /var/tmp, /dev/shm) may hold; a write beyond fails with \"No space left on device\". 0 means no cap.",
        default: || json!(1024),
        validate: |v| integer_in(v, 0, 1_048_576),
        secret: false,
    },
    Definition {
        name: "JOB_ISOLATION_MAX_PROCESSES",
        category: "jobs",
        label: "Process limit of a run",
        help_text: "Processes and threads a run may have at once: the pids.max of a process cgroup of its own where the host gives the server the pids controller (cgroup v1, or v2 delegated); otherwise RLIMIT_NPROC, counted for the run user, so for all runs at once when they share one (JOB_ISOLATION_RUN_AS), and with the server's own threads when the server is not root. 0 means no limit.",
        default: || json!(4096),
        validate: |v| integer_in(v, 0, 4_194_304),
        secret: false,
    },
    Definition {
        name: "JOB_ISOLATION_MEMORY_MB",
        category: "jobs",
        label: "Memory limit of a run's processes",
        help_text: "MiB of data memory (heap and private writable mappings, RLIMIT_DATA) each process of a run may use; an allocation beyond fails. 0 means no limit.",
        default: || json!(4096),
        validate: |v| integer_in(v, 0, 16_777_216),
        secret: false,
    },
    Definition {
        name: "JOB_ISOLATION_CPU_SECONDS",
        category: "jobs",
        label: "CPU time limit of a run's processes",
        help_text: "Seconds of CPU time each process of a run may use (RLIMIT_CPU) before it is killed. 0 means no limit.",
        default: || json!(86_400),
        validate: |v| integer_in(v, 0, MAX_JOB_TIMEOUT_SECONDS),
        secret: false,
    },
    Definition {
        name: "JOB_ISOLATION_SHOW_PATHS",
        category: "jobs",
        label: "Paths shown to isolated runs",
        help_text: "Host paths every run sees, each \"/path\" (read-only) or \"/path:rw\" (writable): an SSH configuration, a CA bundle, a virtualenv. A writable path is shared by the runs of every organization: what one run writes there, the next reads.",
        default: || json!([]),
        validate: shown_paths,
        secret: false,
    },
    Definition {
        name: "JOB_ISOLATION_BWRAP_PATH",
        category: "jobs",
        label: "bwrap executable",
        help_text: "Path or name (looked up on PATH) of bubblewrap's bwrap.",
        default: || json!("bwrap"),
        validate: executable,
        secret: false,
    },
    Definition {
        name: "JOB_ISOLATION_RUN_AS",
        category: "jobs",
        label: "Run user",
        help_text: "When the server runs as root, the unprivileged user each run becomes inside its sandbox: a user name, a uid, or uid:gid.",
        default: || json!("nobody"),
        validate: run_user,
        secret: false,
    },
    Definition {
        name: "AUTH_LDAP_SERVER_URI",
        category: "ldap",
        label: "LDAP server URI",
        help_text: "ldap:// or ldaps:// URL of the directory; empty turns directory login off.",
        default: || json!(""),
        validate: directory::server_uri,
        secret: false,
    },
    Definition {
        name: "AUTH_LDAP_BIND_DN",
        category: "ldap",
        label: "LDAP bind DN",
        help_text: "DN the server binds as to search for users; empty searches anonymously.",
        default: || json!(""),
        validate: directory::dn,
        secret: false,
    },
    Definition {
        name: "AUTH_LDAP_BIND_PASSWORD",
        category: "ldap",
        label: "LDAP bind password",
        help_text: "Password of the bind DN; stored encrypted, shown as $encrypted$.",
        default: || json!(""),
        validate: directory::dn,
        secret: true,
    },
    Definition {
        name: "AUTH_LDAP_START_TLS",
        category: "ldap",
        label: "LDAP StartTLS",
        help_text: "Upgrade ldap:// connections with StartTLS before binding.",
        default: || json!(false),
        validate: boolean,
        secret: false,
    },
    Definition {
        name: "AUTH_LDAP_USER_SEARCH",
        category: "ldap",
        label: "LDAP user search",
        help_text: "[base DN, SCOPE_SUBTREE or SCOPE_ONELEVEL, filter with %(user)s]; [] turns search off.",
        default: || json!([]),
        validate: directory::user_search,
        secret: false,
    },
    Definition {
        name: "AUTH_LDAP_USER_DN_TEMPLATE",
        category: "ldap",
        label: "LDAP user DN template",
        help_text: "A user's DN with %(user)s for the username; wins over the search when set.",
        default: || json!(""),
        validate: directory::dn_template,
        secret: false,
    },
    Definition {
        name: "AUTH_LDAP_USER_ATTR_MAP",
        category: "ldap",
        label: "LDAP user attribute map",
        help_text: "Directory attribute of first_name, last_name and email.",
        default: || json!({"first_name": "givenName", "last_name": "sn", "email": "mail"}),
        validate: directory::attribute_map,
        secret: false,
    },
    Definition {
        name: directory_groups::GROUP_SEARCH,
        category: "ldap",
        label: "LDAP group search",
        help_text: "[base DN, SCOPE_BASE, SCOPE_ONELEVEL or SCOPE_SUBTREE, filter]: where a login finds the groups of its user; [] finds none. The require and deny groups, the flags and the organization and team maps need it.",
        default: || json!([]),
        validate: directory_groups::group_search,
        secret: false,
    },
    Definition {
        name: directory_groups::GROUP_TYPE,
        category: "ldap",
        label: "LDAP group type",
        help_text: "How the directory's groups name their members: MemberDNGroupType, GroupOfNamesType, GroupOfUniqueNamesType, ActiveDirectoryGroupType, OrganizationalRoleGroupType (each also Nested…), PosixGroupType or PosixUIDGroupType.",
        default: || json!(acs_mapping::DEFAULT_GROUP_TYPE),
        validate: directory_groups::group_type,
        secret: false,
    },
    Definition {
        name: directory_groups::GROUP_TYPE_PARAMS,
        category: "ldap",
        label: "LDAP group type parameters",
        help_text: "The group type's parameters: member_attr (member-DN types), name_attr, ldap_group_user_attr (PosixUIDGroupType).",
        default: acs_mapping::default_group_type_params,
        validate: directory_groups::group_type_params,
        secret: false,
    },
    Definition {
        name: directory_groups::REQUIRE_GROUP,
        category: "ldap",
        label: "LDAP require group",
        help_text: "DN of the group whose members alone may log in from the directory; null lets in every user.",
        default: || Value::Null,
        validate: directory_groups::group_gate,
        secret: false,
    },
    Definition {
        name: directory_groups::DENY_GROUP,
        category: "ldap",
        label: "LDAP deny group",
        help_text: "DN of the group whose members may not log in from the directory; null keeps nobody out.",
        default: || Value::Null,
        validate: directory_groups::group_gate,
        secret: false,
    },
    Definition {
        name: directory_groups::USER_FLAGS_BY_GROUP,
        category: "ldap",
        label: "LDAP user flags by group",
        help_text: "{\"is_superuser\": DN or [DNs], \"is_system_auditor\": DN or [DNs]}: each listed flag is set at every login to whether the user is in one of its groups, and may not be changed by hand.",
        default: || json!({}),
        validate: directory_groups::user_flags_by_group,
        secret: false,
    },
    Definition {
        name: directory_groups::ORGANIZATION_MAP,
        category: "ldap",
        label: "LDAP organization map",
        help_text: "{organization name: {admins, auditors, users: true, false, null, a DN or [DNs]; remove_admins, remove_auditors, remove_users: booleans, default true}}, applied at every login; an organization is made when a user is first added to it.",
        default: || json!({}),
        validate: directory_groups::organization_map,
        secret: false,
    },
    Definition {
        name: directory_groups::TEAM_MAP,
        category: "ldap",
        label: "LDAP team map",
        help_text: "{team name: {organization: name, users: true, false, null, a DN or [DNs]; remove: boolean, default true}}, applied at every login; a team is found by name within its organization, and made when a user is first added to it.",
        default: || json!({}),
        validate: directory_groups::team_map,
        secret: false,
    },
    Definition {
        name: "OIDC_PROVIDERS",
        category: "oidc",
        label: "OpenID Connect providers",
        help_text: "[{name, label, issuer, client_id, client_secret, scopes, groups}]; each gets a button on the login page. Client secrets are stored encrypted and shown as $encrypted$. groups (optional): {claim: the ID-token claim listing the user's groups, organizations: {name: {admins, auditors, users: true, false, null, a group name or a list; remove_admins, remove_auditors, remove_users: boolean, default true}}, teams: {name: {organization, users, remove}}, flags: {is_superuser, is_system_auditor: a group name or a list}}, applied at every sign-in.",
        default: || json!([]),
        validate: super::sso::validate,
        // The secrets are inside the list: `sso` seals and masks them.
        secret: false,
    },
];

/// Longest `DEFAULT_JOB_TIMEOUT` accepted: one week.
pub const MAX_JOB_TIMEOUT_SECONDS: i64 = 604_800;

/// The definition of a setting by name.
pub fn find(name: &str) -> Option<&'static Definition> {
    SETTINGS.iter().find(|def| def.name == name)
}

/// The reference's names of settings ACS names otherwise, `(reference's, ACS's)`: both are
/// read and written, for one stored value, so that the reference's clients (the collection's
/// `settings` module, which reads a setting from `/api/v2/settings/all/` before it writes
/// it) work unchanged.
pub const REFERENCE_NAMES: [(&str, &str); 1] =
    [("AWX_ISOLATION_SHOW_PATHS", "JOB_ISOLATION_SHOW_PATHS")];

/// The definition a request names, by its own name or by the reference's.
pub fn find_named(key: &str) -> Option<&'static Definition> {
    find(key).or_else(|| {
        REFERENCE_NAMES
            .iter()
            .find(|(reference, _)| *reference == key)
            .and_then(|(_, own)| find(own))
    })
}

/// The reference's name of setting `name`, when it has another.
pub fn reference_name(name: &str) -> Option<&'static str> {
    REFERENCE_NAMES
        .iter()
        .find(|(_, own)| *own == name)
        .map(|(reference, _)| *reference)
}

impl Definition {
    /// Whether the setting is served under `slug`: its own category's, or [`ALL`]'s.
    pub fn belongs_to(&self, slug: &str) -> bool {
        slug == ALL.slug || self.category == slug
    }
}

/// The settings served under `slug`: one category's, or every setting for [`ALL`].
pub fn in_category(slug: &str) -> impl Iterator<Item = &'static Definition> + '_ {
    SETTINGS.iter().filter(move |def| def.belongs_to(slug))
}

/// Longest `CLEANUP_TOKENS_INTERVAL_SECONDS` accepted: one year.
pub const MAX_CLEANUP_INTERVAL_SECONDS: i64 = 31_536_000;

/// Keys of `OAUTH2_PROVIDER` and their defaults.
pub const OAUTH2_PROVIDER_KEYS: &[(&str, i64)] = &[
    ("ACCESS_TOKEN_EXPIRE_SECONDS", 31_536_000),
    ("PERSONAL_ACCESS_TOKEN_EXPIRE_SECONDS", 31_536_000),
    ("REFRESH_TOKEN_EXPIRE_SECONDS", 2_628_000),
    ("AUTHORIZATION_CODE_EXPIRE_SECONDS", 600),
    ("REFRESH_TOKEN_REUSE_GRACE_SECONDS", 5),
];

fn boolean(value: &Value) -> Result<Value, String> {
    match value {
        Value::Bool(_) => Ok(value.clone()),
        _ => Err("Must be a valid boolean.".into()),
    }
}

fn integer_in(value: &Value, min: i64, max: i64) -> Result<Value, String> {
    let n = value.as_i64().ok_or("A valid integer is required.")?;
    if n < min {
        return Err(format!(
            "Ensure this value is greater than or equal to {min}."
        ));
    }
    if n > max {
        return Err(format!("Ensure this value is less than or equal to {max}."));
    }
    Ok(json!(n))
}

fn string(value: &Value) -> Result<&str, String> {
    value.as_str().ok_or_else(|| "Not a valid string.".into())
}

fn cookie_name(value: &Value) -> Result<Value, String> {
    let name = string(value)?;
    let valid = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if !valid || name == "csrftoken" || name == "userLoggedIn" || name == "current_user" {
        return Err(
            "Enter a cookie name of letters, digits, '_' or '-' not used by another cookie.".into(),
        );
    }
    Ok(value.clone())
}

fn oauth2_provider(value: &Value) -> Result<Value, String> {
    let map = value.as_object().ok_or("Expected a dictionary of items.")?;
    let unknown: Vec<&str> = map
        .keys()
        .map(String::as_str)
        .filter(|key| !OAUTH2_PROVIDER_KEYS.iter().any(|(known, _)| known == key))
        .collect();
    if !unknown.is_empty() {
        return Err(format!("Invalid key names: {}", unknown.join(", ")));
    }
    for (key, entry) in map {
        let n = entry
            .as_i64()
            .ok_or_else(|| format!("{key}: A valid integer is required."))?;
        let min = if key == "REFRESH_TOKEN_REUSE_GRACE_SECONDS" {
            0
        } else {
            1
        };
        if n < min {
            return Err(format!(
                "{key}: Ensure this value is greater than or equal to {min}."
            ));
        }
    }
    Ok(value.clone())
}

fn regex_list(value: &Value) -> Result<Value, String> {
    let items = value.as_array().ok_or("Expected a list of items.")?;
    for item in items {
        let pattern = item.as_str().ok_or("Each item must be a string.")?;
        regex::Regex::new(pattern)
            .map_err(|error| format!("'{pattern}' is not a valid regular expression: {error}"))?;
    }
    Ok(value.clone())
}

fn ip_list(value: &Value) -> Result<Value, String> {
    let items = value.as_array().ok_or("Expected a list of items.")?;
    for item in items {
        let address = item.as_str().ok_or("Each item must be a string.")?;
        address
            .parse::<std::net::IpAddr>()
            .map_err(|_| format!("'{address}' is not an IP address."))?;
    }
    Ok(value.clone())
}

fn base_url(value: &Value) -> Result<Value, String> {
    let text = string(value)?;
    if text.is_empty() {
        return Ok(value.clone());
    }
    let parsed = url::Url::parse(text).map_err(|_| "Enter a valid URL.".to_owned())?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err("Enter a valid http or https URL.".into());
    }
    Ok(json!(text.trim_end_matches('/')))
}

fn absolute_path(value: &Value) -> Result<Value, String> {
    let text = string(value)?;
    if !text.starts_with('/') || text.contains('\0') {
        return Err("Enter an absolute path.".into());
    }
    Ok(value.clone())
}

fn executable(value: &Value) -> Result<Value, String> {
    let text = string(value)?;
    if text.trim().is_empty() || text.contains('\0') {
        return Err("Enter a path or a command name.".into());
    }
    Ok(value.clone())
}

fn network_mode(value: &Value) -> Result<Value, String> {
    match string(value)? {
        "isolated" | "none" | "host" => Ok(value.clone()),
        other => Err(format!(
            "\"{other}\" is not a valid choice: choose \"isolated\", \"none\" or \"host\"."
        )),
    }
}

fn shown_paths(value: &Value) -> Result<Value, String> {
    let items = value.as_array().ok_or("Expected a list of items.")?;
    for item in items {
        let entry = item.as_str().ok_or("Each item must be a string.")?;
        super::ShownPath::parse(entry)?;
    }
    Ok(value.clone())
}

fn run_user(value: &Value) -> Result<Value, String> {
    let text = string(value)?;
    let valid = !text.is_empty()
        && text.len() <= 64
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'));
    if !valid {
        return Err("Enter a user name, a uid or uid:gid.".into());
    }
    Ok(value.clone())
}

/// Parses an `ACS_<NAME>` variable: JSON when it parses, else the plain string.
pub fn parse_environment_value(raw: &str) -> Value {
    serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_default_passes_its_own_validation() {
        for def in SETTINGS {
            assert!((def.validate)(&(def.default)()).is_ok(), "{}", def.name);
            assert!(
                CATEGORIES.iter().any(|c| c.slug == def.category),
                "{}",
                def.name
            );
        }
    }

    #[test]
    fn all_is_every_setting_and_a_category_only_its_own() {
        assert_eq!(in_category(ALL.slug).count(), SETTINGS.len());
        assert!(CATEGORIES.iter().all(|c| c.slug != ALL.slug));
        for c in CATEGORIES {
            assert!(in_category(c.slug).all(|def| def.category == c.slug));
            assert_eq!(category(c.slug), Some(c));
        }
        assert_eq!(category(ALL.slug), None);
    }

    #[test]
    fn validation_names_the_problem() {
        let cases: &[(&str, Value, &str)] = &[
            ("AUTH_BASIC_ENABLED", json!("yes"), "boolean"),
            (
                "SESSION_COOKIE_AGE",
                json!(59),
                "greater than or equal to 60",
            ),
            (
                "SESSIONS_PER_USER",
                json!(-2),
                "greater than or equal to -1",
            ),
            (
                "OAUTH2_PROVIDER",
                json!({"NOPE": 1}),
                "Invalid key names: NOPE",
            ),
            (
                "OAUTH2_PROVIDER",
                json!({"ACCESS_TOKEN_EXPIRE_SECONDS": 0}),
                "greater than or equal to 1",
            ),
            (
                "OAUTH2_PROVIDER",
                json!({"ACCESS_TOKEN_EXPIRE_SECONDS": "x"}),
                "valid integer",
            ),
            (
                "CORS_ALLOWED_ORIGIN_REGEXES",
                json!(["("]),
                "not a valid regular expression",
            ),
            ("BASE_URL", json!("ftp://x"), "http or https"),
            (
                "PROXY_IP_ALLOWED_LIST",
                json!(["nope"]),
                "not an IP address",
            ),
            ("SESSION_COOKIE_NAME", json!("csrftoken"), "cookie name"),
            ("PROJECTS_ROOT", json!("relative"), "absolute path"),
            (
                "CLEANUP_TOKENS_INTERVAL_SECONDS",
                json!(-1),
                "greater than or equal to 0",
            ),
            (
                "CLEANUP_TOKENS_INTERVAL_SECONDS",
                json!(1.5),
                "valid integer",
            ),
        ];
        for (name, value, expected) in cases {
            let def = find(name).expect("registered");
            let error = (def.validate)(value).expect_err(name);
            assert!(error.contains(expected), "{name}: {error}");
        }
    }

    #[test]
    fn grace_period_may_be_zero() {
        assert!(oauth2_provider(&json!({"REFRESH_TOKEN_REUSE_GRACE_SECONDS": 0})).is_ok());
    }

    #[test]
    fn environment_values_parse_as_json_or_text() {
        assert_eq!(parse_environment_value("false"), json!(false));
        assert_eq!(parse_environment_value("[\"a\"]"), json!(["a"]));
        assert_eq!(parse_environment_value("acs_sid"), json!("acs_sid"));
    }
}

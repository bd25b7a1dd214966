//! The directory half of a password check: asks the directory configured in the `ldap`
//! settings, then finds the user it linked to that entry, or creates it on a first login
//! (`external_account: "ldap"`, username made unique) and keeps its name and e-mail in step
//! with the directory; then, in the same transaction, gives it the memberships and flags its
//! groups decide (`AUTH_LDAP_ORGANIZATION_MAP`, `AUTH_LDAP_TEAM_MAP`,
//! `AUTH_LDAP_USER_FLAGS_BY_GROUP`).

use acs_storage::users::{User, UserValues};

use super::directory::{self, DirectoryUser};
use crate::error::ApiResult;
use crate::store::Store;
use acs_app::settings::directory::DirectoryConfig;

/// The identity source name, as users' `external_account` and the link table record it.
pub const SOURCE: &str = "ldap";

/// What the directory said of a username and password.
#[derive(Debug)]
pub enum Answer {
    /// It vouches for them, and the linked user is active.
    Vouched(User),
    /// It does not (or no directory is configured, or the linked user is inactive).
    Refused,
    /// It could not be asked: why, for the login page (also logged).
    Unavailable(String),
}

/// Asks the directory about `username` and `password`, linking or creating the user it
/// vouches for.
pub fn check(store: &mut Store<'_>, username: &str, password: &str) -> ApiResult<Answer> {
    let settings = store.settings()?;
    let cipher = store.state.keys.cipher();
    let Some(config) = DirectoryConfig::of(&settings, |stored| {
        acs_app::settings::open_secret(&cipher, "AUTH_LDAP_BIND_PASSWORD", stored)
    }) else {
        return Ok(Answer::Refused);
    };
    // The directory may take a while: give the connection back meanwhile.
    store.release();
    let entry = match directory::authenticate(&config, username, password) {
        Ok(Some(entry)) => entry,
        Ok(None) => return Ok(Answer::Refused),
        Err(error) => {
            tracing::warn!(%error, uri = %config.uri, "directory login unavailable");
            return Ok(Answer::Unavailable(error.to_string()));
        }
    };
    let now = store.now;
    let plan = config
        .groups
        .as_ref()
        .map(|groups| groups.maps.plan(&entry.groups));
    let user = store.write(|conn| {
        let Some(user) = link(conn, username, &entry, now)? else {
            return Ok(None);
        };
        match plan
            .as_ref()
            .filter(|plan| !plan.is_empty() && user.is_active)
        {
            None => Ok(Some(user)),
            Some(plan) => {
                let applied = acs_app::login_mapping::apply(conn, &user, plan, SOURCE, now)?;
                if applied != Default::default() {
                    tracing::info!(
                        user = user.id,
                        memberships = applied.memberships,
                        made = applied.made,
                        flags = applied.user.is_some(),
                        "directory groups applied"
                    );
                }
                Ok(Some(applied.user.unwrap_or(user)))
            }
        }
    })?;
    Ok(match user {
        Some(user) if user.is_active => Answer::Vouched(user),
        _ => Answer::Refused,
    })
}

/// The user linked to `entry`, updated from it, or a new one linked to it.
fn link(
    conn: &mut acs_storage::DbConnection,
    username: &str,
    entry: &DirectoryUser,
    now: acs_storage::Timestamp,
) -> ApiResult<Option<User>> {
    // DNs compare case-insensitively.
    let subject = entry.dn.to_lowercase();
    let fields = UserValues {
        first_name: Some(entry.field("first_name").to_owned()),
        last_name: Some(entry.field("last_name").to_owned()),
        email: Some(entry.field("email").to_owned()),
        ..UserValues::default()
    };
    if let Some(user) = acs_storage::external_identities::find_user(conn, SOURCE, "", &subject)? {
        let unchanged = fields.first_name.as_deref() == Some(user.first_name.as_str())
            && fields.last_name.as_deref() == Some(user.last_name.as_str())
            && fields.email.as_deref() == Some(user.email.as_str());
        if unchanged {
            return Ok(Some(user));
        }
        return Ok(Some(acs_storage::users::update(
            conn, user.id, &fields, now,
        )?));
    }
    let user = acs_storage::external_identities::create_user(
        conn,
        &acs_storage::external_identities::Vouched {
            source: SOURCE,
            issuer: "",
            subject: &subject,
            username,
            first_name: entry.field("first_name"),
            last_name: entry.field("last_name"),
            email: entry.field("email"),
        },
        now,
    )?;
    tracing::info!(user = user.id, username = %user.username, "directory user created");
    Ok(Some(user))
}

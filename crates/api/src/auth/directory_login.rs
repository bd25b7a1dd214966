//! The directory half of a password check: asks the directory configured in the `ldap`
//! settings, then finds the user it linked to that entry, or creates it on a first login
//! (`external_account: "ldap"`, username made unique) and keeps its name and e-mail in step
//! with the directory.

use acs_storage::users::{User, UserChanges};

use super::directory::{self, DirectoryUser};
use crate::context::Context;
use crate::error::ApiResult;
use acs_app::settings::directory::DirectoryConfig;

/// The identity source name, as users' `external_account` and the link table record it.
pub const SOURCE: &str = "ldap";

/// `Some(user)` when the directory vouches for `username` and `password` and the linked user
/// is active; `None` otherwise (also when the directory cannot be asked: that is logged).
pub fn check(ctx: &mut Context<'_>, username: &str, password: &str) -> ApiResult<Option<User>> {
    let settings = ctx.settings()?;
    let cipher = &ctx.state.input_cipher;
    let Some(config) = DirectoryConfig::of(&settings, |stored| {
        acs_app::settings::open_secret(cipher, "AUTH_LDAP_BIND_PASSWORD", stored)
    }) else {
        return Ok(None);
    };
    // The directory may take a while: give the connection back meanwhile.
    ctx.release();
    let entry = match directory::authenticate(&config, username, password) {
        Ok(Some(entry)) => entry,
        Ok(None) => return Ok(None),
        Err(error) => {
            tracing::warn!(%error, uri = %config.uri, "directory login unavailable");
            ctx.directory_problem = Some(error.to_string());
            return Ok(None);
        }
    };
    let now = ctx.now;
    let user = ctx.write(|conn| link(conn, username, &entry, now))?;
    Ok(user.filter(|user| user.is_active))
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
    let fields = UserChanges {
        first_name: Some(entry.field("first_name").to_owned()),
        last_name: Some(entry.field("last_name").to_owned()),
        email: Some(entry.field("email").to_owned()),
        ..UserChanges::default()
    };
    if let Some(user) = acs_storage::external_identities::find_user(conn, SOURCE, "", &subject)? {
        let unchanged = fields.first_name.as_deref() == Some(user.first_name.as_str())
            && fields.last_name.as_deref() == Some(user.last_name.as_str())
            && fields.email.as_deref() == Some(user.email.as_str());
        if unchanged {
            return Ok(Some(user));
        }
        let changes = UserChanges {
            modified: Some(now),
            ..fields
        };
        return Ok(Some(acs_storage::users::update(conn, user.id, &changes)?));
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

//! The user record.

use acs_storage::users::{Memberships, User};
use serde::Serialize;

use crate::auth::Principal;
use crate::http::render::{Capabilities, Record, timestamp};

pub use acs_app::users::target_of;

/// A user as the API shows it: the common record fields first, then the user's own. The
/// password is never shown; `$encrypted$` stands in for it.
pub type UserRecord = Record<Related, SummaryFields, UserFields>;

/// A user record's links: the roles granted to the user (awxkit's `users grant` posts there).
#[derive(Debug, Clone, Serialize)]
pub struct Related {
    roles: String,
}

/// What a user record summarizes: what the viewer may do to the user.
#[derive(Debug, Clone, Serialize)]
pub struct SummaryFields {
    user_capabilities: Capabilities,
}

/// A user record's own fields.
#[derive(Debug, Clone, Serialize)]
pub struct UserFields {
    username: String,
    first_name: String,
    last_name: String,
    email: String,
    is_superuser: bool,
    is_system_auditor: bool,
    password: &'static str,
    last_login: Option<String>,
    external_account: Option<String>,
}

/// Renders `user` as `viewer` sees it.
pub fn render_user(viewer: &Principal, user: &User, memberships: &Memberships) -> UserRecord {
    let caps = acs_authz::user_capabilities(&viewer.actor, &target_of(user, memberships));
    Record::new(
        "user",
        user.id,
        format!("/api/v2/users/{}/", user.id),
        (&user.created, &user.modified),
        Related {
            roles: format!("/api/v2/users/{}/roles/", user.id),
        },
        SummaryFields {
            user_capabilities: caps.into(),
        },
        UserFields {
            username: user.username.clone(),
            first_name: user.first_name.clone(),
            last_name: user.last_name.clone(),
            email: user.email.clone(),
            is_superuser: user.is_superuser,
            is_system_auditor: user.is_system_auditor,
            password: "$encrypted$",
            last_login: user.last_login.as_ref().map(timestamp),
            external_account: user.external_account.clone(),
        },
    )
}

//! The user record.

use acs_authz::TargetUser;
use acs_storage::users::{Memberships, User};
use serde_json::{Value, json};

use crate::auth::Principal;
use crate::http::render::{capabilities, envelope, optional_timestamp};

/// The facts `authz` needs about a user.
pub fn target_of(user: &User, memberships: &Memberships) -> TargetUser {
    TargetUser {
        id: user.id,
        is_superuser: user.is_superuser,
        is_system_auditor: user.is_system_auditor,
        admin_of: memberships.admin_of.clone(),
        member_of: memberships.member_of.clone(),
    }
}

/// Renders `user` as `viewer` sees it. The password is never shown: `$encrypted$` stands in.
pub fn render_user(viewer: &Principal, user: &User, memberships: &Memberships) -> Value {
    let caps = acs_authz::user_capabilities(&viewer.actor, &target_of(user, memberships));
    let mut record = envelope(
        user.id,
        "user",
        format!("/api/v2/users/{}/", user.id),
        json!({}),
        json!({ "user_capabilities": capabilities(caps) }),
        &user.created,
        &user.modified,
    );
    record.insert("username".into(), json!(user.username));
    record.insert("first_name".into(), json!(user.first_name));
    record.insert("last_name".into(), json!(user.last_name));
    record.insert("email".into(), json!(user.email));
    record.insert("is_superuser".into(), json!(user.is_superuser));
    record.insert("is_system_auditor".into(), json!(user.is_system_auditor));
    record.insert("password".into(), json!("$encrypted$"));
    record.insert(
        "last_login".into(),
        optional_timestamp(user.last_login.as_ref()),
    );
    record.insert("external_account".into(), json!(user.external_account));
    Value::Object(record)
}

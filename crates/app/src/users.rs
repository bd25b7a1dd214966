//! Users as the rules see them, and the writes of a user record: created, changed (a new
//! password ends their other sessions) and deleted with what they hold. Each write is one
//! transaction with its activity-stream entry. Passwords arrive hashed: hashing takes a
//! while, and the caller does it without holding a connection.

use acs_authz::TargetUser;
use acs_storage::tokens::TokenHolder;
use acs_storage::users::{Memberships, User, UserValues};
use acs_storage::{DbConnection, StorageError};
use serde::Serialize;

use crate::activity::{self, Subject};
use crate::{AppError, AppResult, Writer, token_holders};

/// The message for a taken username.
pub const USERNAME_TAKEN: &str = "A user with that username already exists.";

/// User fields as a request gave them, read and checked for form; `None` means "not given".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserInput {
    /// Username.
    pub username: Option<String>,
    /// The new password in clear, to be hashed by the caller; on creation `""` for an account
    /// without one.
    pub password: Option<String>,
    /// First name.
    pub first_name: Option<String>,
    /// Last name.
    pub last_name: Option<String>,
    /// Email address.
    pub email: Option<String>,
    /// Superuser flag.
    pub is_superuser: Option<bool>,
    /// System auditor flag.
    pub is_system_auditor: Option<bool>,
}

impl UserInput {
    /// The privilege flags, as the rules read them.
    pub fn flags(&self) -> acs_authz::UserFlags {
        acs_authz::UserFlags {
            is_superuser: self.is_superuser,
            is_system_auditor: self.is_system_auditor,
        }
    }
}

/// The facts `acs_authz` needs about `user`, who holds `memberships`.
pub fn target_of(user: &User, memberships: &Memberships) -> TargetUser {
    TargetUser {
        id: user.id,
        is_superuser: user.is_superuser,
        is_system_auditor: user.is_system_auditor,
        admin_of: memberships.admin_of.clone(),
        member_of: memberships.member_of.clone(),
    }
}

/// Creates the user `input` describes (its username given), with the password hash
/// `password` (`acs_storage::users::UNUSABLE_PASSWORD` for none), if the writer may create a
/// user with those flags. Recorded as a creation with the record `render` shows.
pub fn create<R: Serialize>(
    writer: &Writer<'_>,
    conn: &mut DbConnection,
    input: &UserInput,
    password: String,
    render: impl Fn(&User) -> R,
) -> AppResult<User> {
    acs_authz::can_create_user(writer.actor, input.flags())?;
    let values = UserValues {
        username: input.username.clone(),
        password: Some(password),
        first_name: Some(input.first_name.clone().unwrap_or_default()),
        last_name: Some(input.last_name.clone().unwrap_or_default()),
        email: Some(input.email.clone().unwrap_or_default()),
        is_superuser: Some(input.is_superuser.unwrap_or(false)),
        is_system_auditor: Some(input.is_system_auditor.unwrap_or(false)),
        is_active: Some(true),
        external_account: Some(None),
    };
    let user = writer.pool.transaction(conn, |conn| {
        let user = acs_storage::users::insert(conn, &values, writer.now).map_err(username_taken)?;
        writer.record_creation(conn, &Subject::user(&user), &render(&user))?;
        Ok::<_, AppError>(user)
    })?;
    tracing::info!(actor = writer.user.id, user = user.id, "user created");
    Ok(user)
}

/// Writes what `input` changes of `before` (the checks of who may change what were made by
/// the caller), with the new password hash `password` if one was given: it ends the user's
/// other sessions, all but `keep` (the writer's own, when they change their own password).
/// Recorded as an update from the record `render` shows of the user before to the one after,
/// a new password shown masked.
pub fn change<R: Serialize>(
    writer: &Writer<'_>,
    conn: &mut DbConnection,
    before: &User,
    (input, password, keep): (&UserInput, Option<String>, Option<i64>),
    render: impl Fn(&User) -> R,
) -> AppResult<User> {
    let password_changed = password.is_some();
    let values = UserValues {
        username: input.username.clone(),
        password,
        first_name: input.first_name.clone(),
        last_name: input.last_name.clone(),
        email: input.email.clone(),
        is_superuser: input.is_superuser,
        is_system_auditor: input.is_system_auditor,
        ..UserValues::default()
    };
    let updated = writer.pool.transaction(conn, |conn| {
        let updated = acs_storage::users::update(conn, before.id, &values, writer.now)
            .map_err(username_taken)?;
        if password_changed {
            acs_storage::sessions::delete_for_user_except(conn, before.id, keep)?;
        }
        let mut changes = activity::diff(&render(before), &render(&updated))?;
        if password_changed && let Some(fields) = changes.as_object_mut() {
            fields.insert("password".into(), serde_json::json!(acs_oauth2::MASK));
        }
        let subject = Subject::user(&updated);
        activity::record(
            conn,
            writer.now,
            Some(writer.user),
            "update",
            &subject,
            None,
            changes,
        )?;
        Ok::<_, AppError>(updated)
    })?;
    tracing::info!(
        actor = writer.user.id,
        user = before.id,
        password_changed,
        "user updated"
    );
    Ok(updated)
}

/// Deletes `user` (whose facts are `target`) with their sessions, tokens and memberships, if
/// the writer may. Recorded with their last record `shown`.
pub fn delete(
    writer: &Writer<'_>,
    conn: &mut DbConnection,
    (user, target): (&User, &TargetUser),
    shown: &impl Serialize,
) -> AppResult<Subject> {
    acs_authz::can_delete_user(writer.actor, target)?;
    let subject = Subject::user(user);
    writer.pool.transaction(conn, |conn| {
        let holder = TokenHolder::User(user.id);
        token_holders::delete(conn, writer.now, writer.user, holder, &subject, shown)
    })?;
    Ok(subject)
}

/// A uniqueness conflict on write is the username taken.
fn username_taken(error: StorageError) -> AppError {
    match error {
        StorageError::Conflict(_) => AppError::invalid("username", USERNAME_TAKEN),
        other => other.into(),
    }
}

//! `POST /api/v2/users/`.

use acs_storage::StorageError;
use acs_storage::users::UserValues;

use super::input::UserInput;
use super::{UserRecord, Users, render_user};
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::handlers::create::{Create, Submission};
use acs_app::activity::{self, Subject};

/// The message for a taken username.
pub const USERNAME_TAKEN: &str = "A user with that username already exists.";

impl Create for Users {
    type Created = UserRecord;

    /// Creates a user (superusers, and organization admins for non-privileged users).
    fn create(ctx: &mut Context<'_>, new: Submission<'_, Self::Scope>) -> ApiResult<Self::Created> {
        let (principal, body) = (new.principal, new.body);
        let input = UserInput::read(&body.0, true, true)?;
        acs_authz::can_create_user(&principal.actor, input.flags())?;
        let (Some(username), Some(password)) =
            (input.username.as_deref(), input.password.as_deref())
        else {
            return Err(ApiError::Internal("validated fields missing".into()));
        };
        // Hashing takes a while: do it without holding a connection.
        ctx.release();
        let hash = if password.is_empty() {
            // No password: none verifies against the unusable marker.
            acs_storage::users::UNUSABLE_PASSWORD.to_owned()
        } else {
            acs_oauth2::hash_password(
                password,
                ctx.state.config.password_iterations,
                &ctx.state.rng,
            )
            .map_err(|e| ApiError::Internal(e.to_string()))?
        };
        let now = ctx.now;
        let user = ctx.write(|conn| {
            let values = UserValues {
                username: Some(username.to_owned()),
                password: Some(hash),
                first_name: Some(input.first_name.unwrap_or_default()),
                last_name: Some(input.last_name.unwrap_or_default()),
                email: Some(input.email.unwrap_or_default()),
                is_superuser: Some(input.is_superuser.unwrap_or(false)),
                is_system_auditor: Some(input.is_system_auditor.unwrap_or(false)),
                is_active: Some(true),
                external_account: Some(None),
            };
            let user = acs_storage::users::insert(conn, &values, now);
            let user = user.map_err(|error| match error {
                StorageError::Conflict(_) => ApiError::field("username", USERNAME_TAKEN),
                other => other.into(),
            })?;
            let record = render_user(principal, &user, &Default::default());
            activity::record_creation(conn, now, &principal.user, &Subject::user(&user), &record)?;
            Ok(user)
        })?;
        tracing::info!(actor = principal.user.id, user = user.id, "user created");
        Ok(render_user(principal, &user, &Default::default()))
    }

    /// None, as in the reference.
    fn location(_: &UserRecord) -> Option<String> {
        None
    }
}

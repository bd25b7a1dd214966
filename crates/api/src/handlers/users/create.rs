//! `POST /api/v2/users/`.

use super::input;
use super::{UserRecord, Users, render_user};
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::handlers::create::{Create, Submission};

impl Create for Users {
    type Created = UserRecord;

    /// Creates a user (superusers, and organization admins for non-privileged users).
    fn create(ctx: &mut Context<'_>, new: Submission<'_, Self::Scope>) -> ApiResult<Self::Created> {
        let (principal, body) = (new.principal, new.body);
        let input = input::read(&body.0, true, true)?;
        acs_authz::can_create_user(&principal.actor, input.flags())?;
        let (Some(_), Some(password)) = (input.username.as_deref(), input.password.as_deref())
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
        let writer = ctx.writer(principal);
        let shown = |user: &_| render_user(principal, user, &Default::default());
        let user = acs_app::users::create(&writer, ctx.conn()?, &input, hash, shown)?;
        Ok(render_user(principal, &user, &Default::default()))
    }

    /// None, as in the reference.
    fn location(_: &UserRecord) -> Option<String> {
        None
    }
}

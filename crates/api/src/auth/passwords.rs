//! Password checks shared by the login form, HTTP Basic and the password grant: throttled,
//! constant-time, cached only against the stored hash; local users first, then the directory
//! (a failure counts once, whichever was tried).

use std::sync::OnceLock;

use acs_storage::users::User;

use super::throttle;
use crate::context::Context;
use crate::error::ApiResult;

/// A hash with the configured cost that no password matches, verified for unknown users so
/// that response time does not tell which usernames exist.
fn decoy_hash(ctx: &Context<'_>) -> &'static str {
    static DECOY: OnceLock<String> = OnceLock::new();
    DECOY.get_or_init(|| {
        acs_oauth2::hash_password(
            "decoy",
            ctx.state.config.password_iterations,
            &ctx.state.rng,
        )
        .unwrap_or_default()
    })
}

/// Checks `username` and `password`; `Some(user)` when they match an active user. Throttled
/// attempts fail with 429 before any check; failures are counted.
pub fn check(ctx: &mut Context<'_>, username: &str, password: &str) -> ApiResult<Option<User>> {
    let keys = throttle::keys(ctx, username)?;
    let had_failures = throttle::check(ctx, &keys)?;
    // No username holds a NUL (creation refuses it), and PostgreSQL cannot compare one.
    let user = if username.contains('\0') {
        None
    } else {
        acs_storage::users::find_by_username(ctx.conn()?, username)?.filter(|user| user.is_active)
    };

    // A directory or single sign-on user's record holds `!`, which never verifies: for them
    // only the directory can vouch, below.
    let verified = match &user {
        Some(user)
            if ctx
                .state
                .passwords
                .contains(user.id, &user.password, password) =>
        {
            true
        }
        Some(user) if acs_oauth2::is_usable(&user.password) => {
            // PBKDF2 takes a while: give the connection back meanwhile.
            ctx.release();
            let ok = acs_oauth2::verify_password(password, &user.password).unwrap_or_else(|error| {
                tracing::warn!(user = user.id, %error, "stored password hash cannot be verified");
                false
            });
            if ok {
                ctx.state
                    .passwords
                    .insert(user.id, &user.password, password);
            }
            ok
        }
        _ => {
            ctx.release();
            let _ = acs_oauth2::verify_password(password, decoy_hash(ctx));
            false
        }
    };

    let found = if verified {
        user
    } else {
        super::directory_login::check(ctx, username, password)?
    };
    if let Some(user) = found {
        if had_failures {
            throttle::record_success(ctx, &keys)?;
        }
        Ok(Some(user))
    } else {
        tracing::info!(username, "failed password check");
        throttle::record_failure(ctx, &keys)?;
        Ok(None)
    }
}

//! `/api/v2/users/`, `/api/v2/users/<id or username>/` and `/api/v2/me/`.

mod create;
mod delete;
mod detail;
mod input;
mod list;
mod me;
mod options;
mod render;
mod update;

pub use list::render_page;
pub use me::get_me;
pub use options::{META, META_FOR_SUBLIST, options_me};
pub use render::{UserRecord, render_user, target_of};

use acs_storage::users::User;

use crate::context::Context;
use crate::error::{ApiError, ApiResult};

/// The resource: its handlers are generic ([`crate::handlers::detail`],
/// [`crate::handlers::change`]).
#[derive(Debug)]
pub struct Users;

/// The user at `segment` with its memberships and `authz` facts, if the caller may see it:
/// 404 when missing, 403 when it exists but is not visible.
pub fn visible(
    ctx: &mut Context<'_>,
    principal: &crate::auth::Principal,
    segment: &str,
) -> ApiResult<(User, acs_storage::users::Memberships, acs_authz::TargetUser)> {
    let user = resolve(ctx, segment)?;
    let memberships = acs_storage::users::memberships_of(ctx.conn()?, user.id)?;
    let target = target_of(&user, &memberships);
    if !acs_authz::can_view_user(&principal.actor, &target) {
        return Err(ApiError::permission_denied());
    }
    Ok((user, memberships, target))
}

/// Resolves the `<id or username>` path segment (awxkit's `login` uses the username form).
pub fn resolve(ctx: &mut Context<'_>, segment: &str) -> ApiResult<User> {
    // No username holds a NUL (creation refuses it), and PostgreSQL cannot compare one.
    if segment.contains('\0') {
        return Err(ApiError::no_such("User"));
    }
    let found = match segment.parse::<i64>() {
        Ok(id) => acs_storage::users::find(ctx.conn()?, id).map(Some),
        Err(_) => acs_storage::users::find_by_username(ctx.conn()?, segment),
    };
    match found {
        Ok(Some(user)) => Ok(user),
        Ok(None) | Err(acs_storage::StorageError::NotFound) => Err(ApiError::no_such("User")),
        Err(other) => Err(other.into()),
    }
}

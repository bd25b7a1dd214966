//! `/api/v2/settings/`, `/api/v2/settings/all/` and `/api/v2/settings/<category>/`.

mod all;
mod category;
mod index;

pub use all::{get_all, options_all, patch_all, put_all, reset_all};
pub use category::{get_category, options_category, patch_category, put_category, reset_category};
pub use index::{list_categories, options_categories};

use crate::auth::Principal;
use crate::error::{ApiError, ApiResult};

/// Settings are written by superusers only.
pub fn require_superuser(principal: &Principal) -> ApiResult<()> {
    if principal.actor.is_superuser {
        Ok(())
    } else {
        Err(ApiError::permission_denied())
    }
}

/// Settings are read by superusers and system auditors and written by superusers only.
pub fn require_reader(principal: &Principal) -> ApiResult<()> {
    if principal.actor.reads_everything() {
        Ok(())
    } else {
        Err(ApiError::permission_denied())
    }
}

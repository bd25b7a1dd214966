//! Users as the rules see them.

use acs_authz::TargetUser;
use acs_storage::users::{Memberships, User};

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

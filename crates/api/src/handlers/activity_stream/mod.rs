//! `/api/v2/activity_stream/`, `<id>/`, and each object's `activity_stream/` sub-list.

mod detail;
mod list;
mod options;
mod render;

pub use list::ActivityOf;
pub use options::options_activity;
pub use render::{ActivityRecord, render_activity};

use acs_storage::activity::ActivityVisibility;

use crate::auth::Principal;

/// The activity stream: `GET` of an entry is [`crate::handlers::detail`]'s.
#[derive(Debug)]
pub struct ActivityStream;

/// Which entries `principal` may read: everything for superusers and system auditors; else
/// their own actions and entries about objects they can see now.
pub fn visibility(principal: &Principal) -> ActivityVisibility {
    let actor = &principal.actor;
    if actor.reads_everything() {
        return ActivityVisibility::All;
    }
    let mut organizations: Vec<i64> = actor
        .admin_of
        .iter()
        .chain(&actor.member_of)
        .copied()
        .collect();
    organizations.sort_unstable();
    organizations.dedup();
    ActivityVisibility::Limited {
        user_id: actor.user_id,
        users: acs_authz::visible_users(actor),
        organizations,
        applications: acs_authz::visible_applications(actor),
        tokens: acs_authz::visible_tokens(actor),
        credentials: Box::new(acs_authz::visible_credentials(actor)),
    }
}

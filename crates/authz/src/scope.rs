//! OAuth 2 scope masking: what a token with only the `read` scope allows.
//!
//! A `read` token "gives only the read permissions RBAC gives", so a
//! read-only [`Actor`] keeps everything it may see and loses everything it
//! may write, superusers included.

use crate::{Actor, Denied};

/// Whether `actor` may send a request with this method at all, before any
/// other check.
///
/// `safe_method` is true for GET, HEAD and OPTIONS. A read-only actor (an
/// OAuth 2 token without the `write` scope) gets [`Denied::NotPermitted`]
/// for every other method, whoever they are; everyone else passes.
pub fn check_method(actor: &Actor, safe_method: bool) -> Result<(), Denied> {
    if actor.read_only && !safe_method {
        Err(Denied::NotPermitted)
    } else {
        Ok(())
    }
}

/// Refuses a read-only actor; the first check of every `can_create_*`,
/// `can_change_*` and `can_delete_*` rule, so a handler that forgot
/// [`check_method`] still cannot write.
pub(crate) fn require_write(actor: &Actor) -> Result<(), Denied> {
    check_method(actor, false)
}

/// A write superusers may make, and others when `permitted`: refused to a read-only actor
/// first, then [`Denied::NotPermitted`].
pub(crate) fn permit_write(actor: &Actor, permitted: bool) -> Result<(), Denied> {
    require_write(actor)?;
    if actor.is_superuser || permitted {
        Ok(())
    } else {
        Err(Denied::NotPermitted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::*;
    use crate::*;

    #[test]
    fn check_method_by_scope() {
        #[rustfmt::skip]
        let rows = [
            ("superuser, write scope: GET", superuser(), true, OK),
            ("superuser, write scope: POST", superuser(), false, OK),
            ("superuser, read scope: GET", read_only(superuser()), true, OK),
            ("superuser, read scope: POST", read_only(superuser()), false, NOT_PERMITTED),
            ("auditor, read scope: GET", read_only(auditor()), true, OK),
            ("auditor, read scope: PATCH", read_only(auditor()), false, NOT_PERMITTED),
            ("admin of O, write scope: DELETE", admin_o(), false, OK),
            ("admin of O, read scope: DELETE", read_only(admin_o()), false, NOT_PERMITTED),
            ("unrelated, write scope: POST", unrelated(), false, OK),
            ("unrelated, read scope: OPTIONS", read_only(unrelated()), true, OK),
            ("unrelated, read scope: POST", read_only(unrelated()), false, NOT_PERMITTED),
        ];
        for (name, actor, safe_method, expected) in rows {
            assert_eq!(check_method(&actor, safe_method), expected, "{name}");
        }
    }

    /// Every write rule refuses every read-only actor, whatever the object,
    /// and every capability is false; the per-module tables only sample this.
    #[test]
    fn read_only_actors_write_nothing() {
        let none = Capabilities::default();
        let grant = UserFlags::default();
        for actor in all_actors().into_iter().map(read_only) {
            let me = myself(&actor);
            let n = |result: Result<(), Denied>| assert_eq!(result, NOT_PERMITTED, "{actor:?}");
            n(can_create_user(&actor, grant));
            n(can_create_organization(&actor));
            n(can_create_token(&actor, None));
            for org in [O, P] {
                n(can_change_organization(&actor, org));
                n(can_delete_organization(&actor, org));
                n(can_create_application(&actor, org, None));
                n(can_create_application(&actor, org, Some(&me)));
                assert_eq!(organization_capabilities(&actor, org), none, "{actor:?}");
            }
            for target in all_targets() {
                n(can_change_user(&actor, &target, grant));
                n(can_delete_user(&actor, &target));
                assert_eq!(user_capabilities(&actor, &target), none, "{actor:?}");
                for role in [OrganizationRole::Admin, OrganizationRole::Member] {
                    n(can_change_membership(&actor, O, role, &target));
                }
                let token = personal_token(target);
                n(can_change_token(&actor, &token));
                n(can_delete_token(&actor, &token));
                assert_eq!(token_capabilities(&actor, &token), none, "{actor:?}");
            }
            for app in all_applications() {
                n(can_change_application(&actor, &app));
                n(can_delete_application(&actor, &app));
                n(can_create_token(&actor, Some(&app)));
                assert_eq!(application_capabilities(&actor, &app), none, "{actor:?}");
            }
        }
    }

    /// The scope masks writes only: a read-only actor sees what RBAC shows.
    #[test]
    fn read_only_actors_see_the_same() {
        for actor in all_actors() {
            let masked = read_only(actor.clone());
            assert_eq!(visible_users(&masked), visible_users(&actor), "{actor:?}");
            assert_eq!(
                visible_organizations(&masked),
                visible_organizations(&actor),
                "{actor:?}"
            );
            assert_eq!(
                visible_applications(&masked),
                visible_applications(&actor),
                "{actor:?}"
            );
            assert_eq!(visible_tokens(&masked), visible_tokens(&actor), "{actor:?}");
            for target in all_targets() {
                assert_eq!(
                    can_view_user(&masked, &target),
                    can_view_user(&actor, &target),
                    "{actor:?} viewing {target:?}"
                );
                let token = personal_token(target);
                assert_eq!(
                    can_view_token(&masked, &token),
                    can_view_token(&actor, &token),
                    "{actor:?} viewing {token:?}"
                );
            }
            for org in [O, P] {
                assert_eq!(
                    can_view_organization(&masked, org),
                    can_view_organization(&actor, org),
                    "{actor:?} viewing {org}"
                );
            }
            for app in all_applications() {
                assert_eq!(
                    can_view_application(&masked, &app),
                    can_view_application(&actor, &app),
                    "{actor:?} viewing {app:?}"
                );
            }
        }
    }
}

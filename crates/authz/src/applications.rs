//! Who may list, view, create, change and delete OAuth 2 applications.
//!
//! These are ACS's rules, not AWX's: an application belongs to one
//! organization, whose admins manage it, and may name a `user` who owns it
//! and manages it too. The system auditor flag grants reading only; it takes
//! nothing away, so an auditor still manages applications they own or whose
//! organization they administer. Every write rule refuses a
//! [read-only](Actor::read_only) actor first.

use crate::scope::{permit_write, require_write};
use crate::{Actor, Capabilities, Denied, Id, TargetUser};

/// Facts about the OAuth 2 application being acted upon.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TargetApplication {
    /// The application's id.
    pub id: Id,
    /// The organization the application belongs to; its admins manage it.
    pub organization: Id,
    /// The user who owns the application, if any; they manage it.
    pub user: Option<Id>,
}

/// Which applications an actor may list; storage turns it into SQL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApplicationVisibility {
    /// Every application.
    All,
    /// Applications whose `organization` is in `administered` or whose
    /// `user` is `user_id`.
    Limited {
        /// The actor's own id: users always see the applications they own.
        user_id: Id,
        /// Organizations the actor administers, sorted and deduplicated.
        administered: Vec<Id>,
    },
}

/// Which applications `actor` may list: all for superusers and system
/// auditors, otherwise those of organizations the actor administers and
/// those the actor owns. Plain membership of an organization shows nothing.
pub fn visible_applications(actor: &Actor) -> ApplicationVisibility {
    if actor.reads_everything() {
        ApplicationVisibility::All
    } else {
        ApplicationVisibility::Limited {
            user_id: actor.user_id,
            administered: actor.administered(),
        }
    }
}

/// Whether `actor` may view `app`; the single-object form of
/// [`visible_applications`].
pub fn can_view_application(actor: &Actor, app: &TargetApplication) -> bool {
    actor.reads_everything() || manages(actor, app)
}

/// Whether `actor` may create an application in `organization` owned by
/// `owner` (the `user` the new application would be owned by, if any).
///
/// Superusers may create any application. An admin of `organization` may
/// create one owned by nobody, by themself, or by a non-privileged user who
/// belongs to `organization`: naming anyone else would hand an application
/// to a user outside the admin's authority. Nobody else may create one.
pub fn can_create_application(
    actor: &Actor,
    organization: Id,
    owner: Option<&TargetUser>,
) -> Result<(), Denied> {
    require_write(actor)?;
    if actor.is_superuser {
        return Ok(());
    }
    if !actor.administers(organization) {
        return Err(Denied::NotPermitted);
    }
    match owner {
        None => Ok(()),
        Some(owner) if owner.id == actor.user_id => Ok(()),
        Some(owner) if !owner.is_privileged() && owner.belongs_to(organization) => Ok(()),
        Some(_) => Err(Denied::NotPermitted),
    }
}

/// Whether `actor` may change `app`: superusers, admins of its
/// organization, and its owner.
pub fn can_change_application(actor: &Actor, app: &TargetApplication) -> Result<(), Denied> {
    permit_write(actor, manages(actor, app))
}

/// Whether `actor` may turn on `skip_authorization` for `app`: superusers and admins of its
/// organization, not its owner. Without a consent page, anyone who follows a link to the
/// application gets a token issued to it, so only those who answer for the organization
/// decide that. Turning it off needs only [`can_change_application`].
pub fn can_skip_authorization(actor: &Actor, app: &TargetApplication) -> Result<(), Denied> {
    require_write(actor)?;
    if actor.is_superuser || actor.administers(app.organization) {
        Ok(())
    } else {
        Err(Denied::OnlyOrganizationAdminsSkipAuthorization)
    }
}

/// Whether `actor` may change `field` (`redirect_uris` or `client_type`: where an
/// application's codes go, and whether it needs its secret) of `app`, which skips the consent
/// page before or after the change: the same actors who may turn that on. Its owner, who may
/// not, would otherwise point the organization's trusted application at a site of his own
/// and have codes for anyone who follows one link. With consent on, the owner changes them.
pub fn can_repoint_consentless(
    actor: &Actor,
    app: &TargetApplication,
    field: &'static str,
) -> Result<(), Denied> {
    can_skip_authorization(actor, app).map_err(|denied| match denied {
        Denied::OnlyOrganizationAdminsSkipAuthorization => {
            Denied::OnlyOrganizationAdminsRepointConsentless(field)
        }
        other => other,
    })
}

/// Whether `actor` may delete `app`: the same actors who may change it.
pub fn can_delete_application(actor: &Actor, app: &TargetApplication) -> Result<(), Denied> {
    permit_write(actor, manages(actor, app))
}

/// What `actor` may do with `app`, for `summary_fields.user_capabilities`.
pub fn application_capabilities(actor: &Actor, app: &TargetApplication) -> Capabilities {
    Capabilities {
        edit: can_change_application(actor, app).is_ok(),
        delete: can_delete_application(actor, app).is_ok(),
    }
}

/// Whether `actor` administers `app`'s organization or owns `app`: the
/// roles that grant view, change and delete below superuser.
fn manages(actor: &Actor, app: &TargetApplication) -> bool {
    actor.administers(app.organization) || app.user == Some(actor.user_id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::*;

    #[test]
    fn visible_applications_by_role() {
        let limited = |user_id, administered: &[Id]| ApplicationVisibility::Limited {
            user_id,
            administered: administered.to_vec(),
        };
        #[rustfmt::skip]
        let rows = [
            ("superuser", superuser(), ApplicationVisibility::All),
            ("system auditor", auditor(), ApplicationVisibility::All),
            ("admin of O", admin_o(), limited(102, &[O])),
            ("member of O", member_o(), limited(103, &[])),
            ("admin of P", admin_p(), limited(104, &[P])),
            ("unrelated", unrelated(), limited(105, &[])),
            ("admin of O and P: sorted and unique", admin_o_and_p(), limited(106, &[O, P])),
            ("membership is not administration", admin_p_member_o(), limited(7, &[P])),
            ("read-only superuser", read_only(superuser()), ApplicationVisibility::All),
            ("read-only member of O", read_only(member_o()), limited(103, &[])),
        ];
        for (name, actor, expected) in rows {
            assert_eq!(visible_applications(&actor), expected, "{name}");
        }
    }

    #[test]
    fn can_view_application_by_role() {
        #[rustfmt::skip]
        let rows = [
            ("superuser: app of P", superuser(), app_of_p(), true),
            ("auditor: app of P", auditor(), app_of_p(), true),
            ("auditor: app of O owned by user in O", auditor(), app_of_o_owned_by_in_o(), true),
            ("admin of O: app of O", admin_o(), app_of_o(), true),
            ("admin of O: app of O owned by user in O", admin_o(), app_of_o_owned_by_in_o(), true),
            ("admin of O: app of P", admin_o(), app_of_p(), false),
            ("admin of O: own app in P", admin_o(), app_of_p_owned_by(&admin_o()), true),
            ("admin of P: app of O", admin_p(), app_of_o(), false),
            ("admin of P: app of P", admin_p(), app_of_p(), true),
            ("member of O: app of O", member_o(), app_of_o(), false),
            ("member of O: app of O owned by user in O", member_o(), app_of_o_owned_by_in_o(), false),
            ("member of O: own app in P", member_o(), app_of_p_owned_by(&member_o()), true),
            ("unrelated: app of O", unrelated(), app_of_o(), false),
            ("unrelated: app of P owned by member of O", unrelated(), app_of_p_owned_by(&member_o()), false),
            ("unrelated: own app in P", unrelated(), app_of_p_owned_by(&unrelated()), true),
            ("read-only admin of O: app of O", read_only(admin_o()), app_of_o(), true),
            ("read-only unrelated: own app in P", read_only(unrelated()), app_of_p_owned_by(&unrelated()), true),
        ];
        for (name, actor, app, expected) in rows {
            assert_eq!(can_view_application(&actor, &app), expected, "{name}");
        }
    }

    /// The list filter and the single-object check must never disagree.
    #[test]
    fn can_view_application_matches_visible_applications() {
        for actor in all_actors() {
            for app in all_applications() {
                let listed = match visible_applications(&actor) {
                    ApplicationVisibility::All => true,
                    ApplicationVisibility::Limited {
                        user_id,
                        administered,
                    } => administered.contains(&app.organization) || app.user == Some(user_id),
                };
                assert_eq!(
                    can_view_application(&actor, &app),
                    listed,
                    "{actor:?} viewing {app:?}"
                );
            }
        }
    }

    #[test]
    fn can_create_application_by_role() {
        let auditor_admin_o = Actor {
            admin_of: vec![O],
            ..auditor()
        };
        #[rustfmt::skip]
        let rows = [
            ("superuser: O, no owner", superuser(), O, None, OK),
            ("superuser: O, owner in P", superuser(), O, Some(in_p()), OK),
            ("superuser: P, owner superuser", superuser(), P, Some(superuser_no_org()), OK),
            ("auditor: O, no owner", auditor(), O, None, NOT_PERMITTED),
            ("auditor: O, owner self", auditor(), O, Some(myself(&auditor())), NOT_PERMITTED),
            ("auditor admin of O: O, owner self", auditor_admin_o.clone(), O, Some(myself(&auditor_admin_o)), OK),
            ("admin of O: O, no owner", admin_o(), O, None, OK),
            ("admin of O: O, owner self", admin_o(), O, Some(myself(&admin_o())), OK),
            ("admin of O: O, owner in O", admin_o(), O, Some(in_o()), OK),
            ("admin of O: O, owner admin of O", admin_o(), O, Some(admin_of_o()), OK),
            ("admin of O: O, owner in O and P", admin_o(), O, Some(in_o_and_p()), OK),
            ("admin of O: O, owner in P", admin_o(), O, Some(in_p()), NOT_PERMITTED),
            ("admin of O: O, owner in no org", admin_o(), O, Some(no_org()), NOT_PERMITTED),
            ("admin of O: O, owner superuser in O", admin_o(), O, Some(superuser_in_o()), NOT_PERMITTED),
            ("admin of O: O, owner auditor in O", admin_o(), O, Some(auditor_in_o()), NOT_PERMITTED),
            ("admin of O: P, no owner", admin_o(), P, None, NOT_PERMITTED),
            ("admin of O: P, owner self", admin_o(), P, Some(myself(&admin_o())), NOT_PERMITTED),
            ("admin of O and P: P, owner in P", admin_o_and_p(), P, Some(in_p()), OK),
            ("admin of P: O, no owner", admin_p(), O, None, NOT_PERMITTED),
            ("member of O: O, no owner", member_o(), O, None, NOT_PERMITTED),
            ("member of O: O, owner self", member_o(), O, Some(myself(&member_o())), NOT_PERMITTED),
            ("unrelated: O, owner self", unrelated(), O, Some(myself(&unrelated())), NOT_PERMITTED),
            ("read-only superuser: O, no owner", read_only(superuser()), O, None, NOT_PERMITTED),
            ("read-only admin of O: O, no owner", read_only(admin_o()), O, None, NOT_PERMITTED),
            ("read-only admin of O: O, owner in O", read_only(admin_o()), O, Some(in_o()), NOT_PERMITTED),
        ];
        for (name, actor, org, owner, expected) in rows {
            assert_eq!(
                can_create_application(&actor, org, owner.as_ref()),
                expected,
                "{name}"
            );
        }
    }

    /// Change and delete follow one rule, so every row must hold for each.
    #[test]
    fn can_change_and_delete_application_by_role() {
        #[rustfmt::skip]
        let rows = [
            ("superuser: app of P", superuser(), app_of_p(), OK),
            ("superuser: app of O owned by user in O", superuser(), app_of_o_owned_by_in_o(), OK),
            ("auditor: app of P", auditor(), app_of_p(), NOT_PERMITTED),
            ("auditor: app of O owned by user in O", auditor(), app_of_o_owned_by_in_o(), NOT_PERMITTED),
            ("auditor: own app in P", auditor(), app_of_p_owned_by(&auditor()), OK),
            ("admin of O: app of O", admin_o(), app_of_o(), OK),
            ("admin of O: app of O owned by user in O", admin_o(), app_of_o_owned_by_in_o(), OK),
            ("admin of O: app of P", admin_o(), app_of_p(), NOT_PERMITTED),
            ("admin of O: app of P owned by member of O", admin_o(), app_of_p_owned_by(&member_o()), NOT_PERMITTED),
            ("admin of O: own app in P", admin_o(), app_of_p_owned_by(&admin_o()), OK),
            ("admin of P: app of O", admin_p(), app_of_o(), NOT_PERMITTED),
            ("admin of P: app of P", admin_p(), app_of_p(), OK),
            ("member of O: app of O", member_o(), app_of_o(), NOT_PERMITTED),
            ("member of O: app of O owned by user in O", member_o(), app_of_o_owned_by_in_o(), NOT_PERMITTED),
            ("member of O: own app in P", member_o(), app_of_p_owned_by(&member_o()), OK),
            ("unrelated: app of O", unrelated(), app_of_o(), NOT_PERMITTED),
            ("unrelated: own app in P", unrelated(), app_of_p_owned_by(&unrelated()), OK),
            ("read-only superuser: app of P", read_only(superuser()), app_of_p(), NOT_PERMITTED),
            ("read-only admin of O: app of O", read_only(admin_o()), app_of_o(), NOT_PERMITTED),
            ("read-only member of O: own app in P", read_only(member_o()), app_of_p_owned_by(&member_o()), NOT_PERMITTED),
        ];
        for (name, actor, app, expected) in &rows {
            assert_eq!(
                can_change_application(actor, app),
                *expected,
                "change: {name}"
            );
            assert_eq!(
                can_delete_application(actor, app),
                *expected,
                "delete: {name}"
            );
        }
    }

    #[test]
    fn application_capabilities_by_role() {
        let caps = |edit, delete| Capabilities { edit, delete };
        #[rustfmt::skip]
        let rows = [
            ("superuser: app of P", superuser(), app_of_p(), caps(true, true)),
            ("auditor: app of P", auditor(), app_of_p(), caps(false, false)),
            ("admin of O: app of O", admin_o(), app_of_o(), caps(true, true)),
            ("admin of P: app of O", admin_p(), app_of_o(), caps(false, false)),
            ("member of O: app of O", member_o(), app_of_o(), caps(false, false)),
            ("member of O: own app in P", member_o(), app_of_p_owned_by(&member_o()), caps(true, true)),
            ("unrelated: app of O", unrelated(), app_of_o(), caps(false, false)),
            ("read-only superuser: app of P", read_only(superuser()), app_of_p(), caps(false, false)),
            ("read-only member of O: own app in P", read_only(member_o()), app_of_p_owned_by(&member_o()), caps(false, false)),
        ];
        for (name, actor, app, expected) in rows {
            assert_eq!(application_capabilities(&actor, &app), expected, "{name}");
        }
    }
}

#[cfg(test)]
mod skip_authorization_tests {
    use super::*;
    use crate::fixtures::*;

    #[test]
    fn only_superusers_and_organization_admins_skip_authorization() {
        let skip = Err(Denied::OnlyOrganizationAdminsSkipAuthorization);
        let owned_by = |actor: &Actor| TargetApplication {
            id: 1,
            organization: O,
            user: Some(actor.user_id),
        };
        #[rustfmt::skip]
        let rows = [
            ("superuser", superuser(), app_of_o(), Ok(())),
            ("admin of O", admin_o(), app_of_o(), Ok(())),
            ("admin of P, app of O", admin_p(), app_of_o(), skip.clone()),
            ("owner, member of O", member_o(), owned_by(&member_o()), skip.clone()),
            ("owner, auditor", auditor(), owned_by(&auditor()), skip.clone()),
            ("read-only admin of O", read_only(admin_o()), app_of_o(), Err(Denied::NotPermitted)),
        ];
        for (name, actor, app, expected) in rows {
            assert_eq!(can_skip_authorization(&actor, &app), expected, "{name}");
            let repoint = expected.map_err(|denied| match denied {
                Denied::OnlyOrganizationAdminsSkipAuthorization => {
                    Denied::OnlyOrganizationAdminsRepointConsentless("redirect_uris")
                }
                other => other,
            });
            assert_eq!(
                can_repoint_consentless(&actor, &app, "redirect_uris"),
                repoint,
                "{name}"
            );
        }
        assert_eq!(
            Denied::OnlyOrganizationAdminsRepointConsentless("client_type").to_string(),
            "client_type: only a superuser or an admin of the application's organization may change it while the application skips the consent page (skip_authorization)."
        );
    }
}

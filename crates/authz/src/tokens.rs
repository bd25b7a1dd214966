//! Who may list, view, create, change and delete OAuth 2 access tokens.
//!
//! These are ACS's rules, not AWX's. A token belongs to the user it was
//! issued to (its owner), for one application or none (a personal token);
//! the owner and the admins of the owner's organizations manage it, but an
//! organization admin may only look at a privileged user's tokens, since
//! privileged accounts are outside any organization's authority. As for
//! applications, the system auditor flag grants reading only and takes
//! nothing away. Every write rule refuses a [read-only](Actor::read_only)
//! actor first.

use crate::scope::{permit_write, require_write};
use crate::{Actor, Capabilities, Denied, Id, TargetApplication, TargetUser, can_view_application};

/// Facts about the OAuth 2 access token being acted upon.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TargetToken {
    /// The token's id.
    pub id: Id,
    /// The token's user, with their organization roles.
    pub owner: TargetUser,
    /// The application the token was issued for; `None` for a personal token.
    pub application: Option<Id>,
}

/// Which tokens an actor may list; storage turns it into SQL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenVisibility {
    /// Every token.
    All,
    /// Tokens whose user is `user_id` or holds any role (member or admin) in
    /// one of `administered`.
    Limited {
        /// The actor's own id: users always see their own tokens.
        user_id: Id,
        /// Organizations the actor administers, sorted and deduplicated.
        administered: Vec<Id>,
    },
}

/// Which tokens `actor` may list: all for superusers and system auditors,
/// otherwise their own and those of every user belonging to an organization
/// the actor administers (privileged users' included).
pub fn visible_tokens(actor: &Actor) -> TokenVisibility {
    if actor.reads_everything() {
        TokenVisibility::All
    } else {
        TokenVisibility::Limited {
            user_id: actor.user_id,
            administered: actor.administered(),
        }
    }
}

/// Whether `actor` may view `token`; the single-object form of [`visible_tokens`].
pub fn can_view_token(actor: &Actor, token: &TargetToken) -> bool {
    actor.reads_everything()
        || owns(actor, token)
        || token
            .owner
            .organizations()
            .any(|org| actor.administers(org))
}

/// Whether `actor` may create a token for themself, for `application` or,
/// when `None`, a personal token.
///
/// Tokens are only ever issued to the actor, so anyone may create a personal
/// token, and an application token for any application they may view
/// ([`can_view_application`]).
pub fn can_create_token(
    actor: &Actor,
    application: Option<&TargetApplication>,
) -> Result<(), Denied> {
    require_write(actor)?;
    match application {
        Some(app) if !can_view_application(actor, app) => Err(Denied::NotPermitted),
        _ => Ok(()),
    }
}

/// Whether `actor` may change `token`: superusers, its owner, and admins of
/// every organization of a non-privileged owner.
pub fn can_change_token(actor: &Actor, token: &TargetToken) -> Result<(), Denied> {
    permit_write(actor, manages(actor, token))
}

/// Whether `actor` may delete (revoke) `token`: the same actors who may change it.
pub fn can_delete_token(actor: &Actor, token: &TargetToken) -> Result<(), Denied> {
    permit_write(actor, manages(actor, token))
}

/// What `actor` may do with `token`, for `summary_fields.user_capabilities`.
pub fn token_capabilities(actor: &Actor, token: &TargetToken) -> Capabilities {
    Capabilities {
        edit: can_change_token(actor, token).is_ok(),
        delete: can_delete_token(actor, token).is_ok(),
    }
}

/// Whether `token` was issued to `actor`.
fn owns(actor: &Actor, token: &TargetToken) -> bool {
    token.owner.id == actor.user_id
}

/// Whether `actor` owns `token`, or manages its owner's account
/// ([`Actor::manages_user`]: every organization of a non-privileged owner
/// administered): the roles that grant change and delete below superuser.
fn manages(actor: &Actor, token: &TargetToken) -> bool {
    owns(actor, token) || actor.manages_user(&token.owner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::*;

    #[test]
    fn visible_tokens_by_role() {
        let limited = |user_id, administered: &[Id]| TokenVisibility::Limited {
            user_id,
            administered: administered.to_vec(),
        };
        #[rustfmt::skip]
        let rows = [
            ("superuser", superuser(), TokenVisibility::All),
            ("system auditor", auditor(), TokenVisibility::All),
            ("admin of O", admin_o(), limited(102, &[O])),
            ("member of O", member_o(), limited(103, &[])),
            ("admin of P", admin_p(), limited(104, &[P])),
            ("unrelated", unrelated(), limited(105, &[])),
            ("admin of O and P: sorted and unique", admin_o_and_p(), limited(106, &[O, P])),
            ("membership is not administration", admin_p_member_o(), limited(7, &[P])),
            ("read-only superuser", read_only(superuser()), TokenVisibility::All),
            ("read-only admin of O", read_only(admin_o()), limited(102, &[O])),
        ];
        for (name, actor, expected) in rows {
            assert_eq!(visible_tokens(&actor), expected, "{name}");
        }
    }

    /// View, change, delete and capabilities of one actor on one token:
    /// `view` for [`can_view_token`], `write` for both [`can_change_token`]
    /// and [`can_delete_token`] (one rule), and capabilities follow `write`.
    #[test]
    fn token_rules_by_role() {
        #[rustfmt::skip]
        let rows = [
            ("superuser: token of user in P", superuser(), personal_token(in_p()), true, OK),
            ("superuser: token of superuser", superuser(), personal_token(superuser_no_org()), true, OK),
            ("superuser: own token", superuser(), personal_token(myself(&superuser())), true, OK),
            ("auditor: token of user in P", auditor(), personal_token(in_p()), true, NOT_PERMITTED),
            ("auditor: token of superuser", auditor(), personal_token(superuser_no_org()), true, NOT_PERMITTED),
            ("auditor: own token", auditor(), personal_token(myself(&auditor())), true, OK),
            ("admin of O: token of user in O", admin_o(), personal_token(in_o()), true, OK),
            ("admin of O: app token of user in O", admin_o(), app_token(in_o()), true, OK),
            ("admin of O: token of admin of O", admin_o(), personal_token(admin_of_o()), true, OK),
            // Seen, but the owner is also in P: not the admin of O's to change or revoke.
            ("admin of O: token of user in O and P", admin_o(), personal_token(in_o_and_p()), true, NOT_PERMITTED),
            ("admin of O and P: token of user in O and P", admin_o_and_p(), personal_token(in_o_and_p()), true, OK),
            ("admin of O: token of user in P", admin_o(), personal_token(in_p()), false, NOT_PERMITTED),
            ("admin of O: token of user in no org", admin_o(), personal_token(no_org()), false, NOT_PERMITTED),
            ("admin of O: token of superuser in O", admin_o(), personal_token(superuser_in_o()), true, NOT_PERMITTED),
            ("admin of O: app token of superuser in O", admin_o(), app_token(superuser_in_o()), true, NOT_PERMITTED),
            ("admin of O: token of auditor in O", admin_o(), personal_token(auditor_in_o()), true, NOT_PERMITTED),
            ("admin of O: token of superuser in no org", admin_o(), personal_token(superuser_no_org()), false, NOT_PERMITTED),
            ("admin of O: own token", admin_o(), personal_token(myself(&admin_o())), true, OK),
            ("admin of P: token of user in O", admin_p(), personal_token(in_o()), false, NOT_PERMITTED),
            ("admin of P: token of user in O and P", admin_p(), personal_token(in_o_and_p()), true, NOT_PERMITTED),
            ("member of O: token of user in O", member_o(), personal_token(in_o()), false, NOT_PERMITTED),
            ("member of O: token of admin of O", member_o(), personal_token(admin_of_o()), false, NOT_PERMITTED),
            ("member of O: own token", member_o(), personal_token(myself(&member_o())), true, OK),
            ("member of O: own app token", member_o(), app_token(myself(&member_o())), true, OK),
            ("unrelated: own token", unrelated(), personal_token(myself(&unrelated())), true, OK),
            ("unrelated: token of user in no org", unrelated(), personal_token(no_org()), false, NOT_PERMITTED),
            ("unrelated: token of superuser", unrelated(), personal_token(superuser_no_org()), false, NOT_PERMITTED),
            ("read-only superuser: token of user in P", read_only(superuser()), personal_token(in_p()), true, NOT_PERMITTED),
            ("read-only superuser: own token", read_only(superuser()), personal_token(myself(&superuser())), true, NOT_PERMITTED),
            ("read-only admin of O: token of user in O", read_only(admin_o()), personal_token(in_o()), true, NOT_PERMITTED),
            ("read-only member of O: own token", read_only(member_o()), personal_token(myself(&member_o())), true, NOT_PERMITTED),
        ];
        for (name, actor, token, view, write) in rows {
            assert_eq!(can_view_token(&actor, &token), view, "view: {name}");
            assert_eq!(can_change_token(&actor, &token), write, "change: {name}");
            assert_eq!(can_delete_token(&actor, &token), write, "delete: {name}");
            let caps = Capabilities {
                edit: write.is_ok(),
                delete: write.is_ok(),
            };
            assert_eq!(
                token_capabilities(&actor, &token),
                caps,
                "capabilities: {name}"
            );
        }
    }

    /// The list filter and the single-object check must never disagree.
    #[test]
    fn can_view_token_matches_visible_tokens() {
        for actor in all_actors() {
            for owner in all_targets() {
                for token in [personal_token(owner.clone()), app_token(owner)] {
                    let listed = match visible_tokens(&actor) {
                        TokenVisibility::All => true,
                        TokenVisibility::Limited {
                            user_id,
                            administered,
                        } => {
                            token.owner.id == user_id
                                || administered.iter().any(|org| {
                                    token.owner.admin_of.contains(org)
                                        || token.owner.member_of.contains(org)
                                })
                        }
                    };
                    assert_eq!(
                        can_view_token(&actor, &token),
                        listed,
                        "{actor:?} viewing {token:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn can_create_token_by_role() {
        #[rustfmt::skip]
        let rows = [
            ("superuser: personal", superuser(), None, OK),
            ("superuser: app of P", superuser(), Some(app_of_p()), OK),
            ("auditor: personal", auditor(), None, OK),
            ("auditor: app of P", auditor(), Some(app_of_p()), OK),
            ("admin of O: personal", admin_o(), None, OK),
            ("admin of O: app of O", admin_o(), Some(app_of_o()), OK),
            ("admin of O: app of O owned by user in O", admin_o(), Some(app_of_o_owned_by_in_o()), OK),
            ("admin of O: app of P", admin_o(), Some(app_of_p()), NOT_PERMITTED),
            ("admin of P: app of O", admin_p(), Some(app_of_o()), NOT_PERMITTED),
            ("member of O: personal", member_o(), None, OK),
            ("member of O: app of O", member_o(), Some(app_of_o()), NOT_PERMITTED),
            ("member of O: own app in P", member_o(), Some(app_of_p_owned_by(&member_o())), OK),
            ("unrelated: personal", unrelated(), None, OK),
            ("unrelated: app of O", unrelated(), Some(app_of_o()), NOT_PERMITTED),
            ("unrelated: app of P owned by member of O", unrelated(), Some(app_of_p_owned_by(&member_o())), NOT_PERMITTED),
            ("read-only superuser: personal", read_only(superuser()), None, NOT_PERMITTED),
            ("read-only superuser: app of P", read_only(superuser()), Some(app_of_p()), NOT_PERMITTED),
            ("read-only member of O: personal", read_only(member_o()), None, NOT_PERMITTED),
            ("read-only member of O: own app in P", read_only(member_o()), Some(app_of_p_owned_by(&member_o())), NOT_PERMITTED),
        ];
        for (name, actor, app, expected) in rows {
            assert_eq!(can_create_token(&actor, app.as_ref()), expected, "{name}");
        }
    }
}

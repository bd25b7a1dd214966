//! Shared cast for the rule tables: one actor per role, one target per kind
//! of user, and applications and tokens around them, with distinct ids so
//! "self" is never matched by accident.

use crate::{Actor, Denied, Id, TargetApplication, TargetToken, TargetUser};

/// The organization most rows are about.
pub const O: Id = 1;
/// Another organization, administered by someone else.
pub const P: Id = 2;

/// A rule's answer: allowed.
pub const OK: Result<(), Denied> = Ok(());
/// A rule's answer: refused.
pub const NOT_PERMITTED: Result<(), Denied> = Err(Denied::NotPermitted);

fn actor(user_id: Id, admin_of: &[Id], member_of: &[Id]) -> Actor {
    Actor {
        user_id,
        admin_of: admin_of.to_vec(),
        member_of: member_of.to_vec(),
        ..Actor::default()
    }
}

fn target(id: Id, admin_of: &[Id], member_of: &[Id]) -> TargetUser {
    TargetUser {
        id,
        admin_of: admin_of.to_vec(),
        member_of: member_of.to_vec(),
        ..TargetUser::default()
    }
}

pub fn superuser() -> Actor {
    Actor {
        is_superuser: true,
        ..actor(100, &[], &[])
    }
}

pub fn auditor() -> Actor {
    Actor {
        is_system_auditor: true,
        ..actor(101, &[], &[])
    }
}

pub fn admin_o() -> Actor {
    actor(102, &[O], &[])
}

pub fn member_o() -> Actor {
    actor(103, &[], &[O])
}

pub fn admin_p() -> Actor {
    actor(104, &[P], &[])
}

pub fn unrelated() -> Actor {
    actor(105, &[], &[])
}

/// Admin of both organizations, listed out of order on purpose.
/// Administers P (listed twice) and is a member of O: membership is not administration.
pub fn admin_p_member_o() -> Actor {
    actor(7, &[P, P], &[O])
}

pub fn admin_o_and_p() -> Actor {
    actor(106, &[P, O, P], &[])
}

/// Every actor above, for rows that must hold for all of them.
pub fn all_actors() -> Vec<Actor> {
    vec![
        superuser(),
        auditor(),
        admin_o(),
        member_o(),
        admin_p(),
        unrelated(),
        admin_o_and_p(),
    ]
}

/// `actor` authenticated by an OAuth 2 token without the `write` scope.
pub fn read_only(actor: Actor) -> Actor {
    Actor {
        read_only: true,
        ..actor
    }
}

/// The actor as the object of their own request.
pub fn myself(actor: &Actor) -> TargetUser {
    TargetUser {
        id: actor.user_id,
        is_superuser: actor.is_superuser,
        is_system_auditor: actor.is_system_auditor,
        admin_of: actor.admin_of.clone(),
        member_of: actor.member_of.clone(),
    }
}

pub fn in_o() -> TargetUser {
    target(200, &[], &[O])
}

pub fn admin_of_o() -> TargetUser {
    target(201, &[O], &[])
}

pub fn in_p() -> TargetUser {
    target(202, &[], &[P])
}

pub fn in_o_and_p() -> TargetUser {
    target(203, &[], &[O, P])
}

pub fn no_org() -> TargetUser {
    target(204, &[], &[])
}

pub fn superuser_no_org() -> TargetUser {
    TargetUser {
        is_superuser: true,
        ..target(205, &[], &[])
    }
}

pub fn superuser_in_o() -> TargetUser {
    TargetUser {
        is_superuser: true,
        ..target(206, &[], &[O])
    }
}

pub fn auditor_no_org() -> TargetUser {
    TargetUser {
        is_system_auditor: true,
        ..target(207, &[], &[])
    }
}

pub fn auditor_in_o() -> TargetUser {
    TargetUser {
        is_system_auditor: true,
        ..target(208, &[], &[O])
    }
}

/// Every target above plus each actor's own account.
pub fn all_targets() -> Vec<TargetUser> {
    let mut targets = vec![
        in_o(),
        admin_of_o(),
        in_p(),
        in_o_and_p(),
        no_org(),
        superuser_no_org(),
        superuser_in_o(),
        auditor_no_org(),
        auditor_in_o(),
    ];
    targets.extend(all_actors().iter().map(myself));
    targets
}

fn application(id: Id, organization: Id, user: Option<Id>) -> TargetApplication {
    TargetApplication {
        id,
        organization,
        user,
    }
}

/// An application of O that no user owns.
pub fn app_of_o() -> TargetApplication {
    application(300, O, None)
}

/// An application of P that no user owns.
pub fn app_of_p() -> TargetApplication {
    application(301, P, None)
}

/// An application of O owned by the target user in O, who is none of the actors.
pub fn app_of_o_owned_by_in_o() -> TargetApplication {
    application(302, O, Some(in_o().id))
}

/// An application of P owned by `actor`; unless the actor administers P,
/// only ownership can grant them anything.
pub fn app_of_p_owned_by(actor: &Actor) -> TargetApplication {
    application(303, P, Some(actor.user_id))
}

/// Every application above, including one owned by each actor.
pub fn all_applications() -> Vec<TargetApplication> {
    let mut apps = vec![app_of_o(), app_of_p(), app_of_o_owned_by_in_o()];
    apps.extend(all_actors().iter().map(app_of_p_owned_by));
    apps
}

/// A personal token (no application) of `owner`.
pub fn personal_token(owner: TargetUser) -> TargetToken {
    TargetToken {
        id: 400,
        owner,
        application: None,
    }
}

/// A token of `owner` for [`app_of_p`]; the application changes nothing
/// about who may manage the token.
pub fn app_token(owner: TargetUser) -> TargetToken {
    TargetToken {
        id: 401,
        owner,
        application: Some(app_of_p().id),
    }
}

//! Shared cast for the rule tables: one actor per role and one target per
//! kind of user, with distinct ids so "self" is never matched by accident.

use crate::{Actor, Id, TargetUser};

/// The organization most rows are about.
pub const O: Id = 1;
/// Another organization, administered by someone else.
pub const P: Id = 2;

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

//! Granting a role to a user, and revoking it.

use acs_authz::roles::{ResourceKind, RoleField};
use acs_authz::{Actor, Denied, OrganizationRole, TargetUser};
use acs_storage::DbConnection;
use acs_storage::roles::RoleRecord;
use acs_storage::users::User;

use super::{Owner, refused, write_change};
use crate::activity::Subject;
use crate::{AppError, AppResult, Writer};

/// What a check of a user's grant is asked.
#[derive(Debug, Clone, Copy)]
pub struct GrantCheck {
    /// Revoking, not granting.
    pub disassociate: bool,
    /// Whether the actor must be able to read the user (the reference skips it when it
    /// computes `unattach`).
    pub reading_target: bool,
}

/// Why a system role is not granted here: the flags are the system roles, and a membership
/// row would grant nothing.
fn refused_system_role(actor: &Actor) -> AppError {
    if !actor.is_superuser {
        return Denied::NotPermitted.into();
    }
    refused(
        "System roles are given and taken by PATCH /api/v2/users/<id>/ with is_superuser \
         or is_system_auditor.",
    )
}

/// Whether `actor` may grant (or revoke) `role` of `owner` to `target`: the reference's
/// checks, in its order.
pub fn user_permitted(
    actor: &Actor,
    (role, owner): (&RoleRecord, &Owner),
    target: &TargetUser,
    GrantCheck {
        disassociate,
        reading_target,
    }: GrantCheck,
) -> AppResult<()> {
    acs_authz::check_method(actor, false)?;
    if owner.credential.is_some() {
        match owner.resource.organization {
            Some(org) if !disassociate && !target.organizations().any(|o| o == org) => {
                return Err(refused(
                    "You cannot grant credential access to a user not in the credentials' \
                     organization",
                ));
            }
            None if !actor.is_superuser => {
                return Err(refused(
                    "You cannot grant private credential access to another user",
                ));
            }
            _ => {}
        }
    }
    if actor.is_superuser {
        return Ok(());
    }
    if reading_target && !acs_authz::can_view_user(actor, target) {
        return Err(Denied::NotPermitted.into());
    }
    let field = RoleField::parse(&role.field);
    match (owner.resource.kind, field) {
        (ResourceKind::Organization, Some(RoleField::Admin | RoleField::Member)) => {
            let membership = if field == Some(RoleField::Admin) {
                OrganizationRole::Admin
            } else {
                OrganizationRole::Member
            };
            acs_authz::can_change_membership(actor, owner.resource.id, membership, target)?;
        }
        _ => owner.administered_by(actor)?,
    }
    Ok(())
}

/// Grants `role` (of `owner`; `None` for a system role) to `user`, or revokes it with
/// `disassociate`, if the writer may, and records it in the activity stream. Granting a role
/// held directly, or revoking one not held, changes nothing and succeeds.
pub fn change_user(
    writer: &Writer<'_>,
    conn: &mut DbConnection,
    (role, owner): (&RoleRecord, Option<&Owner>),
    user: &User,
    disassociate: bool,
) -> AppResult<()> {
    let memberships = acs_storage::users::memberships_of(conn, user.id)?;
    let target = crate::users::target_of(user, &memberships);
    let Some(owner) = owner else {
        acs_authz::check_method(writer.actor, false)?;
        return Err(refused_system_role(writer.actor));
    };
    let check = GrantCheck {
        disassociate,
        reading_target: true,
    };
    user_permitted(writer.actor, (role, owner), &target, check)?;
    let holder = Subject::user(user);
    let changed = write_change(
        writer,
        conn,
        (&holder, disassociate),
        (role, Some(owner)),
        |conn| match disassociate {
            true => acs_storage::roles::revoke(conn, role.id, user.id),
            false => acs_storage::roles::grant(conn, role.id, user.id),
        },
    )?;
    tracing::info!(
        actor = writer.user.id,
        role = role.id,
        user = user.id,
        disassociate,
        changed,
        "role membership changed"
    );
    Ok(())
}

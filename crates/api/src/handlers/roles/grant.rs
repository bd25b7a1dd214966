//! Granting and revoking a role to a user, with the reference's checks in its order
//! (`RoleAccess`, and the credential rules of its role views).

use acs_authz::roles::{ResourceKind, RoleField};
use acs_authz::{OrganizationRole, TargetUser};
use acs_storage::roles::RoleRecord;
use acs_storage::users::User;
use serde_json::{Map, json};

use super::owner::Owner;
use crate::auth::Principal;
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use acs_app::activity::{self, Subject};

/// A 400 with the reference's `{"msg": …}` body.
pub fn refused(message: &str) -> ApiError {
    ApiError::Invalid(Map::from_iter([("msg".to_owned(), json!(message))]))
}

/// What a grant check is asked.
#[derive(Debug, Clone, Copy)]
pub struct Change {
    /// Revoking, not granting.
    pub disassociate: bool,
    /// Whether the caller must be able to read the user (the reference skips it when it
    /// computes `unattach`).
    pub reading_target: bool,
}

/// Why a system role is not granted here: the flags are the system roles, and a membership
/// row would grant nothing.
fn refused_system_role(actor: &acs_authz::Actor) -> ApiError {
    if !actor.is_superuser {
        return ApiError::permission_denied();
    }
    refused(
        "System roles are given and taken by PATCH /api/v2/users/<id>/ with is_superuser \
         or is_system_auditor.",
    )
}

/// Whether `actor` may grant (or revoke) `role` of `owner` to `target`: the reference's
/// checks, in its order.
pub fn permitted(
    actor: &acs_authz::Actor,
    (role, owner): (&RoleRecord, &Owner),
    target: &TargetUser,
    Change {
        disassociate,
        reading_target,
    }: Change,
) -> ApiResult<()> {
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
        return Err(ApiError::permission_denied());
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

/// [`change`] for `user`, whose memberships it reads.
pub fn change_for(
    ctx: &mut Context<'_>,
    principal: &Principal,
    role: (&RoleRecord, Option<&Owner>),
    user: &User,
    disassociate: bool,
) -> ApiResult<()> {
    let memberships = acs_storage::users::memberships_of(ctx.conn()?, user.id)?;
    let target = crate::handlers::users::target_of(user, &memberships);
    change(ctx, principal, role, (user, &target), disassociate)
}

/// Grants `role` to `user` (revokes it with `disassociate`) for `principal`, and records it in
/// the activity stream. Granting a role held directly, or revoking one not held, changes
/// nothing and succeeds.
pub fn change(
    ctx: &mut Context<'_>,
    principal: &Principal,
    (role, owner): (&RoleRecord, Option<&Owner>),
    (user, target): (&User, &TargetUser),
    disassociate: bool,
) -> ApiResult<()> {
    let Some(owner) = owner else {
        acs_authz::check_method(&principal.actor, false)?;
        return Err(refused_system_role(&principal.actor));
    };
    permitted(
        &principal.actor,
        (role, owner),
        target,
        Change {
            disassociate,
            reading_target: true,
        },
    )?;
    let now = ctx.now;
    let changed = ctx.write(|conn| {
        let changed = if disassociate {
            acs_storage::roles::revoke(conn, role.id, user.id)?
        } else {
            acs_storage::roles::grant(conn, role.id, user.id)?
        };
        if changed {
            let holder = Subject::user(user);
            record_change(
                conn,
                (now, principal),
                disassociate,
                &holder,
                (role, Some(owner)),
            )?;
        }
        Ok(changed)
    })?;
    tracing::info!(
        actor = principal.user.id,
        role = role.id,
        user = user.id,
        disassociate,
        changed,
        "role membership changed"
    );
    Ok(())
}

/// The activity entry of a grant (`associate`) or a revoke (`disassociate`) of `role` to
/// `holder` (a user or a team), naming the role's object when it has one.
pub fn record_change(
    conn: &mut acs_storage::DbConnection,
    (now, principal): (acs_storage::Timestamp, &Principal),
    disassociate: bool,
    holder: &Subject,
    (role, owner): (&RoleRecord, Option<&Owner>),
) -> ApiResult<()> {
    let operation = if disassociate {
        "disassociate"
    } else {
        "associate"
    };
    let object = owner.map(|owner| {
        Subject::named(
            owner.resource.kind.type_name(),
            owner.resource.id,
            &owner.name,
        )
    });
    activity::record(
        conn,
        now,
        Some(&principal.user),
        operation,
        holder,
        object.as_ref(),
        json!({ "role": role.field, "role_id": role.id }),
    )?;
    Ok(())
}

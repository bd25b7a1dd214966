//! Granting a role to a team, and revoking it, with the reference's refusals in its order: an
//! organization's participation roles go to users only, system roles to nobody through a
//! team, credential roles only within the credential's organization; then who may
//! (`RoleAccess`: admin of the role's object, reader of the team).

use acs_authz::roles::{Resource, ResourceKind, RoleField};
use acs_authz::{Actor, Denied};
use acs_storage::DbConnection;
use acs_storage::roles::RoleRecord;
use acs_storage::teams::Team;

use super::{Owner, refused, write_change};
use crate::activity::Subject;
use crate::{AppResult, Writer};

/// The refusal of an organization's admin or member role: they make a user part of the
/// organization, which a team is not.
pub const PARTICIPATION: &str =
    "You cannot assign an Organization participation role as a child role for a Team.";
/// The refusal of a system role.
pub const SYSTEM: &str = "You cannot grant system-level permissions to a team.";
/// The refusal of a credential role outside the team's organization.
pub const CREDENTIAL: &str = "You cannot grant credential access to a team when the \
                              Organization field isn't set, or belongs to a different \
                              organization";

/// A change of a team's roles.
#[derive(Debug, Clone, Copy)]
pub struct TeamChange<'a> {
    /// The role, and the object it belongs to (`None`: a system role).
    pub role: (&'a RoleRecord, Option<&'a Owner>),
    /// The team.
    pub team: &'a Team,
    /// Revoking, not granting.
    pub disassociate: bool,
}

/// Why the rules refuse `change` whoever asks (the reference's 400s), if they do. Here the
/// system-role rule is the grant's only, as in the reference's `/roles/<id>/teams/`
/// (`/teams/<id>/roles/` refuses a revoke too, before coming here).
fn refusal(change: &TeamChange<'_>) -> Option<&'static str> {
    let (role, owner) = change.role;
    let Some(owner) = owner else {
        return (!change.disassociate).then_some(SYSTEM);
    };
    let field = RoleField::parse(&role.field);
    if owner.resource.kind == ResourceKind::Organization
        && matches!(field, Some(RoleField::Admin | RoleField::Member))
    {
        return Some(PARTICIPATION);
    }
    if owner.credential.is_some()
        && owner.resource.organization != Some(change.team.organization_id)
    {
        return Some(CREDENTIAL);
    }
    None
}

/// Whether `actor` may make `change`: a superuser may; anyone else must read the team and
/// administer the object the role belongs to (the team's own admin does not suffice).
pub fn team_permitted(actor: &Actor, change: &TeamChange<'_>) -> AppResult<()> {
    acs_authz::check_method(actor, false)?;
    if let Some(message) = refusal(change) {
        return Err(refused(message));
    }
    if actor.is_superuser {
        return Ok(());
    }
    let team = Resource::of(
        ResourceKind::Team,
        change.team.id,
        Some(change.team.organization_id),
    );
    if !acs_authz::can_view_object(actor, &team) {
        return Err(Denied::NotPermitted.into());
    }
    match change.role.1 {
        Some(owner) => Ok(owner.administered_by(actor)?),
        None => Err(Denied::NotPermitted.into()),
    }
}

/// Grants the role to the team (revokes it with `disassociate`) if the writer may, and
/// records it in the activity stream. Granting a role the team holds, or revoking one it does
/// not, changes nothing and succeeds.
pub fn change_team(
    writer: &Writer<'_>,
    conn: &mut DbConnection,
    change: TeamChange<'_>,
) -> AppResult<()> {
    team_permitted(writer.actor, &change)?;
    let TeamChange {
        role: (role, owner),
        team,
        disassociate,
    } = change;
    let holder = Subject::named(ResourceKind::Team.type_name(), team.id, &team.name);
    let changed = write_change(
        writer,
        conn,
        (&holder, disassociate),
        (role, owner),
        |conn| match disassociate {
            true => acs_storage::teams::revoke(conn, role.id, team.id),
            false => acs_storage::teams::grant(conn, role.id, team.id),
        },
    )?;
    tracing::info!(
        actor = writer.user.id,
        role = role.id,
        team = team.id,
        disassociate,
        changed,
        "team role changed"
    );
    Ok(())
}

//! Carrying out at login what an identity source's maps decided ([`acs_mapping::Plan`]): the
//! memberships of organizations and teams to add or remove, and the flags to set, in the
//! caller's transaction. Each change really made writes one activity-stream entry naming
//! the source (`ldap`, `oidc:<provider>`), with no actor (the source acted, not a user);
//! a login that changes nothing writes nothing.
//!
//! An organization or team a map names is made when a user is first added to it (not at
//! every login whatever the match, as the reference does), and a team is found by name
//! within its organization.

use acs_authz::roles::{ResourceKind, RoleField};
use acs_mapping::{Change, OrganizationRole, Plan};
use acs_storage::stamps::Creation;
use acs_storage::users::{User, UserValues};
use acs_storage::{DbConnection, StorageError, Timestamp};
use serde_json::{Value, json};

use crate::AppResult;
use crate::activity::{self, Subject};

/// The activity-stream kind of a team.
const TEAM: &str = "team";

/// What a login changed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Applied {
    /// Memberships added or removed.
    pub memberships: usize,
    /// Organizations and teams made.
    pub made: usize,
    /// The user after its flags were set (`None` when they were left as they were).
    pub user: Option<User>,
}

/// Carries out `plan` for `user`, as `source` decided it, at `now`.
///
/// # Errors
///
/// A storage error; the caller's transaction then leaves everything as it was.
pub fn apply(
    conn: &mut DbConnection,
    user: &User,
    plan: &Plan,
    source: &str,
    now: Timestamp,
) -> AppResult<Applied> {
    let mut applied = Applied::default();
    let holder = Subject::user(user);
    for (name, role, change) in &plan.organizations {
        let Some(organization) = organization(conn, name, *change, source, now, &mut applied)?
        else {
            continue;
        };
        let field = match role {
            OrganizationRole::Admin => RoleField::Admin,
            OrganizationRole::Auditor => RoleField::Auditor,
            OrganizationRole::Member => RoleField::Member,
        };
        let object = Subject::named(
            acs_storage::activity::ORGANIZATION,
            organization.id,
            &organization.name,
        );
        let target = (ResourceKind::Organization, organization.id, field);
        change_role(
            conn,
            (&holder, &object),
            target,
            *change,
            (source, now),
            &mut applied,
        )?;
    }
    for (organization_name, team_name, change) in &plan.teams {
        let Some(organization) =
            organization(conn, organization_name, *change, source, now, &mut applied)?
        else {
            continue;
        };
        let team = match change {
            Change::Add => {
                let stamps = Creation::by(None, now);
                let (team, made) = acs_storage::teams::find_or_create_named(
                    conn,
                    organization.id,
                    team_name,
                    stamps,
                )?;
                if made {
                    applied.made += 1;
                    let subject = Subject::named(TEAM, team.id, &team.name);
                    let fields = json!({"name": team.name, "organization": organization.id, "source": source});
                    activity::record(conn, now, None, "create", &subject, None, fields)?;
                }
                team
            }
            Change::Remove => {
                match acs_storage::teams::find_named(conn, organization.id, team_name)? {
                    Some(team) => team,
                    None => continue,
                }
            }
        };
        let object = Subject::named(TEAM, team.id, &team.name);
        let target = (ResourceKind::Team, team.id, RoleField::Member);
        change_role(
            conn,
            (&holder, &object),
            target,
            *change,
            (source, now),
            &mut applied,
        )?;
    }
    applied.user = set_flags(conn, user, plan, source, now)?;
    Ok(applied)
}

/// The organization `name`: made when missing and a user is to be added to it; `None` when
/// missing and the change is a removal.
fn organization(
    conn: &mut DbConnection,
    name: &str,
    change: Change,
    source: &str,
    now: Timestamp,
    applied: &mut Applied,
) -> AppResult<Option<acs_storage::organizations::Organization>> {
    if change == Change::Remove {
        return Ok(acs_storage::organizations::find_named(conn, name)?);
    }
    let (organization, made) = acs_storage::organizations::find_or_create_named(conn, name, now)?;
    if made {
        applied.made += 1;
        let subject = Subject::named(
            acs_storage::activity::ORGANIZATION,
            organization.id,
            &organization.name,
        );
        let fields = json!({"name": organization.name, "source": source});
        activity::record(conn, now, None, "create", &subject, None, fields)?;
    }
    Ok(Some(organization))
}

/// Grants or revokes the role `field` of the object to the user; records it when it changed
/// something.
fn change_role(
    conn: &mut DbConnection,
    (holder, object): (&Subject, &Subject),
    (kind, id, field): (ResourceKind, i64, RoleField),
    change: Change,
    (source, now): (&str, Timestamp),
    applied: &mut Applied,
) -> AppResult<()> {
    let role =
        acs_storage::roles::of_field(conn, kind, id, field)?.ok_or(StorageError::NotFound)?;
    let (changed, operation) = match change {
        Change::Add => (
            acs_storage::roles::grant(conn, role.id, holder.id)?,
            "associate",
        ),
        Change::Remove => (
            acs_storage::roles::revoke(conn, role.id, holder.id)?,
            "disassociate",
        ),
    };
    if changed {
        applied.memberships += 1;
        let changes = json!({"role": role.field, "role_id": role.id, "source": source});
        activity::record(conn, now, None, operation, holder, Some(object), changes)?;
    }
    Ok(())
}

/// Sets the flags the plan decides, recording each one changed; the updated user, if any.
fn set_flags(
    conn: &mut DbConnection,
    user: &User,
    plan: &Plan,
    source: &str,
    now: Timestamp,
) -> AppResult<Option<User>> {
    let superuser = plan
        .flags
        .superuser
        .filter(|&wanted| wanted != user.is_superuser);
    let auditor = plan
        .flags
        .system_auditor
        .filter(|&wanted| wanted != user.is_system_auditor);
    if superuser.is_none() && auditor.is_none() {
        return Ok(None);
    }
    let values = UserValues {
        is_superuser: superuser,
        is_system_auditor: auditor,
        ..UserValues::default()
    };
    let updated = acs_storage::users::update(conn, user.id, &values, now)?;
    let holder = Subject::user(&updated);
    for (flag, before, after) in [
        ("is_superuser", user.is_superuser, superuser),
        ("is_system_auditor", user.is_system_auditor, auditor),
    ] {
        if let Some(after) = after {
            let mut changes = serde_json::Map::new();
            changes.insert(flag.to_owned(), json!([before, after]));
            changes.insert("source".to_owned(), json!(source));
            let changes = Value::Object(changes);
            activity::record(conn, now, None, "update", &holder, None, changes)?;
        }
    }
    Ok(Some(updated))
}

//! Granting and revoking roles, to a user or to a team, with the reference's checks in its
//! order (`RoleAccess`, and the credential rules of its role views). Each change is one
//! transaction with its activity-stream entry; the `role_members` and `team_roles` triggers
//! move the change counters, so every node's principal cache lets go of what the change made
//! stale within the change feed's bound.

mod to_team;
mod to_user;

pub use to_team::{CREDENTIAL, PARTICIPATION, SYSTEM, TeamChange, change_team, team_permitted};
pub use to_user::{GrantCheck, change_user, user_permitted};

use acs_authz::roles::{Resource, ResourceKind, RoleField};
use acs_authz::{Actor, Denied, TargetCredential};
use acs_storage::roles::RoleRecord;
use acs_storage::{DbConnection, StorageResult};
use serde_json::{Map, json};

use crate::activity::{self, Subject};
use crate::{AppError, AppResult, Writer};

/// The object a role belongs to: its name and what the access rules need of it.
#[derive(Debug, Clone)]
pub struct Owner {
    /// The object, as the role graph sees it.
    pub resource: Resource,
    /// Its name.
    pub name: String,
    /// For a credential, what the credential rules need.
    pub credential: Option<TargetCredential>,
}

impl Owner {
    /// Whether `actor` may see the object (and so its roles).
    pub fn visible_to(&self, actor: &Actor) -> bool {
        match (&self.credential, self.resource.kind) {
            (Some(credential), _) => acs_authz::can_view_credential(actor, credential),
            (None, ResourceKind::Organization) => {
                acs_authz::can_view_organization(actor, self.resource.id)
                    || actor.holds(&self.resource, RoleField::Read)
            }
            (None, _) => acs_authz::can_view_object(actor, &self.resource),
        }
    }

    /// Whether `actor` administers the object: what granting its roles takes.
    pub fn administered_by(&self, actor: &Actor) -> Result<(), Denied> {
        match (&self.credential, self.resource.kind) {
            (Some(credential), _) => acs_authz::can_change_credential(actor, credential),
            (None, ResourceKind::Organization) => {
                acs_authz::can_change_organization(actor, self.resource.id)
            }
            (None, _) => acs_authz::can_change_object(actor, &self.resource),
        }
    }
}

/// A refusal in the reference's shape for role changes, a 400 whose body is `{"msg": …}`.
pub fn refused(message: &str) -> AppError {
    AppError::Rejected(Map::from_iter([("msg".to_owned(), json!(message))]))
}

/// Writes one change of a grant to `holder` (`write` grants or revokes, as `disassociate`
/// says, and tells whether it changed anything) and, if it did, its activity entry, in one
/// transaction; whether it changed anything.
fn write_change(
    writer: &Writer<'_>,
    conn: &mut DbConnection,
    (holder, disassociate): (&Subject, bool),
    role: (&RoleRecord, Option<&Owner>),
    write: impl FnOnce(&mut DbConnection) -> StorageResult<bool>,
) -> AppResult<bool> {
    writer.pool.transaction(conn, |conn| {
        let changed = write(conn)?;
        if changed {
            record_change(conn, writer, disassociate, holder, role)?;
        }
        Ok(changed)
    })
}

/// The activity entry of a grant (`associate`) or a revoke (`disassociate`) of `role` to
/// `holder` (a user or a team), naming the role's object when it has one.
fn record_change(
    conn: &mut DbConnection,
    writer: &Writer<'_>,
    disassociate: bool,
    holder: &Subject,
    (role, owner): (&RoleRecord, Option<&Owner>),
) -> AppResult<()> {
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
        writer.now,
        Some(writer.user),
        operation,
        holder,
        object.as_ref(),
        json!({ "role": role.field, "role_id": role.id }),
    )
}

//! Organizations written: created and changed by superusers, deleted with what they hold
//! (their applications' tokens among it), and their admins and members added or taken out.
//! Each write is one transaction with its activity-stream entry, which keeps the record as
//! the caller renders it (`render`).

use acs_authz::{Actor, Denied, OrganizationRole};
use acs_storage::organizations::{Organization, OrganizationValues};
use acs_storage::tokens::TokenHolder;
use acs_storage::users::User;
use acs_storage::{DbConnection, StorageError};
use serde::Serialize;

use crate::activity::{self, Subject};
use crate::{AppError, AppResult, CallerError, Writer, token_holders};

/// The message for a taken name.
pub const NAME_TAKEN: &str = "Organization with this Name already exists.";

/// The organization `id`, if `actor` may see it: [`AppError::NoSuch`] if it does not exist,
/// [`AppError::Forbidden`] if it is not theirs to see.
pub fn visible(conn: &mut DbConnection, actor: &Actor, id: i64) -> AppResult<Organization> {
    let org = acs_storage::organizations::find(conn, id).map_err(|error| match error {
        StorageError::NotFound => AppError::NoSuch("Organization"),
        other => other.into(),
    })?;
    if !acs_authz::can_view_organization(actor, org.id) {
        return Err(Denied::NotPermitted.into());
    }
    Ok(org)
}

/// Creates an organization from `values` (its name given), if the writer may (a superuser).
/// Recorded as a creation with the record `render` shows.
pub fn create<R, E>(
    writer: &Writer<'_>,
    conn: &mut DbConnection,
    values: &OrganizationValues,
    render: impl Fn(&mut DbConnection, &Organization) -> Result<R, E>,
) -> Result<Organization, E>
where
    R: Serialize,
    E: CallerError,
{
    acs_authz::can_create_organization(writer.actor).map_err(AppError::from)?;
    let org = writer.pool.transaction(conn, |conn| {
        let org =
            acs_storage::organizations::insert(conn, values, writer.now).map_err(name_taken)?;
        let shown = render(conn, &org)?;
        writer.record_creation(conn, &subject(&org), &shown)?;
        Ok::<_, E>(org)
    })?;
    tracing::info!(
        actor = writer.user.id,
        organization = org.id,
        "organization created"
    );
    Ok(org)
}

/// Writes what `values` changes of `before`, if the writer may. Recorded as an update from
/// the record `render` shows of it before to the one after (a change of name or description
/// leaves its roles as they are, so the caller reads them once).
pub fn change<R: Serialize>(
    writer: &Writer<'_>,
    conn: &mut DbConnection,
    before: &Organization,
    values: &OrganizationValues,
    render: impl Fn(&Organization) -> R,
) -> AppResult<Organization> {
    acs_authz::can_change_organization(writer.actor, before.id)?;
    writer.pool.transaction(conn, |conn| {
        let org = acs_storage::organizations::update(conn, before.id, values, writer.now)
            .map_err(name_taken)?;
        writer.record_update(conn, &subject(&org), &render(before), &render(&org))?;
        Ok(org)
    })
}

/// Deletes `org` and its roles, with every token of its applications, if the writer may (a
/// superuser). Recorded with its last record `shown`.
pub fn delete(
    writer: &Writer<'_>,
    conn: &mut DbConnection,
    org: &Organization,
    shown: &impl Serialize,
) -> AppResult<Subject> {
    acs_authz::can_delete_organization(writer.actor, org.id)?;
    let subject = subject(org);
    writer.pool.transaction(conn, |conn| {
        let holder = TokenHolder::Organization(org.id);
        token_holders::delete(conn, writer.now, writer.user, holder, &subject, shown)
    })?;
    Ok(subject)
}

/// Makes `user` an admin or a member of `org` as `role` says (takes them out with
/// `disassociate`), if the writer may, and records it in the activity stream. Adding one who
/// holds the role, or taking out one who does not, changes nothing and succeeds.
pub fn change_membership(
    writer: &Writer<'_>,
    conn: &mut DbConnection,
    (org, role): (&Organization, OrganizationRole),
    user: &User,
    disassociate: bool,
) -> AppResult<()> {
    let memberships = acs_storage::users::memberships_of(conn, user.id)?;
    let target = crate::users::target_of(user, &memberships);
    acs_authz::can_change_membership(writer.actor, org.id, role, &target)?;
    let changed = writer.pool.transaction(conn, |conn| {
        let changed = if disassociate {
            acs_storage::organizations::remove_role(conn, org.id, user.id, role)?
        } else {
            acs_storage::organizations::add_role(conn, org.id, user.id, role)?
        };
        if changed {
            let operation = if disassociate {
                "disassociate"
            } else {
                "associate"
            };
            let role = acs_storage::organizations::role_name(role);
            activity::record(
                conn,
                writer.now,
                Some(writer.user),
                operation,
                &Subject::user(user),
                Some(&subject(org)),
                serde_json::json!({ "role": role }),
            )?;
        }
        Ok::<_, AppError>(changed)
    })?;
    tracing::info!(
        actor = writer.user.id,
        organization = org.id,
        user = user.id,
        ?role,
        disassociate,
        changed,
        "membership changed"
    );
    Ok(())
}

/// The activity stream's name of `org`.
fn subject(org: &Organization) -> Subject {
    Subject::named(acs_storage::activity::ORGANIZATION, org.id, &org.name)
}

/// A uniqueness conflict on write is the name taken.
fn name_taken(error: StorageError) -> AppError {
    match error {
        StorageError::Conflict(_) => AppError::invalid("name", NAME_TAKEN),
        other => other.into(),
    }
}

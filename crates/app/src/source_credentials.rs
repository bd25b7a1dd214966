//! An organization's content sources, in precedence order: the credentials whose tokens its
//! project updates present to content servers. A change appends one, moves (or inserts) one
//! to a position, or removes one, in one transaction with its activity-stream entry.

use acs_storage::DbConnection;
use acs_storage::organizations::Organization;
use serde_json::json;

use crate::activity::{self, Subject};
use crate::error::referenced;
use crate::{AppError, AppResult, Writer};

/// What a change of the list does with one credential.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceChange {
    /// At the end (nothing, if listed).
    Append,
    /// To this 0-based position, taken out of where it was.
    MoveTo(usize),
    /// Out of the list (nothing, if not listed).
    Remove,
}

/// Applies `change` of the credential `credential_id` to the content sources of `org`, if the
/// writer may change the organization and, to add one, use the credential, which must be a
/// content source credential. The list is read and rewritten under the organization's lock.
pub fn change(
    writer: &Writer<'_>,
    conn: &mut DbConnection,
    org: &Organization,
    (credential_id, change): (i64, SourceChange),
) -> AppResult<()> {
    acs_authz::can_change_organization(writer.actor, org.id)?;
    let credential = referenced(
        acs_storage::credentials::find(conn, credential_id),
        "id",
        credential_id,
    )?;
    if change != SourceChange::Remove {
        // Using a credential (its token goes to every project update of this organization)
        // needs the right to use it, not only to see it: a system auditor sees every
        // organization's tokens.
        let target = crate::credentials::target_of(conn, &credential)?;
        if !acs_authz::can_view_credential(writer.actor, &target) {
            return Err(acs_authz::Denied::NotPermitted.into());
        }
        acs_authz::can_use_credential(writer.actor, &target)?;
        let credential_type =
            acs_storage::credential_types::find(conn, credential.credential_type_id)?;
        if credential_type.kind != "source" {
            return Err(AppError::invalid(
                "id",
                format!(
                    "Credential must be a content source credential, not {}.",
                    credential_type.name
                ),
            ));
        }
    }
    writer.pool.transaction(conn, |conn| {
        acs_storage::source_credentials::lock(conn, org.id)?;
        let current = acs_storage::source_credentials::ordered_ids(conn, org.id)?;
        let Some(order) = reordered(&current, credential_id, change)? else {
            return Ok(());
        };
        acs_storage::source_credentials::replace(conn, org.id, &order)?;
        let operation = match change {
            SourceChange::Remove => "disassociate",
            _ => "associate",
        };
        activity::record(
            conn,
            writer.now,
            Some(writer.user),
            operation,
            &Subject::named(
                acs_storage::activity::CREDENTIAL,
                credential.id,
                &credential.name,
            ),
            Some(&Subject::named(
                acs_storage::activity::ORGANIZATION,
                org.id,
                &org.name,
            )),
            json!({ "source_credentials": order }),
        )
    })
}

/// The new order after `change` of `id`, or `None` when nothing changes (appending a listed
/// credential or removing an unlisted one, as the reference does).
fn reordered(current: &[i64], id: i64, change: SourceChange) -> AppResult<Option<Vec<i64>>> {
    let listed = current.contains(&id);
    let mut order: Vec<i64> = current.iter().copied().filter(|c| *c != id).collect();
    match change {
        SourceChange::Append if listed => Ok(None),
        SourceChange::Append => {
            order.push(id);
            Ok(Some(order))
        }
        SourceChange::Remove if !listed => Ok(None),
        SourceChange::Remove => Ok(Some(order)),
        SourceChange::MoveTo(position) => {
            if position > order.len() {
                return Err(AppError::invalid(
                    "position",
                    format!(
                        "Ensure this value is less than or equal to {}.",
                        order.len()
                    ),
                ));
            }
            order.insert(position, id);
            Ok((order != current).then_some(order))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reorder_rules() {
        use SourceChange::{Append, MoveTo, Remove};
        let current = [1, 2, 3];
        assert_eq!(
            reordered(&current, 4, Append).ok(),
            Some(Some(vec![1, 2, 3, 4]))
        );
        assert_eq!(reordered(&current, 2, Append).ok(), Some(None));
        assert_eq!(reordered(&current, 2, Remove).ok(), Some(Some(vec![1, 3])));
        assert_eq!(reordered(&current, 9, Remove).ok(), Some(None));
        assert_eq!(
            reordered(&current, 3, MoveTo(0)).ok(),
            Some(Some(vec![3, 1, 2]))
        );
        assert_eq!(
            reordered(&current, 1, MoveTo(2)).ok(),
            Some(Some(vec![2, 3, 1]))
        );
        assert_eq!(reordered(&current, 1, MoveTo(0)).ok(), Some(None));
        assert_eq!(
            reordered(&current, 4, MoveTo(1)).ok(),
            Some(Some(vec![1, 4, 2, 3]))
        );
        assert!(reordered(&current, 1, MoveTo(3)).is_err());
        assert!(reordered(&current, 4, MoveTo(4)).is_err());
    }
}

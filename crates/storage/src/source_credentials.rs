//! Each organization's ordered list of content-source credentials. Positions are kept dense
//! (`0..n`), so the order is the precedence project updates use.

use diesel::prelude::*;

use crate::credentials::Credential;
use crate::schema::{credentials, organization_source_credentials, organizations};
use crate::{DbConnection, StorageResult};

/// The credential ids of `organization`'s list, in order.
pub fn ordered_ids(conn: &mut DbConnection, organization: i64) -> StorageResult<Vec<i64>> {
    Ok(organization_source_credentials::table
        .filter(organization_source_credentials::organization_id.eq(organization))
        .order(organization_source_credentials::position.asc())
        .select(organization_source_credentials::credential_id)
        .load(conn)?)
}

/// One page of `organization`'s list, in order, with the total count.
pub fn page(
    conn: &mut DbConnection,
    organization: i64,
    offset: i64,
    limit: i64,
) -> StorageResult<(i64, Vec<Credential>)> {
    let count = organization_source_credentials::table
        .filter(organization_source_credentials::organization_id.eq(organization))
        .count()
        .get_result(conn)?;
    let items = organization_source_credentials::table
        .inner_join(credentials::table)
        .filter(organization_source_credentials::organization_id.eq(organization))
        .order(organization_source_credentials::position.asc())
        .select(Credential::as_select())
        .offset(offset)
        .limit(limit)
        .load(conn)?;
    Ok((count, items))
}

/// Replaces `organization`'s list by `ids`, in that order. Call inside a write transaction,
/// after [`lock`].
pub fn replace(conn: &mut DbConnection, organization: i64, ids: &[i64]) -> StorageResult<()> {
    diesel::delete(
        organization_source_credentials::table
            .filter(organization_source_credentials::organization_id.eq(organization)),
    )
    .execute(conn)?;
    // One row at a time: the multi-backend connection has no batch insert, and a list holds
    // a handful of sources.
    for (id, position) in ids.iter().zip(0i32..) {
        diesel::insert_into(organization_source_credentials::table)
            .values((
                organization_source_credentials::organization_id.eq(organization),
                organization_source_credentials::credential_id.eq(*id),
                organization_source_credentials::position.eq(position),
            ))
            .execute(conn)?;
    }
    Ok(())
}

/// Serialises changes to `organization`'s list: a no-op write to the organization row takes
/// its row lock (PostgreSQL) or the write lock (SQLite), so two concurrent edits of the list
/// apply one after the other instead of both rewriting the order they read.
pub fn lock(conn: &mut DbConnection, organization: i64) -> StorageResult<()> {
    diesel::update(organizations::table.find(organization))
        .set(organizations::id.eq(organizations::id))
        .execute(conn)?;
    Ok(())
}

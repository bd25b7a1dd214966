//! The short forms of related rows that records show under `summary_fields`, read for a whole
//! page at once.

use std::collections::HashMap;

use diesel::prelude::*;

use crate::schema::{organizations, users};
use crate::{DbConnection, StorageResult};

/// `(id, name, description)` of an organization.
pub type OrganizationSummary = (i64, String, String);

/// `(id, username, first_name, last_name)` of a user.
pub type UserSummary = (i64, String, String, String);

/// The summaries of the organizations `ids`, by id.
pub fn organizations(
    conn: &mut DbConnection,
    ids: &[i64],
) -> StorageResult<HashMap<i64, OrganizationSummary>> {
    let rows: Vec<OrganizationSummary> = organizations::table
        .filter(organizations::id.eq_any(ids))
        .select((
            organizations::id,
            organizations::name,
            organizations::description,
        ))
        .load(conn)?;
    Ok(rows.into_iter().map(|row| (row.0, row)).collect())
}

/// The summaries of the users `ids`, by id.
pub fn users(conn: &mut DbConnection, ids: &[i64]) -> StorageResult<HashMap<i64, UserSummary>> {
    let rows: Vec<UserSummary> = users::table
        .filter(users::id.eq_any(ids))
        .select((
            users::id,
            users::username,
            users::first_name,
            users::last_name,
        ))
        .load(conn)?;
    Ok(rows.into_iter().map(|row| (row.0, row)).collect())
}

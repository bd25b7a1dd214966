//! The reference's named URLs: a record named by its natural key instead of its id, such as
//! `/api/v2/job_templates/Deploy++Default/` (the template `Deploy` of organization
//! `Default`). A key's parts are the record's name, then its parents' keys, joined by `++`;
//! a credential type's key is `<name>+<kind>`, and an empty part stands for a parent a
//! record does not have (a credential of no organization ends in `++`).
//!
//! [`resolve`] finds the one record a key names; a key that names none, or more than one,
//! resolves to nothing.

use diesel::prelude::*;

use crate::schema::{
    applications, credential_types, credentials, hosts, inventories, inventory_groups,
    inventory_sources, job_templates, organizations, projects, teams,
};
use crate::{DbConnection, StorageResult};

/// The id of the one row a query selects, if exactly one.
fn only(ids: Vec<i64>) -> Option<i64> {
    match ids.as_slice() {
        [id] => Some(*id),
        _ => None,
    }
}

/// The organization named `name`.
fn organization(conn: &mut DbConnection, name: &str) -> StorageResult<Option<i64>> {
    Ok(only(
        organizations::table
            .filter(organizations::name.eq(name))
            .select(organizations::id)
            .load(conn)?,
    ))
}

/// The inventory a `<name>++<organization>` key names.
fn inventory(conn: &mut DbConnection, name: &str, org: &str) -> StorageResult<Option<i64>> {
    let Some(org) = organization(conn, org)? else {
        return Ok(None);
    };
    Ok(only(
        inventories::table
            .filter(inventories::name.eq(name))
            .filter(inventories::organization_id.eq(org))
            .select(inventories::id)
            .load(conn)?,
    ))
}

/// The credential type a `<name>+<kind>` key names.
fn credential_type(conn: &mut DbConnection, key: &str) -> StorageResult<Option<i64>> {
    let Some((name, kind)) = key.rsplit_once('+') else {
        return Ok(None);
    };
    Ok(only(
        credential_types::table
            .filter(credential_types::name.eq(name))
            .filter(credential_types::kind.eq(kind))
            .select(credential_types::id)
            .load(conn)?,
    ))
}

/// The record of `table` named `name` within organization `org` (by name).
macro_rules! in_organization {
    ($conn:expr, $table:ident, $name:expr, $org:expr) => {{
        match organization($conn, $org)? {
            None => None,
            Some(org) => only(
                $table::table
                    .filter($table::name.eq($name))
                    .filter($table::organization_id.eq(org))
                    .select($table::id)
                    .load($conn)?,
            ),
        }
    }};
}

/// The record of `table` named `name` within the inventory `inventory` of `org`.
macro_rules! in_inventory {
    ($conn:expr, $table:ident, $name:expr, $inventory:expr, $org:expr) => {{
        match inventory($conn, $inventory, $org)? {
            None => None,
            Some(inventory) => only(
                $table::table
                    .filter($table::name.eq($name))
                    .filter($table::inventory_id.eq(inventory))
                    .select($table::id)
                    .load($conn)?,
            ),
        }
    }};
}

/// The id of the record of `collection` (`job_templates`) that `key` (already
/// percent-decoded) names; `None` when it names none, several, or the collection has no
/// named URLs.
pub fn resolve(conn: &mut DbConnection, collection: &str, key: &str) -> StorageResult<Option<i64>> {
    let parts: Vec<&str> = key.split("++").collect();
    Ok(match (collection, parts.as_slice()) {
        ("organizations", [name]) => organization(conn, name)?,
        ("teams", [name, org]) => in_organization!(conn, teams, *name, org),
        ("projects", [name, org]) => in_organization!(conn, projects, *name, org),
        ("inventories", [name, org]) => inventory(conn, name, org)?,
        ("job_templates", [name, org]) => in_organization!(conn, job_templates, *name, org),
        ("applications", [name, org]) => in_organization!(conn, applications, *name, org),
        ("hosts", [name, inventory, org]) => in_inventory!(conn, hosts, *name, inventory, org),
        ("groups", [name, inventory, org]) => {
            in_inventory!(conn, inventory_groups, *name, inventory, org)
        }
        ("inventory_sources", [name, inventory, org]) => {
            in_inventory!(conn, inventory_sources, *name, inventory, org)
        }
        ("credential_types", [key]) => credential_type(conn, key)?,
        ("credentials", [name, kind, org]) => {
            let Some(kind) = credential_type(conn, kind)? else {
                return Ok(None);
            };
            let matching = credentials::table
                .filter(credentials::name.eq(*name))
                .filter(credentials::credential_type_id.eq(kind))
                .select(credentials::id);
            let ids = if org.is_empty() {
                matching
                    .filter(credentials::organization_id.is_null())
                    .load(conn)?
            } else {
                match organization(conn, org)? {
                    None => Vec::new(),
                    Some(org) => matching
                        .filter(credentials::organization_id.eq(org))
                        .load(conn)?,
                }
            };
            only(ids)
        }
        _ => None,
    })
}

/// The collections [`resolve`] knows.
pub const COLLECTIONS: [&str; 11] = [
    "organizations",
    "teams",
    "projects",
    "inventories",
    "job_templates",
    "applications",
    "hosts",
    "groups",
    "inventory_sources",
    "credential_types",
    "credentials",
];

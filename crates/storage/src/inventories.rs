//! Inventories: named sets of hosts, owned by an organization.

use acs_authz::ObjectVisibility;
use diesel::prelude::*;

use crate::list::{ListError, ListParams, Page};
use crate::schema::{hosts, inventories};
use crate::{DbConnection, StorageResult, Timestamp};

/// An inventory row.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = inventories)]
pub struct Inventory {
    /// Primary key.
    pub id: i64,
    /// Name, unique per organization.
    pub name: String,
    /// Free text.
    pub description: String,
    /// Owning organization.
    pub organization_id: i64,
    /// Creator.
    pub created_by: Option<i64>,
    /// Last modifier.
    pub modified_by: Option<i64>,
    /// Creation time.
    pub created: Timestamp,
    /// Last modification time.
    pub modified: Timestamp,
}

/// The values an inventory is created or changed with: a `None` takes the column's default on
/// insert and leaves the column as it is on update.
#[derive(Debug, Clone, Default, Insertable, AsChangeset)]
#[diesel(table_name = inventories)]
pub struct InventoryValues {
    /// Name.
    pub name: Option<String>,
    /// Free text.
    pub description: Option<String>,
    /// Owning organization.
    pub organization_id: Option<i64>,
}

crate::row_functions!(inventories, Inventory, stamped InventoryValues);

/// Where in the inventories a list of what lives in them (hosts, groups, sources) looks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Within {
    /// Every inventory.
    #[default]
    Anywhere,
    /// One inventory.
    Inventory(i64),
    /// Directly in one group: its hosts, or its child groups.
    Group(i64),
    /// One host: the groups it is directly in (the host itself, in a list of hosts).
    Host(i64),
}

/// How many hosts `inventory` holds.
pub fn host_count(conn: &mut DbConnection, inventory: i64) -> StorageResult<i64> {
    Ok(hosts::table
        .filter(hosts::inventory_id.eq(inventory))
        .count()
        .get_result(conn)?)
}

crate::list_fields! {
    table: inventories;
    search: [inventories::name, inventories::description];
    default_order: inventories::name;
    fields: {
        "id" => integer(inventories::id),
        "name" => text(inventories::name),
        "description" => text(inventories::description),
        "organization" => integer(inventories::organization_id),
        "created" => timestamp(inventories::created),
        "modified" => timestamp(inventories::modified),
    }
}

/// Lists the inventories `visibility` allows, as `params` ask.
pub fn list(
    conn: &mut DbConnection,
    visibility: &ObjectVisibility,
    params: &ListParams,
) -> StorageResult<Result<Page<Inventory>, ListError>> {
    crate::list_page!(
        conn,
        params,
        || { filtered(crate::visible_rows!(inventories, visibility), params) },
        ordered,
        Inventory::as_select()
    )
}

//! Inventory sources: a script or inventory file in a project that `ansible-inventory` reads
//! to fill an inventory, with an optional credential injected into that run.

use acs_authz::ObjectVisibility;
use diesel::prelude::*;

use crate::inventories::Within;
use crate::list::{ListError, ListParams, Page};
use crate::schema::inventory_sources;
use crate::{DbConnection, StorageResult, Timestamp};

/// An inventory source row.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = inventory_sources)]
pub struct InventorySource {
    /// Primary key.
    pub id: i64,
    /// Name, unique per inventory.
    pub name: String,
    /// Free text.
    pub description: String,
    /// The inventory it fills.
    pub inventory_id: i64,
    /// Always `scm`: a file in a project.
    pub source: String,
    /// The project holding the file.
    pub source_project_id: Option<i64>,
    /// The file's path inside the project.
    pub source_path: String,
    /// The credential injected into the update.
    pub credential_id: Option<i64>,
    /// Creator.
    pub created_by: Option<i64>,
    /// Last modifier.
    pub modified_by: Option<i64>,
    /// Creation time.
    pub created: Timestamp,
    /// Last modification time.
    pub modified: Timestamp,
}

/// The values an inventory source is created or changed with: a `None` takes the column's default on
/// insert and leaves the column as it is on update.
#[derive(Debug, Clone, Default, Insertable, AsChangeset)]
#[diesel(table_name = inventory_sources)]
pub struct InventorySourceValues {
    /// Name.
    pub name: Option<String>,
    /// Free text.
    pub description: Option<String>,
    /// The inventory it fills.
    pub inventory_id: Option<i64>,
    /// `scm`, the one kind of source.
    pub source: Option<String>,
    /// The project holding the file.
    pub source_project_id: Option<Option<i64>>,
    /// The file's path inside the project.
    pub source_path: Option<String>,
    /// The credential injected into the update.
    pub credential_id: Option<Option<i64>>,
}

crate::row_functions!(inventory_sources, InventorySource, stamped InventorySourceValues);

/// Whether an inventory source uses credential `id`.
pub fn uses_credential(conn: &mut DbConnection, id: i64) -> StorageResult<bool> {
    let count: i64 = inventory_sources::table
        .filter(inventory_sources::credential_id.eq(id))
        .count()
        .get_result(conn)?;
    Ok(count > 0)
}

crate::list_fields! {
    table: inventory_sources;
    search: [inventory_sources::name, inventory_sources::description];
    default_order: inventory_sources::name;
    fields: {
        "id" => integer(inventory_sources::id),
        "name" => text(inventory_sources::name),
        "description" => text(inventory_sources::description),
        "inventory" => integer(inventory_sources::inventory_id),
        "source" => text(inventory_sources::source),
        "source_project" => nullable_integer(inventory_sources::source_project_id),
        "source_path" => text(inventory_sources::source_path),
        "credential" => nullable_integer(inventory_sources::credential_id),
        "created" => timestamp(inventory_sources::created),
        "modified" => timestamp(inventory_sources::modified),
    }
}

/// Lists the inventory sources `visibility` allows (through their inventory's organization),
/// `within` an inventory, as `params` ask. Sources belong to no group or host: within one,
/// the list is empty.
pub fn list(
    conn: &mut DbConnection,
    visibility: &ObjectVisibility,
    within: Within,
    params: &ListParams,
) -> StorageResult<Result<Page<InventorySource>, ListError>> {
    crate::list_page!(
        conn,
        params,
        || {
            let mut query = crate::rows_in_visible_inventories!(inventory_sources, visibility);
            match within {
                Within::Anywhere => {}
                Within::Inventory(inventory) => {
                    query = query.filter(inventory_sources::inventory_id.eq(inventory));
                }
                Within::Group(_) | Within::Host(_) => {
                    query = query.filter(inventory_sources::id.eq_any(Vec::<i64>::new()));
                }
            }
            filtered(query, params)
        },
        ordered,
        InventorySource::as_select()
    )
}

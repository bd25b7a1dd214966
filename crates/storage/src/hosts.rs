//! Hosts of an inventory, made through the API or imported by an inventory update.

use acs_authz::ObjectVisibility;
use diesel::prelude::*;

use crate::inventories::Within;
use crate::list::{ListError, ListParams, Page};
use crate::schema::{hosts, inventory_group_hosts};
use crate::{DbConnection, StorageResult, Timestamp};

/// A host row.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = hosts)]
pub struct Host {
    /// Primary key.
    pub id: i64,
    /// Name, unique per inventory.
    pub name: String,
    /// Free text.
    pub description: String,
    /// Its inventory.
    pub inventory_id: i64,
    /// Host variables as YAML or JSON text.
    pub variables: String,
    /// The inventory source that imported it, if any.
    pub inventory_source_id: Option<i64>,
    /// Whether runs include it.
    pub enabled: bool,
    /// Creation time.
    pub created: Timestamp,
    /// Last modification time.
    pub modified: Timestamp,
}

/// The values a host is created or changed with through the API: a `None` takes the column's
/// default on insert and leaves the column as it is on update.
#[derive(Debug, Clone, Default, Insertable, AsChangeset)]
#[diesel(table_name = hosts)]
pub struct HostValues {
    /// Name.
    pub name: Option<String>,
    /// Free text.
    pub description: Option<String>,
    /// Its inventory.
    pub inventory_id: Option<i64>,
    /// Host variables as YAML or JSON text.
    pub variables: Option<String>,
    /// Whether runs include it.
    pub enabled: Option<bool>,
}

crate::row_functions!(hosts, Host, timed HostValues);

/// Whether `inventory` has a host named `name`.
pub fn named(conn: &mut DbConnection, inventory: i64, name: &str) -> StorageResult<bool> {
    Ok(diesel::select(diesel::dsl::exists(
        hosts::table
            .filter(hosts::inventory_id.eq(inventory))
            .filter(hosts::name.eq(name)),
    ))
    .get_result(conn)?)
}

/// Every host of `inventory` by name order, for a job's inventory file.
pub fn of_inventory(conn: &mut DbConnection, inventory: i64) -> StorageResult<Vec<Host>> {
    Ok(hosts::table
        .filter(hosts::inventory_id.eq(inventory))
        .order(hosts::name.asc())
        .select(Host::as_select())
        .load(conn)?)
}

/// Copies every host of inventory `from` into inventory `to` at `now` (name, description,
/// variables, enabled; a copied host belongs to no inventory source); returns how many.
pub fn copy_all(
    conn: &mut DbConnection,
    from: i64,
    to: i64,
    now: Timestamp,
) -> StorageResult<usize> {
    let hosts = of_inventory(conn, from)?;
    for host in &hosts {
        // One statement per host: the two backends take no common batch insert.
        diesel::insert_into(hosts::table)
            .values((
                hosts::name.eq(&host.name),
                hosts::description.eq(&host.description),
                hosts::inventory_id.eq(to),
                hosts::variables.eq(&host.variables),
                hosts::enabled.eq(host.enabled),
                hosts::created.eq(now),
                hosts::modified.eq(now),
            ))
            .execute(conn)?;
    }
    Ok(hosts.len())
}

/// Replaces the hosts `source` imported into `inventory` by `imported` (name, variables as
/// JSON text): hosts it imported before and no longer returns are removed, the others are
/// updated or added; a host of the same name made through the API is taken over. Returns
/// (added or updated, removed). Call inside a write transaction.
pub fn import(
    conn: &mut DbConnection,
    inventory: i64,
    source: i64,
    imported: &[(String, String)],
    now: Timestamp,
) -> StorageResult<(usize, usize)> {
    let names: Vec<&str> = imported.iter().map(|(name, _)| name.as_str()).collect();
    let removed = diesel::delete(
        hosts::table
            .filter(hosts::inventory_id.eq(inventory))
            .filter(hosts::inventory_source_id.eq(source))
            .filter(hosts::name.ne_all(&names)),
    )
    .execute(conn)?;
    for (name, variables) in imported {
        let changed = diesel::update(
            hosts::table
                .filter(hosts::inventory_id.eq(inventory))
                .filter(hosts::name.eq(name)),
        )
        .set((
            hosts::variables.eq(variables),
            hosts::inventory_source_id.eq(source),
            hosts::modified.eq(now),
        ))
        .execute(conn)?;
        if changed == 0 {
            diesel::insert_into(hosts::table)
                .values((
                    hosts::name.eq(name),
                    hosts::description.eq("imported"),
                    hosts::inventory_id.eq(inventory),
                    hosts::variables.eq(variables),
                    hosts::inventory_source_id.eq(source),
                    hosts::created.eq(now),
                    hosts::modified.eq(now),
                ))
                .execute(conn)?;
        }
    }
    Ok((imported.len(), removed))
}

crate::list_fields! {
    table: hosts;
    search: [hosts::name, hosts::description];
    default_order: hosts::name;
    fields: {
        "id" => integer(hosts::id),
        "name" => text(hosts::name),
        "description" => text(hosts::description),
        "inventory" => integer(hosts::inventory_id),
        "inventory_source" => nullable_integer(hosts::inventory_source_id),
        "enabled" => boolean(hosts::enabled),
        "created" => timestamp(hosts::created),
        "modified" => timestamp(hosts::modified),
    }
}

/// Lists the hosts `visibility` allows (through their inventory's organization), `within` an
/// inventory or directly in a group, as `params` ask.
pub fn list(
    conn: &mut DbConnection,
    visibility: &ObjectVisibility,
    within: Within,
    params: &ListParams,
) -> StorageResult<Result<Page<Host>, ListError>> {
    crate::list_page!(
        conn,
        params,
        || {
            let mut query = crate::rows_in_visible_inventories!(hosts, visibility);
            match within {
                Within::Anywhere => {}
                Within::Inventory(inventory) => {
                    query = query.filter(hosts::inventory_id.eq(inventory));
                }
                Within::Group(group) => {
                    let members = inventory_group_hosts::table
                        .filter(inventory_group_hosts::group_id.eq(group))
                        .select(inventory_group_hosts::host_id);
                    query = query.filter(hosts::id.eq_any(members));
                }
                Within::Host(host) => query = query.filter(hosts::id.eq(host)),
            }
            filtered(query, params)
        },
        ordered,
        Host::as_select()
    )
}

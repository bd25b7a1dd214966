//! Groups of an inventory: named sets of its hosts and of its other groups, with variables of
//! their own that ansible applies to every host within.
//!
//! A group's direct members are stored; what lies beneath (a child's hosts, a grandchild) is
//! worked out from them. Memberships never cross inventories and never form a cycle: the
//! callers check both with [`would_cycle`] and the rows' inventories before they add one.

use std::collections::{HashMap, HashSet};

use acs_authz::ObjectVisibility;
use diesel::prelude::*;

use crate::inventories::Within;
use crate::list::{ListError, ListParams, Page};
use crate::schema::{hosts, inventory_group_children, inventory_group_hosts, inventory_groups};
use crate::{DbConnection, StorageResult, Timestamp};

/// A group row.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = inventory_groups)]
pub struct Group {
    /// Primary key.
    pub id: i64,
    /// Name, unique per inventory.
    pub name: String,
    /// Free text.
    pub description: String,
    /// Its inventory.
    pub inventory_id: i64,
    /// Group variables as YAML or JSON text.
    pub variables: String,
    /// Creation time.
    pub created: Timestamp,
    /// Last modification time.
    pub modified: Timestamp,
}

/// The values a group is created or changed with: a `None` takes the column's default on
/// insert and leaves the column as it is on update.
#[derive(Debug, Clone, Default, Insertable, AsChangeset)]
#[diesel(table_name = inventory_groups)]
pub struct GroupValues {
    /// Name.
    pub name: Option<String>,
    /// Free text.
    pub description: Option<String>,
    /// Its inventory.
    pub inventory_id: Option<i64>,
    /// Group variables as YAML or JSON text.
    pub variables: Option<String>,
}

crate::row_functions!(inventory_groups, Group, timed GroupValues);

/// Every group of `inventory` by name order.
pub fn of_inventory(conn: &mut DbConnection, inventory: i64) -> StorageResult<Vec<Group>> {
    Ok(inventory_groups::table
        .filter(inventory_groups::inventory_id.eq(inventory))
        .order(inventory_groups::name.asc())
        .select(Group::as_select())
        .load(conn)?)
}

/// How many groups `inventory` holds.
pub fn count(conn: &mut DbConnection, inventory: i64) -> StorageResult<i64> {
    Ok(inventory_groups::table
        .filter(inventory_groups::inventory_id.eq(inventory))
        .count()
        .get_result(conn)?)
}

/// Whether `inventory` has a group named `name`.
pub fn named(conn: &mut DbConnection, inventory: i64, name: &str) -> StorageResult<bool> {
    Ok(diesel::select(diesel::dsl::exists(
        inventory_groups::table
            .filter(inventory_groups::inventory_id.eq(inventory))
            .filter(inventory_groups::name.eq(name)),
    ))
    .get_result(conn)?)
}

/// The (group, host) pairs of `inventory`'s direct host memberships.
pub fn host_memberships(conn: &mut DbConnection, inventory: i64) -> StorageResult<Vec<(i64, i64)>> {
    Ok(inventory_group_hosts::table
        .inner_join(inventory_groups::table)
        .filter(inventory_groups::inventory_id.eq(inventory))
        .select((
            inventory_group_hosts::group_id,
            inventory_group_hosts::host_id,
        ))
        .load(conn)?)
}

/// The (parent, child) pairs of `inventory`'s groups.
pub fn child_links(conn: &mut DbConnection, inventory: i64) -> StorageResult<Vec<(i64, i64)>> {
    let groups = inventory_groups::table
        .filter(inventory_groups::inventory_id.eq(inventory))
        .select(inventory_groups::id);
    Ok(inventory_group_children::table
        .filter(inventory_group_children::parent_id.eq_any(groups))
        .select((
            inventory_group_children::parent_id,
            inventory_group_children::child_id,
        ))
        .load(conn)?)
}

/// Puts host `host` directly in group `group`; false if it was already.
pub fn add_host(conn: &mut DbConnection, group: i64, host: i64) -> StorageResult<bool> {
    let key = (
        inventory_group_hosts::group_id.eq(group),
        inventory_group_hosts::host_id.eq(host),
    );
    if diesel::select(diesel::dsl::exists(
        inventory_group_hosts::table.filter(key.0).filter(key.1),
    ))
    .get_result(conn)?
    {
        return Ok(false);
    }
    diesel::insert_into(inventory_group_hosts::table)
        .values(key)
        .execute(conn)?;
    Ok(true)
}

/// Takes host `host` out of group `group`; false if it was not in it.
pub fn remove_host(conn: &mut DbConnection, group: i64, host: i64) -> StorageResult<bool> {
    let removed = diesel::delete(
        inventory_group_hosts::table
            .filter(inventory_group_hosts::group_id.eq(group))
            .filter(inventory_group_hosts::host_id.eq(host)),
    )
    .execute(conn)?;
    Ok(removed > 0)
}

/// Makes group `child` a direct child of group `parent`; false if it was already. Check
/// [`would_cycle`] first.
pub fn add_child(conn: &mut DbConnection, parent: i64, child: i64) -> StorageResult<bool> {
    let key = (
        inventory_group_children::parent_id.eq(parent),
        inventory_group_children::child_id.eq(child),
    );
    if diesel::select(diesel::dsl::exists(
        inventory_group_children::table.filter(key.0).filter(key.1),
    ))
    .get_result(conn)?
    {
        return Ok(false);
    }
    diesel::insert_into(inventory_group_children::table)
        .values(key)
        .execute(conn)?;
    Ok(true)
}

/// Takes group `child` out of group `parent`; false if it was not a child of it.
pub fn remove_child(conn: &mut DbConnection, parent: i64, child: i64) -> StorageResult<bool> {
    let removed = diesel::delete(
        inventory_group_children::table
            .filter(inventory_group_children::parent_id.eq(parent))
            .filter(inventory_group_children::child_id.eq(child)),
    )
    .execute(conn)?;
    Ok(removed > 0)
}

/// Whether making `child` a child of `parent` (both of `inventory`) would close a cycle:
/// `child` is `parent`, or `parent` lies beneath `child` already.
pub fn would_cycle(
    conn: &mut DbConnection,
    inventory: i64,
    parent: i64,
    child: i64,
) -> StorageResult<bool> {
    let links = child_links(conn, inventory)?;
    Ok(descendants(&links, child).contains(&parent) || parent == child)
}

/// The groups beneath `group` through `links` ((parent, child) pairs), `group` not included.
pub fn descendants(links: &[(i64, i64)], group: i64) -> HashSet<i64> {
    let mut children: HashMap<i64, Vec<i64>> = HashMap::new();
    for &(parent, child) in links {
        children.entry(parent).or_default().push(child);
    }
    let mut found = HashSet::new();
    let mut next = vec![group];
    while let Some(at) = next.pop() {
        for &child in children.get(&at).into_iter().flatten() {
            if found.insert(child) {
                next.push(child);
            }
        }
    }
    found
}

/// Copies every group of inventory `from` into inventory `to` at `now`, with their host and
/// child memberships; the hosts must have been copied first (they are matched by name).
/// Returns how many groups.
pub fn copy_all(
    conn: &mut DbConnection,
    from: i64,
    to: i64,
    now: Timestamp,
) -> StorageResult<usize> {
    let groups = of_inventory(conn, from)?;
    let mut copies = HashMap::new();
    for group in &groups {
        // One statement per group: the two backends take no common batch insert.
        let copy: i64 = diesel::insert_into(inventory_groups::table)
            .values((
                inventory_groups::name.eq(&group.name),
                inventory_groups::description.eq(&group.description),
                inventory_groups::inventory_id.eq(to),
                inventory_groups::variables.eq(&group.variables),
                inventory_groups::created.eq(now),
                inventory_groups::modified.eq(now),
            ))
            .returning(inventory_groups::id)
            .get_result(conn)?;
        copies.insert(group.id, copy);
    }
    let host_names =
        |conn: &mut DbConnection, inventory: i64| -> StorageResult<Vec<(i64, String)>> {
            Ok(hosts::table
                .filter(hosts::inventory_id.eq(inventory))
                .select((hosts::id, hosts::name))
                .load(conn)?)
        };
    let copied_by_name: HashMap<String, i64> = host_names(conn, to)?
        .into_iter()
        .map(|(id, name)| (name, id))
        .collect();
    let host_copies: HashMap<i64, i64> = host_names(conn, from)?
        .into_iter()
        .filter_map(|(id, name)| copied_by_name.get(&name).map(|copy| (id, *copy)))
        .collect();
    for (group, host) in host_memberships(conn, from)? {
        if let (Some(group), Some(host)) = (copies.get(&group), host_copies.get(&host)) {
            add_host(conn, *group, *host)?;
        }
    }
    for (parent, child) in child_links(conn, from)? {
        if let (Some(parent), Some(child)) = (copies.get(&parent), copies.get(&child)) {
            add_child(conn, *parent, *child)?;
        }
    }
    Ok(groups.len())
}

crate::list_fields! {
    table: inventory_groups;
    search: [inventory_groups::name, inventory_groups::description];
    default_order: inventory_groups::name;
    fields: {
        "id" => integer(inventory_groups::id),
        "name" => text(inventory_groups::name),
        "description" => text(inventory_groups::description),
        "inventory" => integer(inventory_groups::inventory_id),
        "created" => timestamp(inventory_groups::created),
        "modified" => timestamp(inventory_groups::modified),
    }
}

/// Lists the groups `visibility` allows (through their inventory's organization), `within`
/// an inventory, a parent group (its direct children) or a host (the groups it is directly
/// in), as `params` ask.
pub fn list(
    conn: &mut DbConnection,
    visibility: &ObjectVisibility,
    within: Within,
    params: &ListParams,
) -> StorageResult<Result<Page<Group>, ListError>> {
    crate::list_page!(
        conn,
        params,
        || {
            let mut query = crate::rows_in_visible_inventories!(inventory_groups, visibility);
            match within {
                Within::Anywhere => {}
                Within::Inventory(inventory) => {
                    query = query.filter(inventory_groups::inventory_id.eq(inventory));
                }
                Within::Group(parent) => {
                    let children = inventory_group_children::table
                        .filter(inventory_group_children::parent_id.eq(parent))
                        .select(inventory_group_children::child_id);
                    query = query.filter(inventory_groups::id.eq_any(children));
                }
                Within::Host(host) => {
                    let groups = inventory_group_hosts::table
                        .filter(inventory_group_hosts::host_id.eq(host))
                        .select(inventory_group_hosts::group_id);
                    query = query.filter(inventory_groups::id.eq_any(groups));
                }
            }
            filtered(query, params)
        },
        ordered,
        Group::as_select()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descendants_follow_every_level_once_and_stop_at_a_cycle() {
        let links = [(1, 2), (2, 3), (3, 4), (2, 4), (5, 6), (4, 2)];
        assert_eq!(descendants(&links, 1), HashSet::from([2, 3, 4]));
        assert_eq!(descendants(&links, 3), HashSet::from([4, 2, 3]));
        assert_eq!(descendants(&links, 6), HashSet::new());
    }
}

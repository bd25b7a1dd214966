//! The nodes serving this database: each records itself at start and at every heartbeat
//! ([`beat`]); the live ones are those heard from recently ([`alive`]).

use diesel::prelude::*;

use crate::schema::instances;
use crate::{DbConnection, StorageResult, Timestamp};

/// A node, as it last said.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = instances)]
pub struct Instance {
    /// Its name (`ACS_NODE_NAME`).
    pub node: String,
    /// The version it runs.
    pub version: String,
    /// How many runs it takes at once.
    pub capacity: i64,
    /// When it started.
    pub started: Timestamp,
    /// When it was last heard from.
    pub heartbeat: Timestamp,
}

/// Records that `node` (running `version`, taking `capacity` runs at once, started at
/// `started`) is alive at `now`. Only the node itself writes its row (two processes given
/// one name would share it, the last beat winning).
pub fn beat(
    conn: &mut DbConnection,
    node: &str,
    version: &str,
    capacity: i64,
    started: Timestamp,
    now: Timestamp,
) -> StorageResult<()> {
    let update = |conn: &mut DbConnection| {
        diesel::update(instances::table.find(node))
            .set((
                instances::version.eq(version),
                instances::capacity.eq(capacity),
                instances::started.eq(started),
                instances::heartbeat.eq(now),
            ))
            .execute(conn)
    };
    if update(conn)? > 0 {
        return Ok(());
    }
    let inserted = diesel::insert_into(instances::table)
        .values((
            instances::node.eq(node),
            instances::version.eq(version),
            instances::capacity.eq(capacity),
            instances::started.eq(started),
            instances::heartbeat.eq(now),
        ))
        .execute(conn);
    match inserted.map_err(crate::StorageError::from) {
        Ok(_) => Ok(()),
        // Another process of the same name inserted it meanwhile.
        Err(crate::StorageError::Conflict(_)) => update(conn).map(drop).map_err(Into::into),
        Err(other) => Err(other),
    }
}

/// The nodes heard from at or after `since`, by name.
pub fn alive(conn: &mut DbConnection, since: Timestamp) -> StorageResult<Vec<Instance>> {
    Ok(instances::table
        .filter(instances::heartbeat.ge(since))
        .order_by(instances::node.asc())
        .select(Instance::as_select())
        .load(conn)?)
}

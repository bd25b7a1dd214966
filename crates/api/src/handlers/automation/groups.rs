//! `/api/v2/groups/` and `/api/v2/inventories/<id>/groups/`: groups of an inventory's hosts.
//! Their members are listed and changed under `/groups/<id>/hosts/`, `/groups/<id>/children/`
//! and `/hosts/<id>/groups/` ([`super::memberships`]).

use acs_storage::inventory_groups::{Group, GroupValues};
use acs_storage::{DbConnection, StorageResult};
use serde_json::{Value, json};

use super::references;
use super::resource::{Body, Resource, Write};
use crate::error::{ApiError, ApiResult};
use crate::http::fields::Text;
use crate::http::options::{FieldMeta, ResourceMeta};

/// The group resource.
#[derive(Debug)]
pub struct Groups;

/// Names ansible gives groups of its own: a group of that name would not be the user's.
const RESERVED_NAMES: &[&str] = &["all", "_meta"];

impl Resource for Groups {
    type Row = Group;
    type Input = GroupValues;

    const LABEL: &'static str = "Group";
    const KIND: &'static str = "group";
    const COLLECTION: &'static str = "groups";
    const NAME_TAKEN: &'static str = "Group with this Name and Inventory already exists.";
    const PARENT_FIELD: Option<&'static str> = Some("inventory");
    const ROLE_KIND: acs_authz::roles::ResourceKind = acs_authz::roles::ResourceKind::Inventory;
    const OWNS_ROLES: bool = false;
    const META: ResourceMeta = ResourceMeta {
        name: "Group List",
        description: "Groups of an inventory's hosts and of its other groups.",
        fields: &[
            FieldMeta::name("Unique within the inventory, and not a host's name.", 512),
            FieldMeta::DESCRIPTION,
            FieldMeta::writable("inventory", "id", "Inventory", "").required(),
            FieldMeta::writable(
                "variables",
                "json",
                "Variables",
                "Group variables in JSON or YAML, for every host within.",
            ),
        ],
    };

    crate::stored_rows!(acs_storage::inventory_groups, owner: inventory);

    fn read(conn: &mut DbConnection, sent: Body<'_, Self::Row>) -> ApiResult<(Self::Input, i64)> {
        let mut fields = sent.fields();
        let name = fields.text("name", Text::required(512));
        let description = fields.text("description", Text::optional(4096));
        let inventory = fields.id("inventory", true);
        let variables = references::variables(&mut fields, sent.object, "variables");
        if name
            .as_deref()
            .is_some_and(|name| RESERVED_NAMES.contains(&name))
        {
            fields.error("name", "Invalid group name.");
        }
        fields.finish()?;
        let inventory_id =
            references::fixed_inventory(inventory, sent.before.map(|g| g.inventory_id), "A group")?;
        let owner = references::inventory(conn, sent.actor, inventory_id)?.organization_id;
        if let Some(name) = &name {
            // Ansible reads one namespace for both: a host of the same name would shadow it.
            if acs_storage::hosts::named(conn, inventory_id, name)? {
                return Err(ApiError::field(
                    "name",
                    "A Host with that name already exists.",
                ));
            }
        }
        let input = GroupValues {
            name,
            description: description.or_else(|| sent.full.then(String::new)),
            inventory_id: Some(inventory_id),
            variables: variables.or_else(|| sent.full.then(String::new)),
        };
        Ok((input, owner))
    }

    fn insert(write: Write<'_>, input: Self::Input) -> StorageResult<Self::Row> {
        acs_storage::inventory_groups::insert(write.conn, &input, write.now)
    }

    fn update(write: Write<'_>, id: i64, input: Self::Input) -> StorageResult<Self::Row> {
        acs_storage::inventory_groups::update(write.conn, id, &input, write.now)
    }

    fn related(_: &Group, base: &str) -> Value {
        json!({
            "hosts": format!("{base}hosts/"),
            "children": format!("{base}children/"),
        })
    }

    fn fields(_: &mut DbConnection, row: &Group) -> ApiResult<Vec<(&'static str, Value)>> {
        Ok(vec![
            ("inventory", json!(row.inventory_id)),
            ("variables", json!(row.variables)),
        ])
    }
}

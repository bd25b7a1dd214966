//! `/api/v2/hosts/` and `/api/v2/inventories/<id>/hosts/`. The groups a host is in are listed
//! and changed under `/hosts/<id>/groups/` ([`super::memberships`]).

use acs_storage::hosts::{Host, HostValues};
use acs_storage::{DbConnection, StorageResult};
use serde_json::{Value, json};

use super::references;
use super::resource::{Body, Resource, Write};
use crate::error::{ApiError, ApiResult};
use crate::http::fields::Text;
use crate::http::options::{FieldMeta, ResourceMeta};

/// The host resource.
#[derive(Debug)]
pub struct Hosts;

impl Resource for Hosts {
    type Row = Host;
    type Input = HostValues;

    const LABEL: &'static str = "Host";
    const KIND: &'static str = "host";
    const COLLECTION: &'static str = "hosts";
    const NAME_TAKEN: &'static str = "Host with this Name and Inventory already exists.";
    const PARENT_FIELD: Option<&'static str> = Some("inventory");
    const ROLE_KIND: acs_authz::roles::ResourceKind = acs_authz::roles::ResourceKind::Inventory;
    const OWNS_ROLES: bool = false;
    const META: ResourceMeta = ResourceMeta {
        name: "Host List",
        description: "Hosts of an inventory.",
        fields: &[
            FieldMeta::name("Unique within the inventory, and not a group's name.", 512),
            FieldMeta::DESCRIPTION,
            FieldMeta::writable("inventory", "id", "Inventory", "").required(),
            FieldMeta::writable(
                "variables",
                "json",
                "Variables",
                "Host variables in JSON or YAML.",
            ),
            FieldMeta::writable(
                "enabled",
                "boolean",
                "Enabled",
                "Whether runs include the host.",
            ),
            FieldMeta::read_only("inventory_source", "id", "Inventory source"),
        ],
    };

    crate::stored_rows!(acs_storage::hosts, owner: inventory);

    fn read(conn: &mut DbConnection, sent: Body<'_, Self::Row>) -> ApiResult<(Self::Input, i64)> {
        let mut fields = sent.fields();
        let name = fields.text("name", Text::required(512));
        let description = fields.text("description", Text::optional(4096));
        let inventory = fields.id("inventory", true);
        let variables = references::variables(&mut fields, sent.object, "variables");
        let enabled = fields.boolean("enabled");
        fields.finish()?;
        let inventory_id =
            references::fixed_inventory(inventory, sent.before.map(|h| h.inventory_id), "A host")?;
        let owner = references::inventory(conn, sent.actor, inventory_id)?.organization_id;
        if let Some(name) = &name {
            // Ansible reads one namespace for both: the host would shadow the group.
            if acs_storage::inventory_groups::named(conn, inventory_id, name)? {
                return Err(ApiError::field(
                    "name",
                    "A Group with that name already exists.",
                ));
            }
        }
        let input = HostValues {
            name,
            description: description.or_else(|| sent.full.then(String::new)),
            inventory_id: Some(inventory_id),
            variables: variables.or_else(|| sent.full.then(String::new)),
            enabled: enabled.or(sent.full.then_some(true)),
        };
        Ok((input, owner))
    }

    fn insert(write: Write<'_>, input: Self::Input) -> StorageResult<Self::Row> {
        acs_storage::hosts::insert(write.conn, &input, write.now)
    }

    fn update(write: Write<'_>, id: i64, input: Self::Input) -> StorageResult<Self::Row> {
        acs_storage::hosts::update(write.conn, id, &input, write.now)
    }

    fn related(_: &Host, base: &str) -> Value {
        json!({ "groups": format!("{base}groups/") })
    }

    fn fields(_: &mut DbConnection, row: &Host) -> ApiResult<Vec<(&'static str, Value)>> {
        Ok(vec![
            ("inventory", json!(row.inventory_id)),
            ("variables", json!(row.variables)),
            ("enabled", json!(row.enabled)),
            ("inventory_source", json!(row.inventory_source_id)),
        ])
    }
}

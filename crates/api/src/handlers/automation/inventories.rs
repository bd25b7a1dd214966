//! `/api/v2/inventories/`: named sets of hosts.

use acs_authz::Actor;
use acs_storage::inventories::{Inventory, InventoryChanges, NewInventory};
use acs_storage::stamps::Creation;
use acs_storage::{DbConnection, StorageResult, Timestamp};
use serde_json::{Map, Value, json};

use super::references;
use super::resource::Resource;
use crate::error::ApiResult;
use crate::http::fields::{FieldReader, Text};
use crate::http::options::{FieldMeta, ResourceMeta};
use acs_app::settings::Settings;

/// The inventory resource.
#[derive(Debug)]
pub struct Inventories;

/// A validated inventory body.
#[derive(Debug)]
pub struct InventoryInput {
    name: Option<String>,
    description: Option<String>,
    organization: Option<i64>,
}

impl Resource for Inventories {
    type Row = Inventory;
    type Input = InventoryInput;

    const LABEL: &'static str = "Inventory";
    const KIND: &'static str = "inventory";
    const COLLECTION: &'static str = "inventories";
    const NAME_TAKEN: &'static str = "Inventory with this Name and Organization already exists.";
    const META: ResourceMeta = ResourceMeta {
        name: "Inventory List",
        description: "Sets of hosts that jobs run against.",
        fields: &[
            FieldMeta::writable("name", "string", "Name", "Unique within the organization.")
                .required()
                .max_length(512),
            FieldMeta::writable("description", "string", "Description", ""),
            FieldMeta::writable(
                "organization",
                "id",
                "Organization",
                "The owning organization.",
            )
            .required(),
            FieldMeta::read_only("total_hosts", "integer", "Total hosts"),
        ],
    };

    crate::stored_rows!(acs_storage::inventories, owner: organization);

    fn read(
        conn: &mut DbConnection,
        actor: &Actor,
        _: &Settings,
        body: &Map<String, Value>,
        before: Option<&Inventory>,
        full: bool,
    ) -> ApiResult<(InventoryInput, i64)> {
        let mut fields = FieldReader::new(body, full);
        let name = fields.text("name", Text::required(512));
        let description = fields.text("description", Text::optional(4096));
        let organization = fields.id("organization", true);
        fields.finish()?;
        let organization = match organization {
            Some(id) => Some(references::organization(conn, actor, id)?),
            None => None,
        };
        let owner = organization
            .or(before.map(|inventory| inventory.organization_id))
            .unwrap_or_default();
        let input = InventoryInput {
            name,
            description: description.or_else(|| full.then(String::new)),
            organization,
        };
        Ok((input, owner))
    }

    fn insert(
        conn: &mut DbConnection,
        input: InventoryInput,
        by: i64,
        now: Timestamp,
    ) -> StorageResult<Inventory> {
        acs_storage::inventories::insert(
            conn,
            &NewInventory {
                name: input.name.as_deref().unwrap_or_default(),
                description: input.description.as_deref().unwrap_or_default(),
                organization_id: input.organization.unwrap_or_default(),
                stamps: Creation::by(Some(by), now),
            },
        )
    }

    fn update(
        conn: &mut DbConnection,
        id: i64,
        input: InventoryInput,
        by: i64,
        now: Timestamp,
    ) -> StorageResult<Inventory> {
        acs_storage::inventories::update(
            conn,
            id,
            &InventoryChanges {
                name: input.name,
                description: input.description,
                organization_id: input.organization,
                modified_by: Some(Some(by)),
                modified: Some(now),
            },
        )
    }

    fn related(_: &Inventory, base: &str) -> Value {
        json!({
            "hosts": format!("{base}hosts/"),
            "inventory_sources": format!("{base}inventory_sources/"),
        })
    }

    fn fields(conn: &mut DbConnection, row: &Inventory) -> ApiResult<Vec<(&'static str, Value)>> {
        Ok(vec![
            ("organization", json!(row.organization_id)),
            (
                "total_hosts",
                json!(acs_storage::inventories::host_count(conn, row.id)?),
            ),
        ])
    }
}

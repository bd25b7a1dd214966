//! `/api/v2/inventory_sources/` and `/api/v2/inventories/<id>/inventory_sources/`: an
//! inventory file or script in a project, read by `ansible-inventory` to fill an inventory.

use acs_storage::DbConnection;
use acs_storage::inventory_sources::{InventorySource, InventorySourceValues};
use serde_json::{Map, Value, json};

use super::references;
use super::resource::{Body, Resource};
use crate::error::{ApiError, ApiResult};
use crate::http::fields::{FieldReader, Text};
use crate::http::options::{FieldMeta, ResourceMeta};

/// The inventory source resource.
#[derive(Debug)]
pub struct InventorySources;

impl Resource for InventorySources {
    type Row = InventorySource;
    type Input = InventorySourceValues;

    const LABEL: &'static str = "InventorySource";
    const KIND: &'static str = "inventory_source";
    const COLLECTION: &'static str = "inventory_sources";
    const NAME_TAKEN: &'static str =
        "Inventory source with this Name and Inventory already exists.";
    const PARENT_FIELD: Option<&'static str> = Some("inventory");
    const ROLE_KIND: acs_authz::roles::ResourceKind = acs_authz::roles::ResourceKind::Inventory;
    const OWNS_ROLES: bool = false;
    const META: ResourceMeta = ResourceMeta {
        name: "Inventory Source List",
        description: "Inventory files or scripts in projects that fill inventories.",
        fields: &[
            FieldMeta::name("Unique within the inventory.", 512),
            FieldMeta::DESCRIPTION,
            FieldMeta::writable("inventory", "id", "Inventory", "").required(),
            FieldMeta::writable(
                "source",
                "choice",
                "Source",
                "Always scm: a file in a project.",
            ),
            FieldMeta::writable("source_project", "id", "Source project", "").required(),
            FieldMeta::writable(
                "source_path",
                "string",
                "Source path",
                "Path inside the project.",
            )
            .required(),
            FieldMeta::writable(
                "credential",
                "id",
                "Credential",
                "A cloud credential injected into updates.",
            ),
        ],
    };

    crate::stored_rows!(acs_storage::inventory_sources, owner: inventory, writes: stamped);

    fn read(conn: &mut DbConnection, sent: Body<'_, Self::Row>) -> ApiResult<(Self::Input, i64)> {
        let mut fields = sent.fields();
        let name = fields.text("name", Text::required(512));
        let description = fields.text("description", Text::optional(4096));
        let inventory = fields.id("inventory", true);
        let source = fields.text("source", Text::optional(16));
        if let Some(source) = &source
            && source != "scm"
        {
            fields.error("source", format!("\"{source}\" is not a valid choice."));
        }
        let source_project = fields.id("source_project", true);
        let source_path = fields.text("source_path", Text::required(1024));
        let source_path = references::relative_path(&mut fields, "source_path", source_path);
        let credential = optional_id(&mut fields, sent.object, "credential");
        fields.finish()?;
        let inventory_id = references::fixed_inventory(
            inventory,
            sent.before.map(|s| s.inventory_id),
            "An inventory source",
        )?;
        let owner = references::inventory(conn, sent.actor, inventory_id)?.organization_id;
        if let Some(id) = source_project {
            references::project(conn, sent.actor, "source_project", id)?;
        }
        if let Some(Some(id)) = credential {
            let (_, credential_type) = references::credential(conn, sent.actor, "credential", id)?;
            if credential_type.kind != "cloud" {
                return Err(ApiError::field(
                    "credential",
                    format!(
                        "Cannot assign a Credential of kind `{}` to an inventory source: only `cloud` credentials are injected into inventory updates.",
                        credential_type.kind
                    ),
                ));
            }
        }
        let input = InventorySourceValues {
            name,
            description: description.or_else(|| sent.full.then(String::new)),
            inventory_id: Some(inventory_id),
            // The one kind of source, also when the body leaves it out.
            source: source.or_else(|| sent.full.then(|| "scm".to_owned())),
            source_project_id: source_project.map(Some),
            source_path,
            credential_id: credential.or_else(|| sent.full.then_some(None)),
        };
        Ok((input, owner))
    }

    fn related(_: &InventorySource, base: &str) -> Value {
        json!({
            "update": format!("{base}update/"),
            "inventory_updates": format!("{base}inventory_updates/"),
        })
    }

    fn fields(
        _: &mut DbConnection,
        row: &InventorySource,
    ) -> ApiResult<Vec<(&'static str, Value)>> {
        Ok(vec![
            ("inventory", json!(row.inventory_id)),
            ("source", json!(row.source)),
            ("source_project", json!(row.source_project_id)),
            ("source_path", json!(row.source_path)),
            ("credential", json!(row.credential_id)),
        ])
    }
}

/// An id field that may be `null` to clear it: `Some(None)` for null, `Some(Some(id))` for an
/// id, `None` when absent or invalid (the reader holds the error).
pub fn optional_id(
    fields: &mut FieldReader<'_>,
    body: &Map<String, Value>,
    field: &str,
) -> Option<Option<i64>> {
    match body.get(field) {
        Some(Value::Null) => Some(None),
        Some(_) => fields.id(field, false).map(Some),
        None => None,
    }
}

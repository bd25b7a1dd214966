//! `/api/v2/inventories/`: named sets of hosts.

use acs_storage::DbConnection;
use acs_storage::inventories::{Inventory, InventoryValues};
use serde_json::{Value, json};

use super::references;
use super::resource::{Body, Resource};
use crate::error::ApiResult;
use crate::http::fields::Text;
use crate::http::options::{FieldMeta, ResourceMeta};

/// The inventory resource.
#[derive(Debug)]
pub struct Inventories;

impl Resource for Inventories {
    type Row = Inventory;
    type Input = InventoryValues;

    const LABEL: &'static str = "Inventory";
    const KIND: &'static str = "inventory";
    const COLLECTION: &'static str = "inventories";
    const NAME_TAKEN: &'static str = "Inventory with this Name and Organization already exists.";
    const ROLE_KIND: acs_authz::roles::ResourceKind = acs_authz::roles::ResourceKind::Inventory;
    const CREATOR_ROLE: acs_authz::roles::RoleField = acs_authz::roles::RoleField::InventoryAdmin;
    const META: ResourceMeta = ResourceMeta {
        name: "Inventory List",
        description: "Sets of hosts that jobs run against.",
        fields: &[
            FieldMeta::name("Unique within the organization.", 512),
            FieldMeta::DESCRIPTION,
            FieldMeta::ORGANIZATION,
            FieldMeta::read_only("total_hosts", "integer", "Total hosts"),
            FieldMeta::read_only("total_groups", "integer", "Total groups"),
        ],
    };

    crate::stored_rows!(acs_storage::inventories, owner: organization, writes: stamped);

    fn read(conn: &mut DbConnection, sent: Body<'_, Self::Row>) -> ApiResult<(Self::Input, i64)> {
        let mut fields = sent.fields();
        let name = fields.text("name", Text::required(512));
        let description = fields.text("description", Text::optional(4096));
        let organization = fields.id("organization", true);
        fields.finish()?;
        let before = sent.before.map(|inventory| inventory.organization_id);
        let (organization, owner) = references::organization(conn, organization, before)?;
        let input = InventoryValues {
            name,
            description: description.or_else(|| sent.full.then(String::new)),
            organization_id: organization,
        };
        Ok((input, owner))
    }

    fn related(_: &Inventory, base: &str) -> Value {
        json!({
            "hosts": format!("{base}hosts/"),
            "groups": format!("{base}groups/"),
            "inventory_sources": format!("{base}inventory_sources/"),
            "copy": format!("{base}copy/"),
        })
    }

    /// A copy is a creation in the same organization (and reads the original, which the
    /// caller sees).
    fn may_copy(
        _: &mut DbConnection,
        viewer: &crate::auth::Principal,
        row: &Inventory,
    ) -> ApiResult<Option<bool>> {
        let organization = acs_authz::roles::Resource::organization(row.organization_id);
        let allowed =
            acs_authz::can_act_on_object(&viewer.actor, &organization, Self::CREATOR_ROLE);
        Ok(Some(allowed.is_ok()))
    }

    fn fields(conn: &mut DbConnection, row: &Inventory) -> ApiResult<Vec<(&'static str, Value)>> {
        Ok(vec![
            ("organization", json!(row.organization_id)),
            (
                "total_hosts",
                json!(acs_storage::inventories::host_count(conn, row.id)?),
            ),
            (
                "total_groups",
                json!(acs_storage::inventory_groups::count(conn, row.id)?),
            ),
        ])
    }
}

//! What the team resource tells the generic handlers.

use acs_authz::ObjectVisibility;
use acs_authz::roles::{Resource, ResourceKind};
use acs_storage::list::{ListError, ListParams, Page};
use acs_storage::teams::{Team, TeamValues};
use acs_storage::{DbConnection, StorageResult};
use serde_json::{Value, json};

use crate::error::{ApiError, ApiResult};
use crate::handlers::automation::Resource as Served;
use crate::handlers::automation::references;
use crate::handlers::automation::resource::{Body, Write};
use crate::http::fields::Text;
use crate::http::options::{FieldMeta, ResourceMeta};

/// The team resource.
#[derive(Debug)]
pub struct Teams;

/// The reference's refusal of a move (`TeamAccess.can_change`): a team's roles were granted
/// within its organization, and would follow it out of it.
pub const MOVE_REFUSED: &str = "Unable to change organization on a team.";

impl Served for Teams {
    type Row = Team;
    type Input = TeamValues;

    const LABEL: &'static str = "Team";
    const KIND: &'static str = "team";
    const COLLECTION: &'static str = "teams";
    const NAME_TAKEN: &'static str = "Team with this Organization and Name already exists.";
    const ROLE_KIND: ResourceKind = ResourceKind::Team;
    const PARENT_FIELD: Option<&'static str> = Some("organization");
    const META: ResourceMeta = ResourceMeta {
        name: "Team List",
        description: "Groups of users within an organization; a team's roles are its members'.",
        fields: &[
            FieldMeta::name("Unique within the organization.", 512),
            FieldMeta::DESCRIPTION,
            FieldMeta::ORGANIZATION,
        ],
    };

    crate::stored_rows!(@common acs_storage::teams);

    fn governed_by(_: &mut DbConnection, row: &Team) -> ApiResult<Resource> {
        Ok(Resource::of(
            Self::ROLE_KIND,
            row.id,
            Some(row.organization_id),
        ))
    }

    fn owner_link(row: &Team) -> (&'static str, String) {
        (
            "organization",
            format!("/api/v2/organizations/{}/", row.organization_id),
        )
    }

    /// The teams the caller may see; within an organization (its `teams/` list) when given.
    fn list(
        conn: &mut DbConnection,
        visibility: &ObjectVisibility,
        organization: Option<i64>,
        params: &ListParams,
    ) -> StorageResult<Result<Page<Team>, ListError>> {
        let within = organization.map(acs_storage::teams::Within::Organization);
        acs_storage::teams::list(conn, visibility, within, params)
    }

    fn insert(write: Write<'_>, input: TeamValues) -> StorageResult<Team> {
        acs_storage::teams::insert(write.conn, &input, write.creation())
    }

    fn update(write: Write<'_>, id: i64, input: TeamValues) -> StorageResult<Team> {
        acs_storage::teams::update(write.conn, id, &input, write.modification())
    }

    fn read(conn: &mut DbConnection, sent: Body<'_, Self::Row>) -> ApiResult<(Self::Input, i64)> {
        let mut fields = sent.fields();
        let name = fields.text("name", Text::required(512));
        let description = fields.text("description", Text::optional(4096));
        let organization = fields.id("organization", true);
        fields.finish()?;
        let before = sent.before.map(|team| team.organization_id);
        if let (Some(given), Some(before)) = (organization, before)
            && given != before
        {
            return Err(ApiError::Forbidden(MOVE_REFUSED.into()));
        }
        let (organization, owner) = references::organization(conn, organization, before)?;
        let input = TeamValues {
            name,
            description: description.or_else(|| sent.full.then(String::new)),
            organization_id: organization,
        };
        Ok((input, owner))
    }

    fn related(_: &Team, base: &str) -> Value {
        json!({
            "users": format!("{base}users/"),
            "roles": format!("{base}roles/"),
            "projects": format!("{base}projects/"),
            "credentials": format!("{base}credentials/"),
            "activity_stream": format!("{base}activity_stream/"),
        })
    }

    fn fields(_: &mut DbConnection, row: &Team) -> ApiResult<Vec<(&'static str, Value)>> {
        Ok(vec![("organization", json!(row.organization_id))])
    }
}

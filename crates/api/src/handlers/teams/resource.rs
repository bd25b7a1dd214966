//! What the team resource tells the generic handlers.

use acs_authz::roles::ResourceKind;
use acs_storage::DbConnection;
use acs_storage::teams::{Team, TeamValues};
use serde_json::{Value, json};

use crate::error::{ApiError, ApiResult};
use crate::handlers::automation::Resource;
use crate::handlers::automation::references;
use crate::handlers::automation::resource::Body;
use crate::http::fields::Text;
use crate::http::options::{FieldMeta, ResourceMeta};

/// The team resource.
#[derive(Debug)]
pub struct Teams;

/// The reference's refusal of a move (`TeamAccess.can_change`): a team's roles were granted
/// within its organization, and would follow it out of it.
pub const MOVE_REFUSED: &str = "Unable to change organization on a team.";

impl Resource for Teams {
    type Row = Team;
    type Input = TeamValues;

    const LABEL: &'static str = "Team";
    const KIND: &'static str = "team";
    const COLLECTION: &'static str = "teams";
    const NAME_TAKEN: &'static str = "Team with this Organization and Name already exists.";
    const ROLE_KIND: ResourceKind = ResourceKind::Team;
    const META: ResourceMeta = ResourceMeta {
        name: "Team List",
        description: "Groups of users within an organization; a team's roles are its members'.",
        fields: &[
            FieldMeta::name("Unique within the organization.", 512),
            FieldMeta::DESCRIPTION,
            FieldMeta::ORGANIZATION,
        ],
    };

    crate::stored_rows!(acs_storage::teams, owner: organization, writes: stamped);

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

//! `/api/v2/projects/`: a directory of playbooks under the `PROJECTS_ROOT` setting.

use acs_storage::DbConnection;
use acs_storage::projects::{Project, ProjectValues};
use serde_json::{Value, json};

use super::references;
use super::resource::{Body, Resource};
use crate::error::ApiResult;
use crate::http::fields::{FieldReader, Text};
use crate::http::options::{FieldMeta, ResourceMeta};
use acs_app::settings::Settings;

/// The project resource.
#[derive(Debug)]
pub struct Projects;

impl Resource for Projects {
    type Row = Project;
    type Input = ProjectValues;

    const LABEL: &'static str = "Project";
    const KIND: &'static str = "project";
    const COLLECTION: &'static str = "projects";
    const NAME_TAKEN: &'static str = "Project with this Organization and Name already exists.";
    // One directory, one project (the index `projects_local_path`): else an admin of one
    // organization runs, reads and installs into another organization's directory.
    const UNIQUE_FIELDS: &'static [(&'static str, &'static str, &'static str)] = &[(
        "local_path",
        "local_path",
        "This path is already being used by another manual project.",
    )];
    const ROLE_KIND: acs_authz::roles::ResourceKind = acs_authz::roles::ResourceKind::Project;
    const CREATOR_ROLE: acs_authz::roles::RoleField = acs_authz::roles::RoleField::ProjectAdmin;
    const META: ResourceMeta = ResourceMeta {
        name: "Project List",
        description: "Directories of playbooks under the PROJECTS_ROOT setting.",
        fields: &[
            FieldMeta::name("Unique within the organization.", 512),
            FieldMeta::DESCRIPTION,
            FieldMeta::ORGANIZATION,
            FieldMeta::writable(
                "scm_type",
                "string",
                "Source control type",
                "Always \"\": a local directory.",
            ),
            FieldMeta::writable(
                "local_path",
                "string",
                "Local path",
                "The name of a directory directly under PROJECTS_ROOT.",
            )
            .required()
            .max_length(1024),
        ],
    };

    crate::stored_rows!(acs_storage::projects, owner: organization, writes: stamped);

    fn read(conn: &mut DbConnection, sent: Body<'_, Self::Row>) -> ApiResult<(Self::Input, i64)> {
        let mut fields = sent.fields();
        let name = fields.text("name", Text::required(512));
        let description = fields.text("description", Text::optional(4096));
        let organization = fields.id("organization", true);
        if let Some(scm_type) = fields.text("scm_type", Text::optional(16))
            && !scm_type.is_empty()
        {
            fields.error(
                "scm_type",
                "ACS runs projects from local directories only: scm_type must be \"\".",
            );
        }
        let local_path = fields.text("local_path", Text::required(1024));
        let local_path = local_path.and_then(|path| directory(&mut fields, sent.settings, path));
        fields.finish()?;
        let before = sent.before.map(|project| project.organization_id);
        let (organization, owner) = references::organization(conn, organization, before)?;
        let input = ProjectValues {
            name,
            description: description.or_else(|| sent.full.then(String::new)),
            organization_id: organization,
            local_path,
        };
        Ok((input, owner))
    }

    fn related(_: &Project, base: &str) -> Value {
        json!({
            "update": format!("{base}update/"),
            "project_updates": format!("{base}project_updates/"),
            "copy": format!("{base}copy/"),
        })
    }

    fn fields(_: &mut DbConnection, row: &Project) -> ApiResult<Vec<(&'static str, Value)>> {
        Ok(vec![
            ("organization", json!(row.organization_id)),
            ("scm_type", json!(row.scm_type)),
            ("local_path", json!(row.local_path)),
        ])
    }
}

/// `name` if it names a directory directly under `PROJECTS_ROOT`.
fn directory(fields: &mut FieldReader<'_>, settings: &Settings, name: String) -> Option<String> {
    if name.contains('/') || references::relative_path_problem(&name).is_some() {
        fields.error(
            "local_path",
            "Must be the name of a directory directly under PROJECTS_ROOT.",
        );
        return None;
    }
    let root = settings.text("PROJECTS_ROOT");
    if !std::path::Path::new(&root).join(&name).is_dir() {
        // The server's own paths (PROJECTS_ROOT is a `jobs` setting, which only superusers
        // and auditors read) are not for everyone who may create a project.
        fields.error(
            "local_path",
            format!("Invalid path choice: {name} is not a directory of projects."),
        );
        return None;
    }
    Some(name)
}

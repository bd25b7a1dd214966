//! Projects: a directory of playbooks under the `PROJECTS_ROOT` setting, owned by an
//! organization.

use acs_authz::ObjectVisibility;
use diesel::prelude::*;

use crate::list::{ListError, ListParams, Page};
use crate::schema::projects;
use crate::{DbConnection, StorageResult, Timestamp};

/// A project row.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = projects)]
pub struct Project {
    /// Primary key.
    pub id: i64,
    /// Name, unique per organization.
    pub name: String,
    /// Free text.
    pub description: String,
    /// Owning organization.
    pub organization_id: i64,
    /// Always `""` (a local directory): ACS does not fetch from source control.
    pub scm_type: String,
    /// The directory's name under `PROJECTS_ROOT`.
    pub local_path: String,
    /// Creator.
    pub created_by: Option<i64>,
    /// Last modifier.
    pub modified_by: Option<i64>,
    /// Creation time.
    pub created: Timestamp,
    /// Last modification time.
    pub modified: Timestamp,
}

/// The values a project is created or changed with: a `None` takes the column's default on
/// insert and leaves the column as it is on update.
#[derive(Debug, Clone, Default, Insertable, AsChangeset)]
#[diesel(table_name = projects)]
pub struct ProjectValues {
    /// Name.
    pub name: Option<String>,
    /// Free text.
    pub description: Option<String>,
    /// Owning organization.
    pub organization_id: Option<i64>,
    /// The directory's name under `PROJECTS_ROOT`.
    pub local_path: Option<String>,
}

crate::row_functions!(projects, Project, stamped ProjectValues);

crate::list_fields! {
    table: projects;
    search: [projects::name, projects::description];
    default_order: projects::name;
    fields: {
        "id" => integer(projects::id),
        "name" => text(projects::name),
        "description" => text(projects::description),
        "organization" => integer(projects::organization_id),
        "scm_type" => text(projects::scm_type),
        "local_path" => text(projects::local_path),
        "created" => timestamp(projects::created),
        "modified" => timestamp(projects::modified),
    }
}

/// Lists the projects `visibility` allows, as `params` ask.
pub fn list(
    conn: &mut DbConnection,
    visibility: &ObjectVisibility,
    params: &ListParams,
) -> StorageResult<Result<Page<Project>, ListError>> {
    crate::list_page!(
        conn,
        params,
        || { filtered(crate::visible_rows!(projects, visibility), params) },
        ordered,
        Project::as_select()
    )
}

/// The directories projects use (`local_path`, none empty).
pub fn local_paths(conn: &mut DbConnection) -> StorageResult<Vec<String>> {
    Ok(projects::table
        .filter(projects::local_path.ne(""))
        .select(projects::local_path)
        .load(conn)?)
}

//! Projects: a directory of playbooks under the `PROJECTS_ROOT` setting, owned by an
//! organization: a local directory (`scm_type` `""`), or a git repository's checkout that
//! project updates fetch (`scm_type` `git`).

use acs_authz::ObjectVisibility;
use diesel::prelude::*;

use crate::list::{ListError, ListParams, Page};
use crate::schema::projects;
use crate::{DbConnection, StorageResult, Timestamp};

/// A project row.
#[derive(Debug, Clone, Default, PartialEq, Eq, Queryable, Selectable)]
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
    /// `""` (a local directory) or `git`.
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
    /// The repository of a git project.
    pub scm_url: String,
    /// What an update checks out: a branch, tag or commit (empty: the repository's default).
    pub scm_branch: String,
    /// What an update fetches besides the branches and tags (a git refspec).
    pub scm_refspec: String,
    /// An update removes what is not in the repository (ignored files stay).
    pub scm_clean: bool,
    /// An update starts from an empty directory.
    pub scm_delete_on_update: bool,
    /// The commit the last successful update checked out.
    pub scm_revision: String,
    /// The Source Control credential its updates authenticate with.
    pub credential_id: Option<i64>,
    /// A job's launch updates it first (when its last update is older than the cache
    /// timeout).
    pub scm_update_on_launch: bool,
    /// Seconds a successful update stays fresh for launches (0: none does).
    pub scm_update_cache_timeout: i32,
    /// Submodules are checked out at the head of their branch, not at their recorded commit.
    pub scm_track_submodules: bool,
    /// Its job templates and their launches may run another branch, tag or commit.
    pub allow_override: bool,
}

impl Project {
    /// Whether project updates fetch it from git.
    pub fn is_git(&self) -> bool {
        self.scm_type == "git"
    }
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
    /// `""` or `git`.
    pub scm_type: Option<String>,
    /// The repository.
    pub scm_url: Option<String>,
    /// What an update checks out.
    pub scm_branch: Option<String>,
    /// What an update fetches besides.
    pub scm_refspec: Option<String>,
    /// An update removes what is not in the repository.
    pub scm_clean: Option<bool>,
    /// An update starts from an empty directory.
    pub scm_delete_on_update: Option<bool>,
    /// The Source Control credential.
    pub credential_id: Option<Option<i64>>,
    /// A launch updates it first.
    pub scm_update_on_launch: Option<bool>,
    /// Seconds an update stays fresh for launches.
    pub scm_update_cache_timeout: Option<i32>,
    /// Submodules at the head of their branch.
    pub scm_track_submodules: Option<bool>,
    /// Templates may run another branch.
    pub allow_override: Option<bool>,
}

/// Records `revision` as the commit project `id`'s last successful update checked out.
pub fn record_revision(conn: &mut DbConnection, id: i64, revision: &str) -> StorageResult<()> {
    diesel::update(projects::table.find(id))
        .set(projects::scm_revision.eq(revision))
        .execute(conn)?;
    Ok(())
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
        "scm_url" => text(projects::scm_url),
        "scm_branch" => text(projects::scm_branch),
        "scm_revision" => text(projects::scm_revision),
        "scm_update_on_launch" => boolean(projects::scm_update_on_launch),
        "credential" => nullable_integer(projects::credential_id),
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

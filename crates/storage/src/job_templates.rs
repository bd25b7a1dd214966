//! Job templates: a playbook of a project run against an inventory with a set of credentials.

use acs_authz::ObjectVisibility;
use diesel::prelude::*;

use crate::credentials::Credential;
use crate::list::{ListError, ListParams, Page};
use crate::schema::{credentials, job_template_credentials, job_templates};
use crate::{DbConnection, StorageResult, Timestamp};

/// A job template row.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = job_templates)]
pub struct JobTemplate {
    /// Primary key.
    pub id: i64,
    /// Name, unique per organization.
    pub name: String,
    /// Free text.
    pub description: String,
    /// The organization of its project when it was last saved.
    pub organization_id: i64,
    /// The inventory it runs against.
    pub inventory_id: Option<i64>,
    /// The project holding the playbook.
    pub project_id: Option<i64>,
    /// The playbook's path inside the project.
    pub playbook: String,
    /// Extra variables as YAML or JSON text.
    pub extra_vars: String,
    /// Creator.
    pub created_by: Option<i64>,
    /// Last modifier.
    pub modified_by: Option<i64>,
    /// Creation time.
    pub created: Timestamp,
    /// Last modification time.
    pub modified: Timestamp,
    /// The hosts it runs on (an Ansible host pattern; empty: all).
    pub job_limit: String,
    /// A launcher may give the limit.
    pub ask_limit_on_launch: bool,
    /// A launcher may give the inventory.
    pub ask_inventory_on_launch: bool,
    /// A launcher may give the credentials (in place of the template's).
    pub ask_credential_on_launch: bool,
    /// A launcher may give extra variables (over the template's).
    pub ask_variables_on_launch: bool,
    /// `run` or `check` (`--check`).
    pub job_type: String,
    /// The tags to run (`--tags`; empty: every task).
    pub job_tags: String,
    /// The tags to skip (`--skip-tags`).
    pub skip_tags: String,
    /// `-v` this many times, 0 to 5.
    pub verbosity: i32,
    /// `--diff`.
    pub diff_mode: bool,
    /// `--forks` (0: ansible's default).
    pub forks: i32,
    /// Seconds a job may run (0: the `DEFAULT_JOB_TIMEOUT` setting).
    pub timeout: i32,
    /// A launcher may give the job type.
    pub ask_job_type_on_launch: bool,
    /// A launcher may give the tags to run.
    pub ask_tags_on_launch: bool,
    /// A launcher may give the tags to skip.
    pub ask_skip_tags_on_launch: bool,
    /// A launcher may give the verbosity.
    pub ask_verbosity_on_launch: bool,
    /// A launcher may turn diff mode on or off.
    pub ask_diff_mode_on_launch: bool,
    /// A launcher may give the forks.
    pub ask_forks_on_launch: bool,
    /// A launcher may give the timeout.
    pub ask_timeout_on_launch: bool,
    /// The branch, tag or commit its jobs run (empty: the project's), where the project
    /// allows it.
    pub scm_branch: String,
    /// A launcher may give the branch.
    pub ask_scm_branch_on_launch: bool,
}

/// The values a job template is created or changed with: a `None` takes the column's default on
/// insert and leaves the column as it is on update.
#[derive(Debug, Clone, Default, Insertable, AsChangeset)]
#[diesel(table_name = job_templates)]
pub struct JobTemplateValues {
    /// Name.
    pub name: Option<String>,
    /// Free text.
    pub description: Option<String>,
    /// The organization of its project.
    pub organization_id: Option<i64>,
    /// The inventory it runs against.
    pub inventory_id: Option<Option<i64>>,
    /// The project holding the playbook.
    pub project_id: Option<Option<i64>>,
    /// The playbook's path inside the project.
    pub playbook: Option<String>,
    /// Extra variables as YAML or JSON text.
    pub extra_vars: Option<String>,
    /// The hosts it runs on.
    pub job_limit: Option<String>,
    /// A launcher may give the limit.
    pub ask_limit_on_launch: Option<bool>,
    /// A launcher may give the inventory.
    pub ask_inventory_on_launch: Option<bool>,
    /// A launcher may give the credentials.
    pub ask_credential_on_launch: Option<bool>,
    /// A launcher may give extra variables.
    pub ask_variables_on_launch: Option<bool>,
    /// `run` or `check` (`--check`).
    pub job_type: Option<String>,
    /// The tags to run (`--tags`; empty: every task).
    pub job_tags: Option<String>,
    /// The tags to skip (`--skip-tags`).
    pub skip_tags: Option<String>,
    /// `-v` this many times, 0 to 5.
    pub verbosity: Option<i32>,
    /// `--diff`.
    pub diff_mode: Option<bool>,
    /// `--forks` (0: ansible's default).
    pub forks: Option<i32>,
    /// Seconds a job may run (0: the `DEFAULT_JOB_TIMEOUT` setting).
    pub timeout: Option<i32>,
    /// A launcher may give the job type.
    pub ask_job_type_on_launch: Option<bool>,
    /// A launcher may give the tags to run.
    pub ask_tags_on_launch: Option<bool>,
    /// A launcher may give the tags to skip.
    pub ask_skip_tags_on_launch: Option<bool>,
    /// A launcher may give the verbosity.
    pub ask_verbosity_on_launch: Option<bool>,
    /// A launcher may turn diff mode on or off.
    pub ask_diff_mode_on_launch: Option<bool>,
    /// A launcher may give the forks.
    pub ask_forks_on_launch: Option<bool>,
    /// A launcher may give the timeout.
    pub ask_timeout_on_launch: Option<bool>,
    /// The branch its jobs run.
    pub scm_branch: Option<String>,
    /// A launcher may give the branch.
    pub ask_scm_branch_on_launch: Option<bool>,
}

crate::row_functions!(job_templates, JobTemplate, stamped JobTemplateValues);

/// Locks `template`'s row until the transaction ends, so that concurrent changes to its
/// credentials are checked one after the other.
pub fn lock(conn: &mut DbConnection, template: i64) -> StorageResult<()> {
    diesel::update(job_templates::table.find(template))
        .set(job_templates::id.eq(job_templates::id))
        .execute(conn)?;
    Ok(())
}

/// The credentials of `template`, by id.
pub fn credentials_of(conn: &mut DbConnection, template: i64) -> StorageResult<Vec<Credential>> {
    Ok(job_template_credentials::table
        .inner_join(credentials::table)
        .filter(job_template_credentials::job_template_id.eq(template))
        .order(credentials::id.asc())
        .select(Credential::as_select())
        .load(conn)?)
}

/// Attaches `credential` to `template`; attaching it again changes nothing.
pub fn attach(conn: &mut DbConnection, template: i64, credential: i64) -> StorageResult<()> {
    let present: i64 = job_template_credentials::table
        .filter(job_template_credentials::job_template_id.eq(template))
        .filter(job_template_credentials::credential_id.eq(credential))
        .count()
        .get_result(conn)?;
    if present == 0 {
        diesel::insert_into(job_template_credentials::table)
            .values((
                job_template_credentials::job_template_id.eq(template),
                job_template_credentials::credential_id.eq(credential),
            ))
            .execute(conn)?;
    }
    Ok(())
}

/// Detaches `credential` from `template`; false if it was not attached.
pub fn detach(conn: &mut DbConnection, template: i64, credential: i64) -> StorageResult<bool> {
    Ok(diesel::delete(
        job_template_credentials::table
            .filter(job_template_credentials::job_template_id.eq(template))
            .filter(job_template_credentials::credential_id.eq(credential)),
    )
    .execute(conn)?
        > 0)
}

/// Whether a job template uses credential `id`.
pub fn uses_credential(conn: &mut DbConnection, id: i64) -> StorageResult<bool> {
    let count: i64 = job_template_credentials::table
        .filter(job_template_credentials::credential_id.eq(id))
        .count()
        .get_result(conn)?;
    Ok(count > 0)
}

/// The templates of `project` that run another branch than the project's or prompt for one
/// (which the project's `allow_override` lets them), by id.
pub fn overriding_branch(conn: &mut DbConnection, project: i64) -> StorageResult<Vec<i64>> {
    Ok(job_templates::table
        .filter(job_templates::project_id.eq(project))
        .filter(
            job_templates::scm_branch
                .ne("")
                .or(job_templates::ask_scm_branch_on_launch.eq(true)),
        )
        .order(job_templates::id)
        .select(job_templates::id)
        .load(conn)?)
}

crate::list_fields! {
    table: job_templates;
    search: [job_templates::name, job_templates::description];
    default_order: job_templates::name;
    fields: {
        "id" => integer(job_templates::id),
        "name" => text(job_templates::name),
        "description" => text(job_templates::description),
        "organization" => integer(job_templates::organization_id),
        "inventory" => nullable_integer(job_templates::inventory_id),
        "project" => nullable_integer(job_templates::project_id),
        "playbook" => text(job_templates::playbook),
        "created" => timestamp(job_templates::created),
        "modified" => timestamp(job_templates::modified),
        "job_type" => text(job_templates::job_type),
        "diff_mode" => boolean(job_templates::diff_mode),
    }
}

/// The condition on `job_templates` of an [`ObjectVisibility::Only`]: in one of the
/// organizations, one of the objects, or on an inventory of one of the inventory
/// organizations (whose auditors read the templates on their inventories).
#[macro_export]
#[doc(hidden)]
macro_rules! shown_templates {
    ($organizations:expr, $objects:expr, $inventory_organizations:expr) => {{
        use $crate::schema::{inventories, job_templates};
        $crate::shown_rows!(job_templates, $organizations, $objects).or(job_templates::inventory_id
            .eq_any(
                inventories::table
                    .filter(inventories::organization_id.eq_any($inventory_organizations.clone()))
                    .select(inventories::id.nullable()),
            ))
    }};
}

/// Lists the job templates `visibility` allows, as `params` ask.
pub fn list(
    conn: &mut DbConnection,
    visibility: &ObjectVisibility,
    params: &ListParams,
) -> StorageResult<Result<Page<JobTemplate>, ListError>> {
    crate::list_page!(
        conn,
        params,
        || {
            let query = job_templates::table.into_boxed();
            let query = match visibility {
                ObjectVisibility::All => query,
                // The inventory-organization subquery only when there is one to ask: an
                // empty one still costs every row a lookup.
                ObjectVisibility::Only {
                    organizations,
                    objects,
                    inventory_organizations,
                } if inventory_organizations.is_empty() => {
                    query.filter(crate::shown_rows!(job_templates, organizations, objects))
                }
                ObjectVisibility::Only {
                    organizations,
                    objects,
                    inventory_organizations,
                } => query.filter(crate::shown_templates!(
                    organizations,
                    objects,
                    inventory_organizations
                )),
            };
            filtered(query, params)
        },
        ordered,
        JobTemplate::as_select()
    )
}

//! Runs: jobs, project updates and inventory updates in one table, with the status machine
//! `pending → running → successful | failed | error | canceled` enforced by the statements
//! themselves, so two nodes or two threads can never both move the same run.

use acs_authz::ObjectVisibility;
use diesel::prelude::*;

use crate::list::{ListError, ListParams, Page};
use crate::schema::{inventories, unified_job_credentials, unified_jobs};
use crate::{DbConnection, StorageResult, Timestamp};

/// What a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunKind {
    /// A job template's playbook run.
    Job,
    /// A project's requirements install.
    ProjectUpdate,
    /// An inventory source's import.
    InventoryUpdate,
}

impl RunKind {
    /// The stored (and API `type`) name.
    pub fn as_str(self) -> &'static str {
        match self {
            RunKind::Job => "job",
            RunKind::ProjectUpdate => "project_update",
            RunKind::InventoryUpdate => "inventory_update",
        }
    }
}

/// Where a run is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunStatus {
    /// Created, not started.
    Pending,
    /// Its process runs.
    Running,
    /// The process exited with 0.
    Successful,
    /// The process exited with another code.
    Failed,
    /// The run could not start or was lost (see `job_explanation`).
    Error,
    /// Canceled on request, or timed out.
    Canceled,
}

impl RunStatus {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Pending => "pending",
            RunStatus::Running => "running",
            RunStatus::Successful => "successful",
            RunStatus::Failed => "failed",
            RunStatus::Error => "error",
            RunStatus::Canceled => "canceled",
        }
    }

    /// Whether the run is over.
    pub fn is_finished(self) -> bool {
        !matches!(self, RunStatus::Pending | RunStatus::Running)
    }
}

const UNFINISHED: [&str; 2] = ["pending", "running"];

/// A run row. `job_env` is stored masked, so the row holds no secret.
#[derive(Debug, Clone, Default, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = unified_jobs)]
pub struct UnifiedJob {
    /// Primary key.
    pub id: i64,
    /// `job`, `project_update` or `inventory_update`.
    pub kind: String,
    /// The name of what was run.
    pub name: String,
    /// See [`RunStatus`].
    pub status: String,
    /// Why it ended as it did, when that is not obvious.
    pub job_explanation: String,
    /// The organization whose members may see it.
    pub organization_id: Option<i64>,
    /// The job template of a job.
    pub job_template_id: Option<i64>,
    /// The project (of a job, or updated).
    pub project_id: Option<i64>,
    /// The inventory (of a job, or updated).
    pub inventory_id: Option<i64>,
    /// The inventory source of an inventory update.
    pub inventory_source_id: Option<i64>,
    /// The playbook of a job.
    pub playbook: String,
    /// The `--limit` of a job.
    pub job_limit: String,
    /// The job template's extra variables at launch.
    pub extra_vars: String,
    /// The process arguments as a JSON list.
    pub job_args: String,
    /// The process working directory.
    pub job_cwd: String,
    /// The process environment as a JSON object, secrets masked.
    pub job_env: String,
    /// The exit code.
    pub result_code: Option<i32>,
    /// A cancel was asked for.
    pub cancel_requested: bool,
    /// The node that runs it.
    pub node: String,
    /// Who launched it.
    pub launched_by: Option<i64>,
    /// Creation time.
    pub created: Timestamp,
    /// Last change.
    pub modified: Timestamp,
    /// When its process started.
    pub started: Option<Timestamp>,
    /// When it ended.
    pub finished: Option<Timestamp>,
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
    /// The project update a job waits for before it starts.
    pub project_update_id: Option<i64>,
    /// The branch, tag or commit of its project a job runs (empty: the project's own).
    pub scm_branch: String,
}

impl UnifiedJob {
    /// Whether the run is over (neither pending nor running).
    pub fn is_finished(&self) -> bool {
        !UNFINISHED.contains(&self.status.as_str())
    }

    /// Whether it ended without succeeding (failed, in error, or canceled).
    pub fn has_failed(&self) -> bool {
        matches!(self.status.as_str(), "failed" | "error" | "canceled")
    }
}

/// The values of a new run (created `pending`).
#[derive(Debug, Clone, Insertable)]
#[diesel(table_name = unified_jobs)]
#[diesel(treat_none_as_default_value = false)]
pub struct NewUnifiedJob<'a> {
    /// [`RunKind::as_str`].
    pub kind: &'a str,
    /// Name.
    pub name: &'a str,
    /// `pending`.
    pub status: &'a str,
    /// Organization.
    pub organization_id: Option<i64>,
    /// Job template.
    pub job_template_id: Option<i64>,
    /// Project.
    pub project_id: Option<i64>,
    /// Inventory.
    pub inventory_id: Option<i64>,
    /// Inventory source.
    pub inventory_source_id: Option<i64>,
    /// Playbook.
    pub playbook: &'a str,
    /// Limit.
    pub job_limit: &'a str,
    /// Extra variables.
    pub extra_vars: &'a str,
    /// The node that will run it.
    pub node: &'a str,
    /// Launcher.
    pub launched_by: Option<i64>,
    /// Creation time.
    pub created: Timestamp,
    /// Same as `created`.
    pub modified: Timestamp,
    /// `run` or `check` (`--check`).
    pub job_type: &'a str,
    /// The tags to run (`--tags`; empty: every task).
    pub job_tags: &'a str,
    /// The tags to skip (`--skip-tags`).
    pub skip_tags: &'a str,
    /// `-v` this many times, 0 to 5.
    pub verbosity: i32,
    /// `--diff`.
    pub diff_mode: bool,
    /// `--forks` (0: ansible's default).
    pub forks: i32,
    /// Seconds a job may run (0: the `DEFAULT_JOB_TIMEOUT` setting).
    pub timeout: i32,
    /// The project update a job waits for before it starts.
    pub project_update_id: Option<i64>,
    /// The branch a job runs (empty: the project's).
    pub scm_branch: &'a str,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOutcome {
    /// A finished status.
    pub status: RunStatus,
    /// Why, when not obvious.
    pub explanation: String,
    /// Output of the process.
    pub stdout: String,
    /// Exit code, if the process exited.
    pub result_code: Option<i32>,
}

/// Finds a run by primary key.
pub fn find(conn: &mut DbConnection, id: i64) -> StorageResult<UnifiedJob> {
    Ok(unified_jobs::table
        .find(id)
        .select(UnifiedJob::as_select())
        .get_result(conn)?)
}

/// Finds a run of `kind` by primary key.
pub fn find_of_kind(conn: &mut DbConnection, kind: RunKind, id: i64) -> StorageResult<UnifiedJob> {
    Ok(unified_jobs::table
        .find(id)
        .filter(unified_jobs::kind.eq(kind.as_str()))
        .select(UnifiedJob::as_select())
        .get_result(conn)?)
}

/// Inserts a pending run launched with `credentials`.
pub fn insert(
    conn: &mut DbConnection,
    new: &NewUnifiedJob<'_>,
    credentials: &[i64],
) -> StorageResult<UnifiedJob> {
    let run: UnifiedJob = diesel::insert_into(unified_jobs::table)
        .values(new)
        .returning(unified_jobs::all_columns)
        .get_result(conn)?;
    for credential in credentials {
        diesel::insert_into(unified_job_credentials::table)
            .values((
                unified_job_credentials::unified_job_id.eq(run.id),
                unified_job_credentials::credential_id.eq(*credential),
            ))
            .execute(conn)?;
    }
    Ok(run)
}

/// The ids of the credentials run `id` was launched with.
pub fn credential_ids(conn: &mut DbConnection, id: i64) -> StorageResult<Vec<i64>> {
    Ok(unified_job_credentials::table
        .filter(unified_job_credentials::unified_job_id.eq(id))
        .order(unified_job_credentials::credential_id.asc())
        .select(unified_job_credentials::credential_id)
        .load(conn)?)
}

/// Moves a pending run to running with what its process runs; false if it is no longer
/// pending or a cancel was asked for.
pub fn start(
    conn: &mut DbConnection,
    id: i64,
    args: &str,
    cwd: &str,
    env: &str,
    now: Timestamp,
) -> StorageResult<bool> {
    let moved = diesel::update(
        unified_jobs::table
            .find(id)
            .filter(unified_jobs::status.eq(RunStatus::Pending.as_str()))
            .filter(unified_jobs::cancel_requested.eq(false)),
    )
    .set((
        unified_jobs::status.eq(RunStatus::Running.as_str()),
        unified_jobs::job_args.eq(args),
        unified_jobs::job_cwd.eq(cwd),
        unified_jobs::job_env.eq(env),
        unified_jobs::started.eq(now),
        unified_jobs::modified.eq(now),
    ))
    .execute(conn)?;
    Ok(moved > 0)
}

/// Ends an unfinished run with `outcome`, its output replacing the lines recorded while it
/// ran; false if it had already ended. Call it in a transaction (`Pool::write`): the status
/// and the output change together.
pub fn finish(
    conn: &mut DbConnection,
    id: i64,
    outcome: &RunOutcome,
    now: Timestamp,
) -> StorageResult<bool> {
    let moved = diesel::update(
        unified_jobs::table
            .find(id)
            .filter(unified_jobs::status.eq_any(UNFINISHED)),
    )
    .set((
        unified_jobs::status.eq(outcome.status.as_str()),
        unified_jobs::job_explanation.eq(&outcome.explanation),
        unified_jobs::result_code.eq(outcome.result_code),
        unified_jobs::finished.eq(now),
        unified_jobs::modified.eq(now),
    ))
    .execute(conn)?;
    if moved > 0 {
        crate::unified_job_lines::replace(conn, id, &outcome.stdout)?;
    }
    Ok(moved > 0)
}

/// Deletes run `id` if it has ended (its credential rows go with it, by cascade); false if it
/// is unfinished or gone.
pub fn delete_finished(conn: &mut DbConnection, id: i64) -> StorageResult<bool> {
    let deleted = diesel::delete(
        unified_jobs::table
            .find(id)
            .filter(unified_jobs::status.ne_all(UNFINISHED)),
    )
    .execute(conn)?;
    Ok(deleted > 0)
}

/// Asks for an unfinished run to be canceled; false if it had already ended.
pub fn request_cancel(conn: &mut DbConnection, id: i64, now: Timestamp) -> StorageResult<bool> {
    let marked = diesel::update(
        unified_jobs::table
            .find(id)
            .filter(unified_jobs::status.eq_any(UNFINISHED)),
    )
    .set((
        unified_jobs::cancel_requested.eq(true),
        unified_jobs::modified.eq(now),
    ))
    .execute(conn)?;
    Ok(marked > 0)
}

/// Whether a cancel was asked for run `id`.
pub fn cancel_requested(conn: &mut DbConnection, id: i64) -> StorageResult<bool> {
    Ok(unified_jobs::table
        .find(id)
        .select(unified_jobs::cancel_requested)
        .get_result(conn)?)
}

/// Asks every unfinished run of `node` to stop, as a cancel would; returns how many.
pub fn cancel_unfinished(
    conn: &mut DbConnection,
    node: &str,
    now: Timestamp,
) -> StorageResult<usize> {
    Ok(diesel::update(
        unified_jobs::table
            .filter(unified_jobs::node.eq(node))
            .filter(unified_jobs::status.eq_any(UNFINISHED)),
    )
    .set((
        unified_jobs::cancel_requested.eq(true),
        unified_jobs::modified.eq(now),
    ))
    .execute(conn)?)
}

/// Ends as `error` with `explanation` every unfinished run of `node`: what a node does when it
/// starts, since a run's process never outlives its server. Returns how many.
pub fn fail_unfinished(
    conn: &mut DbConnection,
    node: &str,
    explanation: &str,
    now: Timestamp,
) -> StorageResult<usize> {
    Ok(diesel::update(
        unified_jobs::table
            .filter(unified_jobs::node.eq(node))
            .filter(unified_jobs::status.eq_any(UNFINISHED)),
    )
    .set((
        unified_jobs::status.eq(RunStatus::Error.as_str()),
        unified_jobs::job_explanation.eq(explanation),
        unified_jobs::finished.eq(now),
        unified_jobs::modified.eq(now),
    ))
    .execute(conn)?)
}

crate::list_fields! {
    table: unified_jobs;
    search: [unified_jobs::name];
    default_order: unified_jobs::created;
    fields: {
        "id" => integer(unified_jobs::id),
        "name" => text(unified_jobs::name),
        "status" => text(unified_jobs::status),
        "job_template" => nullable_integer(unified_jobs::job_template_id),
        "project" => nullable_integer(unified_jobs::project_id),
        "inventory" => nullable_integer(unified_jobs::inventory_id),
        "inventory_source" => nullable_integer(unified_jobs::inventory_source_id),
        "project_update" => nullable_integer(unified_jobs::project_update_id),
        "launched_by" => nullable_integer(unified_jobs::launched_by),
        "created" => timestamp(unified_jobs::created),
        "started" => nullable_timestamp(unified_jobs::started),
        "finished" => nullable_timestamp(unified_jobs::finished),
        "job_type" => text(unified_jobs::job_type),
        "diff_mode" => boolean(unified_jobs::diff_mode),
    }
}

/// The latest update of project `project`, if it had one.
pub fn last_project_update(
    conn: &mut DbConnection,
    project: i64,
) -> StorageResult<Option<UnifiedJob>> {
    Ok(unified_jobs::table
        .filter(unified_jobs::kind.eq(RunKind::ProjectUpdate.as_str()))
        .filter(unified_jobs::project_id.eq(project))
        .order(unified_jobs::id.desc())
        .select(UnifiedJob::as_select())
        .first(conn)
        .optional()?)
}

/// Lists the runs of `kind` that `visibility` allows, as `params` ask.
pub fn list(
    conn: &mut DbConnection,
    visibility: &ObjectVisibility,
    kind: RunKind,
    params: &ListParams,
) -> StorageResult<Result<Page<UnifiedJob>, ListError>> {
    crate::list_page!(
        conn,
        params,
        || {
            let query = unified_jobs::table
                .filter(unified_jobs::kind.eq(kind.as_str()))
                .into_boxed();
            let query = match visibility {
                ObjectVisibility::All => query,
                ObjectVisibility::Only {
                    organizations,
                    objects,
                    inventory_organizations,
                } => {
                    // What governs a run: its template, project or inventory.
                    let in_organizations =
                        unified_jobs::organization_id.eq_any(organizations.clone());
                    let objects = objects.clone();
                    match kind {
                        // A job also shows to the auditors of its inventory's organization,
                        // as its template does (the OR only when there are any: it costs).
                        RunKind::Job if !inventory_organizations.is_empty() => query.filter(
                            in_organizations
                                .or(unified_jobs::job_template_id.eq_any(objects))
                                .or(unified_jobs::inventory_id.eq_any(
                                    inventories::table
                                        .filter(
                                            inventories::organization_id
                                                .eq_any(inventory_organizations.clone()),
                                        )
                                        .select(inventories::id.nullable()),
                                )),
                        ),
                        RunKind::Job => query.filter(
                            in_organizations.or(unified_jobs::job_template_id.eq_any(objects)),
                        ),
                        RunKind::ProjectUpdate => query
                            .filter(in_organizations.or(unified_jobs::project_id.eq_any(objects))),
                        RunKind::InventoryUpdate => query.filter(
                            in_organizations.or(unified_jobs::inventory_id.eq_any(objects)),
                        ),
                    }
                }
            };
            filtered(query, params)
        },
        ordered,
        UnifiedJob::as_select()
    )
}

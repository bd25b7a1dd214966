//! The runs: `/api/v2/jobs/`, `/api/v2/project_updates/` and `/api/v2/inventory_updates/`,
//! each with its detail, `stdout/` and `cancel/`, served by generic handlers over [`RunType`].

mod cancel;
mod delete;
mod detail;
mod events;
mod list;
mod options;
mod prompts;
mod queue;
mod render;
mod start;
mod stdout;

pub use cancel::{can_cancel_run, cancel_run};
pub use events::list_events;
pub use list::{list_runs, list_runs_of};
pub use options::{META, options_events, options_run, options_runs};
pub use queue::queue_project_update;
pub use render::render_run;
pub use start::{
    LAUNCH_META, launch_job, launch_requirements, options_launch, start_inventory_update,
    start_project_update, update_status,
};
pub use stdout::get_stdout;

use acs_authz::roles::{Resource, ResourceKind};
use acs_storage::unified_jobs::{RunKind, UnifiedJob};

use crate::auth::Principal;
use crate::context::Context;
use crate::error::{ApiError, ApiResult};

/// One kind of run and where the API serves it.
pub trait RunType: 'static {
    /// The kind.
    const KIND: RunKind;
    /// The collection's URL segment (`jobs`).
    const COLLECTION: &'static str;
    /// The name in messages (`Job`).
    const LABEL: &'static str;
    /// The sub-path of its events (`job_events` for jobs, `events` for updates).
    const EVENTS: &'static str;
    /// The filter a parent's sub-list applies (`job_template` for a template's jobs) and the
    /// parent's collection (`job_templates`).
    const PARENT: (&'static str, &'static str);
}

/// The runs of kind `T` as one resource: `GET` and `DELETE` of a run are
/// [`crate::handlers::detail`]'s.
#[derive(Debug)]
pub struct Runs<T>(std::marker::PhantomData<T>);

/// Jobs.
#[derive(Debug)]
pub struct Jobs;

impl RunType for Jobs {
    const KIND: RunKind = RunKind::Job;
    const COLLECTION: &'static str = "jobs";
    const LABEL: &'static str = "Job";
    const EVENTS: &'static str = "job_events";
    const PARENT: (&'static str, &'static str) = ("job_template", "job_templates");
}

/// Project updates.
#[derive(Debug)]
pub struct ProjectUpdates;

impl RunType for ProjectUpdates {
    const KIND: RunKind = RunKind::ProjectUpdate;
    const COLLECTION: &'static str = "project_updates";
    const LABEL: &'static str = "ProjectUpdate";
    const EVENTS: &'static str = "events";
    const PARENT: (&'static str, &'static str) = ("project", "projects");
}

/// Inventory updates.
#[derive(Debug)]
pub struct InventoryUpdates;

impl RunType for InventoryUpdates {
    const KIND: RunKind = RunKind::InventoryUpdate;
    const COLLECTION: &'static str = "inventory_updates";
    const LABEL: &'static str = "InventoryUpdate";
    const EVENTS: &'static str = "events";
    const PARENT: (&'static str, &'static str) = ("inventory_source", "inventory_sources");
}

/// The collection a run of `kind` is served under.
pub fn collection_of(kind: &str) -> &'static str {
    match kind {
        "project_update" => ProjectUpdates::COLLECTION,
        "inventory_update" => InventoryUpdates::COLLECTION,
        _ => Jobs::COLLECTION,
    }
}

/// Run `id` of type `T`, if the caller may see it: 404 if missing, 403 if invisible.
pub fn visible<T: RunType>(
    ctx: &mut Context<'_>,
    principal: &Principal,
    id: i64,
) -> ApiResult<UnifiedJob> {
    let run =
        acs_storage::unified_jobs::find_of_kind(ctx.conn()?, T::KIND, id).map_err(|error| {
            match error {
                acs_storage::StorageError::NotFound => ApiError::no_such(T::LABEL),
                other => other.into(),
            }
        })?;
    let allowed = principal.actor.reads_everything()
        || match governed_by(T::KIND, &run) {
            Some(governed) => {
                let governed = viewed_as(ctx, T::KIND, &run, governed)?;
                acs_authz::can_view_object(&principal.actor, &governed)
            }
            None => false,
        };
    if !allowed {
        return Err(ApiError::permission_denied());
    }
    Ok(run)
}

/// `governed` as its readers see it: a job also shows to the auditors of its inventory's
/// organization (an inventory deleted since leaves only the template's rule).
fn viewed_as(
    ctx: &mut Context<'_>,
    kind: RunKind,
    run: &UnifiedJob,
    governed: Resource,
) -> ApiResult<Resource> {
    let (RunKind::Job, Some(inventory)) = (kind, run.inventory_id) else {
        return Ok(governed);
    };
    match acs_storage::inventories::find(ctx.conn()?, inventory) {
        Ok(found) => Ok(Resource {
            inventory_organization: Some(found.organization_id),
            ..governed
        }),
        Err(acs_storage::StorageError::NotFound) => Ok(governed),
        Err(other) => Err(other.into()),
    }
}

/// The kind of object whose roles govern runs of `kind`: a job's template, an update's
/// project or inventory (its `read` role shows the runs).
pub fn governing_kind(kind: RunKind) -> ResourceKind {
    match kind {
        RunKind::Job => ResourceKind::JobTemplate,
        RunKind::ProjectUpdate => ResourceKind::Project,
        RunKind::InventoryUpdate => ResourceKind::Inventory,
    }
}

/// The object whose roles govern `run` (of `kind`), with the run's organization. A run whose
/// template, project or inventory is gone keeps its organization (id 0 names no object, so
/// only the organization's rules apply); `None` when it has neither.
pub(super) fn governed_by(kind: RunKind, run: &UnifiedJob) -> Option<Resource> {
    let object = match kind {
        RunKind::Job => run.job_template_id,
        RunKind::ProjectUpdate => run.project_id,
        RunKind::InventoryUpdate => run.inventory_id,
    };
    match object {
        Some(id) => Some(Resource::of(governing_kind(kind), id, run.organization_id)),
        None => run
            .organization_id
            .map(|org| Resource::of(governing_kind(kind), 0, Some(org))),
    }
}

//! Pending runs as a request makes them: the row committed as `pending` with its activity
//! record, in a place of this node's run queue taken first, and started once the request's
//! work is done. What starts a run (a launch, an update, a new git project) comes here.

use acs_storage::unified_jobs::{NewUnifiedJob, RunKind, RunStatus, UnifiedJob};
use serde_json::Value;

use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;

/// Makes a pending update of `project`, launched by `principal` (who may update it), and its
/// activity record, and starts it once the request's work is done.
pub fn queue_project_update(
    ctx: &mut Context<'_>,
    principal: &Principal,
    project: &acs_storage::projects::Project,
) -> ApiResult<UnifiedJob> {
    let new = project_update(ctx, principal, project);
    create(ctx, principal, RunKind::ProjectUpdate, &new, &[])
}

/// A pending update of `project`, launched by `principal`.
pub(super) fn project_update<'a>(
    ctx: &Context<'a>,
    principal: &Principal,
    project: &'a acs_storage::projects::Project,
) -> NewUnifiedJob<'a> {
    NewUnifiedJob {
        project_id: Some(project.id),
        ..pending(
            ctx,
            principal,
            RunKind::ProjectUpdate,
            &project.name,
            project.organization_id,
        )
    }
}

/// A pending run of `kind` named `name`, launched now by `principal` on this node, with
/// nothing else set.
pub(super) fn pending<'a>(
    ctx: &Context<'a>,
    principal: &Principal,
    kind: RunKind,
    name: &'a str,
    organization: i64,
) -> NewUnifiedJob<'a> {
    NewUnifiedJob {
        kind: kind.as_str(),
        name,
        status: RunStatus::Pending.as_str(),
        organization_id: Some(organization),
        job_template_id: None,
        project_id: None,
        inventory_id: None,
        inventory_source_id: None,
        playbook: "",
        job_limit: "",
        extra_vars: "",
        job_type: "run",
        job_tags: "",
        skip_tags: "",
        verbosity: 0,
        diff_mode: false,
        forks: 0,
        timeout: 0,
        project_update_id: None,
        scm_branch: "",
        node: &ctx.state.config.node_name,
        launched_by: Some(principal.user.id),
        created: ctx.now,
        modified: ctx.now,
    }
}

/// Inserts the pending run and its activity record in one transaction, in a place of this
/// node's queue taken first, and starts it once the request's work is done.
pub(super) fn create(
    ctx: &mut Context<'_>,
    principal: &Principal,
    kind: RunKind,
    new: &NewUnifiedJob<'_>,
    credentials: &[i64],
) -> ApiResult<UnifiedJob> {
    let place = ctx.run_place()?;
    let now = ctx.now;
    let run = ctx.write(|conn| insert_run(conn, now, principal, kind, new, credentials))?;
    ctx.start_when_done(run.id, place);
    Ok(run)
}

/// Inserts the pending run and its activity record, in the caller's transaction.
pub(super) fn insert_run(
    conn: &mut acs_storage::DbConnection,
    now: acs_storage::Timestamp,
    principal: &Principal,
    kind: RunKind,
    new: &NewUnifiedJob<'_>,
    credentials: &[i64],
) -> ApiResult<UnifiedJob> {
    let run = acs_storage::unified_jobs::insert(conn, new, credentials)?;
    acs_app::activity::record(
        conn,
        now,
        Some(&principal.user),
        "create",
        &acs_app::activity::Subject::named(kind.as_str(), run.id, &run.name),
        None,
        Value::Null,
    )?;
    tracing::info!(
        actor = principal.user.id,
        run = run.id,
        kind = kind.as_str(),
        "run created"
    );
    Ok(run)
}

//! The run record, in the reference's shape (status, timing, what ran, masked environment).

use acs_storage::unified_jobs::UnifiedJob;
use serde_json::{Map, Value, json};

use super::collection_of;
use crate::auth::Principal;
use crate::http::render::{capabilities, envelope, optional_timestamp};

/// Renders `run` as `viewer` sees it.
pub fn render_run(viewer: &Principal, run: &UnifiedJob, credentials: &[i64]) -> Value {
    let can_run = run
        .organization_id
        .is_some_and(|org| acs_authz::can_run_automation(&viewer.actor, org).is_ok());
    let base = format!("/api/v2/{}/{}/", collection_of(&run.kind), run.id);
    let mut related = Map::new();
    related.insert("stdout".into(), json!(format!("{base}stdout/")));
    related.insert("cancel".into(), json!(format!("{base}cancel/")));
    let events = if run.kind == "job" {
        "job_events"
    } else {
        "events"
    };
    related.insert(events.into(), json!(format!("{base}{events}/")));
    let links = [
        ("job_template", "job_templates", run.job_template_id),
        ("project", "projects", run.project_id),
        ("inventory", "inventories", run.inventory_id),
        (
            "inventory_source",
            "inventory_sources",
            run.inventory_source_id,
        ),
        ("launched_by", "users", run.launched_by),
        ("project_update", "project_updates", run.project_update_id),
    ];
    for (name, collection, id) in links {
        if let Some(id) = id {
            related.insert(name.into(), json!(format!("/api/v2/{collection}/{id}/")));
        }
    }
    let unfinished = !run.is_finished();
    let mut record = envelope(
        run.id,
        &run.kind,
        base,
        Value::Object(related),
        json!({
            "user_capabilities": capabilities(acs_authz::Capabilities {
                edit: false,
                delete: false,
            }),
            "can_cancel": can_run && unfinished,
        }),
        &run.created,
        &run.modified,
    );
    let elapsed = match (run.started, run.finished) {
        (Some(start), Some(end)) => (end - start).num_microseconds().unwrap_or(0) as f64 / 1e6,
        _ => 0.0,
    };
    let failed = run.has_failed();
    let env: Value = serde_json::from_str(&run.job_env).unwrap_or_else(|_| json!({}));
    let args: Value = serde_json::from_str(&run.job_args).unwrap_or_else(|_| json!([]));
    let fields = [
        ("name", json!(run.name)),
        ("status", json!(run.status)),
        ("failed", json!(failed)),
        // Output is stored as it comes, so it is complete once the run has ended.
        ("event_processing_finished", json!(!unfinished)),
        ("started", optional_timestamp(run.started.as_ref())),
        ("finished", optional_timestamp(run.finished.as_ref())),
        ("elapsed", json!(elapsed)),
        ("job_explanation", json!(run.job_explanation)),
        ("job_args", json!(args.to_string())),
        ("job_cwd", json!(run.job_cwd)),
        ("job_env", env),
        ("result_code", json!(run.result_code)),
        ("execution_node", json!(run.node)),
        ("launched_by", json!(run.launched_by)),
        ("organization", json!(run.organization_id)),
        ("job_template", json!(run.job_template_id)),
        ("project", json!(run.project_id)),
        ("inventory", json!(run.inventory_id)),
        ("inventory_source", json!(run.inventory_source_id)),
        ("playbook", json!(run.playbook)),
        ("limit", json!(run.job_limit)),
        ("extra_vars", json!(run.extra_vars)),
        ("job_type", json!(run.job_type)),
        ("job_tags", json!(run.job_tags)),
        ("skip_tags", json!(run.skip_tags)),
        ("verbosity", json!(run.verbosity)),
        ("diff_mode", json!(run.diff_mode)),
        ("forks", json!(run.forks)),
        ("timeout", json!(run.timeout)),
        ("credentials", json!(credentials)),
    ];
    for (name, value) in fields {
        record.insert(name.into(), value);
    }
    if run.kind == "job" {
        // The update its launch waits for (`scm_update_on_launch`).
        record.insert("project_update".into(), json!(run.project_update_id));
        record.insert("scm_branch".into(), json!(run.scm_branch));
    }
    Value::Object(record)
}

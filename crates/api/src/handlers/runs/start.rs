//! Starting runs: `POST /api/v2/job_templates/<id>/launch/` (201), `POST
//! /api/v2/projects/<id>/update/` and `POST /api/v2/inventory_sources/<id>/update/` (202), and
//! the `GET` forms of each, which say whether the caller could start one.
//!
//! The run's row is committed as `pending` before its thread starts, so a run exists in the
//! database before anything runs, and a read-scope token is refused (403) before anything
//! is written.

use acs_app::update_on_launch::LaunchUpdate;
use acs_authz::roles::RoleField;
use acs_storage::unified_jobs::{NewUnifiedJob, RunKind};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Map, Value, json};

use super::queue::{create, insert_run, pending, project_update, queue_project_update};
use super::{prompts, render_run};
use crate::context::run;
use crate::error::{ApiError, ApiResult};
use crate::handlers::automation::{
    InventorySources, JobTemplates, Projects, references, run_options, visible,
};
use crate::handlers::frame::{signed_in, signed_in_taking_post};
use crate::http::body::JsonObject;
use crate::http::options::{FieldMeta, ResourceMeta};
use crate::state::AppState;

/// What `POST …/launch/` reads, for `OPTIONS` (awxkit builds `launch` options from it); each
/// only where the template prompts for it, and answered in `ignored_fields` otherwise.
pub const LAUNCH_META: ResourceMeta = ResourceMeta {
    name: "Job Template Launch",
    description: "Launches a job of the template.",
    fields: &[
        FieldMeta::writable(
            "limit",
            "string",
            "Limit",
            "Run on these hosts only (an Ansible host pattern); with ask_limit_on_launch.",
        )
        .max_length(1024),
        FieldMeta::writable(
            "inventory",
            "id",
            "Inventory",
            "The inventory to run against; with ask_inventory_on_launch.",
        ),
        FieldMeta::writable(
            "credentials",
            "list",
            "Credentials",
            "In place of the template's; with ask_credential_on_launch.",
        ),
        FieldMeta::writable(
            "extra_vars",
            "json",
            "Extra variables",
            "Over the template's; with ask_variables_on_launch.",
        ),
        FieldMeta::writable(
            "scm_branch",
            "string",
            "Source control branch",
            "The branch, tag or commit to run; with ask_scm_branch_on_launch.",
        )
        .max_length(1024),
    ],
};

/// `OPTIONS /api/v2/job_templates/<id>/launch/`: the launch fields. It does not depend on the
/// template, since awxkit asks about template 1 whatever it launches.
pub async fn options_launch(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    let reply = run(&state, &req, |ctx| {
        let principal = ctx.require_user()?;
        let (body, allow) = LAUNCH_META.collection(!principal.actor.read_only);
        Ok((body, allow.to_owned()))
    })
    .await?;
    Ok(reply.options())
}

/// What a launch of job template `id` would need, and what it may be given.
pub async fn launch_requirements(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in_taking_post(&req, &state, move |ctx, principal, page_wanted| {
        let (template, governed) = visible::<JobTemplates>(ctx, principal, id)?;
        let needed = missing_resources(&template, template.inventory_id);
        let may_launch = page_wanted
            && acs_authz::can_act_on_object(&principal.actor, &governed, RoleField::Execute)
                .is_ok();
        let conn = ctx.conn()?;
        let inventory = match template.inventory_id {
            Some(id) => {
                let inventory = acs_storage::inventories::find(conn, id)?;
                json!({"id": inventory.id, "name": inventory.name})
            }
            None => json!({}),
        };
        let credentials: Vec<Value> = acs_storage::job_templates::credentials_of(conn, id)?
            .iter()
            .map(|credential| {
                json!({
                    "id": credential.id,
                    "name": credential.name,
                    "credential_type": credential.credential_type_id,
                })
            })
            .collect();
        let inventory_needed = template.inventory_id.is_none() && template.ask_inventory_on_launch;
        let mut requirements = json!({
            "can_start_without_user_input": needed.is_empty() && !inventory_needed,
            "passwords_needed_to_start": [],
            "variables_needed_to_start": [],
            "credential_needed_to_start": false,
            "inventory_needed_to_start": inventory_needed,
            "ask_limit_on_launch": template.ask_limit_on_launch,
            "ask_inventory_on_launch": template.ask_inventory_on_launch,
            "ask_credential_on_launch": template.ask_credential_on_launch,
            "ask_variables_on_launch": template.ask_variables_on_launch,
            "ask_scm_branch_on_launch": template.ask_scm_branch_on_launch,
            "resources_needed_to_start": needed,
            "defaults": {
                "limit": template.job_limit,
                "extra_vars": template.extra_vars,
                "inventory": inventory,
                "credentials": credentials,
                "scm_branch": template.scm_branch,
            },
            "job_template_data": {
                "id": template.id,
                "name": template.name,
                "description": template.description,
            },
        });
        for (prompt, asked) in run_options::prompts_shown(&template) {
            requirements[prompt] = asked;
        }
        for (field, value) in run_options::shown(&template) {
            requirements["defaults"][field] = value;
        }
        Ok((may_launch, requirements))
    })
    .await
}

/// What a launch cannot do without: a project, and an inventory (the template's, or the one
/// given at launch, `inventory`; a template that prompts for one needs it given).
fn missing_resources(
    template: &acs_storage::job_templates::JobTemplate,
    inventory: Option<i64>,
) -> Vec<&'static str> {
    let mut needed = Vec::new();
    if template.project_id.is_none() {
        needed.push("Job Template Project is missing or undefined.");
    }
    if inventory.is_none() && !template.ask_inventory_on_launch {
        needed.push("Job Template Inventory is missing or undefined.");
    }
    needed
}

/// Launches a job of template `id`: 201 with the job and `"job": id`, the values given that
/// the template does not prompt for in `ignored_fields`.
pub async fn launch_job(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in(&req, &state, StatusCode::CREATED, move |ctx, principal| {
        let (template, governed) = visible::<JobTemplates>(ctx, principal, id)?;
        acs_authz::can_act_on_object(&principal.actor, &governed, RoleField::Execute)?;
        let organization = governed.organization.unwrap_or_default();
        let given = prompts::read(&template, &body.0)?;
        let conn = ctx.conn()?;
        let inventory = match given.inventory {
            Some(id) => Some(references::inventory(conn, &principal.actor, id)?.id),
            None => template.inventory_id,
        };
        let defaults = acs_storage::job_templates::credentials_of(conn, id)?;
        let credentials = match &given.credentials {
            Some(ids) => prompts::credentials(conn, &principal.actor, &defaults, ids)?,
            None => defaults.iter().map(|credential| credential.id).collect(),
        };
        let extra_vars = match &given.extra_vars {
            Some(vars) => prompts::merged_variables(&template.extra_vars, vars)?,
            None => template.extra_vars.clone(),
        };
        let limit = given
            .limit
            .clone()
            .unwrap_or_else(|| template.job_limit.clone());
        let mut needed = missing_resources(&template, inventory);
        if inventory.is_none() && needed.is_empty() {
            // Prompted for, and not given.
            needed.push("Job Template Inventory is missing or undefined.");
        }
        if !needed.is_empty() {
            let mut body = Map::new();
            body.insert("resources_needed_to_start".into(), json!(needed));
            return Err(ApiError::Invalid(body));
        }
        let options = given.options.over(&template);
        let project = match template.project_id {
            Some(id) => Some(acs_storage::projects::find(conn, id)?),
            None => None,
        };
        // The project's last update is read only where a launch updates it first.
        let update_first = match &project {
            Some(project) if project.is_git() && project.scm_update_on_launch => {
                let last = acs_storage::unified_jobs::last_project_update(conn, project.id)?;
                acs_app::update_on_launch::decide(project, last.as_ref(), ctx.now)
            }
            _ => LaunchUpdate::None,
        };
        let new_update = project
            .as_ref()
            .map(|project| project_update(ctx, principal, project));
        let new = NewUnifiedJob {
            job_template_id: Some(template.id),
            project_id: template.project_id,
            inventory_id: inventory,
            playbook: &template.playbook,
            job_limit: &limit,
            extra_vars: &extra_vars,
            job_type: options.job_type.as_deref().unwrap_or_default(),
            job_tags: options.job_tags.as_deref().unwrap_or_default(),
            skip_tags: options.skip_tags.as_deref().unwrap_or_default(),
            verbosity: options.verbosity.unwrap_or_default(),
            diff_mode: options.diff_mode.unwrap_or_default(),
            forks: options.forks.unwrap_or_default(),
            timeout: options.timeout.unwrap_or_default(),
            scm_branch: given.scm_branch.as_deref().unwrap_or(&template.scm_branch),
            ..pending(ctx, principal, RunKind::Job, &template.name, organization)
        };
        // Places are taken before anything is written: a launch the queue cannot take leaves
        // nothing behind.
        let job_place = ctx.run_place()?;
        let update_place = match update_first {
            LaunchUpdate::Start => Some(ctx.run_place()?),
            _ => None,
        };
        let now = ctx.now;
        // The update and the job it holds back are one write: neither exists without the other.
        let (job, started_update) = ctx.write(|conn| {
            let (joined, started) = match (update_first, &new_update) {
                (LaunchUpdate::Join(id), _) => (Some(id), None),
                (LaunchUpdate::Start, Some(update)) => {
                    let update =
                        insert_run(conn, now, principal, RunKind::ProjectUpdate, update, &[])?;
                    (Some(update.id), Some(update.id))
                }
                _ => (None, None),
            };
            let new = NewUnifiedJob {
                project_update_id: joined,
                ..new
            };
            let job = insert_run(conn, now, principal, RunKind::Job, &new, &credentials)?;
            Ok((job, started))
        })?;
        // Started before the job, so it is ahead of it in this node's queue.
        if let (Some(update), Some(place)) = (started_update, update_place) {
            ctx.start_when_done(update, place);
        }
        ctx.start_when_done(job.id, job_place);
        let mut record = render_run(principal, &job, &credentials);
        record["job"] = json!(job.id);
        record["ignored_fields"] = Value::Object(given.ignored);
        Ok(record)
    })
    .await
}

/// `{"can_update": bool}` for a project or an inventory source.
pub async fn update_status(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    let project_path = req.path().starts_with("/api/v2/projects/");
    signed_in_taking_post(&req, &state, move |ctx, principal, _| {
        let governed = if project_path {
            visible::<Projects>(ctx, principal, id)?.1
        } else {
            visible::<InventorySources>(ctx, principal, id)?.1
        };
        let allowed =
            acs_authz::can_act_on_object(&principal.actor, &governed, RoleField::Update).is_ok();
        Ok((allowed, json!({ "can_update": allowed })))
    })
    .await
}

/// Starts an update of project `id`: 202 with `"project_update": id`.
pub async fn start_project_update(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in(&req, &state, StatusCode::ACCEPTED, move |ctx, principal| {
        let (project, governed) = visible::<Projects>(ctx, principal, id)?;
        acs_authz::can_act_on_object(&principal.actor, &governed, RoleField::Update)?;
        let update = queue_project_update(ctx, principal, &project)?;
        let mut record = render_run(principal, &update, &[]);
        record["project_update"] = json!(update.id);
        Ok(record)
    })
    .await
}

/// Starts an update of inventory source `id`: 202 with `"inventory_update": id`.
pub async fn start_inventory_update(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in(&req, &state, StatusCode::ACCEPTED, move |ctx, principal| {
        let (source, governed) = visible::<InventorySources>(ctx, principal, id)?;
        acs_authz::can_act_on_object(&principal.actor, &governed, RoleField::Update)?;
        let organization = governed.organization.unwrap_or_default();
        let credentials: Vec<i64> = source.credential_id.into_iter().collect();
        let new = NewUnifiedJob {
            project_id: source.source_project_id,
            inventory_id: Some(source.inventory_id),
            inventory_source_id: Some(source.id),
            ..pending(
                ctx,
                principal,
                RunKind::InventoryUpdate,
                &source.name,
                organization,
            )
        };
        let update = create(ctx, principal, RunKind::InventoryUpdate, &new, &credentials)?;
        let mut record = render_run(principal, &update, &credentials);
        record["inventory_update"] = json!(update.id);
        Ok(record)
    })
    .await
}

//! `/api/v2/job_templates/`: a playbook of a project run against an inventory.

use acs_storage::DbConnection;
use acs_storage::job_templates::{JobTemplate, JobTemplateValues};
use serde_json::{Value, json};

use super::inventory_sources::optional_id;
use super::references;
use super::resource::{Body, Resource};
use super::run_options::{self, RunOptions};
use crate::error::{ApiError, ApiResult};
use crate::http::fields::Text;
use crate::http::options::{FieldMeta, ResourceMeta};

/// The launch prompts a template may allow, in the order its values read them.
pub const PROMPTS: [&str; 4] = [
    "ask_limit_on_launch",
    "ask_inventory_on_launch",
    "ask_credential_on_launch",
    "ask_variables_on_launch",
];

/// The reference's other prompts: ACS has none of these things to prompt for (execution
/// environments, labels, slices and instance groups), so each is shown `false`, and asking
/// for one is refused rather than silently not done.
pub const UNSUPPORTED_PROMPTS: [&str; 4] = [
    "ask_execution_environment_on_launch",
    "ask_labels_on_launch",
    "ask_job_slice_count_on_launch",
    "ask_instance_groups_on_launch",
];

/// The job template resource.
#[derive(Debug)]
pub struct JobTemplates;

impl Resource for JobTemplates {
    type Row = JobTemplate;
    type Input = JobTemplateValues;

    const LABEL: &'static str = "JobTemplate";
    const KIND: &'static str = "job_template";
    const COLLECTION: &'static str = "job_templates";
    const NAME_TAKEN: &'static str = "Job template with this Name and Organization already exists.";
    const ROLE_KIND: acs_authz::roles::ResourceKind = acs_authz::roles::ResourceKind::JobTemplate;
    const META: ResourceMeta = ResourceMeta {
        name: "Job Template List",
        description: "Playbooks of projects run against inventories with credentials.",
        fields: &[
            FieldMeta::name("Unique within the organization.", 512),
            FieldMeta::DESCRIPTION,
            FieldMeta::writable("project", "id", "Project", "").required(),
            FieldMeta::writable("inventory", "id", "Inventory", ""),
            FieldMeta::writable("playbook", "string", "Playbook", "Path inside the project.")
                .required()
                .max_length(1024),
            FieldMeta::writable("extra_vars", "json", "Extra variables", "In JSON or YAML."),
            FieldMeta::writable(
                "limit",
                "string",
                "Limit",
                "Run on these hosts only (an Ansible host pattern).",
            )
            .max_length(1024),
            FieldMeta::writable(
                "ask_limit_on_launch",
                "boolean",
                "Prompt for limit",
                "A launcher may give the limit.",
            ),
            FieldMeta::writable(
                "ask_inventory_on_launch",
                "boolean",
                "Prompt for inventory",
                "A launcher may give the inventory.",
            ),
            FieldMeta::writable(
                "ask_credential_on_launch",
                "boolean",
                "Prompt for credentials",
                "A launcher may give the credentials, in place of the template's.",
            ),
            FieldMeta::writable(
                "ask_variables_on_launch",
                "boolean",
                "Prompt for variables",
                "A launcher may give extra variables, over the template's.",
            ),
            FieldMeta::writable("job_type", "choice", "Job type", "run, or check (--check).")
                .choices(&[("run", "Run"), ("check", "Check")]),
            FieldMeta::writable("job_tags", "string", "Job tags", "Run only these tags.")
                .max_length(1024),
            FieldMeta::writable("skip_tags", "string", "Skip tags", "Skip these tags.")
                .max_length(1024),
            FieldMeta::writable(
                "verbosity",
                "integer",
                "Verbosity",
                "0 to 5 (-v to -vvvvv).",
            ),
            FieldMeta::writable(
                "diff_mode",
                "boolean",
                "Diff mode",
                "Show changes (--diff).",
            ),
            FieldMeta::writable("forks", "integer", "Forks", "0: ansible's default."),
            FieldMeta::writable(
                "timeout",
                "integer",
                "Timeout",
                "Seconds a job may run; 0: the DEFAULT_JOB_TIMEOUT setting.",
            ),
            FieldMeta::writable(
                "ask_job_type_on_launch",
                "boolean",
                "Prompt for job type",
                "A launcher may give the job type.",
            ),
            FieldMeta::writable(
                "ask_tags_on_launch",
                "boolean",
                "Prompt for tags",
                "A launcher may give the tags to run.",
            ),
            FieldMeta::writable(
                "ask_skip_tags_on_launch",
                "boolean",
                "Prompt for skip tags",
                "A launcher may give the tags to skip.",
            ),
            FieldMeta::writable(
                "ask_verbosity_on_launch",
                "boolean",
                "Prompt for verbosity",
                "A launcher may give the verbosity.",
            ),
            FieldMeta::writable(
                "ask_diff_mode_on_launch",
                "boolean",
                "Prompt for diff mode",
                "A launcher may turn diff mode on or off.",
            ),
            FieldMeta::writable(
                "ask_forks_on_launch",
                "boolean",
                "Prompt for forks",
                "A launcher may give the forks.",
            ),
            FieldMeta::writable(
                "ask_timeout_on_launch",
                "boolean",
                "Prompt for timeout",
                "A launcher may give the timeout.",
            ),
            FieldMeta::writable(
                "scm_branch",
                "string",
                "Source control branch",
                "The branch, tag or commit its jobs run (empty: the project's); the project must allow_override.",
            )
            .max_length(1024),
            FieldMeta::writable(
                "ask_scm_branch_on_launch",
                "boolean",
                "Prompt for branch",
                "A launcher may give the branch; the project must allow_override.",
            ),
            FieldMeta::read_only("organization", "id", "Organization"),
        ],
    };

    crate::stored_rows!(acs_storage::job_templates, owner: organization, writes: stamped);

    /// The auditors of the inventory's organization read the template too.
    fn viewed_as(
        conn: &mut DbConnection,
        row: &Self::Row,
    ) -> ApiResult<acs_authz::roles::Resource> {
        let mut governed = Self::governed_by(conn, row)?;
        if let Some(inventory) = row.inventory_id {
            governed.inventory_organization =
                Some(acs_storage::inventories::find(conn, inventory)?.organization_id);
        }
        Ok(governed)
    }

    /// As in the reference, creating a template takes no organization role: `use` on its
    /// project (and on its inventory, when given), which reading the body checked.
    fn may_create(
        _: &mut DbConnection,
        actor: &acs_authz::Actor,
        _: &Self::Input,
        _: i64,
    ) -> ApiResult<()> {
        Ok(acs_authz::check_method(actor, false)?)
    }

    fn read(conn: &mut DbConnection, sent: Body<'_, Self::Row>) -> ApiResult<(Self::Input, i64)> {
        let mut fields = sent.fields();
        let name = fields.text("name", Text::required(512));
        let description = fields.text("description", Text::optional(4096));
        let project = fields.id("project", true);
        let inventory = optional_id(&mut fields, sent.object, "inventory");
        let playbook = fields.text("playbook", Text::required(1024));
        let playbook = references::relative_path(&mut fields, "playbook", playbook);
        let extra_vars = references::variables(&mut fields, sent.object, "extra_vars");
        let limit = fields.text("limit", Text::optional(1024));
        let scm_branch = fields.text("scm_branch", Text::optional(1024));
        if let Some(problem) = scm_branch
            .as_deref()
            .and_then(super::projects::git_argument_problem)
        {
            fields.error("scm_branch", problem);
        }
        let ask_scm_branch = fields
            .boolean("ask_scm_branch_on_launch")
            .or_else(|| sent.full.then_some(false));
        for prompt in UNSUPPORTED_PROMPTS {
            if fields.boolean(prompt) == Some(true) {
                fields.error(prompt, "ACS cannot prompt for this at launch.");
            }
        }
        let [ask_limit, ask_inventory, ask_credential, ask_variables] = PROMPTS.map(|prompt| {
            fields
                .boolean(prompt)
                .or_else(|| sent.full.then_some(false))
        });
        let mut options = RunOptions::read_all(&mut fields);
        if sent.full {
            options = options.or_defaults();
        }
        let [
            ask_job_type,
            ask_tags,
            ask_skip_tags,
            ask_verbosity,
            ask_diff_mode,
            ask_forks,
            ask_timeout,
        ] = run_options::FIELDS_AND_PROMPTS.map(|(_, prompt)| {
            fields
                .boolean(prompt)
                .or_else(|| sent.full.then_some(false))
        });
        fields.finish()?;
        let project = match project {
            Some(id) => Some(references::project(conn, sent.actor, "project", id)?),
            None => match sent.before.and_then(|template| template.project_id) {
                Some(id) => acs_storage::projects::find(conn, id).ok(),
                None => None,
            },
        };
        let Some(project) = project else {
            return Err(ApiError::field("project", "This field is required."));
        };
        if let Some(Some(id)) = inventory {
            references::inventory(conn, sent.actor, id)?;
        }
        let playbook_to_check = playbook
            .clone()
            .or_else(|| sent.before.map(|template| template.playbook.clone()));
        if project.local_path.is_empty() {
            return Err(ApiError::field("project", acs_runner::NO_DIRECTORY));
        }
        let kept = |field: fn(&JobTemplate) -> bool| !sent.full && sent.before.is_some_and(field);
        let overrides_branch = scm_branch
            .as_deref()
            .map_or(kept(|template| !template.scm_branch.is_empty()), |branch| {
                !branch.is_empty()
            });
        let prompts_for_branch =
            ask_scm_branch.unwrap_or_else(|| kept(|template| template.ask_scm_branch_on_launch));
        if !project.allow_override {
            for (field, asked) in [
                ("scm_branch", overrides_branch),
                ("ask_scm_branch_on_launch", prompts_for_branch),
            ] {
                if asked {
                    return Err(ApiError::field(
                        field,
                        "Project does not allow overriding branch.",
                    ));
                }
            }
        }
        // The playbook may be in the template's branch only, which the project's directory
        // does not hold: the job finds out, as in the reference.
        if let Some(playbook) = playbook_to_check.as_ref().filter(|_| !overrides_branch) {
            let root = sent.settings.text("PROJECTS_ROOT");
            let path = std::path::Path::new(&root)
                .join(&project.local_path)
                .join(playbook);
            if !path.is_file() {
                return Err(ApiError::field(
                    "playbook",
                    "Playbook not found for project.",
                ));
            }
        }
        // The template follows its project's organization, also when only another field
        // changes.
        let input = JobTemplateValues {
            name,
            description: description.or_else(|| sent.full.then(String::new)),
            organization_id: Some(project.organization_id),
            inventory_id: inventory.or_else(|| sent.full.then_some(None)),
            project_id: Some(Some(project.id)),
            playbook,
            extra_vars: extra_vars.or_else(|| sent.full.then(String::new)),
            job_limit: limit.or_else(|| sent.full.then(String::new)),
            ask_limit_on_launch: ask_limit,
            ask_inventory_on_launch: ask_inventory,
            ask_credential_on_launch: ask_credential,
            ask_variables_on_launch: ask_variables,
            job_type: options.job_type,
            job_tags: options.job_tags,
            skip_tags: options.skip_tags,
            verbosity: options.verbosity,
            diff_mode: options.diff_mode,
            forks: options.forks,
            timeout: options.timeout,
            ask_job_type_on_launch: ask_job_type,
            ask_tags_on_launch: ask_tags,
            ask_skip_tags_on_launch: ask_skip_tags,
            ask_verbosity_on_launch: ask_verbosity,
            ask_diff_mode_on_launch: ask_diff_mode,
            ask_forks_on_launch: ask_forks,
            ask_timeout_on_launch: ask_timeout,
            scm_branch: scm_branch.or_else(|| sent.full.then(String::new)),
            ask_scm_branch_on_launch: ask_scm_branch,
        };
        Ok((input, project.organization_id))
    }

    fn related(row: &JobTemplate, base: &str) -> Value {
        let mut related = json!({
            "credentials": format!("{base}credentials/"),
            "launch": format!("{base}launch/"),
            "copy": format!("{base}copy/"),
            "jobs": format!("{base}jobs/"),
        });
        if let Some(project) = row.project_id {
            related["project"] = json!(format!("/api/v2/projects/{project}/"));
        }
        if let Some(inventory) = row.inventory_id {
            related["inventory"] = json!(format!("/api/v2/inventories/{inventory}/"));
        }
        related
    }

    /// A copy is a creation from the template's fields: `use` on its project and its
    /// inventory, as creating it took.
    fn may_copy(
        conn: &mut DbConnection,
        viewer: &crate::auth::Principal,
        row: &JobTemplate,
    ) -> ApiResult<Option<bool>> {
        use acs_authz::roles::{Resource as Object, ResourceKind, RoleField};
        // `can_act_on_object` refuses read-scoped callers, as creating does.
        let actor = &viewer.actor;
        let Some(project) = row.project_id else {
            return Ok(Some(false));
        };
        let project = Object::of(ResourceKind::Project, project, Some(row.organization_id));
        if acs_authz::can_act_on_object(actor, &project, RoleField::Use).is_err() {
            return Ok(Some(false));
        }
        let Some(inventory) = row.inventory_id else {
            return Ok(Some(true));
        };
        let organization = acs_storage::inventories::find(conn, inventory)?.organization_id;
        let inventory = Object::of(ResourceKind::Inventory, inventory, Some(organization));
        Ok(Some(
            acs_authz::can_act_on_object(actor, &inventory, RoleField::Use).is_ok(),
        ))
    }

    fn fields(_: &mut DbConnection, row: &JobTemplate) -> ApiResult<Vec<(&'static str, Value)>> {
        Ok([
            ("organization", json!(row.organization_id)),
            ("project", json!(row.project_id)),
            ("inventory", json!(row.inventory_id)),
            ("playbook", json!(row.playbook)),
            ("extra_vars", json!(row.extra_vars)),
            ("limit", json!(row.job_limit)),
            ("ask_limit_on_launch", json!(row.ask_limit_on_launch)),
            (
                "ask_inventory_on_launch",
                json!(row.ask_inventory_on_launch),
            ),
            (
                "ask_credential_on_launch",
                json!(row.ask_credential_on_launch),
            ),
            (
                "ask_variables_on_launch",
                json!(row.ask_variables_on_launch),
            ),
        ]
        .into_iter()
        .chain(run_options::shown(row))
        .chain(run_options::prompts_shown(row))
        .chain([
            ("scm_branch", json!(row.scm_branch)),
            (
                "ask_scm_branch_on_launch",
                json!(row.ask_scm_branch_on_launch),
            ),
        ])
        .chain(UNSUPPORTED_PROMPTS.map(|prompt| (prompt, json!(false))))
        .collect())
    }
}

//! Preparing a job: the playbook run of a job template, with every credential injected.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use acs_injectors::{InjectionPlan, PlanOptions};
use acs_storage::DbConnection;
use acs_storage::unified_jobs::UnifiedJob;
use serde_json::{Map, Value, json};

use super::credentials::{self, OpenedCredential};
use super::private_dir::PrivateDir;
use super::process::Invocation;
use super::{Explained, Prepared, Preparing, builtin, environment, git_checkout};
use acs_app::automation::parse_variables;
use acs_app::settings::Settings;

/// Everything a job's process needs, written into `dir`.
pub fn prepare(run: Preparing<'_>) -> Result<Prepared, Explained> {
    let (conn, host, settings, row, dir) = (run.conn, run.host, run.settings, run.row, run.dir);
    let project = run
        .project_copy
        .ok_or_else(|| Explained::new("The job's project was not copied."))?;
    let project_dir = project.copy.clone();
    // Another branch than the project's, which its `allow_override` let the template or the
    // launch give: checked out in the job's copy first, from what the project's last update
    // fetched (every branch and tag), by git inside the sandbox.
    let branch = other_branch(conn, row)?;
    let playbook = project_dir.join(&row.playbook);
    if branch.is_none() && !playbook.is_file() {
        return Err(Explained::new(format!(
            "The playbook {} is not in the project directory {}.",
            row.playbook,
            project.source.display()
        )));
    }
    let inventory_id = row
        .inventory_id
        .ok_or_else(|| Explained::new("The job has no inventory."))?;
    let ids = acs_storage::unified_jobs::credential_ids(conn, row.id)?;
    let credentials = credentials::open(conn, host, &ids)?;

    let env_dir = dir.subdirectory("env")?;
    dir.subdirectory("tmp")?;
    let plan = inject(dir, &env_dir, &credentials, true)?;
    let builtin = builtin::for_job(&credentials, &env_dir);
    for (path, content) in &builtin.files {
        dir.write_file(path, content)?;
    }

    let inventory = dir.subdirectory("inventory")?.join("hosts.json");
    dir.write_file(&inventory, &inventory_document(conn, inventory_id)?)?;
    let mut args = vec!["-i".to_owned(), inventory.display().to_string()];
    if !row.job_limit.is_empty() {
        // `=`: a limit starting with `-` must not read as another option.
        args.push(format!("--limit={}", row.job_limit));
    }
    args.extend(playbook_options(row));
    args.extend(builtin.args.iter().cloned());
    let template_vars = parse_variables(&row.extra_vars)
        .map_err(|reason| Explained::new(format!("The job template's extra_vars: {reason}")))?;
    if !template_vars.is_empty() {
        // The template's own variables may use templating on purpose, as in the reference.
        let path = env_dir.join("extravars_template.json");
        dir.write_file(&path, &Value::Object(template_vars).to_string())?;
        args.extend(["-e".to_owned(), format!("@{}", path.display())]);
    }
    let mut credential_vars = builtin.extra_vars.clone();
    credential_vars.extend(plan.extra_vars.clone());
    if !credential_vars.is_empty() {
        let path = env_dir.join("extravars_credentials.yml");
        dir.write_file(&path, &acs_injectors::unsafe_yaml(&credential_vars))?;
        args.extend(["-e".to_owned(), format!("@{}", path.display())]);
    }
    // `--`: a playbook named `-x.yml` is still the playbook.
    args.extend(["--".to_owned(), row.playbook.clone()]);

    let base = environment::base(
        dir.path(),
        &[
            ("JOB_ID", row.id.to_string()),
            ("ACS_JOB_ID", row.id.to_string()),
            ("INVENTORY_ID", inventory_id.to_string()),
            ("PROJECT_ID", row.project_id.unwrap_or_default().to_string()),
        ],
    );
    let injected = plan.env.clone().into_iter().chain(builtin.env.clone());
    let mut steps = Vec::new();
    let mut preamble = String::new();
    if let Some(branch) = &branch {
        preamble = format!("Running {branch} of the project.\n");
        let env = environment::compose(&base, git_checkout::environment());
        steps.push(git_checkout::checkout(&project_dir, branch, &env));
    }
    steps.push(Invocation {
        program: settings.text("ANSIBLE_PLAYBOOK_PATH"),
        args,
        cwd: project_dir.clone(),
        env: environment::compose(&base, injected),
        hand_over: None,
    });
    Ok(Prepared {
        steps,
        preamble,
        recorded_env: environment::recorded(&base, &builtin.env, &plan.recorded_env),
        output: dir.path().join("stdout"),
        errors: None,
        secrets: credentials::secret_values(&credentials),
        // The copy is in the job's private directory, the job's own to change.
        project: None,
        sandboxed: false,
    })
}

/// The job's options of `ansible-playbook` (each value after `=`, so that one starting with
/// `-` cannot read as another option).
fn playbook_options(row: &acs_storage::unified_jobs::UnifiedJob) -> Vec<String> {
    let mut args = Vec::new();
    if row.job_type == "check" {
        args.push("--check".to_owned());
    }
    if !row.job_tags.is_empty() {
        args.push(format!("--tags={}", row.job_tags));
    }
    if !row.skip_tags.is_empty() {
        args.push(format!("--skip-tags={}", row.skip_tags));
    }
    if row.verbosity > 0 {
        let count = usize::try_from(row.verbosity).unwrap_or_default().min(5);
        args.push(format!("-{}", "v".repeat(count)));
    }
    if row.diff_mode {
        args.push("--diff".to_owned());
    }
    if row.forks > 0 {
        args.push(format!("--forks={}", row.forks));
    }
    args
}

/// The branch job `row` runs when it is not its git project's own.
fn other_branch(conn: &mut DbConnection, row: &UnifiedJob) -> Result<Option<String>, Explained> {
    if row.scm_branch.is_empty() {
        return Ok(None);
    }
    let project = row
        .project_id
        .and_then(|id| acs_storage::projects::find(conn, id).ok())
        .ok_or_else(|| Explained::new("The project no longer exists."))?;
    Ok((project.is_git() && project.scm_branch != row.scm_branch).then(|| row.scm_branch.clone()))
}

/// Why a project without a directory runs nothing (`local_path` is `''` only for a project
/// whose directory was shared with an older project before directories became unique).
pub const NO_DIRECTORY: &str =
    "The project has no directory (it shared one with an older project): set its local_path.";

/// The directory of project `id` under `PROJECTS_ROOT`.
pub fn project_directory(
    conn: &mut DbConnection,
    settings: &Settings,
    id: Option<i64>,
) -> Result<PathBuf, Explained> {
    let project = id
        .and_then(|id| acs_storage::projects::find(conn, id).ok())
        .ok_or_else(|| Explained::new("The project no longer exists."))?;
    if project.local_path.is_empty() {
        return Err(Explained::new(NO_DIRECTORY));
    }
    let path = Path::new(&settings.text("PROJECTS_ROOT")).join(&project.local_path);
    if !path.is_dir() {
        return Err(Explained::new(format!(
            "The project directory {} does not exist.",
            path.display()
        )));
    }
    Ok(path)
}

/// Plans the injection of the credentials that have templates and writes their files.
pub fn inject(
    dir: &PrivateDir,
    env_dir: &Path,
    credentials: &[OpenedCredential],
    extra_vars: bool,
) -> Result<InjectionPlan, Explained> {
    let injections: Vec<_> = credentials
        .iter()
        .map(|opened| {
            acs_credential_types::credential_injection(
                &opened.credential.name,
                &opened.templates,
                &opened.config,
                &opened.inputs,
            )
        })
        .collect();
    let options = PlanOptions {
        files_dir: env_dir.display().to_string(),
        extra_vars,
        env_allowed: acs_credential_types::env_name_allowed,
    };
    let plan = acs_injectors::plan(&injections, &options)
        .map_err(|error| Explained::new(format!("Injecting credentials failed: {error}")))?;
    for skipped in &plan.skipped_env {
        tracing::error!(%skipped, "an injected environment variable was skipped");
    }
    for file in &plan.files {
        dir.write_file(Path::new(&file.path), &file.content)?;
    }
    Ok(plan)
}

/// The inventory as a JSON document `ansible-playbook -i` reads (the YAML inventory format):
/// every enabled host with its variables under `all`, and every group under `all` too, with
/// its variables, its direct hosts and its direct children by name (ansible joins the
/// levels). A disabled host is left out everywhere, as in the reference.
fn inventory_document(conn: &mut DbConnection, inventory: i64) -> Result<String, Explained> {
    let mut hosts = Map::new();
    let mut host_names = HashMap::new();
    for host in acs_storage::hosts::of_inventory(conn, inventory)? {
        if !host.enabled {
            continue;
        }
        let variables = parse_variables(&host.variables).map_err(|reason| {
            Explained::new(format!("The variables of host {}: {reason}", host.name))
        })?;
        host_names.insert(host.id, host.name.clone());
        hosts.insert(host.name, Value::Object(variables));
    }
    let groups = acs_storage::inventory_groups::of_inventory(conn, inventory)?;
    let mut entries = HashMap::new();
    for group in &groups {
        let vars = parse_variables(&group.variables).map_err(|reason| {
            Explained::new(format!("The variables of group {}: {reason}", group.name))
        })?;
        entries.insert(
            group.id,
            json!({ "hosts": {}, "vars": vars, "children": {} }),
        );
    }
    for (group, host) in acs_storage::inventory_groups::host_memberships(conn, inventory)? {
        if let (Some(entry), Some(name)) = (entries.get_mut(&group), host_names.get(&host)) {
            entry["hosts"][name] = json!({});
        }
    }
    // Children by name: ansible finds each one's own entry under `all`.
    let group_names: HashMap<i64, &str> = groups.iter().map(|g| (g.id, g.name.as_str())).collect();
    for (parent, child) in acs_storage::inventory_groups::child_links(conn, inventory)? {
        if let (Some(entry), Some(child)) = (entries.get_mut(&parent), group_names.get(&child)) {
            entry["children"][*child] = json!({});
        }
    }
    let children: Map<String, Value> = groups
        .iter()
        .filter_map(|group| Some((group.name.clone(), entries.remove(&group.id)?)))
        .collect();
    Ok(json!({ "all": { "hosts": hosts, "children": children } }).to_string())
}

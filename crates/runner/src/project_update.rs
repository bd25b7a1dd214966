//! Project updates: for a git project, fetch and check out the repository first
//! ([`super::git_checkout`]); then install the project's `collections/requirements.yml` and
//! `roles/requirements.yml` with `ansible-galaxy`, configured from the organization's content
//! sources in precedence order (contract §6), after showing that configuration with
//! `ansible-config dump`. An organization without content sources installs nothing.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use std::path::Path;

use super::job::project_directory;
use super::process::Invocation;
use super::{
    Explained, Prepared, Preparing, ProjectAccess, credentials, environment, git_checkout,
};

/// The requirement files an update installs, with the `ansible-galaxy` subcommand and the
/// directory (beside the playbooks, where Ansible looks) each installs into.
const REQUIREMENTS: [(&str, &str, &str); 2] = [
    ("collections/requirements.yml", "collection", "collections"),
    ("roles/requirements.yml", "role", "roles"),
];

/// Everything the update's processes need.
pub fn prepare(run: Preparing<'_>) -> Result<Prepared, Explained> {
    let (conn, host, settings, row, dir) = (run.conn, run.host, run.settings, run.row, run.dir);
    let project = row
        .project_id
        .and_then(|id| acs_storage::projects::find(conn, id).ok())
        .ok_or_else(|| Explained::new("The project no longer exists."))?;
    let (project_dir, access) = if project.is_git() {
        let root = settings.text("PROJECTS_ROOT");
        (
            git_checkout::directory(&project, Path::new(&root))?,
            ProjectAccess::Checkout,
        )
    } else {
        (
            project_directory(conn, settings, row.project_id)?,
            ProjectAccess::Requirements,
        )
    };
    let organization = row
        .organization_id
        .ok_or_else(|| Explained::new("The project has no organization."))?;
    let source_ids = acs_storage::source_credentials::ordered_ids(conn, organization)?;
    let sources = credentials::open(conn, host, &source_ids)?;
    let source_control = match project.credential_id.filter(|_| project.is_git()) {
        Some(id) => credentials::open(conn, host, &[id])?.pop(),
        None => None,
    };
    dir.subdirectory("tmp")?;
    let base = environment::base(
        dir.path(),
        &[
            ("PROJECT_ID", row.project_id.unwrap_or_default().to_string()),
            ("PROJECT_UPDATE_ID", row.id.to_string()),
        ],
    );
    let galaxy = galaxy_env(&sources);
    let env = environment::compose(&base, galaxy.clone());
    let mut preamble = String::new();
    let mut steps = Vec::new();
    if project.is_git() {
        let _ = writeln!(
            preamble,
            "Fetching {} ({}) into {}.",
            project.scm_url,
            match project.scm_branch.as_str() {
                "" => "its default branch",
                branch => branch,
            },
            project.local_path
        );
        let mut git_env = git_checkout::environment();
        if let Some(credential) = &source_control {
            let env_dir = dir.subdirectory("env")?;
            git_env.extend(git_checkout::authentication(dir, &env_dir, credential)?);
            let _ = writeln!(
                preamble,
                "Authenticating with credential {}.",
                credential.credential.name
            );
        }
        let git_env = environment::compose(&base, git_env);
        steps.extend(git_checkout::steps(&project, &project_dir, &git_env));
    }
    if sources.is_empty() {
        preamble.push_str(
            "No content sources are configured for this project's organization: requirements are not installed.\n",
        );
    } else {
        let names: Vec<&str> = sources.iter().map(|s| s.credential.name.as_str()).collect();
        let _ = writeln!(
            preamble,
            "Content sources, in precedence order: {}.",
            names.join(", ")
        );
        steps.push(Invocation {
            program: settings.text("ANSIBLE_CONFIG_PATH"),
            args: vec!["dump".to_owned(), "--only-changed".to_owned()],
            cwd: project_dir.clone(),
            env: env.clone(),
            hand_over: None,
        });
        // `PROJECT_UPDATE_VVV`: the reference's switch for verbose project updates.
        let verbose = settings.value("PROJECT_UPDATE_VVV") == serde_json::Value::Bool(true);
        for (file, kind, target) in REQUIREMENTS {
            if !project_dir.join(file).is_file() {
                let _ = writeln!(preamble, "{file} does not exist: no {kind}s to install.");
                continue;
            }
            let mut args = vec![
                kind.to_owned(),
                "install".to_owned(),
                "-r".to_owned(),
                file.to_owned(),
                "-p".to_owned(),
                target.to_owned(),
            ];
            if verbose {
                args.push("-vvv".to_owned());
            }
            steps.push(Invocation {
                program: settings.text("ANSIBLE_GALAXY_PATH"),
                args,
                cwd: project_dir.clone(),
                env: env.clone(),
                hand_over: None,
            });
        }
    }
    let mut secrets = credentials::secret_values(&sources);
    secrets.extend(credentials::secret_values(source_control.as_slice()));
    // Longest first, as each list is: a secret holding another is replaced whole.
    secrets.sort_by_key(|secret| std::cmp::Reverse(secret.len()));
    Ok(Prepared {
        steps,
        preamble,
        recorded_env: environment::recorded(&base, &galaxy, &BTreeMap::new()),
        output: dir.path().join("stdout"),
        errors: None,
        secrets,
        project: Some((project_dir, access)),
        sandboxed: false,
    })
}

/// The `ANSIBLE_GALAXY_SERVER_*` variables of the content sources, in order (reference §5.3).
fn galaxy_env(sources: &[credentials::OpenedCredential]) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    if sources.is_empty() {
        return env;
    }
    let names: Vec<String> = (0..sources.len()).map(|i| format!("server{i}")).collect();
    env.insert("ANSIBLE_GALAXY_SERVER_LIST".to_owned(), names.join(","));
    for (index, source) in sources.iter().enumerate() {
        let prefix = format!("ANSIBLE_GALAXY_SERVER_SERVER{index}");
        if let Some(url) = source.text("url") {
            env.insert(format!("{prefix}_URL"), url.to_owned());
        }
        if let Some(token) = source.text("token") {
            env.insert(format!("{prefix}_TOKEN"), token.to_owned());
        }
        if let Some(auth_url) = source.text("auth_url") {
            env.insert(format!("{prefix}_AUTH_URL"), auth_url.to_owned());
        }
    }
    env
}

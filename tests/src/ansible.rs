//! What the job, inventory-update and project-update tests share: the ansible-core programs
//! (from `ACS_ANSIBLE_BIN_DIR`, which `scripts/test-all.sh` points at the virtualenv that
//! `scripts/setup-test-env.sh` fills), a projects root with a playbook that reports what it
//! received, a server configured to use both, and waiting for a run to end.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::{Agent, Backend, Call, TestServer, id_of};

/// How long a test waits for one run.
const RUN_TIMEOUT: Duration = Duration::from_secs(180);

/// The playbook every job test runs: it writes, to `report_path`, the values of the
/// environment variables named in `report_env`, the contents of the files named by the
/// variables in `report_file_env`, and the values of the variables named in `report_vars`.
pub const REPORTING_PLAYBOOK: &str = r#"- hosts: all
  gather_facts: false
  vars:
    report_env: []
    report_file_env: []
    report_vars: []
  tasks:
    - name: Report what the job received
      ansible.builtin.copy:
        dest: "{{ report_path }}"
        content: "{{ report | to_nice_json }}"
      vars:
        env_values: >-
          {{ query('ansible.builtin.env', *report_env) if report_env else [] }}
        file_paths: >-
          {{ query('ansible.builtin.env', *report_file_env) if report_file_env else [] }}
        file_contents: >-
          {{ query('ansible.builtin.file', *file_paths, rstrip=false) if file_paths else [] }}
        var_values: >-
          {{ query('ansible.builtin.vars', *report_vars) if report_vars else [] }}
        modes_command: >-
          stat -c '%n %a' {{ ([lookup('ansible.builtin.env', 'PRIVATE_DATA_DIR')] + file_paths) | map('quote') | join(' ') }}
        report:
          env: "{{ dict(report_env | zip(env_values)) }}"
          files: "{{ dict(file_paths | zip(file_contents)) }}"
          vars: "{{ dict(report_vars | zip(var_values)) }}"
          modes: "{{ lookup('ansible.builtin.pipe', modes_command) }}"
      delegate_to: localhost
      run_once: true
"#;

/// The directory of the ansible-core programs; panics (failing the test) when it is not set
/// up, so a missing ansible-core never passes silently.
pub fn bin_dir() -> PathBuf {
    let dir = std::env::var("ACS_ANSIBLE_BIN_DIR").unwrap_or_else(|_| {
        panic!(
            "ACS_ANSIBLE_BIN_DIR is not set: run scripts/test-all.sh (or scripts/setup-test-env.sh \
             and export ACS_ANSIBLE_BIN_DIR=<repo>/.venv/bin)"
        )
    });
    let dir = PathBuf::from(dir);
    for tool in [
        "ansible-playbook",
        "ansible-inventory",
        "ansible-galaxy",
        "ansible-config",
    ] {
        assert!(
            dir.join(tool).is_file(),
            "{tool} is missing from ACS_ANSIBLE_BIN_DIR {}",
            dir.display()
        );
    }
    dir
}

/// `JOB_ISOLATION_SHOW_PATHS` as an operator of these tests sets it: the virtualenv of the
/// ansible-core programs and the Python it was made from (read-only), and the scratch
/// directory the test playbooks write their reports to (writable, and opened to the run user).
fn shown_to_runs(bin: &Path, scratch: &Path) -> String {
    use std::os::unix::fs::PermissionsExt;
    let venv = bin.parent().expect("the virtualenv of ACS_ANSIBLE_BIN_DIR");
    let python = std::fs::canonicalize(bin.join("python3")).expect("the virtualenv's python3");
    let python_home = python
        .ancestors()
        .nth(2)
        .expect("the Python installation of the virtualenv");
    std::fs::set_permissions(scratch, std::fs::Permissions::from_mode(0o1777))
        .expect("the scratch directory opened to the run user");
    json!([
        venv.display().to_string(),
        python_home.display().to_string(),
        format!("{}:rw", scratch.display()),
    ])
    .to_string()
}

/// A projects root with one project directory, and a server whose `jobs` settings point at
/// it and at the ansible-core programs.
#[derive(Debug)]
pub struct AutomationServer {
    /// The server.
    pub server: TestServer,
    /// `PROJECTS_ROOT`.
    pub projects_root: tempfile::TempDir,
    /// A directory for reports and other test files.
    pub scratch: tempfile::TempDir,
}

impl AutomationServer {
    /// Starts one, with `extra` `ACS_*` variables.
    pub fn start(backend: Backend, extra: &[(&str, &str)]) -> Self {
        let bin = bin_dir();
        let projects_root = tempfile::tempdir().expect("a projects root");
        let scratch = tempfile::tempdir().expect("a scratch directory");
        let root = projects_root.path().display().to_string();
        let show_paths = shown_to_runs(&bin, scratch.path());
        let program = |tool: &str| bin.join(tool).display().to_string();
        let (playbook, inventory, galaxy, config) = (
            program("ansible-playbook"),
            program("ansible-inventory"),
            program("ansible-galaxy"),
            program("ansible-config"),
        );
        let mut vars = vec![
            ("ACS_PROJECTS_ROOT", root.as_str()),
            ("ACS_ANSIBLE_PLAYBOOK_PATH", playbook.as_str()),
            ("ACS_ANSIBLE_INVENTORY_PATH", inventory.as_str()),
            ("ACS_ANSIBLE_GALAXY_PATH", galaxy.as_str()),
            ("ACS_ANSIBLE_CONFIG_PATH", config.as_str()),
            ("ACS_JOB_ISOLATION_SHOW_PATHS", show_paths.as_str()),
        ];
        vars.extend_from_slice(extra);
        let server = TestServer::start_with(backend, &vars);
        AutomationServer {
            server,
            projects_root,
            scratch,
        }
    }

    /// Writes `content` to `<PROJECTS_ROOT>/<project>/<path>`, making directories.
    pub fn project_file(&self, project: &str, path: &str, content: &str) -> PathBuf {
        let file = self.projects_root.path().join(project).join(path);
        std::fs::create_dir_all(file.parent().expect("a parent")).expect("project directories");
        std::fs::write(&file, content).expect("a project file");
        file
    }

    /// Creates, as `agent`, an organization-owned project on directory `directory`.
    pub fn create_project(&self, agent: &Agent, organization: i64, directory: &str) -> i64 {
        id_of(
            &agent
                .post("/api/v2/projects/")
                .json(&json!({
                    "name": format!("project {directory}"),
                    "organization": organization,
                    "local_path": directory,
                }))
                .call()
                .expect(201)
                .json(),
        )
    }

    /// Creates an inventory of `organization` holding `localhost` (local connection).
    pub fn create_local_inventory(&self, agent: &Agent, organization: i64) -> i64 {
        let inventory = id_of(
            &agent
                .post("/api/v2/inventories/")
                .json(&json!({ "name": "local", "organization": organization }))
                .call()
                .expect(201)
                .json(),
        );
        agent
            .post(&format!("/api/v2/inventories/{inventory}/hosts/"))
            .json(&json!({
                "name": "localhost",
                "variables": "ansible_connection: local\nansible_python_interpreter: \"{{ ansible_playbook_python }}\"\n",
            }))
            .call()
            .expect(201);
        inventory
    }

    /// An organization admin's (mallory's) job template in a new organization, whose host's
    /// interpreter is chosen by running `probe` (a bash script in the template's project)
    /// on the controller, as an attacker would have Ansible run it: the agent and the
    /// template.
    pub fn attacker_template(&self, probe: &str) -> (Agent, i64) {
        let server = &self.server;
        let organization = server.create_organization("attackers");
        let mallory = server.create_user("mallory", "Mallory-pass-1", false);
        server.add_admin(organization, mallory);
        let agent = server.as_user("mallory", "Mallory-pass-1");
        self.project_file("attack", "probe.sh", probe);
        self.project_file("attack", "site.yml", PING_PLAYBOOK);
        let project = self.create_project(&agent, organization, "attack");
        let inventory = id_of(
            &agent
                .post("/api/v2/inventories/")
                .json(&json!({"name": "mine", "organization": organization}))
                .call()
                .expect(201)
                .json(),
        );
        // The job runs from its own copy of the project, next to the playbook.
        let interpreter = format!(
            "{{{{ lookup('pipe', 'bash ' ~ playbook_dir ~ '/probe.sh >/dev/null 2>&1; echo {}') }}}}",
            bin_dir().join("python3").display()
        );
        agent
            .post(&format!("/api/v2/inventories/{inventory}/hosts/"))
            .json(&json!({
                "name": "localhost",
                "variables": json!({
                    "ansible_connection": "local",
                    "ansible_python_interpreter": interpreter,
                }).to_string(),
            }))
            .call()
            .expect(201);
        let template = id_of(
            &agent
                .post("/api/v2/job_templates/")
                .json(&json!({"name": "attack", "project": project, "inventory": inventory, "playbook": "site.yml"}))
                .call()
                .expect(201)
                .json(),
        );
        (agent, template)
    }

    /// The path of a report file named `name` in the scratch directory.
    pub fn report_path(&self, name: &str) -> PathBuf {
        self.scratch.path().join(name)
    }

    /// The directory where the server keeps its runs' private directories.
    pub fn runs_dir(&self) -> PathBuf {
        self.server.data_dir().join("runs")
    }
}

/// A playbook of one module run on every host (its interpreter chosen per host).
pub const PING_PLAYBOOK: &str =
    "- hosts: all\n  gather_facts: false\n  tasks:\n    - ansible.builtin.ping:\n";

/// A playbook that runs until it is stopped (two minutes at most).
pub const SLOW_PLAYBOOK: &str =
    "- hosts: all\n  gather_facts: false\n  tasks:\n    - ansible.builtin.command: sleep 120\n";

/// The text output of run `job` (its record), as `agent` reads it.
pub fn run_stdout(agent: &Agent, job: &Value) -> String {
    agent
        .get(&format!(
            "{}stdout/?format=txt",
            job["url"].as_str().unwrap_or_default()
        ))
        .call()
        .body
}

/// Launches job template `template` as `agent` with no launch-time values; returns the job's
/// detail path.
#[track_caller]
pub fn launch(agent: &Agent, template: i64) -> String {
    let launched = agent
        .post(&format!("/api/v2/job_templates/{template}/launch/"))
        .json(&json!({}))
        .call()
        .expect(201)
        .json();
    format!("/api/v2/jobs/{}/", launched["job"])
}

/// Polls `path` (a run's detail) until its process runs.
#[track_caller]
pub fn wait_until_running(agent: &Agent, path: &str) {
    let started = Instant::now();
    while agent.get_json(path)["status"] != "running" {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{path} never ran"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Polls `path` (a run's detail) until its status is final; returns the record.
#[track_caller]
pub fn wait_for_run(agent: &Agent, path: &str) -> Value {
    let started = Instant::now();
    loop {
        let run = agent.get_json(path);
        let status = run["status"].as_str().unwrap_or_default().to_owned();
        if !matches!(status.as_str(), "pending" | "running") {
            return run;
        }
        assert!(
            started.elapsed() < RUN_TIMEOUT,
            "{path} still {status} after {RUN_TIMEOUT:?}: {run}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The JSON a reporting playbook wrote.
#[track_caller]
pub fn read_report(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|error| panic!("no report at {}: {error}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|error| panic!("report {text}: {error}"))
}

//! Every run in a sandbox (contract §6), tried as an attacker: an organization admin with no
//! system role makes Ansible run shell commands on the controller (a host variable templated
//! through `lookup('pipe')`, and a template extra variable) and tries to read the server's
//! secrets, another organization's project and another run's files, and to write outside its
//! own directory, and an inventory script of theirs tries the same. Each attempt is checked
//! from the outside; the same job without isolation
//! shows that the attempts would otherwise succeed. A missing bwrap ends the run as `error`.

use std::path::{Path, PathBuf};

use acs_tests::ansible::{
    AutomationServer, SLOW_PLAYBOOK, launch, run_stdout as stdout, wait_for_run, wait_until_running,
};
use acs_tests::{Agent, Backend, Call, backend_tests, id_of};
use serde_json::{Value, json};

/// Runs a module (which templates the host's interpreter, running the probe) and shows the
/// template extra variable `attack`, which the job template's own variables set to a
/// `lookup('pipe')`: the reference templates those on purpose, so it runs on the controller.
const ATTACK_PLAYBOOK: &str = "- hosts: all\n  gather_facts: false\n  tasks:\n    - ansible.builtin.ping:\n    - ansible.builtin.debug:\n        msg: \"{{ attack }}\"\n";

/// What the attacker's shell commands look at and where they try to write.
struct Targets {
    secret_key: PathBuf,
    sqlite: PathBuf,
    victim_file: PathBuf,
    other_run: PathBuf,
    server_environ: PathBuf,
    writes: Vec<PathBuf>,
}

impl Targets {
    fn reads(&self) -> Vec<&Path> {
        vec![
            &self.secret_key,
            &self.sqlite,
            &self.victim_file,
            &self.other_run,
            &self.server_environ,
        ]
    }

    /// A shell script that records, in `report`, whether each target is visible, their
    /// contents where readable, and each write that succeeded.
    fn probe(&self, report: &Path) -> String {
        let mut script = String::from("id\n");
        for path in self.reads() {
            let path = path.display();
            script.push_str(&format!(
                "if test -e '{path}'; then echo 'visible {path}'; cat '{path}' 2>&1; else echo 'hidden {path}'; fi\n"
            ));
        }
        for path in &self.writes {
            let path = path.display();
            script.push_str(&format!(
                "echo pwned > '{path}' 2>/dev/null && echo 'wrote {path}'\n"
            ));
        }
        format!("( {script} ) > '{}' 2>&1\n", report.display())
    }
}

/// The attacker's job template: a host whose interpreter is chosen by running `probe.sh` from
/// the attacker's project, and a template extra variable that reads the secret key.
fn attacker_template(fixture: &AutomationServer, targets: &Targets) -> (Agent, i64) {
    let (agent, template) =
        fixture.attacker_template(&targets.probe(&fixture.report_path("probe.txt")));
    fixture.project_file("attack", "site.yml", ATTACK_PLAYBOOK);
    let attack = format!(
        "{{{{ lookup('pipe', 'cat {} 2>&1; echo extra-vars-ran') }}}}",
        targets.secret_key.display()
    );
    agent
        .patch(&format!("/api/v2/job_templates/{template}/"))
        .json(&json!({"extra_vars": json!({"attack": attack}).to_string()}))
        .call()
        .expect(200);
    (agent, template)
}

fn a_job_reads_and_writes_nothing_of_the_server(backend: Backend) {
    let fixture = AutomationServer::start(backend, &[]);
    let admin = fixture.server.admin();
    let data_dir = fixture.server.data_dir().to_owned();
    let projects_root = fixture.projects_root.path().to_owned();

    // The victim: another organization, with a project file and a job running.
    let victim_file = fixture.project_file("victim", "hosts.ini", "db password=victim-secret\n");
    fixture.project_file("victim", "slow.yml", SLOW_PLAYBOOK);
    let victims = fixture.server.create_organization("victims");
    let victim_project = fixture.create_project(&admin, victims, "victim");
    let victim_inventory = fixture.create_local_inventory(&admin, victims);
    let slow = id_of(
        &admin
            .post("/api/v2/job_templates/")
            .json(&json!({"name": "slow", "project": victim_project, "inventory": victim_inventory, "playbook": "slow.yml"}))
            .call()
            .expect(201)
            .json(),
    );
    let slow_job = launch(&admin, slow);
    wait_until_running(&admin, &slow_job);
    let other_run = std::fs::read_dir(data_dir.join("runs"))
        .expect("the runs directory")
        .next()
        .expect("the victim's run directory")
        .expect("an entry")
        .path();

    let outside_tmp = std::env::temp_dir().join(format!("acs-pwned-{}", std::process::id()));
    let targets = Targets {
        secret_key: data_dir.join("secret_key"),
        sqlite: data_dir.join("acs.sqlite3"),
        victim_file,
        other_run: other_run.join("inventory/hosts.json"),
        server_environ: PathBuf::from(format!("/proc/{}/environ", std::process::id())),
        writes: vec![
            data_dir.join("pwned"),
            projects_root.join("victim/pwned"),
            projects_root.join("attack/pwned"),
            other_run.join("pwned"),
            outside_tmp.clone(),
        ],
    };
    let secret_key = std::fs::read(&targets.secret_key).expect("the secret key");
    let (mallory, template) = attacker_template(&fixture, &targets);

    let job = wait_for_run(&mallory, &launch(&mallory, template));
    let output = stdout(&mallory, &job);
    assert_eq!(job["status"], "successful", "{job}\n{output}");
    let report_bytes = std::fs::read(fixture.report_path("probe.txt"))
        .expect("the probe ran and wrote its report");
    let report = String::from_utf8_lossy(&report_bytes);
    // The attack ran, as the unprivileged run user.
    assert!(report.contains("uid=65534"), "{report}");
    assert!(output.contains("extra-vars-ran"), "{output}");
    assert!(
        output.contains(&format!("{}: No such file", targets.secret_key.display())),
        "{output}"
    );
    assert!(
        !report_bytes
            .windows(secret_key.len())
            .any(|window| window == secret_key.as_slice()),
        "the secret key leaked:\n{report}"
    );
    for path in targets.reads() {
        assert!(
            report.contains(&format!("hidden {}", path.display())),
            "{} was visible to the run:\n{report}",
            path.display()
        );
    }
    for leaked in ["victim-secret", &fixture.server.admin_password] {
        assert!(!report.contains(leaked), "{leaked} leaked:\n{report}");
        assert!(!output.contains(leaked), "{leaked} leaked:\n{output}");
    }
    for path in &targets.writes {
        assert!(!path.exists(), "the run wrote {}", path.display());
    }

    admin.post(&format!("{slow_job}cancel/")).call().expect(202);
    wait_for_run(&admin, &slow_job);

    // The same attack with isolation turned off (a superuser's explicit choice) reads the
    // key: the test above proves the sandbox, not a probe that cannot see anything.
    admin
        .patch("/api/v2/settings/jobs/")
        .json(&json!({"JOB_ISOLATION_ENABLED": false}))
        .call()
        .expect(200);
    let job = wait_for_run(&mallory, &launch(&mallory, template));
    let report = String::from_utf8_lossy(
        &std::fs::read(fixture.report_path("probe.txt")).expect("the report"),
    )
    .into_owned();
    assert!(
        report.contains(&format!("visible {}", targets.secret_key.display())),
        "{job}\n{report}"
    );
    let _ = std::fs::remove_file(&outside_tmp);
}

/// An inventory script of the attacker's project: what it could read becomes host variables.
fn inventory_script(secret_key: &Path, victim_file: &Path) -> String {
    format!(
        r#"#!/bin/sh
if [ "$1" = "--host" ]; then echo '{{}}'; exit 0; fi
key=$(base64 -w0 '{}' 2>/dev/null || echo hidden)
victim=$(cat '{}' 2>/dev/null || echo hidden)
printf '{{"all": {{"hosts": ["loot"]}}, "_meta": {{"hostvars": {{"loot": {{"key": "%s", "victim": "%s", "uid": "%s"}}}}}}}}' "$key" "$victim" "$(id -u)"
"#,
        secret_key.display(),
        victim_file.display()
    )
}

fn an_inventory_update_reads_nothing_of_the_server(backend: Backend) {
    let fixture = AutomationServer::start(backend, &[]);
    let admin = fixture.server.admin();
    let victim_file = fixture.project_file("victim", "hosts.ini", "db password=victim-secret\n");
    let victims = fixture.server.create_organization("victims");
    fixture.create_project(&admin, victims, "victim");

    let server = &fixture.server;
    let organization = server.create_organization("attackers");
    let mallory = server.create_user("mallory", "Mallory-pass-1", false);
    server.add_admin(organization, mallory);
    let agent = server.as_user("mallory", "Mallory-pass-1");
    let secret_key = server.data_dir().join("secret_key");
    let script = fixture.project_file(
        "attack",
        "inventory.sh",
        &inventory_script(&secret_key, &victim_file),
    );
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("executable");
    let project = fixture.create_project(&agent, organization, "attack");
    let inventory = id_of(
        &agent
            .post("/api/v2/inventories/")
            .json(&json!({"name": "loot", "organization": organization}))
            .call()
            .expect(201)
            .json(),
    );
    let source = id_of(
        &agent
            .post(&format!("/api/v2/inventories/{inventory}/inventory_sources/"))
            .json(&json!({"name": "script", "source_project": project, "source_path": "inventory.sh"}))
            .call()
            .expect(201)
            .json(),
    );
    let started = agent
        .post(&format!("/api/v2/inventory_sources/{source}/update/"))
        .call()
        .expect(202)
        .json();
    let path = format!("/api/v2/inventory_updates/{}/", started["inventory_update"]);
    let run = wait_for_run(&agent, &path);
    assert_eq!(run["status"], "successful", "{run}");
    let hosts = agent.get_json(&format!("/api/v2/inventories/{inventory}/hosts/"));
    let variables: Value = serde_json::from_str(
        hosts["results"][0]["variables"]
            .as_str()
            .unwrap_or_default(),
    )
    .expect("the loot host's variables");
    assert_eq!(variables["uid"], "65534", "{hosts}");
    assert_eq!(variables["key"], "hidden", "{hosts}");
    assert_eq!(variables["victim"], "hidden", "{hosts}");
}

fn without_a_working_bwrap_a_run_ends_in_error_and_nothing_runs(backend: Backend) {
    let fixture = AutomationServer::start(
        backend,
        &[("ACS_JOB_ISOLATION_BWRAP_PATH", "/nonexistent/bwrap")],
    );
    let admin = fixture.server.admin();
    let marker = fixture.report_path("ran");
    fixture.project_file(
        "site",
        "site.yml",
        &format!(
            "- hosts: all\n  gather_facts: false\n  tasks:\n    - ansible.builtin.file:\n        path: {}\n        state: touch\n      delegate_to: localhost\n",
            marker.display()
        ),
    );
    let organization = fixture.server.create_organization("automation");
    let project = fixture.create_project(&admin, organization, "site");
    let inventory = fixture.create_local_inventory(&admin, organization);
    let template = id_of(
        &admin
            .post("/api/v2/job_templates/")
            .json(&json!({"name": "site", "project": project, "inventory": inventory, "playbook": "site.yml"}))
            .call()
            .expect(201)
            .json(),
    );
    let job = wait_for_run(&admin, &launch(&admin, template));
    assert_eq!(job["status"], "error", "{job}");
    let explanation = job["job_explanation"].as_str().unwrap_or_default();
    assert!(
        explanation.contains("sandbox could not start")
            && explanation.contains("/nonexistent/bwrap"),
        "{job}"
    );
    assert!(!marker.exists(), "the playbook ran without its sandbox");

    // bwrap there, but unable to build the view (a shown path that does not exist).
    let mut shown: Vec<Value> =
        admin.get_json("/api/v2/settings/jobs/")["JOB_ISOLATION_SHOW_PATHS"]
            .as_array()
            .cloned()
            .unwrap_or_default();
    shown.push(json!("/nonexistent/shown"));
    admin
        .patch("/api/v2/settings/jobs/")
        .json(&json!({"JOB_ISOLATION_BWRAP_PATH": "bwrap", "JOB_ISOLATION_SHOW_PATHS": shown}))
        .call()
        .expect(200);
    let job = wait_for_run(&admin, &launch(&admin, template));
    assert_eq!(job["status"], "error", "{job}");
    let explanation = job["job_explanation"].as_str().unwrap_or_default();
    assert!(
        explanation.contains("sandbox could not start")
            && explanation.contains("bwrap: ")
            && explanation.contains("/nonexistent/shown"),
        "{job}"
    );
    assert!(!marker.exists(), "the playbook ran without its sandbox");
    assert!(
        std::fs::read_dir(fixture.runs_dir())
            .map(|mut entries| entries.next().is_none())
            .unwrap_or(true),
        "the run's directory was left behind"
    );
}

backend_tests!(
    a_job_reads_and_writes_nothing_of_the_server,
    an_inventory_update_reads_nothing_of_the_server,
    without_a_working_bwrap_a_run_ends_in_error_and_nothing_runs,
);

/// The SQLite file kept outside the data directory, in a place runs otherwise see (a
/// directory of the root filesystem): the file and its `-wal` and `-shm` beside it, which hold
/// recent pages (password hashes among them), are hidden from a job of an organization admin
/// (each is an empty character device in its view, not a file).
#[test]
fn an_sqlite_database_outside_the_data_directory_is_hidden_with_its_side_files() {
    let place = PathBuf::from(format!("/var/lib/acs-test-sqlite-{}", std::process::id()));
    std::fs::create_dir_all(&place).expect("a directory on the root filesystem");
    struct Removed<'a>(&'a Path);
    impl Drop for Removed<'_> {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(self.0);
        }
    }
    let _removed = Removed(&place);
    let database = place.join("acs.sqlite3");
    let url = database.display().to_string();
    let fixture = AutomationServer::start(Backend::Sqlite, &[("ACS_DATABASE_URL", &url)]);
    let report = fixture.report_path("sqlite.txt");
    let files: Vec<PathBuf> = ["", "-wal", "-shm"]
        .iter()
        .map(|suffix| PathBuf::from(format!("{url}{suffix}")))
        .collect();
    for file in &files {
        assert!(file.exists(), "{} is not there to hide", file.display());
    }
    let mut probe = format!("#!/bin/bash\nexec > '{}' 2>&1\n", report.display());
    for file in &files {
        let file = file.display();
        probe.push_str(&format!(
            "if [ -f '{file}' ]; then echo 'readable {file}'; else echo 'hidden {file}'; fi\n"
        ));
    }
    probe.push_str(&format!("ls -la '{}'\n", place.display()));
    let (mallory, template) = fixture.attacker_template(&probe);
    let job = wait_for_run(&mallory, &launch(&mallory, template));
    assert_eq!(job["status"], "successful", "{job}");
    let seen = std::fs::read_to_string(&report).expect("the probe's report");
    for file in &files {
        assert!(
            seen.contains(&format!("hidden {}\n", file.display())),
            "{} was readable to the run:\n{seen}",
            file.display()
        );
    }
}

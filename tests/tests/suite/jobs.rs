//! Jobs with real `ansible-playbook` (contract §6): a playbook reports every environment
//! variable, extra variable and file the job's credentials injected; secrets are masked in
//! the recorded environment; the private files are gone afterwards; a read-scope token cannot
//! launch; runs that cannot start end as `error`; cancel, timeout and a restart end runs.

use std::path::Path;

use acs_tests::ansible::{
    AutomationServer, REPORTING_PLAYBOOK, SLOW_PLAYBOOK, read_report, wait_for_run,
    wait_until_running,
};
use acs_tests::{Agent, Backend, Call, backend_tests, id_of};
use serde_json::{Value, json};

/// An input value that would run `id` if anything templated it again.
const TEMPLATED_VALUE: &str = "{{ lookup('pipe','id') }}";

const CERT: &str = "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n";
const KEY: &str = "-----BEGIN KEY-----\nc2VjcmV0\n-----END KEY-----\n";

/// A job template on a reporting playbook, with an organization, a project and a local
/// inventory; returns (organization, job template).
fn reporting_template(
    fixture: &AutomationServer,
    admin: &Agent,
    report: &Path,
    vars: Value,
) -> (i64, i64) {
    fixture.project_file("site", "site.yml", REPORTING_PLAYBOOK);
    let organization = fixture.server.create_organization("automation");
    let project = fixture.create_project(admin, organization, "site");
    let inventory = fixture.create_local_inventory(admin, organization);
    let mut extra_vars = json!({ "report_path": report.display().to_string() });
    for (key, value) in vars.as_object().into_iter().flatten() {
        extra_vars[key] = value.clone();
    }
    let template = id_of(
        &admin
            .post("/api/v2/job_templates/")
            .json(&json!({
                "name": "report",
                "project": project,
                "inventory": inventory,
                "playbook": "site.yml",
                "extra_vars": extra_vars.to_string(),
            }))
            .call()
            .expect(201)
            .json(),
    );
    (organization, template)
}

fn create_type(admin: &Agent, name: &str, inputs: Value, injectors: Value) -> i64 {
    id_of(
        &admin
            .post("/api/v2/credential_types/")
            .json(
                &json!({ "name": name, "kind": "cloud", "inputs": inputs, "injectors": injectors }),
            )
            .call()
            .expect(201)
            .json(),
    )
}

fn create_credential(
    admin: &Agent,
    organization: i64,
    type_id: i64,
    name: &str,
    inputs: Value,
) -> i64 {
    id_of(
        &admin
            .post("/api/v2/credentials/")
            .json(&json!({
                "name": name,
                "organization": organization,
                "credential_type": type_id,
                "inputs": inputs,
            }))
            .call()
            .expect(201)
            .json(),
    )
}

fn attach(admin: &Agent, template: i64, credential: i64) {
    admin
        .post(&format!("/api/v2/job_templates/{template}/credentials/"))
        .json(&json!({ "id": credential }))
        .call()
        .expect(204);
}

/// Launches `template` as `agent`; returns the job's detail path.
fn launch(agent: &Agent, template: i64, body: Value) -> String {
    let launched = agent
        .post(&format!("/api/v2/job_templates/{template}/launch/"))
        .json(&body)
        .call()
        .expect(201)
        .json();
    assert_eq!(launched["job"], launched["id"], "{launched}");
    assert_eq!(launched["status"], "pending", "{launched}");
    format!("/api/v2/jobs/{}/", launched["job"])
}

#[track_caller]
fn assert_status(agent: &Agent, job: &Value, status: &str) {
    if job["status"] != status {
        let stdout = agent
            .get(&format!(
                "{}stdout/?format=txt",
                job["url"].as_str().unwrap_or_default()
            ))
            .call()
            .body;
        panic!("expected {status}: {job}\nstdout:\n{stdout}");
    }
}

/// The arguments a run recorded.
fn args_of(job: &Value) -> Vec<String> {
    serde_json::from_str(job["job_args"].as_str().unwrap_or("[]")).expect("args")
}

fn is_empty_dir(path: &Path) -> bool {
    std::fs::read_dir(path).map_or(true, |mut entries| entries.next().is_none())
}

fn a_job_receives_every_injected_value(backend: Backend) {
    let fixture = AutomationServer::start(backend, &[]);
    let admin = fixture.server.admin();
    let report = fixture.report_path("report.json");
    let (organization, template) = reporting_template(
        &fixture,
        &admin,
        &report,
        json!({
            "report_env": ["MY_USER", "MY_TOKEN", "MY_VERBOSE", "JOB_ID", "AWS_ACCESS_KEY_ID",
                           "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "HOME", "ACS_ADMIN_PASSWORD"],
            "report_file_env": ["MY_CERT_FILE", "MY_KEY_FILE", "SINGLE_FILE"],
            "report_vars": ["my_cloud", "single_note"],
        }),
    );
    let multi = create_type(
        &admin,
        "Multi-file cloud",
        json!({
            "fields": [
                {"id": "api_user", "label": "User", "type": "string"},
                {"id": "api_token", "label": "Token", "type": "string", "secret": true},
                {"id": "cert", "label": "Certificate", "type": "string", "multiline": true},
                {"id": "key", "label": "Key", "type": "string", "secret": true, "multiline": true},
                {"id": "verbose", "label": "Verbose", "type": "boolean"},
            ],
            "required": ["api_user", "api_token"],
        }),
        json!({
            "file": {"template.cert": "{{ cert }}", "template.key": "{{ key }}"},
            "env": {
                "MY_USER": "{{ api_user }}",
                "MY_TOKEN": "{{ api_token }}",
                "MY_CERT_FILE": "{{ svc.filename.cert }}",
                "MY_KEY_FILE": "{{ svc.filename.key }}",
                "MY_VERBOSE": "{{ verbose }}",
            },
            "extra_vars": {
                "my_cloud": {"user": "{{ api_user }}", "token": "{{ api_token }}",
                             "hosts": ["{{ api_user }}-h", "static"]},
            },
        }),
    );
    let single = create_type(
        &admin,
        "Single-file cloud",
        json!({"fields": [{"id": "token", "label": "Token", "type": "string", "secret": true}]}),
        json!({
            "file": {"template": "token={{ token }}\n"},
            "env": {"SINGLE_FILE": "{{ svc.filename }}"},
            "extra_vars": {"single_note": "from the single-file type"},
        }),
    );
    let multi_credential = create_credential(
        &admin,
        organization,
        multi,
        "multi",
        json!({"api_user": "alice", "api_token": TEMPLATED_VALUE, "cert": CERT, "key": KEY, "verbose": true}),
    );
    let single_credential = create_credential(
        &admin,
        organization,
        single,
        "single",
        json!({"token": "s1ngle-s3cret"}),
    );
    let aws = create_credential(
        &admin,
        organization,
        fixture.server.managed_type_id("aws"),
        "aws",
        json!({"username": "AKIAEXAMPLE", "password": "aws-s3cret-key"}),
    );
    for credential in [multi_credential, single_credential, aws] {
        attach(&admin, template, credential);
    }

    let path = launch(&admin, template, json!({}));
    let job = wait_for_run(&admin, &path);
    assert_status(&admin, &job, "successful");

    let report = read_report(&report);
    let env = &report["env"];
    assert_eq!(env["MY_USER"], "alice");
    assert_eq!(
        env["MY_TOKEN"], TEMPLATED_VALUE,
        "input values are never rendered again"
    );
    assert_eq!(env["MY_VERBOSE"], "true");
    assert_eq!(env["JOB_ID"], job["id"].to_string());
    assert_eq!(env["AWS_ACCESS_KEY_ID"], "AKIAEXAMPLE");
    assert_eq!(env["AWS_SECRET_ACCESS_KEY"], "aws-s3cret-key");
    assert_eq!(
        env["AWS_SESSION_TOKEN"], "",
        "an optional managed variable is left out"
    );
    assert_eq!(
        env["ACS_ADMIN_PASSWORD"], "",
        "the server's environment is not inherited"
    );
    let files = report["files"].as_object().expect("files");
    assert_eq!(files.len(), 3, "{report}");
    let mut contents: Vec<&str> = files.values().filter_map(Value::as_str).collect();
    contents.sort_unstable();
    assert_eq!(contents, vec![CERT, KEY, "token=s1ngle-s3cret\n"]);
    let home = env["HOME"].as_str().expect("HOME");
    for file in files.keys() {
        assert!(
            file.starts_with(home),
            "{file} is inside the private directory {home}"
        );
        assert!(!Path::new(file).exists(), "{file} is removed after the job");
    }
    let modes = report["modes"].as_str().expect("modes");
    let mut lines = modes.lines();
    assert_eq!(
        lines.next(),
        Some(format!("{home} 700").as_str()),
        "{modes}"
    );
    assert!(lines.all(|line| line.ends_with(" 600")), "{modes}");
    assert_eq!(
        report["vars"]["my_cloud"],
        json!({"user": "alice", "token": TEMPLATED_VALUE, "hosts": ["alice-h", "static"]})
    );
    assert_eq!(report["vars"]["single_note"], "from the single-file type");
    assert!(
        is_empty_dir(&fixture.runs_dir()),
        "no private directory is left"
    );

    let recorded = &job["job_env"];
    assert_eq!(recorded["MY_USER"], "alice");
    assert_eq!(recorded["MY_TOKEN"], "**********");
    assert_eq!(recorded["AWS_SECRET_ACCESS_KEY"], "**********");
    assert_eq!(recorded["AWS_ACCESS_KEY_ID"], "AKIAEXAMPLE");
    let everything = format!(
        "{job}{}",
        admin
            .get(&format!("{path}stdout/?format=txt"))
            .call()
            .expect(200)
            .body
    );
    for secret in ["aws-s3cret-key", "s1ngle-s3cret", "c2VjcmV0"] {
        assert!(
            !everything.contains(secret),
            "{secret} is not shown in the job"
        );
    }
    assert!(everything.contains("PLAY RECAP"), "{everything}");
    assert_eq!(job["credentials"].as_array().map(Vec::len), Some(3));
}

fn a_read_token_cannot_launch(backend: Backend) {
    let fixture = AutomationServer::start(backend, &[]);
    let admin = fixture.server.admin();
    let report = fixture.report_path("report.json");
    let (organization, template) = reporting_template(&fixture, &admin, &report, json!({}));
    let launch_path = format!("/api/v2/job_templates/{template}/launch/");
    let read = admin.with_bearer(&admin.personal_token("read"));
    read.post(&launch_path).json(&json!({})).call().expect(403);
    read.get(&launch_path).call().expect(200);
    let member_id = fixture
        .server
        .create_user("member", "Passw0rd-member", false);
    fixture.server.add_member(organization, member_id);
    let member = fixture.server.as_user("member", "Passw0rd-member");
    member
        .get(&format!("/api/v2/job_templates/{template}/"))
        .call()
        .expect(200);
    member
        .post(&launch_path)
        .json(&json!({}))
        .call()
        .expect(403);
    assert_eq!(
        admin.get_json("/api/v2/jobs/")["count"],
        0,
        "a refused launch creates no job"
    );

    // The limit is the launcher's to give once the template prompts for it.
    admin
        .patch(&format!("/api/v2/job_templates/{template}/"))
        .json(&json!({"ask_limit_on_launch": true}))
        .call()
        .expect(200);
    let write = admin.with_bearer(&admin.personal_token("write"));
    let path = launch(&write, template, json!({"limit": "localhost", "bogus": 1}));
    let job = wait_for_run(&admin, &path);
    assert_status(&admin, &job, "successful");
    assert_eq!(job["limit"], "localhost");
    member.get(&path).call().expect(200);
    member.post(&format!("{path}cancel/")).call().expect(403);
    admin
        .post(&launch_path)
        .json(&json!({"limit": 5}))
        .call()
        .expect(400);
}

fn runs_that_cannot_start_end_in_error(backend: Backend) {
    let fixture = AutomationServer::start(backend, &[]);
    let admin = fixture.server.admin();
    let report = fixture.report_path("report.json");
    let (organization, template) = reporting_template(&fixture, &admin, &report, json!({}));
    let aws = create_credential(
        &admin,
        organization,
        fixture.server.managed_type_id("aws"),
        "aws",
        json!({"username": "AKIA", "password": "pw"}),
    );
    attach(&admin, template, aws);
    // A row written before `password` became required, as an older server could have left it.
    fixture.server.execute_sql(&format!(
        "UPDATE credentials SET inputs = '{{\"username\": \"AKIA\"}}' WHERE id = {aws}"
    ));
    let job = wait_for_run(&admin, &launch(&admin, template, json!({})));
    assert_status(&admin, &job, "error");
    let explanation = job["job_explanation"].as_str().unwrap_or_default();
    assert!(
        explanation.contains("missing required input(s): password"),
        "{job}"
    );

    admin
        .post(&format!("/api/v2/job_templates/{template}/credentials/"))
        .json(&json!({"id": aws, "disassociate": true}))
        .call()
        .expect(204);
    admin
        .patch("/api/v2/settings/jobs/")
        .json(&json!({"ANSIBLE_PLAYBOOK_PATH": "/nonexistent/ansible-playbook"}))
        .call()
        .expect(200);
    let job = wait_for_run(&admin, &launch(&admin, template, json!({})));
    assert_status(&admin, &job, "error");
    let explanation = job["job_explanation"].as_str().unwrap_or_default();
    assert!(
        explanation.contains("/nonexistent/ansible-playbook cannot be run"),
        "{job}"
    );
    assert!(is_empty_dir(&fixture.runs_dir()));
}

fn slow_template(fixture: &AutomationServer, admin: &Agent) -> i64 {
    fixture.project_file("slow", "slow.yml", SLOW_PLAYBOOK);
    let organization = fixture.server.create_organization("slow");
    let project = fixture.create_project(admin, organization, "slow");
    let inventory = fixture.create_local_inventory(admin, organization);
    id_of(
        &admin
            .post("/api/v2/job_templates/")
            .json(&json!({"name": "slow", "project": project, "inventory": inventory, "playbook": "slow.yml"}))
            .call()
            .expect(201)
            .json(),
    )
}

fn cancel_and_timeout_stop_jobs(backend: Backend) {
    let fixture = AutomationServer::start(backend, &[]);
    let admin = fixture.server.admin();
    let template = slow_template(&fixture, &admin);
    let path = launch(&admin, template, json!({}));
    wait_until_running(&admin, &path);
    assert_eq!(
        admin.get_json(&format!("{path}cancel/"))["can_cancel"],
        true
    );
    admin.post(&format!("{path}cancel/")).call().expect(202);
    let job = wait_for_run(&admin, &path);
    assert_status(&admin, &job, "canceled");
    admin.post(&format!("{path}cancel/")).call().expect(405);
    assert_eq!(
        admin.get_json(&format!("{path}cancel/"))["can_cancel"],
        false
    );

    admin
        .patch("/api/v2/settings/jobs/")
        .json(&json!({"DEFAULT_JOB_TIMEOUT": 2}))
        .call()
        .expect(200);
    let job = wait_for_run(&admin, &launch(&admin, template, json!({})));
    assert_status(&admin, &job, "failed");
    assert_eq!(job["job_explanation"], "Job terminated due to timeout");
    assert!(is_empty_dir(&fixture.runs_dir()));
}

fn a_restart_ends_unfinished_runs_as_error(backend: Backend) {
    let mut fixture = AutomationServer::start(backend, &[("ACS_DEFAULT_JOB_TIMEOUT", "20")]);
    let admin = fixture.server.admin();
    let template = slow_template(&fixture, &admin);
    let path = launch(&admin, template, json!({}));
    wait_until_running(&admin, &path);
    fixture.server.restart();
    let admin = fixture.server.admin();
    let job = admin.get_json(&path);
    assert_status(&admin, &job, "error");
    assert!(
        job["job_explanation"]
            .as_str()
            .unwrap_or_default()
            .contains("stopped before it finished"),
        "{job}"
    );
}

fn runs_beyond_the_limit_wait_their_turn(backend: Backend) {
    let fixture = AutomationServer::start(backend, &[("ACS_MAX_CONCURRENT_RUNS", "1")]);
    let admin = fixture.server.admin();
    let template = slow_template(&fixture, &admin);
    let first = launch(&admin, template, json!({}));
    wait_until_running(&admin, &first);
    let second = launch(&admin, template, json!({}));
    let third = launch(&admin, template, json!({}));
    std::thread::sleep(std::time::Duration::from_millis(1500));
    for waiting in [&second, &third] {
        let job = admin.get_json(waiting);
        assert_eq!(job["status"], "pending", "{job}");
        assert!(job["started"].is_null(), "{job}");
    }
    // A waiting run canceled is never started, and its place goes to the next one.
    admin.post(&format!("{second}cancel/")).call().expect(202);
    admin.post(&format!("{first}cancel/")).call().expect(202);
    assert_status(&admin, &wait_for_run(&admin, &first), "canceled");
    let job = wait_for_run(&admin, &second);
    assert_status(&admin, &job, "canceled");
    assert!(job["started"].is_null(), "{job}");
    wait_until_running(&admin, &third);
    admin.post(&format!("{third}cancel/")).call().expect(202);
    assert_status(&admin, &wait_for_run(&admin, &third), "canceled");
    assert!(is_empty_dir(&fixture.runs_dir()));
}

/// Past `ACS_MAX_WAITING_RUNS` waiting runs a launch is refused (503 with `Retry-After`)
/// with nothing written; once a waiting run has started, a launch is taken again.
fn a_launch_beyond_the_waiting_limit_is_refused_with_nothing_written(backend: Backend) {
    let fixture = AutomationServer::start(
        backend,
        &[
            ("ACS_MAX_CONCURRENT_RUNS", "1"),
            ("ACS_MAX_WAITING_RUNS", "1"),
        ],
    );
    let admin = fixture.server.admin();
    let template = slow_template(&fixture, &admin);
    let first = launch(&admin, template, json!({}));
    wait_until_running(&admin, &first);
    let second = launch(&admin, template, json!({}));
    let metrics = admin.get("/api/v2/metrics/").call().expect(200).body;
    for line in [
        "acs_runs{state=\"executing\"} 1",
        "acs_runs{state=\"waiting\"} 1",
    ] {
        assert!(metrics.lines().any(|l| l == line), "{line} in {metrics}");
    }
    let jobs_before = admin.get_json("/api/v2/jobs/")["count"].clone();
    let activity_before = admin.get_json("/api/v2/activity_stream/")["count"].clone();
    let refused = admin
        .post(&format!("/api/v2/job_templates/{template}/launch/"))
        .json(&json!({}))
        .call()
        .expect(503);
    assert_eq!(refused.header("retry-after").as_deref(), Some("5"));
    let detail = refused.detail();
    assert!(detail.contains("ACS_MAX_WAITING_RUNS"), "{detail}");
    assert_eq!(admin.get_json("/api/v2/jobs/")["count"], jobs_before);
    assert_eq!(
        admin.get_json("/api/v2/activity_stream/")["count"],
        activity_before
    );
    // The first run ends, the second takes its place: the queue has room again.
    admin.post(&format!("{first}cancel/")).call().expect(202);
    assert_status(&admin, &wait_for_run(&admin, &first), "canceled");
    wait_until_running(&admin, &second);
    let third = launch(&admin, template, json!({}));
    for path in [&second, &third] {
        admin.post(&format!("{path}cancel/")).call().expect(202);
        assert_status(&admin, &wait_for_run(&admin, path), "canceled");
    }
}

fn job_template_credential_rules(backend: Backend) {
    let fixture = AutomationServer::start(backend, &[]);
    let admin = fixture.server.admin();
    let report = fixture.report_path("report.json");
    let (organization, template) = reporting_template(&fixture, &admin, &report, json!({}));
    let path = format!("/api/v2/job_templates/{template}/credentials/");
    let machine = fixture.server.managed_type_id("ssh");
    let first = create_credential(
        &admin,
        organization,
        machine,
        "m1",
        json!({"username": "a"}),
    );
    let second = create_credential(
        &admin,
        organization,
        machine,
        "m2",
        json!({"username": "b"}),
    );
    attach(&admin, template, first);
    attach(&admin, template, first);
    let refused = admin
        .post(&path)
        .json(&json!({"id": second}))
        .call()
        .expect(400)
        .json();
    assert_eq!(
        refused,
        json!({"error": "Cannot assign multiple Machine credentials."})
    );
    let scm = create_credential(
        &admin,
        organization,
        fixture.server.managed_type_id("scm"),
        "s",
        json!({}),
    );
    let refused = admin
        .post(&path)
        .json(&json!({"id": scm}))
        .call()
        .expect(400)
        .json();
    assert_eq!(
        refused,
        json!({"error": "Cannot assign a Credential of kind `scm`."})
    );
    let vault = fixture.server.managed_type_id("vault");
    let dev = create_credential(
        &admin,
        organization,
        vault,
        "v-dev",
        json!({"vault_password": "x", "vault_id": "dev"}),
    );
    let prod = create_credential(
        &admin,
        organization,
        vault,
        "v-prod",
        json!({"vault_password": "y", "vault_id": "prod"}),
    );
    let dev_again = create_credential(
        &admin,
        organization,
        vault,
        "v-dev2",
        json!({"vault_password": "z", "vault_id": "dev"}),
    );
    attach(&admin, template, dev);
    attach(&admin, template, prod);
    let refused = admin
        .post(&path)
        .json(&json!({"id": dev_again}))
        .call()
        .expect(400)
        .json();
    assert_eq!(
        refused,
        json!({"error": "Cannot assign multiple Vault (id=dev) credentials."})
    );
    assert_eq!(admin.get_json(&path)["count"], 3);
    admin
        .post(&path)
        .json(&json!({"id": first, "disassociate": true}))
        .call()
        .expect(204);
    attach(&admin, template, second);
    admin
        .post(&path)
        .json(&json!({"id": 999_999}))
        .call()
        .expect(400);
    admin.post(&path).json(&json!({})).call().expect(400);
    // A credential in use by a job template keeps its type.
    let other = create_type(&admin, "other", json!({"fields": []}), json!({}));
    admin
        .patch(&format!("/api/v2/credentials/{second}/"))
        .json(&json!({"credential_type": other}))
        .call()
        .expect(400);
}

/// Encrypts `value` as variable `name` with vault id `id` and `password`, using the real
/// `ansible-vault`; returns the YAML line block.
fn vault_encrypted(
    fixture: &AutomationServer,
    name: &str,
    value: &str,
    id: &str,
    password: &str,
) -> String {
    let password_file = fixture.scratch.path().join("vault-password");
    std::fs::write(&password_file, password).expect("a password file");
    let output = std::process::Command::new(acs_tests::ansible::bin_dir().join("ansible-vault"))
        .args([
            "encrypt_string",
            "--vault-id",
            &format!("{id}@{}", password_file.display()),
            value,
            "--name",
            name,
        ])
        .env("HOME", fixture.scratch.path())
        .output()
        .expect("ansible-vault runs");
    assert!(output.status.success(), "{output:?}");
    std::fs::remove_file(&password_file).expect("the password file removed");
    String::from_utf8(output.stdout).expect("UTF-8")
}

fn machine_and_vault_credentials_reach_the_playbook(backend: Backend) {
    let fixture = AutomationServer::start(backend, &[]);
    let admin = fixture.server.admin();
    let report = fixture.report_path("report.json");
    let (organization, template) = reporting_template(
        &fixture,
        &admin,
        &report,
        json!({"report_vars": ["vaulted", "ansible_password", "ansible_become_password"]}),
    );
    // Playbook-adjacent group_vars, encrypted for vault id `dev`.
    let vaulted = vault_encrypted(
        &fixture,
        "vaulted",
        "vaulted value",
        "dev",
        "vault-pass-123",
    );
    fixture.project_file("site", "group_vars/all.yml", &vaulted);
    let machine = create_credential(
        &admin,
        organization,
        fixture.server.managed_type_id("ssh"),
        "machine",
        json!({"username": "-alice", "password": "machine-pass-123", "become_method": "sudo",
               "become_password": "become-pass-123"}),
    );
    let vault = create_credential(
        &admin,
        organization,
        fixture.server.managed_type_id("vault"),
        "vault",
        json!({"vault_password": "vault-pass-123", "vault_id": "dev"}),
    );
    attach(&admin, template, machine);
    attach(&admin, template, vault);
    admin
        .patch(&format!("/api/v2/job_templates/{template}/"))
        .json(&json!({"ask_limit_on_launch": true}))
        .call()
        .expect(200);
    let path = launch(&admin, template, json!({"limit": "-localhost"}));
    let job = wait_for_run(&admin, &path);
    // `-localhost` excludes the only host: the play matches nothing, yet the limit was
    // taken as a value, not as an option.
    assert_status(&admin, &job, "failed");
    let args = args_of(&job);
    assert!(args.contains(&"--limit=-localhost".to_owned()), "{args:?}");

    let path = launch(&admin, template, json!({}));
    let job = wait_for_run(&admin, &path);
    assert_status(&admin, &job, "successful");
    let report = read_report(&report);
    assert_eq!(
        report["vars"]["vaulted"], "vaulted value",
        "the vault password file opened it"
    );
    assert_eq!(report["vars"]["ansible_password"], "machine-pass-123");
    assert_eq!(report["vars"]["ansible_become_password"], "become-pass-123");
    let args = args_of(&job);
    assert!(args.contains(&"--user=-alice".to_owned()), "{args:?}");
    assert!(
        args.contains(&"--become-method=sudo".to_owned()),
        "{args:?}"
    );
    assert!(
        args.iter().any(|arg| arg.starts_with("--vault-id=dev@")),
        "{args:?}"
    );
    let everything = format!(
        "{job}{}",
        admin
            .get(&format!("{path}stdout/?format=txt"))
            .call()
            .expect(200)
            .body
    );
    for secret in ["machine-pass-123", "become-pass-123", "vault-pass-123"] {
        assert!(
            !everything.contains(secret),
            "{secret} is not shown in the job"
        );
    }
    let events = admin.get_json(&format!(
        "{path}job_events/?start_line__gte=1&page_size=200"
    ));
    let lines = admin
        .get(&format!("{path}stdout/"))
        .call()
        .expect(200)
        .body
        .lines()
        .count();
    assert_eq!(
        events["count"],
        lines - 1,
        "one event per line after the first"
    );
    assert_eq!(events["results"][0]["start_line"], 1);
    assert!(is_empty_dir(&fixture.runs_dir()));
}

backend_tests!(
    a_job_receives_every_injected_value,
    machine_and_vault_credentials_reach_the_playbook,
    a_read_token_cannot_launch,
    runs_that_cannot_start_end_in_error,
    cancel_and_timeout_stop_jobs,
    a_restart_ends_unfinished_runs_as_error,
    runs_beyond_the_limit_wait_their_turn,
    a_launch_beyond_the_waiting_limit_is_refused_with_nothing_written,
    job_template_credential_rules,
);

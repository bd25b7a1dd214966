//! Launch prompts (the reference's `ask_*_on_launch`): a launch may give the limit, the
//! inventory, the credentials and extra variables only where its template prompts for each;
//! what it gives elsewhere is answered in `ignored_fields` and the template's value runs.
//! Given values meet the checks of the template's own: an inventory and credentials the
//! launcher may use; credentials replace the template's by type, never remove one. How
//! `ansible-playbook` runs (job type, tags, skip tags, verbosity, diff mode, forks, timeout)
//! is the template's, or the launch's where the template prompts for it, and reaches the real
//! program.

use acs_tests::ansible::{
    AutomationServer, PING_PLAYBOOK, SLOW_PLAYBOOK, run_stdout, wait_for_run,
};
use acs_tests::{Agent, Backend, Call, backend_tests, id_of};
use serde_json::{Value, json};

fn created(agent: &Agent, path: &str, body: &Value) -> i64 {
    id_of(&agent.post(path).json(body).call().expect(201).json())
}

fn prompted_values_replace_the_templates_and_others_are_ignored(backend: Backend) {
    let fixture = AutomationServer::start(backend, &[]);
    let server = &fixture.server;
    let admin = server.admin();
    let organization = server.create_organization("Ops");
    fixture.project_file("ping", "site.yml", PING_PLAYBOOK);
    let project = fixture.create_project(&admin, organization, "ping");
    let inventory = |name: &str| {
        created(
            &admin,
            "/api/v2/inventories/",
            &json!({"name": name, "organization": organization}),
        )
    };
    let (first, second) = (inventory("first"), inventory("second"));
    let machine = server.managed_type_id("ssh");
    let credential = |name: &str| {
        created(
            &admin,
            "/api/v2/credentials/",
            &json!({"name": name, "organization": organization, "credential_type": machine, "inputs": {"username": name}}),
        )
    };
    let (usual, other) = (credential("usual"), credential("other"));
    let template = created(
        &admin,
        "/api/v2/job_templates/",
        &json!({"name": "deploy", "project": project, "inventory": first, "playbook": "site.yml", "extra_vars": "a: 1\nb: 2", "limit": "web*"}),
    );
    admin
        .post(&format!("/api/v2/job_templates/{template}/credentials/"))
        .json(&json!({"id": usual}))
        .call()
        .expect(204);
    let launch = format!("/api/v2/job_templates/{template}/launch/");
    let everything = json!({
        "limit": "db*", "inventory": second, "credentials": [other], "extra_vars": {"b": 3}, "job_tags": "x",
    });

    // Without prompts: every value is ignored, the template's run.
    let job = admin
        .post(&launch)
        .json(&everything)
        .call()
        .expect(201)
        .json();
    assert_eq!(job["inventory"], first, "{job}");
    assert_eq!(job["limit"], "web*", "{job}");
    assert_eq!(job["credentials"], json!([usual]), "{job}");
    assert_eq!(job["extra_vars"], "a: 1\nb: 2", "{job}");
    let ignored = job["ignored_fields"].as_object().expect("ignored fields");
    for field in [
        "limit",
        "inventory",
        "credentials",
        "extra_vars",
        "job_tags",
    ] {
        assert!(ignored.contains_key(field), "{field}: {job}");
    }

    // With them: the launch's values run; the variables go over the template's.
    admin
        .patch(&format!("/api/v2/job_templates/{template}/"))
        .json(&json!({"ask_limit_on_launch": true, "ask_inventory_on_launch": true, "ask_credential_on_launch": true, "ask_variables_on_launch": true}))
        .call()
        .expect(200);
    let asked = admin.get_json(&launch);
    for prompt in [
        "ask_limit_on_launch",
        "ask_inventory_on_launch",
        "ask_credential_on_launch",
        "ask_variables_on_launch",
    ] {
        assert_eq!(asked[prompt], true, "{prompt}: {asked}");
    }
    assert_eq!(asked["defaults"]["inventory"]["id"], first, "{asked}");
    assert_eq!(asked["defaults"]["credentials"][0]["id"], usual, "{asked}");
    assert_eq!(asked["defaults"]["limit"], "web*", "{asked}");
    let job = admin
        .post(&launch)
        .json(&everything)
        .call()
        .expect(201)
        .json();
    assert_eq!(job["inventory"], second, "{job}");
    assert_eq!(job["limit"], "db*", "{job}");
    assert_eq!(job["credentials"], json!([other]), "{job}");
    let variables: Value =
        serde_json::from_str(job["extra_vars"].as_str().expect("text")).expect("JSON");
    assert_eq!(variables, json!({"a": 1, "b": 3}), "{job}");
    assert_eq!(job["ignored_fields"], json!({"job_tags": "x"}), "{job}");

    // A credential is replaced, never removed; a bad value is refused with its field.
    let removed = admin
        .post(&launch)
        .json(&json!({"credentials": []}))
        .call()
        .expect(400);
    assert!(
        removed
            .body
            .contains("Provided list lacked credential(s): usual"),
        "{}",
        removed.body
    );
    admin
        .post(&launch)
        .json(&json!({"credentials": "usual"}))
        .call()
        .expect(400);
    admin
        .post(&launch)
        .json(&json!({"extra_vars": "- not a mapping"}))
        .call()
        .expect(400);
    admin
        .post(&launch)
        .json(&json!({"inventory": 99999}))
        .call()
        .expect(400);

    // Someone who may run the template may not bring what they may not use.
    let runner = server.create_user("runner", "Runner-pass-1", false);
    let execute = admin.get_json(&format!("/api/v2/job_templates/{template}/"))["summary_fields"]["object_roles"]["execute_role"]["id"]
        .as_i64()
        .expect("the execute role");
    admin
        .post(&format!("/api/v2/roles/{execute}/users/"))
        .json(&json!({"id": runner}))
        .call()
        .expect(204);
    let runner = server.as_user("runner", "Runner-pass-1");
    runner.post(&launch).json(&json!({})).call().expect(201);
    runner
        .post(&launch)
        .json(&json!({"inventory": second}))
        .call()
        .expect(403);
    runner
        .post(&launch)
        .json(&json!({"credentials": [other]}))
        .call()
        .expect(403);
    let jobs = admin.get_json(&format!("/api/v2/job_templates/{template}/jobs/"));
    assert_eq!(jobs["count"], 3, "two refused launches made no job: {jobs}");
}

fn a_template_may_leave_its_inventory_to_the_launcher(backend: Backend) {
    let fixture = AutomationServer::start(backend, &[]);
    let server = &fixture.server;
    let admin = server.admin();
    let organization = server.create_organization("Ops");
    fixture.project_file("ping", "site.yml", PING_PLAYBOOK);
    let project = fixture.create_project(&admin, organization, "ping");
    let inventory = created(
        &admin,
        "/api/v2/inventories/",
        &json!({"name": "edge", "organization": organization}),
    );
    let template = created(
        &admin,
        "/api/v2/job_templates/",
        &json!({"name": "anywhere", "project": project, "playbook": "site.yml", "ask_inventory_on_launch": true}),
    );
    let launch = format!("/api/v2/job_templates/{template}/launch/");
    // The reference's prompts for what ACS does not have are shown off, and stay off.
    let path = format!("/api/v2/job_templates/{template}/");
    assert_eq!(admin.get_json(&path)["ask_labels_on_launch"], false);
    let refused = admin
        .patch(&path)
        .json(&json!({"ask_labels_on_launch": true}))
        .call()
        .expect(400)
        .field_errors("ask_labels_on_launch");
    assert!(refused[0].contains("cannot prompt"), "{refused:?}");
    admin
        .patch(&path)
        .json(&json!({"ask_labels_on_launch": false}))
        .call()
        .expect(200);
    let asked = admin.get_json(&launch);
    assert_eq!(asked["inventory_needed_to_start"], true, "{asked}");
    assert_eq!(asked["can_start_without_user_input"], false, "{asked}");
    assert_eq!(asked["resources_needed_to_start"], json!([]), "{asked}");
    let refused = admin.post(&launch).json(&json!({})).call().expect(400);
    assert!(
        refused.body.contains("Inventory is missing"),
        "{}",
        refused.body
    );
    let job = admin
        .post(&launch)
        .json(&json!({"inventory": inventory}))
        .call()
        .expect(201)
        .json();
    assert_eq!(job["inventory"], inventory, "{job}");
}

/// Tagged tasks: `ping` runs, `broken` fails the run if it is not skipped, and the last one
/// says whether the run is a check.
const TAGGED_PLAYBOOK: &str = r#"- hosts: all
  gather_facts: false
  tasks:
    - ansible.builtin.ping:
      tags: [ping]
    - ansible.builtin.fail: {msg: "the skipped tag ran"}
      tags: [broken]
    - ansible.builtin.debug: {msg: "check mode is {{ ansible_check_mode }}"}
      tags: [always]
"#;

fn job_args(job: &Value) -> Vec<String> {
    serde_json::from_str(job["job_args"].as_str().expect("job_args")).expect("a JSON list")
}

fn how_ansible_runs_is_the_templates_or_the_prompted_launchs(backend: Backend) {
    let fixture = AutomationServer::start(backend, &[]);
    let server = &fixture.server;
    let admin = server.admin();
    let organization = server.create_organization("Ops");
    fixture.project_file("tagged", "site.yml", TAGGED_PLAYBOOK);
    fixture.project_file("tagged", "slow.yml", SLOW_PLAYBOOK);
    let project = fixture.create_project(&admin, organization, "tagged");
    let inventory = fixture.create_local_inventory(&admin, organization);
    let template = admin
        .post("/api/v2/job_templates/")
        .json(&json!({
            "name": "tagged", "project": project, "inventory": inventory, "playbook": "site.yml",
            "job_type": "check", "job_tags": "ping", "skip_tags": "broken", "verbosity": 2,
            "diff_mode": true, "forks": 3,
        }))
        .call()
        .expect(201)
        .json();
    assert_eq!(template["job_type"], "check", "{template}");
    assert_eq!(template["timeout"], 0, "{template}");
    assert_eq!(template["ask_tags_on_launch"], false, "{template}");
    let template = id_of(&template);
    let launch = format!("/api/v2/job_templates/{template}/launch/");
    let wanted = json!({"job_type": "run", "job_tags": "", "verbosity": 4, "forks": 7});

    // Not prompted for: the template's values run, the launch's are ignored.
    let job = admin.post(&launch).json(&wanted).call().expect(201).json();
    assert_eq!(job["ignored_fields"], wanted, "{job}");
    let path = format!("/api/v2/jobs/{}/", job["job"]);
    let job = wait_for_run(&admin, &path);
    let stdout = run_stdout(&admin, &job);
    assert_eq!(job["status"], "successful", "{job}\n{stdout}");
    let args = job_args(&job);
    for arg in [
        "--check",
        "--tags=ping",
        "--skip-tags=broken",
        "-vv",
        "--diff",
        "--forks=3",
    ] {
        assert!(args.iter().any(|given| given == arg), "{arg}: {args:?}");
    }
    assert!(stdout.contains("check mode is True"), "{stdout}");
    assert_eq!(
        (job["job_type"].clone(), job["verbosity"].clone()),
        (json!("check"), json!(2))
    );

    // Prompted for: the launch's values run, the others stay the template's.
    admin
        .patch(&format!("/api/v2/job_templates/{template}/"))
        .json(
            &json!({"ask_job_type_on_launch": true, "ask_tags_on_launch": true,
                      "ask_verbosity_on_launch": true, "ask_forks_on_launch": true}),
        )
        .call()
        .expect(200);
    let asked = admin.get_json(&launch);
    assert_eq!(asked["ask_tags_on_launch"], true, "{asked}");
    assert_eq!(asked["ask_skip_tags_on_launch"], false, "{asked}");
    assert_eq!(asked["defaults"]["job_tags"], "ping", "{asked}");
    assert_eq!(asked["defaults"]["verbosity"], 2, "{asked}");
    let job = admin.post(&launch).json(&wanted).call().expect(201).json();
    assert_eq!(job["ignored_fields"], json!({}), "{job}");
    let job = wait_for_run(&admin, &format!("/api/v2/jobs/{}/", job["job"]));
    let stdout = run_stdout(&admin, &job);
    assert_eq!(job["status"], "successful", "{job}\n{stdout}");
    let args = job_args(&job);
    for arg in ["--skip-tags=broken", "-vvvv", "--diff", "--forks=7"] {
        assert!(args.iter().any(|given| given == arg), "{arg}: {args:?}");
    }
    assert!(
        !args
            .iter()
            .any(|given| given == "--check" || given.starts_with("--tags")),
        "{args:?}"
    );
    assert!(stdout.contains("check mode is False"), "{stdout}");
    assert_eq!(job["job_tags"], "", "{job}");

    // Bad values are refused by field, on the template and at launch.
    for (field, value) in [
        ("job_type", json!("scan")),
        ("verbosity", json!(6)),
        ("forks", json!(-1)),
    ] {
        let errors = admin
            .post(&launch)
            .json(&json!({ field: value }))
            .call()
            .expect(400)
            .field_errors(field);
        assert!(!errors.is_empty(), "{field}");
        admin
            .patch(&format!("/api/v2/job_templates/{template}/"))
            .json(&json!({ field: value }))
            .call()
            .expect(400);
    }

    // A template's own timeout ends its job, whatever DEFAULT_JOB_TIMEOUT says.
    let slow = created(
        &admin,
        "/api/v2/job_templates/",
        &json!({"name": "slow", "project": project, "inventory": inventory,
                "playbook": "slow.yml", "timeout": 2}),
    );
    let job = admin
        .post(&format!("/api/v2/job_templates/{slow}/launch/"))
        .json(&json!({}))
        .call()
        .expect(201)
        .json();
    let job = wait_for_run(&admin, &format!("/api/v2/jobs/{}/", job["job"]));
    assert_eq!(job["status"], "failed", "{job}");
    assert_eq!(
        job["job_explanation"], "Job terminated due to timeout",
        "{job}"
    );
    assert_eq!(job["timeout"], 2, "{job}");
}

backend_tests!(
    prompted_values_replace_the_templates_and_others_are_ignored,
    a_template_may_leave_its_inventory_to_the_launcher,
    how_ansible_runs_is_the_templates_or_the_prompted_launchs,
);

//! Launch prompts (the reference's `ask_*_on_launch`): a launch may give the limit, the
//! inventory, the credentials and extra variables only where its template prompts for each;
//! what it gives elsewhere is answered in `ignored_fields` and the template's value runs.
//! Given values meet the checks of the template's own: an inventory and credentials the
//! launcher may use; credentials replace the template's by type, never remove one.

use acs_tests::ansible::{AutomationServer, PING_PLAYBOOK};
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
    // The reference's other prompts are shown off, and cannot be turned on.
    let path = format!("/api/v2/job_templates/{template}/");
    assert_eq!(admin.get_json(&path)["ask_tags_on_launch"], false);
    let refused = admin
        .patch(&path)
        .json(&json!({"ask_tags_on_launch": true}))
        .call()
        .expect(400)
        .field_errors("ask_tags_on_launch");
    assert!(refused[0].contains("cannot prompt"), "{refused:?}");
    admin
        .patch(&path)
        .json(&json!({"ask_tags_on_launch": false}))
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

backend_tests!(
    prompted_values_replace_the_templates_and_others_are_ignored,
    a_template_may_leave_its_inventory_to_the_launcher,
);

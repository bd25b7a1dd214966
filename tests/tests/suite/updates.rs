//! Project updates with `ansible-galaxy` against stand-in content sources, and inventory
//! updates with `ansible-inventory` (contract §6), on both backends.

use std::sync::{Arc, Mutex};

use acs_tests::ansible::{AutomationServer, wait_for_run};
use acs_tests::galaxy::{FakeGalaxy, Recorded, build_collection};
use acs_tests::netns::TestHost;
use acs_tests::{Agent, Backend, Call, backend_tests, id_of};
use serde_json::{Value, json};

const REQUIREMENTS: &str = "collections:\n  - name: acme.tools\n";

fn source_credential(
    fixture: &AutomationServer,
    admin: &Agent,
    organization: i64,
    name: &str,
    url: &str,
    token: &str,
) -> i64 {
    id_of(
        &admin
            .post("/api/v2/credentials/")
            .json(&json!({
                "name": name,
                "organization": organization,
                "credential_type": fixture.server.managed_type_id("content_source_token"),
                "inputs": {"url": url, "token": token},
            }))
            .call()
            .expect(201)
            .json(),
    )
}

/// Starts an update of `project` and waits for it to end.
fn update_project(admin: &Agent, project: i64) -> (Value, String) {
    let started = admin
        .post(&format!("/api/v2/projects/{project}/update/"))
        .call()
        .expect(202)
        .json();
    let path = format!("/api/v2/project_updates/{}/", started["project_update"]);
    let update = wait_for_run(admin, &path);
    let stdout = admin
        .get(&format!("{path}stdout/?format=txt"))
        .call()
        .expect(200)
        .body;
    (update, stdout)
}

fn project_updates_use_content_sources_in_order(backend: Backend) {
    let fixture = AutomationServer::start(backend, &[]);
    let admin = fixture.server.admin();
    fixture.project_file("content", "collections/requirements.yml", REQUIREMENTS);
    let organization = fixture.server.create_organization("content");
    let project = fixture.create_project(&admin, organization, "content");
    let log = Arc::new(Mutex::new(Vec::<Recorded>::new()));
    let content_host = TestHost::start();
    let empty = FakeGalaxy::start(&content_host, log.clone(), None);
    let collection = build_collection(fixture.scratch.path(), "acme", "tools");
    let full = FakeGalaxy::start(&content_host, log.clone(), Some(collection));
    let first = source_credential(
        &fixture,
        &admin,
        organization,
        "empty",
        &empty.url,
        "tok-zero",
    );
    let second = source_credential(&fixture, &admin, organization, "full", &full.url, "tok-one");
    let sources = format!("/api/v2/organizations/{organization}/source_credentials/");
    for id in [first, second] {
        admin
            .post(&sources)
            .json(&json!({"id": id}))
            .call()
            .expect(204);
    }

    let (update, stdout) = update_project(&admin, project);
    assert_eq!(update["status"], "successful", "{update}\n{stdout}");
    assert!(
        stdout.contains(
            "GALAXY_SERVER_LIST(env: ANSIBLE_GALAXY_SERVER_LIST) = ['server0', 'server1']"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("acme.tools:1.0.0 was installed successfully"),
        "{stdout}"
    );
    assert!(
        stdout.contains("roles/requirements.yml does not exist"),
        "{stdout}"
    );
    let installed = fixture
        .projects_root
        .path()
        .join("content/collections/ansible_collections/acme/tools");
    assert!(installed.is_dir(), "{}", installed.display());

    let entries = log.lock().expect("log").clone();
    let first_full = entries
        .iter()
        .position(|r| full.url.contains(&format!(":{}/", r.port)));
    let last_empty = entries
        .iter()
        .rposition(|r| empty.url.contains(&format!(":{}/", r.port)));
    assert!(
        matches!((last_empty, first_full), (Some(a), Some(b)) if a < b),
        "the first source is asked first: {entries:?}"
    );
    assert!(
        empty
            .requests(&log)
            .iter()
            .any(|r| r.path.starts_with("/api/v3/collections/acme/tools"))
    );
    for request in empty.requests(&log) {
        assert_eq!(
            request.authorization.as_deref(),
            Some("Token tok-zero"),
            "{request:?}"
        );
    }
    let downloads: Vec<Recorded> = full
        .requests(&log)
        .into_iter()
        .filter(|r| r.path.starts_with("/download/"))
        .collect();
    assert_eq!(downloads.len(), 1, "{entries:?}");
    assert_eq!(downloads[0].authorization.as_deref(), Some("Token tok-one"));

    let env = &update["job_env"];
    assert_eq!(env["ANSIBLE_GALAXY_SERVER_LIST"], "server0,server1");
    assert_eq!(env["ANSIBLE_GALAXY_SERVER_SERVER0_URL"], empty.url.as_str());
    assert_eq!(env["ANSIBLE_GALAXY_SERVER_SERVER1_TOKEN"], "**********");
    let shown = format!("{update}{stdout}");
    assert!(
        !shown.contains("tok-zero") && !shown.contains("tok-one"),
        "{shown}"
    );

    // Moving the second source first changes who is asked first.
    admin
        .post(&sources)
        .json(&json!({"id": second, "position": 0}))
        .call()
        .expect(204);
    log.lock().expect("log").clear();
    std::fs::remove_dir_all(
        fixture
            .projects_root
            .path()
            .join("content/collections/ansible_collections"),
    )
    .expect("removed");
    let (update, stdout) = update_project(&admin, project);
    assert_eq!(update["status"], "successful", "{update}\n{stdout}");
    let entries = log.lock().expect("log").clone();
    assert!(
        full.url.contains(&format!(":{}/", entries[0].port)),
        "{entries:?}"
    );
    assert_eq!(
        update["job_env"]["ANSIBLE_GALAXY_SERVER_SERVER0_URL"],
        full.url.as_str()
    );
    assert!(
        !stdout.contains("python version"),
        "not verbose yet: {stdout}"
    );

    // PROJECT_UPDATE_VVV (the reference's name) makes ansible-galaxy verbose: it then shows
    // its version banner.
    admin
        .patch("/api/v2/settings/jobs/")
        .json(&json!({"PROJECT_UPDATE_VVV": true}))
        .call()
        .expect(200);
    std::fs::remove_dir_all(
        fixture
            .projects_root
            .path()
            .join("content/collections/ansible_collections"),
    )
    .expect("removed");
    let (update, stdout) = update_project(&admin, project);
    assert_eq!(update["status"], "successful", "{update}\n{stdout}");
    assert!(stdout.contains("python version"), "{stdout}");
}

fn without_content_sources_nothing_is_installed(backend: Backend) {
    let fixture = AutomationServer::start(backend, &[]);
    let admin = fixture.server.admin();
    fixture.project_file("plain", "collections/requirements.yml", REQUIREMENTS);
    let organization = fixture.server.create_organization("plain");
    let project = fixture.create_project(&admin, organization, "plain");
    let (update, stdout) = update_project(&admin, project);
    assert_eq!(update["status"], "successful", "{update}");
    assert!(
        stdout.contains("No content sources are configured"),
        "{stdout}"
    );
    assert!(
        update["job_env"]
            .get("ANSIBLE_GALAXY_SERVER_LIST")
            .is_none(),
        "{update}"
    );
    assert!(
        !fixture
            .projects_root
            .path()
            .join("plain/collections/ansible_collections")
            .exists()
    );
    let read = admin.with_bearer(&admin.personal_token("read"));
    read.post(&format!("/api/v2/projects/{project}/update/"))
        .call()
        .expect(403);
    assert_eq!(
        read.get_json(&format!("/api/v2/projects/{project}/update/"))["can_update"],
        false
    );
    assert_eq!(
        admin.get_json(&format!("/api/v2/projects/{project}/project_updates/"))["count"],
        1
    );
}

/// The names of the hosts in a list page.
fn host_names(page: &Value) -> Vec<&str> {
    page["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|host| host["name"].as_str())
        .collect()
}

/// An inventory script: hosts from `INV_HOSTS`, and each host's `token_length` from the file
/// `INV_TOKEN_FILE` names.
const INVENTORY_SCRIPT: &str = r#"#!/usr/bin/env python3
import json, os, sys
if "--host" in sys.argv:
    print("{}")
    sys.exit(0)
hosts = [h for h in os.environ.get("INV_HOSTS", "").split(",") if h]
with open(os.environ["INV_TOKEN_FILE"]) as f:
    token = f.read()
print(json.dumps({
    "web": {"hosts": hosts},
    "_meta": {"hostvars": {h: {"token_length": len(token)} for h in hosts}},
}))
"#;

fn inventory_updates_import_hosts(backend: Backend) {
    let fixture = AutomationServer::start(backend, &[]);
    let admin = fixture.server.admin();
    let script = fixture.project_file("inv", "inventory.py", INVENTORY_SCRIPT);
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("executable");
    let organization = fixture.server.create_organization("inv");
    let project = fixture.create_project(&admin, organization, "inv");
    let inventory = id_of(
        &admin
            .post("/api/v2/inventories/")
            .json(&json!({"name": "cloud", "organization": organization}))
            .call()
            .expect(201)
            .json(),
    );
    admin
        .post(&format!("/api/v2/inventories/{inventory}/hosts/"))
        .json(&json!({"name": "manual"}))
        .call()
        .expect(201);
    let cloud_type = id_of(
        &admin
            .post("/api/v2/credential_types/")
            .json(&json!({
                "name": "Inventory cloud",
                "kind": "cloud",
                "inputs": {"fields": [
                    {"id": "hosts", "label": "Hosts"},
                    {"id": "token", "label": "Token", "secret": true},
                ]},
                "injectors": {
                    "env": {"INV_HOSTS": "{{ hosts }}", "INV_TOKEN_FILE": "{{ svc.filename }}"},
                    "file": {"template": "{{ token }}"},
                    "extra_vars": {"never_for_inventory": "{{ token }}"},
                },
            }))
            .call()
            .expect(201)
            .json(),
    );
    let credential = id_of(
        &admin
            .post("/api/v2/credentials/")
            .json(&json!({
                "name": "inventory cloud",
                "organization": organization,
                "credential_type": cloud_type,
                "inputs": {"hosts": "web1,web2", "token": "12345678"},
            }))
            .call()
            .expect(201)
            .json(),
    );
    let sources = format!("/api/v2/inventories/{inventory}/inventory_sources/");
    let bad = admin
        .post(&sources)
        .json(&json!({"name": "bad", "source_project": project, "source_path": "../inventory.py"}))
        .call()
        .expect(400);
    assert!(!bad.field_errors("source_path").is_empty(), "{}", bad.body);
    let source = id_of(
        &admin
            .post(&sources)
            .json(&json!({
                "name": "script",
                "source_project": project,
                "source_path": "inventory.py",
                "credential": credential,
            }))
            .call()
            .expect(201)
            .json(),
    );
    let update = |expected: &str| {
        let started = admin
            .post(&format!("/api/v2/inventory_sources/{source}/update/"))
            .call()
            .expect(202)
            .json();
        let path = format!("/api/v2/inventory_updates/{}/", started["inventory_update"]);
        let run = wait_for_run(&admin, &path);
        let stdout = admin
            .get(&format!("{path}stdout/?format=txt"))
            .call()
            .expect(200)
            .body;
        assert_eq!(run["status"], expected, "{run}\n{stdout}");
        (run, stdout)
    };
    let (run, stdout) = update("successful");
    assert!(stdout.contains("Imported 2 host(s)"), "{stdout}");
    assert_eq!(run["job_env"]["INV_HOSTS"], "web1,web2");
    let hosts = admin.get_json(&format!(
        "/api/v2/inventories/{inventory}/hosts/?order_by=name"
    ));
    assert_eq!(host_names(&hosts), vec!["manual", "web1", "web2"]);
    let web1 = hosts["results"][1].clone();
    assert_eq!(web1["inventory_source"], source);
    let variables: Value =
        serde_json::from_str(web1["variables"].as_str().unwrap_or("{}")).expect("json variables");
    assert_eq!(variables["token_length"], 8);

    admin
        .patch(&format!("/api/v2/credentials/{credential}/"))
        .json(&json!({"inputs": {"hosts": "web2,web3", "token": "$encrypted$"}}))
        .call()
        .expect(200);
    let (_, stdout) = update("successful");
    assert!(stdout.contains("removed 1"), "{stdout}");
    let hosts = admin.get_json(&format!(
        "/api/v2/inventories/{inventory}/hosts/?order_by=name"
    ));
    assert_eq!(host_names(&hosts), vec!["manual", "web2", "web3"]);

    // A script that fails leaves the hosts alone and the update failed.
    fixture.project_file("inv", "inventory.py", "#!/bin/sh\nexit 3\n");
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("executable");
    update("failed");
    assert_eq!(
        admin.get_json(&format!("/api/v2/inventories/{inventory}/hosts/"))["count"],
        3
    );
}

backend_tests!(
    project_updates_use_content_sources_in_order,
    without_content_sources_nothing_is_installed,
    inventory_updates_import_hosts,
);

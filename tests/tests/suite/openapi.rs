//! The OpenAPI document at `/api/v2/openapi.json`: it describes every route, and schemathesis
//! (PyPI), generating requests from it against a server holding one record of every kind,
//! finds no server error, no undocumented status or media type and no response that breaks
//! the document.

use std::path::PathBuf;
use std::process::Command;

use acs_tests::ansible::{AutomationServer, wait_for_run};
use acs_tests::{Backend, Call, TestServer, backend_tests, id_of};
use serde_json::{Value, json};

backend_tests!(
    every_list_and_detail_answers_options,
    the_document_describes_every_route,
    schemathesis_finds_nothing_wrong
);

/// Requests per operation and phase: enough to reach every validator with odd input, bounded
/// so both backends finish in a few minutes.
const EXAMPLES_PER_OPERATION: &str = "25";

fn schemathesis() -> PathBuf {
    let path = std::env::var("ACS_SCHEMATHESIS_BIN").unwrap_or_else(|_| {
        panic!(
            "ACS_SCHEMATHESIS_BIN is not set: run scripts/test-all.sh (or scripts/setup-test-env.sh \
             and export ACS_SCHEMATHESIS_BIN=<repo>/.venv/bin/st)"
        )
    });
    let path = PathBuf::from(path);
    assert!(
        path.is_file(),
        "schemathesis is missing at {}",
        path.display()
    );
    path
}

fn the_document_describes_every_route(backend: Backend) {
    let server = TestServer::start(backend);
    let document = server
        .anonymous()
        .get("/api/v2/openapi.json")
        .call()
        .expect(200)
        .json();
    assert_eq!(document["openapi"], "3.0.3");
    let paths = document["paths"].as_object().expect("paths");
    for path in [
        "/api/v2/users/{user}/",
        "/api/v2/tokens/",
        "/api/o/token/",
        "/api/v2/credential_types/{id}/",
        "/api/v2/job_templates/{id}/launch/",
        "/api/v2/jobs/{id}/stdout/",
        "/api/login/",
    ] {
        assert!(paths.contains_key(path), "{path} is not documented");
    }
    // Each documented operation without parameters is served: never 404 or 405.
    let admin = server.admin();
    let mut checked = 0;
    for (path, operations) in paths {
        if path.contains('{') {
            continue;
        }
        for method in ["get", "options"] {
            if operations.get(method).is_none() {
                continue;
            }
            let status = admin
                .request(method.to_uppercase().parse().expect("a method"), path)
                .call()
                .status;
            assert!(
                !matches!(status, 404 | 405),
                "{} {path} is documented but answers {status}",
                method.to_uppercase()
            );
            checked += 1;
        }
    }
    assert!(checked > 30, "only {checked} operations checked");
    // A method the document does not list for a path answers 405.
    assert!(paths["/api/v2/ping/"].get("delete").is_none());
    admin.delete("/api/v2/ping/").call().expect(405);
}

/// The contract: `OPTIONS` on every collection and detail answers the awxkit-style metadata
/// with `Allow`. Walks every route of the document, so a new list or detail without `OPTIONS`
/// fails here: each JSON `GET` under `/api/v2/` must document `OPTIONS` and answer it (ids
/// filled with 1, whether or not such an object exists) with 200, `actions` and an `Allow`
/// header that lists `GET`. Not records, and so not walked: the API's index and documents,
/// text output, and the commands (`launch/`, `update/`, `cancel/`, whose `GET` says whether
/// the command may run).
fn every_list_and_detail_answers_options(backend: Backend) {
    let server = TestServer::start(backend);
    let document = server
        .anonymous()
        .get("/api/v2/openapi.json")
        .call()
        .expect(200)
        .json();
    let paths = document["paths"].as_object().expect("paths");
    let walked = |path: &str, operations: &Value| {
        let json_get = operations["get"]["responses"]["200"]["content"]
            .get("application/json")
            .is_some();
        let exempt = matches!(
            path,
            "/api/v2/" | "/api/v2/openapi.json" | "/api/v2/ping/" | "/api/v2/metrics/"
        ) || ["/stdout/", "/launch/", "/update/", "/cancel/"]
            .iter()
            .any(|command| path.ends_with(command));
        path.starts_with("/api/v2/") && json_get && !exempt
    };
    let admin = server.admin();
    let mut missing = Vec::new();
    let mut asked = 0;
    for (path, operations) in paths
        .iter()
        .filter(|(path, operations)| walked(path, operations))
    {
        if operations.get("options").is_none() {
            missing.push(format!("{path}: OPTIONS not documented"));
            continue;
        }
        let concrete: String = path
            .split('/')
            .map(|segment| match segment {
                "{category}" => "authentication",
                _ if segment.starts_with('{') => "1",
                _ => segment,
            })
            .collect::<Vec<_>>()
            .join("/");
        let reply = admin.options(&concrete).call();
        asked += 1;
        let allow = reply.header("allow").unwrap_or_default();
        if reply.status != 200 || !allow.contains("GET") || !reply.json()["actions"].is_object() {
            missing.push(format!(
                "OPTIONS {concrete}: {} (Allow {allow:?}) {}",
                reply.status,
                reply.body.chars().take(200).collect::<String>()
            ));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
    assert!(asked > 50, "only {asked} routes asked");
    // Read only where nothing is written through the path.
    let activity = admin.options("/api/v2/activity_stream/").call().expect(200);
    assert_eq!(
        activity.header("allow").as_deref(),
        Some("GET, HEAD, OPTIONS")
    );
    assert!(activity.json()["actions"].get("POST").is_none());
    // Anonymous callers learn nothing.
    server
        .anonymous()
        .options("/api/v2/activity_stream/")
        .call()
        .expect(401);
}

/// One record of every kind, so generated requests reach real objects, not only 404s.
/// Returns the ids and usernames the fuzzing may touch.
fn seed(automation: &AutomationServer) -> (Vec<i64>, Vec<String>) {
    let server = &automation.server;
    let admin = server.admin();
    let organization = server.create_organization("fuzzed");
    let alice = server.create_user("alice", "Alice-pass-1", false);
    let bob = server.create_user("bob", "Bob-pass-1", false);
    server.add_member(organization, alice);
    server.add_admin(organization, bob);
    let application = id_of(
        &admin
            .post("/api/v2/applications/")
            .json(&json!({
                "name": "fuzzed app",
                "organization": organization,
                "client_type": "confidential",
                "authorization_grant_type": "password",
            }))
            .call()
            .expect(201)
            .json(),
    );
    admin
        .post(&format!("/api/v2/applications/{application}/tokens/"))
        .json(&json!({ "scope": "read" }))
        .call()
        .expect(201);
    let credential_type = id_of(
        &admin
            .post("/api/v2/credential_types/")
            .json(&json!({
                "name": "fuzzed type",
                "kind": "cloud",
                "inputs": { "fields": [
                    { "id": "api_key", "label": "API key", "secret": true },
                    { "id": "region", "label": "Region" },
                ] },
                "injectors": { "env": { "FUZZ_KEY": "{{ api_key }}" } },
            }))
            .call()
            .expect(201)
            .json(),
    );
    admin
        .post("/api/v2/credentials/")
        .json(&json!({
            "name": "fuzzed credential",
            "credential_type": credential_type,
            "organization": organization,
            "inputs": { "api_key": "k-123", "region": "eu" },
        }))
        .call()
        .expect(201);
    automation.project_file(
        "fuzzed",
        "site.yml",
        "- hosts: all\n  gather_facts: false\n  tasks: []\n",
    );
    let project = automation.create_project(&admin, organization, "fuzzed");
    let inventory = automation.create_local_inventory(&admin, organization);
    admin
        .post(&format!("/api/v2/inventories/{inventory}/inventory_sources/"))
        .json(&json!({ "name": "fuzzed source", "source_project": project, "source_path": "site.yml" }))
        .call();
    let template = id_of(
        &admin
            .post("/api/v2/job_templates/")
            .json(&json!({
                "name": "fuzzed template",
                "project": project,
                "inventory": inventory,
                "playbook": "site.yml",
            }))
            .call()
            .expect(201)
            .json(),
    );
    // Finished runs of each kind, for the runs' detail, output, events and delete.
    let job = admin
        .post(&format!("/api/v2/job_templates/{template}/launch/"))
        .call()
        .expect(201)
        .json()["job"]
        .as_i64()
        .expect("a job id");
    wait_for_run(&admin, &format!("/api/v2/jobs/{job}/"));
    let update = admin
        .post(&format!("/api/v2/projects/{project}/update/"))
        .call()
        .expect(202)
        .json()["project_update"]
        .as_i64()
        .expect("a project update id");
    wait_for_run(&admin, &format!("/api/v2/project_updates/{update}/"));
    let mut ids = vec![
        1,
        2,
        organization,
        application,
        credential_type,
        project,
        inventory,
        template,
        job,
        update,
    ];
    ids.sort_unstable();
    ids.dedup();
    (
        ids,
        vec!["alice".into(), alice.to_string(), bob.to_string()],
    )
}

/// The fuzzing's own superuser and a write token of it, made after enough other tokens that
/// its id is far from the ids the fuzzing aims at (so it does not revoke itself early).
fn fuzzing_token(server: &TestServer) -> String {
    server.create_user("fuzzer", "Fuzzer-pass-1", true);
    let fuzzer = server.as_user("fuzzer", "Fuzzer-pass-1");
    for _ in 0..20 {
        fuzzer.personal_token("read");
    }
    fuzzer.personal_token("write")
}

fn schemathesis_finds_nothing_wrong(backend: Backend) {
    let st = schemathesis();
    let automation = AutomationServer::start(backend, &[]);
    let (ids, users) = seed(&automation);
    let token = fuzzing_token(&automation.server);
    let config = automation.scratch.path().join("schemathesis.toml");
    let categories = json!(["system", "authentication", "oauth2", "ldap", "oidc", "jobs"]);
    std::fs::write(
        &config,
        format!(
            "[dictionaries.ids]\nvalues = {}\n\n[dictionaries.users]\nvalues = {}\n\n\
             [dictionaries.categories]\nvalues = {categories}\n\n[parameters]\n\
             \"path.id\" = {{ dictionary = \"ids\", probability = 0.6 }}\n\
             \"path.user\" = {{ dictionary = \"users\", probability = 0.6 }}\n\
             \"path.category\" = {{ dictionary = \"categories\", probability = 0.8 }}\n",
            Value::from(ids),
            Value::from(users),
        ),
    )
    .expect("the schemathesis configuration");
    let output = Command::new(&st)
        .current_dir(automation.scratch.path())
        .arg("--config-file")
        .arg(&config)
        .args(["--no-color", "run"])
        .arg(automation.server.url("/api/v2/openapi.json"))
        .args(["--header", &format!("Authorization: Bearer {token}")])
        .args([
            "--checks",
            "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance",
            "--phases",
            "examples,coverage,fuzzing,stateful",
            "--max-examples",
            EXAMPLES_PER_OPERATION,
            "--workers",
            "2",
            "--request-timeout",
            "20",
            "--seed",
            "20261124",
        ])
        .output()
        .unwrap_or_else(|error| panic!("cannot run {}: {error}", st.display()));
    let report = String::from_utf8_lossy(&output.stdout);
    let summary = report
        .rsplit_once("SUMMARY")
        .map_or(report.as_ref(), |(_, tail)| tail);
    eprintln!("schemathesis on {backend:?}:{summary}");
    assert!(
        output.status.success(),
        "schemathesis found problems ({}):\n{report}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let tested: usize = summary
        .split_once("Tested:")
        .and_then(|(_, rest)| rest.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no count of tested operations in:\n{report}"));
    assert!(
        tested >= 200,
        "schemathesis tested only {tested} operations"
    );
    // The fuzzing never took the server down.
    automation
        .server
        .anonymous()
        .get("/api/v2/ping/")
        .call()
        .expect(200);
}

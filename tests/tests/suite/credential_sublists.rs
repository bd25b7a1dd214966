//! A list under a parent shows nothing the caller may not view: a plain member of an
//! organization sees its job templates and its content sources, but not, through them, the
//! credentials attached (name, usernames, hosts), which their own detail refuses him; their
//! admin sees them. And every sub-list of the OpenAPI document, walked as that member, shows
//! only records whose own detail answers him.

use acs_tests::ansible::AutomationServer;
use acs_tests::{Agent, Backend, Call, backend_tests, id_of};
use serde_json::{Value, json};

fn names(list: &Value) -> Vec<String> {
    list["results"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|item| item["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn credential(agent: &Agent, body: Value) -> i64 {
    id_of(
        &agent
            .post("/api/v2/credentials/")
            .json(&body)
            .call()
            .expect(201)
            .json(),
    )
}

fn credentials_under_a_parent_are_those_the_caller_may_view(backend: Backend) {
    let fixture = AutomationServer::start(backend, &[]);
    let server = &fixture.server;
    fixture.project_file("site", "site.yml", "- hosts: all\n  tasks: []\n");
    let organization = server.create_organization("Acme");
    let boss = server.create_user("boss", "b0ss-pw-12345", false);
    let mel = server.create_user("mel", "m3l-pw-12345", false);
    server.add_admin(organization, boss);
    server.add_member(organization, mel);
    let boss = server.as_user("boss", "b0ss-pw-12345");
    let mel = server.as_user("mel", "m3l-pw-12345");

    let machine = credential(
        &boss,
        json!({
            "name": "prod key",
            "organization": organization,
            "credential_type": server.managed_type_id("ssh"),
            "inputs": {"username": "deploy-prod", "password": "s3cret"},
        }),
    );
    let source = credential(
        &boss,
        json!({
            "name": "private hub",
            "organization": organization,
            "credential_type": server.managed_type_id("content_source_token"),
            "inputs": {"url": "https://hub.example.com/", "token": "t0ken"},
        }),
    );
    let project = fixture.create_project(&boss, organization, "site");
    let inventory = fixture.create_local_inventory(&boss, organization);
    let template = id_of(
        &boss
            .post("/api/v2/job_templates/")
            .json(&json!({"name": "deploy", "project": project, "inventory": inventory, "playbook": "site.yml"}))
            .call()
            .expect(201)
            .json(),
    );
    let template_credentials = format!("/api/v2/job_templates/{template}/credentials/");
    boss.post(&template_credentials)
        .json(&json!({"id": machine}))
        .call()
        .expect(204);
    let sources = format!("/api/v2/organizations/{organization}/source_credentials/");
    boss.post(&sources)
        .json(&json!({"id": source}))
        .call()
        .expect(204);

    // The member sees the parents, and each credential's own detail refuses him.
    mel.get(&format!("/api/v2/job_templates/{template}/"))
        .call()
        .expect(200);
    for id in [machine, source] {
        mel.get(&format!("/api/v2/credentials/{id}/"))
            .call()
            .expect(403);
    }
    for path in [&template_credentials, &sources] {
        let list = mel.get_json(path);
        assert_eq!(list["count"], 0, "{path}: {list}");
        assert!(!list.to_string().contains("deploy-prod"), "{list}");
        assert!(!list.to_string().contains("hub.example.com"), "{list}");
    }
    // Their admin sees them.
    assert_eq!(names(&boss.get_json(&template_credentials)), ["prod key"]);
    assert_eq!(names(&boss.get_json(&sources)), ["private hub"]);

    // Every sub-list of the document, under the first few ids of its parent: each item the
    // member is shown, his own GET of its detail answers.
    let document = server.anonymous().get_json("/api/v2/openapi.json");
    let paths = document["paths"].as_object().expect("paths");
    let (mut walked, mut leaks) = (0, Vec::new());
    for path in paths.keys().filter(|path| {
        path.split_once("/{id}/")
            .is_some_and(|(_, rest)| !rest.is_empty() && !rest.contains('{'))
            && paths[path.as_str()]["get"].is_object()
    }) {
        for id in 1..=6 {
            let list_path = path.replace("{id}", &id.to_string());
            let reply = mel.get(&list_path).call();
            if reply.status != 200 {
                continue;
            }
            let Some(items) = reply.json()["results"].as_array().cloned() else {
                continue;
            };
            walked += 1;
            for url in items.iter().filter_map(|item| item["url"].as_str()) {
                let status = mel.get(url).call().status;
                if status != 200 {
                    leaks.push(format!(
                        "{list_path} shows {url}, whose detail answers {status}"
                    ));
                }
            }
        }
    }
    assert!(walked > 10, "only {walked} sub-lists answered the member");
    assert_eq!(leaks, Vec::<String>::new());
}

backend_tests!(credentials_under_a_parent_are_those_the_caller_may_view);

//! Changing a credential's type never turns its secrets into clear text. Tried from the
//! attacker's side: a Machine credential with a sealed password, then `PATCH
//! {"credential_type": <custom type whose "password" is not secret>}` without `inputs`. The
//! old value used to be opened, carried into the new type, stored and answered in clear, and
//! written in clear into the activity stream. Now such a field must be given anew; a field
//! secret under both types is carried over and stays sealed.

use acs_tests::ansible::AutomationServer;
use acs_tests::{Backend, Call, TestServer, backend_tests, id_of};
use serde_json::{Value, json};

backend_tests!(
    an_inventory_source_or_a_job_template_keeps_its_credentials_type,
    a_type_change_never_reveals_a_secret,
    a_secret_kept_secret_by_the_new_type_is_carried_over,
);

const SECRET: &str = "machine-password-4f1c";

fn custom_type(server: &TestServer, name: &str, password_secret: bool) -> i64 {
    let record = server
        .admin()
        .post("/api/v2/credential_types/")
        .json(&json!({
            "name": name,
            "kind": "cloud",
            "inputs": {"fields": [
                {"id": "username", "label": "Username"},
                {"id": "password", "label": "Password", "secret": password_secret},
            ]},
        }))
        .call()
        .expect(201)
        .json();
    id_of(&record)
}

/// A Machine credential of a new organization with `SECRET` as its password; its path.
fn machine_credential(server: &TestServer) -> String {
    let organization = server.create_organization("Ops");
    let record = server
        .admin()
        .post("/api/v2/credentials/")
        .json(&json!({
            "name": "machine",
            "credential_type": server.managed_type_id("ssh"),
            "organization": organization,
            "inputs": {"username": "deploy", "password": SECRET},
        }))
        .call()
        .expect(201)
        .json();
    format!("/api/v2/credentials/{}/", id_of(&record))
}

fn activity_of(server: &TestServer, path: &str) -> String {
    server
        .admin()
        .get(&format!("{path}activity_stream/?page_size=200"))
        .call()
        .expect(200)
        .body
}

fn a_type_change_never_reveals_a_secret(backend: Backend) {
    let server = TestServer::start(backend);
    let machine = server.managed_type_id("ssh");
    let plain = custom_type(&server, "Plain password", false);
    let path = machine_credential(&server);
    let admin = server.admin();

    // The attack: a type where the same field is not secret, and no inputs.
    let refused = admin
        .patch(&path)
        .json(&json!({ "credential_type": plain }))
        .call()
        .expect(400);
    assert!(!refused.body.contains(SECRET), "{}", refused.body);
    let message = &refused.json()["inputs"]["password"][0];
    assert!(
        message
            .as_str()
            .is_some_and(|text| text.contains("give its value again")),
        "{}",
        refused.body
    );
    // `$encrypted$` does not count as giving it again.
    admin
        .patch(&path)
        .json(&json!({
            "credential_type": plain,
            "inputs": {"username": "deploy", "password": "$encrypted$"},
        }))
        .call()
        .expect(400);
    // Nothing changed: same type, the password still sealed.
    let stored = admin.get_json(&path);
    assert_eq!(stored["credential_type"], machine);
    assert_eq!(stored["inputs"]["password"], "$encrypted$");
    assert!(!activity_of(&server, &path).contains(SECRET));

    // Given anew, the value is the client's own and the change goes through.
    let changed = admin
        .patch(&path)
        .json(&json!({
            "credential_type": plain,
            "inputs": {"username": "deploy", "password": "not-a-secret-any-more"},
        }))
        .call()
        .expect(200);
    assert!(!changed.body.contains(SECRET));
    assert_eq!(
        changed.json()["inputs"]["password"],
        "not-a-secret-any-more"
    );
    let activity = activity_of(&server, &path);
    assert!(!activity.contains(SECRET), "{activity}");
    assert!(
        !activity.contains("not-a-secret-any-more"),
        "the activity stream masks a password at any depth: {activity}"
    );
}

fn a_secret_kept_secret_by_the_new_type_is_carried_over(backend: Backend) {
    let server = TestServer::start(backend);
    let sealed = custom_type(&server, "Sealed password", true);
    let path = machine_credential(&server);
    let changed = server
        .admin()
        .patch(&path)
        .json(&json!({ "credential_type": sealed }))
        .call()
        .expect(200);
    assert!(!changed.body.contains(SECRET));
    let inputs: &Value = &changed.json()["inputs"];
    assert_eq!(inputs["username"], "deploy");
    assert_eq!(inputs["password"], "$encrypted$");
    assert!(!activity_of(&server, &path).contains(SECRET));
}

/// A credential an inventory source or a job template uses is "in use": its type cannot change
/// (their runs depend on its injectors) until each lets it go.
fn an_inventory_source_or_a_job_template_keeps_its_credentials_type(backend: Backend) {
    let automation = AutomationServer::start(backend, &[]);
    let server = &automation.server;
    let admin = server.admin();
    let organization = server.create_organization("Ops");
    automation.project_file("inv", "inventory.yml", "all:\n  hosts:\n    web1: {}\n");
    automation.project_file("inv", "site.yml", "- hosts: all\n  tasks: []\n");
    let project = automation.create_project(&admin, organization, "inv");
    let inventory = automation.create_local_inventory(&admin, organization);
    let first = custom_type(server, "First cloud", true);
    let second = custom_type(server, "Second cloud", true);
    let credential = id_of(
        &admin
            .post("/api/v2/credentials/")
            .json(&json!({
                "name": "cloud",
                "organization": organization,
                "credential_type": first,
                "inputs": {"username": "u", "password": "p4ss-word"},
            }))
            .call()
            .expect(201)
            .json(),
    );
    let source = id_of(
        &admin
            .post(&format!(
                "/api/v2/inventories/{inventory}/inventory_sources/"
            ))
            .json(&json!({
                "name": "file",
                "source_project": project,
                "source_path": "inventory.yml",
                "credential": credential,
            }))
            .call()
            .expect(201)
            .json(),
    );
    let template = id_of(
        &admin
            .post("/api/v2/job_templates/")
            .json(&json!({
                "name": "site", "project": project, "inventory": inventory, "playbook": "site.yml",
            }))
            .call()
            .expect(201)
            .json(),
    );
    let attached = format!("/api/v2/job_templates/{template}/credentials/");
    admin
        .post(&attached)
        .json(&json!({ "id": credential }))
        .call()
        .expect(204);
    let path = format!("/api/v2/credentials/{credential}/");
    let refuses = || {
        let refused = admin
            .patch(&path)
            .json(&json!({ "credential_type": second }))
            .call()
            .expect(400)
            .field_errors("credential_type");
        assert!(
            refused[0].contains("cannot change the credential type"),
            "{refused:?}"
        );
        assert_eq!(admin.get_json(&path)["credential_type"], first);
    };
    refuses();
    admin
        .delete(&format!("/api/v2/inventory_sources/{source}/"))
        .call()
        .expect(204);
    // The template still holds it.
    refuses();
    admin
        .post(&attached)
        .json(&json!({ "id": credential, "disassociate": true }))
        .call()
        .expect(204);
    admin
        .patch(&path)
        .json(&json!({ "credential_type": second }))
        .call()
        .expect(200);
}

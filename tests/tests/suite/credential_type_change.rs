//! Changing a credential's type never turns its secrets into clear text. Tried from the
//! attacker's side: a Machine credential with a sealed password, then `PATCH
//! {"credential_type": <custom type whose "password" is not secret>}` without `inputs`. The
//! old value used to be opened, carried into the new type, stored and answered in clear, and
//! written in clear into the activity stream. Now such a field must be given anew; a field
//! secret under both types is carried over and stays sealed.

use acs_tests::{Backend, Call, TestServer, backend_tests, id_of};
use serde_json::{Value, json};

backend_tests!(
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

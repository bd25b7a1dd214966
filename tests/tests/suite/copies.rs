//! `/api/v2/credentials/<id>/copy/`, the reference's copy: `GET` says whether the caller may
//! copy; `POST {"name"}` makes a credential of the same type, owner and inputs, its secrets
//! copied sealed (never opened, shown masked), recorded in the activity stream; a caller who
//! may not both change the original and create for its owner is refused and nothing is made.

use acs_tests::{Backend, Call, TestServer, backend_tests, id_of};
use serde_json::json;

fn a_credential_is_copied_with_its_secrets_sealed(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let organization = server.create_organization("Acme");
    let boss = server.create_user("boss", "Boss-pass-1", false);
    server.add_admin(organization, boss);
    let original = admin
        .post("/api/v2/credentials/")
        .json(&json!({
            "name": "deploy key", "organization": organization, "description": "for deploys",
            "credential_type": server.managed_type_id("ssh"),
            "inputs": {"username": "deploy", "password": "s3cret-deploy-pw"},
        }))
        .call()
        .expect(201)
        .json();
    let id = id_of(&original);
    let copy_path = format!("/api/v2/credentials/{id}/copy/");
    assert_eq!(original["related"]["copy"], json!(copy_path));
    assert_eq!(
        original["summary_fields"]["user_capabilities"]["copy"],
        true
    );

    let boss = server.as_user("boss", "Boss-pass-1");
    assert_eq!(boss.get_json(&copy_path)["can_copy"], true);
    let copy = boss
        .post(&copy_path)
        .json(&json!({"name": "deploy key (copy)"}))
        .call()
        .expect(201)
        .json();
    let copy_id = id_of(&copy);
    assert_ne!(copy_id, id);
    assert_eq!(copy["name"], "deploy key (copy)");
    assert_eq!(copy["organization"], organization);
    assert_eq!(copy["description"], "for deploys");
    assert_eq!(copy["credential_type"], original["credential_type"]);
    assert_eq!(
        copy["inputs"],
        json!({"username": "deploy", "password": "$encrypted$"})
    );
    // The secret is the original's, still sealed: the same stored text, no plaintext.
    let stored = |id: i64| {
        server.query_i64(&format!(
            "SELECT COUNT(*) FROM credentials a, credentials b WHERE a.id = {id} AND b.id = {} AND a.inputs = b.inputs",
            copy_id
        ))
    };
    assert_eq!(stored(id), 1, "the copy holds the original's sealed inputs");
    assert_eq!(
        server.query_i64("SELECT COUNT(*) FROM credentials WHERE inputs LIKE '%s3cret-deploy-pw%'"),
        0
    );
    let created = admin.get_json(&format!(
        "/api/v2/credentials/{copy_id}/activity_stream/?operation=create"
    ));
    assert_eq!(created["count"], 1, "{created}");

    // A name is needed, and must be free within the organization and type.
    let missing = boss.post(&copy_path).json(&json!({})).call().expect(400);
    assert!(
        missing.body.contains("This field is required."),
        "{}",
        missing.body
    );
    let taken = boss
        .post(&copy_path)
        .json(&json!({"name": "deploy key"}))
        .call()
        .expect(400);
    assert!(taken.body.contains("already exists"), "{}", taken.body);
}

fn copying_needs_the_original_and_its_owner(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let organization = server.create_organization("Acme");
    let user = server.create_user("user", "User-pass-1", false);
    server.add_member(organization, user);
    let original = admin
        .post("/api/v2/credentials/")
        .json(&json!({
            "name": "deploy key", "organization": organization,
            "credential_type": server.managed_type_id("ssh"),
            "inputs": {"username": "deploy", "password": "s3cret-deploy-pw"},
        }))
        .call()
        .expect(201)
        .json();
    let id = id_of(&original);
    // Allowed to use it (and so to see it), not to administer it.
    let use_role = original["summary_fields"]["object_roles"]["use_role"]["id"]
        .as_i64()
        .expect("the use role");
    admin
        .post(&format!("/api/v2/roles/{use_role}/users/"))
        .json(&json!({"id": user}))
        .call()
        .expect(204);
    let user = server.as_user("user", "User-pass-1");
    let copy_path = format!("/api/v2/credentials/{id}/copy/");
    assert_eq!(user.get_json(&copy_path)["can_copy"], false);
    assert_eq!(
        user.get_json(&format!("/api/v2/credentials/{id}/"))["summary_fields"]["user_capabilities"]
            ["copy"],
        false
    );
    user.post(&copy_path)
        .json(&json!({"name": "mine now"}))
        .call()
        .expect(403);
    // A stranger cannot even see it.
    server.create_user("mallory", "Mallory-pass-1", false);
    let mallory = server.as_user("mallory", "Mallory-pass-1");
    let refused = mallory
        .post(&copy_path)
        .json(&json!({"name": "mine now"}))
        .call();
    assert!(matches!(refused.status, 403 | 404), "{}", refused.body);
    assert_eq!(
        admin.get_json("/api/v2/credentials/?name=mine%20now")["count"],
        0,
        "nothing was made"
    );
}

backend_tests!(
    a_credential_is_copied_with_its_secrets_sealed,
    copying_needs_the_original_and_its_owner,
);

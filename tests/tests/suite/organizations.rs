//! `/api/v2/organizations/`: CRUD, the `users/` and `admins/` sub-lists, and who may do what.

use acs_tests::{Backend, Call, TestServer, backend_tests, is_api_timestamp, usernames};
use serde_json::json;

backend_tests!(
    superuser_creates_reads_updates_and_deletes,
    duplicate_name_is_400,
    missing_name_is_400,
    non_superuser_cannot_create,
    users_sublist_associates_and_disassociates,
    admins_sublist_associates_and_disassociates,
    member_reads_but_cannot_edit,
    non_member_gets_403_and_does_not_list_it,
    missing_organization_is_404,
    org_admin_edits_and_adds_members_but_cannot_delete,
    sublist_post_without_id_is_400,
    sublist_post_with_unknown_user_is_400,
);

fn org_path(id: i64) -> String {
    format!("/api/v2/organizations/{id}/")
}

fn superuser_creates_reads_updates_and_deletes(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let created = admin
        .post("/api/v2/organizations/")
        .json(&json!({ "name": "Engineering", "description": "builds things" }))
        .call()
        .expect(201)
        .json();
    let id = created["id"].as_i64().expect("integer id");
    assert_eq!(created["type"], "organization");
    assert_eq!(created["url"], org_path(id));
    assert_eq!(created["name"], "Engineering");
    assert_eq!(created["description"], "builds things");
    assert!(created["related"].is_object(), "{created}");
    assert!(
        is_api_timestamp(created["created"].as_str().unwrap_or_default()),
        "{created}"
    );

    let listed = admin.get_json("/api/v2/organizations/");
    assert!(
        listed["results"]
            .as_array()
            .expect("results")
            .iter()
            .any(|o| o["id"] == id),
        "{listed}"
    );
    assert_eq!(admin.get_json(&org_path(id))["name"], "Engineering");

    let patched = admin
        .patch(&org_path(id))
        .json(&json!({ "description": "ships things" }))
        .call()
        .expect(200)
        .json();
    assert_eq!(patched["description"], "ships things");
    assert_eq!(patched["name"], "Engineering");

    let put = admin
        .put(&org_path(id))
        .json(&json!({ "name": "Platform", "description": "" }))
        .call()
        .expect(200)
        .json();
    assert_eq!(put["name"], "Platform");

    admin.delete(&org_path(id)).call().expect(204);
    admin.get(&org_path(id)).call().expect(404);
}

fn duplicate_name_is_400(backend: Backend) {
    let server = TestServer::start(backend);
    server.create_organization("Twins");
    let reply = server
        .admin()
        .post("/api/v2/organizations/")
        .json(&json!({ "name": "Twins" }))
        .call()
        .expect(400);
    assert!(!reply.field_errors("name").is_empty());
}

fn missing_name_is_400(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = server
        .admin()
        .post("/api/v2/organizations/")
        .json(&json!({ "description": "x" }))
        .call()
        .expect(400);
    assert_eq!(reply.field_errors("name"), ["This field is required."]);
}

fn non_superuser_cannot_create(backend: Backend) {
    let server = TestServer::start(backend);
    server.create_user("plain", "pw-plain", false);
    server
        .as_user("plain", "pw-plain")
        .post("/api/v2/organizations/")
        .json(&json!({ "name": "Mine" }))
        .call()
        .expect(403);
    assert_eq!(
        server.admin().get_json("/api/v2/organizations/?name=Mine")["count"],
        0
    );
}

fn sublist_round_trip(backend: Backend, sublist: &str) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Club");
    let user = server.create_user("joiner", "pw-joiner", false);
    let admin = server.admin();
    let path = format!("{}{sublist}/", org_path(org));

    let reply = admin
        .post(&path)
        .json(&json!({ "id": user }))
        .call()
        .expect(204);
    assert!(reply.body.is_empty(), "{}", reply.body);
    assert!(usernames(&admin.get_json(&path)).contains(&"joiner".to_owned()));

    // Associating twice changes nothing.
    admin
        .post(&path)
        .json(&json!({ "id": user }))
        .call()
        .expect(204);
    assert_eq!(admin.get_json(&path)["count"], 1);

    admin
        .post(&path)
        .json(&json!({ "id": user, "disassociate": true }))
        .call()
        .expect(204);
    assert!(!usernames(&admin.get_json(&path)).contains(&"joiner".to_owned()));
}

fn users_sublist_associates_and_disassociates(backend: Backend) {
    sublist_round_trip(backend, "users");
}

fn admins_sublist_associates_and_disassociates(backend: Backend) {
    sublist_round_trip(backend, "admins");
}

fn member_reads_but_cannot_edit(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Readers");
    let member = server.create_user("reader", "pw-reader", false);
    server.add_member(org, member);
    let agent = server.as_user("reader", "pw-reader");

    assert_eq!(agent.get_json(&org_path(org))["name"], "Readers");
    let listed = agent.get_json("/api/v2/organizations/");
    assert!(
        listed["results"]
            .as_array()
            .expect("results")
            .iter()
            .any(|o| o["id"] == org),
        "{listed}"
    );
    agent
        .patch(&org_path(org))
        .json(&json!({ "description": "mine now" }))
        .call()
        .expect(403);
    agent.delete(&org_path(org)).call().expect(403);
    let other = server.create_user("other", "pw-other", false);
    agent
        .post(&format!("{}users/", org_path(org)))
        .json(&json!({ "id": other }))
        .call()
        .expect(403);
}

fn non_member_gets_403_and_does_not_list_it(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Private");
    server.create_user("outsider", "pw-outsider", false);
    let agent = server.as_user("outsider", "pw-outsider");
    agent.get(&org_path(org)).call().expect(403);
    let listed = agent.get_json("/api/v2/organizations/");
    assert!(
        !listed["results"]
            .as_array()
            .expect("results")
            .iter()
            .any(|o| o["id"] == org),
        "{listed}"
    );
    agent
        .get(&format!("{}users/", org_path(org)))
        .call()
        .expect(403);
}

fn missing_organization_is_404(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = server
        .admin()
        .get("/api/v2/organizations/999999/")
        .call()
        .expect(404);
    assert!(!reply.detail().is_empty());
    server
        .admin()
        .get("/api/v2/organizations/999999/users/")
        .call()
        .expect(404);
    server
        .admin()
        .patch("/api/v2/organizations/999999/")
        .json(&json!({ "name": "x" }))
        .call()
        .expect(404);
}

fn org_admin_edits_and_adds_members_but_cannot_delete(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Managed");
    let boss = server.create_user("boss", "pw-boss", false);
    let newcomer = server.create_user("newcomer", "pw-newcomer", false);
    server.add_admin(org, boss);
    let agent = server.as_user("boss", "pw-boss");

    let patched = agent
        .patch(&org_path(org))
        .json(&json!({ "description": "run by boss" }))
        .call()
        .expect(200)
        .json();
    assert_eq!(patched["description"], "run by boss");
    agent
        .post(&format!("{}users/", org_path(org)))
        .json(&json!({ "id": newcomer }))
        .call()
        .expect(204);
    assert!(
        usernames(&server.admin().get_json(&format!("{}users/", org_path(org))))
            .contains(&"newcomer".to_owned())
    );
    agent.delete(&org_path(org)).call().expect(403);
    server.admin().get(&org_path(org)).call().expect(200);
}

fn sublist_post_without_id_is_400(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("NoId");
    let path = format!("{}users/", org_path(org));
    server
        .admin()
        .post(&path)
        .json(&json!({}))
        .call()
        .expect(400);
    server
        .admin()
        .post(&path)
        .json(&json!({ "id": "abc" }))
        .call()
        .expect(400);
}

fn sublist_post_with_unknown_user_is_400(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Ghosts");
    let path = format!("{}users/", org_path(org));
    server
        .admin()
        .post(&path)
        .json(&json!({ "id": 999_999 }))
        .call()
        .expect(400);
    assert_eq!(server.admin().get_json(&path)["count"], 0);
}

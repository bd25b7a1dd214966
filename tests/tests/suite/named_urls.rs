//! The reference's named URLs: a record by its natural key (`name++<organization>`, a
//! credential type's `name+kind`, a host's `name++<inventory>++<organization>`, an empty part
//! for a parent a record does not have) answers as by its id, on its detail, its sublists and
//! its changes; a key naming nothing is 404; a caller who may not see the record is refused
//! by name exactly as by id.

use acs_tests::{Backend, Call, TestServer, backend_tests, id_of};
use serde_json::json;

fn records_answer_to_their_key_as_to_their_id(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let organization = server.create_organization("Acme Corp");
    let team = id_of(
        &admin
            .post("/api/v2/teams/")
            .json(&json!({"name": "On call", "organization": organization}))
            .call()
            .expect(201)
            .json(),
    );
    let inventory = id_of(
        &admin
            .post("/api/v2/inventories/")
            .json(&json!({"name": "edge", "organization": organization}))
            .call()
            .expect(201)
            .json(),
    );
    let host = id_of(
        &admin
            .post("/api/v2/hosts/")
            .json(&json!({"name": "web1", "inventory": inventory}))
            .call()
            .expect(201)
            .json(),
    );
    let machine = server.managed_type_id("ssh");
    let shared = id_of(
        &admin
            .post("/api/v2/credentials/")
            .json(&json!({"name": "deploy key", "credential_type": machine, "organization": organization, "inputs": {"username": "deploy"}}))
            .call()
            .expect(201)
            .json(),
    );
    let alice = server.create_user("alice", "Alice-pass-1", false);
    let personal = id_of(
        &admin
            .post("/api/v2/credentials/")
            .json(&json!({"name": "mine", "credential_type": machine, "user": alice, "inputs": {"username": "a"}}))
            .call()
            .expect(201)
            .json(),
    );
    let cases = [
        ("/api/v2/organizations/Acme%20Corp/", organization),
        ("/api/v2/teams/On%20call++Acme%20Corp/", team),
        ("/api/v2/inventories/edge++Acme%20Corp/", inventory),
        ("/api/v2/hosts/web1++edge++Acme%20Corp/", host),
        ("/api/v2/credential_types/Machine+ssh/", machine),
        (
            "/api/v2/credentials/deploy%20key++Machine+ssh++Acme%20Corp/",
            shared,
        ),
        ("/api/v2/credentials/mine++Machine+ssh++/", personal),
    ];
    for (path, id) in cases {
        let record = admin.get_json(path);
        assert_eq!(record["id"], id, "{path}: {record}");
    }
    // Sublists and changes go through the key as well.
    admin
        .post("/api/v2/teams/On%20call++Acme%20Corp/users/")
        .json(&json!({"id": alice}))
        .call()
        .expect(204);
    assert_eq!(
        admin.get_json(&format!("/api/v2/teams/{team}/users/"))["count"],
        1
    );
    admin
        .patch("/api/v2/inventories/edge++Acme%20Corp/")
        .json(&json!({"description": "by name"}))
        .call()
        .expect(200);
    assert_eq!(
        admin.get_json(&format!("/api/v2/inventories/{inventory}/"))["description"],
        "by name"
    );
    // Keys that name nothing, or the wrong parent.
    for path in [
        "/api/v2/organizations/Nobody/",
        "/api/v2/teams/On%20call++Other/",
        "/api/v2/teams/On%20call/",
        "/api/v2/credentials/mine++Machine+ssh++Acme%20Corp/",
        "/api/v2/credential_types/Machine/",
    ] {
        admin.get(path).call().expect(404);
    }
    // Another user is refused by name exactly as by id.
    server.create_user("mallory", "Mallory-pass-1", false);
    let mallory = server.as_user("mallory", "Mallory-pass-1");
    for (path, id) in [
        ("/api/v2/credentials/mine++Machine+ssh++/", personal),
        ("/api/v2/inventories/edge++Acme%20Corp/", inventory),
        ("/api/v2/teams/On%20call++Acme%20Corp/", team),
    ] {
        let by_key = mallory.get(path).call();
        let collection = path.split('/').nth(3).expect("a collection");
        let by_id = mallory.get(&format!("/api/v2/{collection}/{id}/")).call();
        assert_eq!(by_key.status, by_id.status, "{path}: {}", by_key.body);
        assert_eq!(by_key.body, by_id.body, "{path}");
        assert_ne!(by_key.status, 200, "{path}");
    }
}

backend_tests!(records_answer_to_their_key_as_to_their_id);

//! How far an organization admin reaches over users, tried from the attacker's side. alice
//! administers A; bob administers B. alice may add bob to A (as in the reference), but that
//! must not make bob hers: an organization admin manages a user's account and what hangs off
//! it (password, profile, personal tokens, personal credentials) only when the user is not
//! privileged and every organization the user belongs to is one they administer. Each
//! refused request stands beside the one that still succeeds (carol, a member of A only).

use acs_tests::{Agent, Backend, Call, TestServer, backend_tests, id_of};
use serde_json::{Value, json};

backend_tests!(
    admin_of_a_cannot_take_over_the_admin_of_b_by_adding_him_to_a,
    admin_of_a_cannot_change_or_revoke_tokens_of_a_user_also_in_b,
    admin_of_a_cannot_manage_credentials_of_a_user_also_in_b,
);

const BOB_PASSWORD: &str = "pw-bob-of-b-1";
const CAROL_PASSWORD: &str = "pw-carol-of-a-1";

/// alice (admin of A), bob (admin of B, added to A by alice) and carol (member of A only).
struct Scene {
    server: TestServer,
    org_b: i64,
    bob: i64,
    carol: i64,
}

impl Scene {
    fn start(backend: Backend) -> Scene {
        let server = TestServer::start(backend);
        let org_a = server.create_organization("A");
        let org_b = server.create_organization("B");
        let alice = server.create_user("alice", "pw-alice-of-a-1", false);
        let bob = server.create_user("bob", BOB_PASSWORD, false);
        let carol = server.create_user("carol", CAROL_PASSWORD, false);
        server.add_admin(org_a, alice);
        server.add_admin(org_b, bob);
        server.add_member(org_a, carol);
        let scene = Scene {
            server,
            org_b,
            bob,
            carol,
        };
        // Adding any user to her organization is within alice's rights, bob included.
        scene
            .alice()
            .post(&format!("/api/v2/organizations/{org_a}/users/"))
            .json(&json!({ "id": bob }))
            .call()
            .expect(204);
        scene
    }

    fn alice(&self) -> Agent {
        self.server.as_user("alice", "pw-alice-of-a-1")
    }

    fn bob(&self) -> Agent {
        self.server.as_user("bob", BOB_PASSWORD)
    }

    fn carol(&self) -> Agent {
        self.server.as_user("carol", CAROL_PASSWORD)
    }
}

fn user_path(id: i64) -> String {
    format!("/api/v2/users/{id}/")
}

fn can_edit(agent: &Agent, user: i64) -> Value {
    agent.get_json(&user_path(user))["summary_fields"]["user_capabilities"]["edit"].clone()
}

fn admin_of_a_cannot_take_over_the_admin_of_b_by_adding_him_to_a(backend: Backend) {
    let scene = Scene::start(backend);
    let alice = scene.alice();

    // The attack: set bob's password, then act as bob in B.
    alice
        .patch(&user_path(scene.bob))
        .json(&json!({ "password": "taken-over-by-alice-1" }))
        .call()
        .expect(403);
    alice
        .patch(&user_path(scene.bob))
        .json(&json!({ "first_name": "Owned", "email": "alice@example.com" }))
        .call()
        .expect(403);
    alice
        .put(&user_path(scene.bob))
        .json(&json!({ "username": "bob", "password": "taken-over-by-alice-2" }))
        .call()
        .expect(403);
    assert_eq!(can_edit(&alice, scene.bob), false);
    // bob is untouched: his own password still works, alice's never did.
    scene.bob().get("/api/v2/me/").call().expect(200);
    for stolen in ["taken-over-by-alice-1", "taken-over-by-alice-2"] {
        scene
            .server
            .as_user("bob", stolen)
            .get("/api/v2/me/")
            .call()
            .expect(401);
    }
    let bob_record = scene.server.admin().get_json(&user_path(scene.bob));
    assert_eq!(bob_record["first_name"], "");
    assert_eq!(bob_record["email"], "");

    // carol belongs to A alone: alice still manages her.
    assert_eq!(can_edit(&alice, scene.carol), true);
    alice
        .patch(&user_path(scene.carol))
        .json(&json!({ "password": "reset-by-alice-1" }))
        .call()
        .expect(200);
    scene
        .server
        .as_user("carol", "reset-by-alice-1")
        .get("/api/v2/me/")
        .call()
        .expect(200);

    // Once bob leaves B, A is his only organization, and alice manages him.
    scene
        .server
        .admin()
        .post(&format!("/api/v2/organizations/{}/admins/", scene.org_b))
        .json(&json!({ "id": scene.bob, "disassociate": true }))
        .call()
        .expect(204);
    assert_eq!(can_edit(&alice, scene.bob), true);
    alice
        .patch(&user_path(scene.bob))
        .json(&json!({ "first_name": "Bob" }))
        .call()
        .expect(200);
}

/// A personal token of `user`, made by `user` through `agent`; returns (id, value).
fn personal_token(agent: &Agent, user: i64) -> (i64, String) {
    let token = agent
        .post(&format!("/api/v2/users/{user}/personal_tokens/"))
        .json(&json!({ "description": "mine", "scope": "write" }))
        .call()
        .expect(201)
        .json();
    let value = token["token"]
        .as_str()
        .expect("the token's value")
        .to_owned();
    (id_of(&token), value)
}

fn admin_of_a_cannot_change_or_revoke_tokens_of_a_user_also_in_b(backend: Backend) {
    let scene = Scene::start(backend);
    let alice = scene.alice();
    let (bob_token, bob_value) = personal_token(&scene.bob(), scene.bob);
    let (carol_token, carol_value) = personal_token(&scene.carol(), scene.carol);

    let bob_path = format!("/api/v2/tokens/{bob_token}/");
    alice
        .patch(&bob_path)
        .json(&json!({ "scope": "read" }))
        .call()
        .expect(403);
    alice.delete(&bob_path).call().expect(403);
    let bob_with_token = scene.server.anonymous().with_bearer(&bob_value);
    bob_with_token.get("/api/v2/me/").call().expect(200);
    assert_eq!(
        scene.server.admin().get_json(&bob_path)["scope"],
        "write",
        "bob's token keeps its scope"
    );

    let carol_path = format!("/api/v2/tokens/{carol_token}/");
    alice
        .patch(&carol_path)
        .json(&json!({ "description": "seen by her admin" }))
        .call()
        .expect(200);
    alice.delete(&carol_path).call().expect(204);
    scene
        .server
        .anonymous()
        .with_bearer(&carol_value)
        .get("/api/v2/me/")
        .call()
        .expect(401);
}

fn admin_of_a_cannot_manage_credentials_of_a_user_also_in_b(backend: Backend) {
    let scene = Scene::start(backend);
    let alice = scene.alice();
    let aws = scene.server.managed_type_id("aws");
    let body = |name: &str, owner: i64| {
        json!({
            "name": name,
            "credential_type": aws,
            "user": owner,
            "inputs": { "username": "AKIA", "password": "s3cret-of-the-owner" },
        })
    };

    // alice cannot give bob a credential, nor change or delete the one he made himself.
    alice
        .post("/api/v2/credentials/")
        .json(&body("planted", scene.bob))
        .call()
        .expect(403);
    let bobs = scene
        .bob()
        .post("/api/v2/credentials/")
        .json(&body("bob's", scene.bob))
        .call()
        .expect(201)
        .json();
    let bobs_path = format!("/api/v2/credentials/{}/", id_of(&bobs));
    alice
        .patch(&bobs_path)
        .json(&json!({ "inputs": { "username": "AKIA", "password": "alice-now-knows" } }))
        .call()
        .expect(403);
    alice.delete(&bobs_path).call().expect(403);
    scene.server.admin().get(&bobs_path).call().expect(200);

    // carol's are alice's to manage.
    let carols = alice
        .post("/api/v2/credentials/")
        .json(&body("carol's", scene.carol))
        .call()
        .expect(201)
        .json();
    let carols_path = format!("/api/v2/credentials/{}/", id_of(&carols));
    alice
        .patch(&carols_path)
        .json(&json!({ "description": "rotated" }))
        .call()
        .expect(200);
    alice.delete(&carols_path).call().expect(204);
}

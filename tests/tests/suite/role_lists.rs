//! `GET /api/v2/roles/`: each caller sees the system roles and the roles of the objects it
//! may see, nothing of the organizations it has no part in; holding any role on an
//! organization shows that organization.

use acs_tests::{Backend, Call, TestServer, backend_tests};
use serde_json::Value;

backend_tests!(the_roles_list_shows_the_roles_of_what_the_caller_sees);

/// The `(resource_type, resource_id)` of every listed role (`None`s for the system roles).
fn owners(page: &Value) -> Vec<(Option<String>, Option<i64>)> {
    page["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|role| {
            let summary = &role["summary_fields"];
            (
                summary["resource_type"].as_str().map(str::to_owned),
                summary["resource_id"].as_i64(),
            )
        })
        .collect()
}

fn count_of(page: &[(Option<String>, Option<i64>)], kind: Option<&str>, id: Option<i64>) -> usize {
    page.iter()
        .filter(|(k, i)| k.as_deref() == kind && *i == id)
        .count()
}

fn the_roles_list_shows_the_roles_of_what_the_caller_sees(backend: Backend) {
    let server = TestServer::start(backend);
    let ops = server.create_organization("Ops");
    let dev = server.create_organization("Dev");
    let alice = server.create_user("alice", "Alice-pass-1", false);
    server.add_member(ops, alice);
    server.create_user("bob", "Bob-pass-1", false);
    let alice_agent = server.as_user("alice", "Alice-pass-1");
    let bob_agent = server.as_user("bob", "Bob-pass-1");
    let everything = "/api/v2/roles/?page_size=200";

    let page = alice_agent.get(everything).call().expect(200);
    assert!(
        page.header("warning")
            .is_some_and(|w| w.starts_with("299 awx"))
    );
    let page = page.json();
    let seen = owners(&page);
    assert_eq!(count_of(&seen, None, None), 2, "{page}");
    assert_eq!(
        count_of(&seen, Some("organization"), Some(ops)),
        13,
        "{page}"
    );
    assert_eq!(
        count_of(&seen, Some("organization"), Some(dev)),
        0,
        "{page}"
    );
    assert_eq!(page["count"], 15, "{page}");

    // Someone with no part in any organization sees the system roles only.
    let page = bob_agent.get_json(everything);
    assert_eq!(owners(&page), [(None, None), (None, None)], "{page}");

    // The superuser sees every role; filters narrow the list.
    let page = server.admin().get_json(everything);
    assert_eq!(page["count"], 2 + 13 + 13, "{page}");
    let admins = alice_agent.get_json("/api/v2/roles/?role_field=admin_role");
    assert_eq!(owners(&admins), [(Some("organization".into()), Some(ops))]);
    assert_eq!(admins["results"][0]["name"], "Admin", "{admins}");
    alice_agent
        .get("/api/v2/roles/?secret_field=1")
        .call()
        .expect(400);

    // Any role on an organization shows it and its roles.
    server.execute_sql(&format!(
        "INSERT INTO role_members (role_id, user_id) SELECT id, {alice} FROM roles \
         WHERE kind = 'organization' AND object_id = {dev} AND field = 'execute_role'"
    ));
    let page = alice_agent.get_json(everything);
    assert_eq!(
        count_of(&owners(&page), Some("organization"), Some(dev)),
        13,
        "{page}"
    );
    alice_agent
        .get(&format!("/api/v2/organizations/{dev}/"))
        .call()
        .expect(200);
    // ... but no more than what the role gives.
    alice_agent
        .patch(&format!("/api/v2/organizations/{dev}/"))
        .json(&serde_json::json!({ "description": "mine" }))
        .call()
        .expect(403);

    // Listing is all: the list takes no POST, and needs a caller.
    alice_agent
        .post("/api/v2/roles/")
        .json(&serde_json::json!({ "name": "x" }))
        .call()
        .expect(405);
    server.anonymous().get(everything).call().expect(401);
}

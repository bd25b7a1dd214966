//! `GET /api/v2/roles/`: each caller sees the system roles and the roles of the objects it
//! may see, nothing of the organizations it has no part in; holding any role on an
//! organization shows that organization. `/<resource>/<id>/access_list/`: everyone with
//! access to an object, with the roles that give it, to who may see the object only.

use acs_tests::{Backend, Call, TestServer, backend_tests};
use serde_json::{Value, json};

backend_tests!(
    the_roles_list_shows_the_roles_of_what_the_caller_sees,
    access_lists_name_everyone_with_access_and_why,
    grant_lists_describe_the_grant_to_who_may_post,
);

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

/// The access list's entry for `username`.
fn entry<'a>(page: &'a Value, username: &str) -> &'a Value {
    page["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|user| user["username"] == username)
        .unwrap_or_else(|| panic!("no {username} in {page}"))
}

fn usernames(page: &Value) -> Vec<&str> {
    let mut names: Vec<&str> = page["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|user| user["username"].as_str().expect("username"))
        .collect();
    names.sort_unstable();
    names
}

/// The `(role name, descendant_roles)` of one of an entry's access lists.
fn reasons(entry: &Value, list: &str) -> Vec<(String, Vec<String>)> {
    entry["summary_fields"][list]
        .as_array()
        .unwrap_or_else(|| panic!("no {list} in {entry}"))
        .iter()
        .map(|reason| {
            let mut gives: Vec<String> = reason["descendant_roles"]
                .as_array()
                .expect("descendant_roles")
                .iter()
                .map(|f| f.as_str().expect("a field").to_owned())
                .collect();
            gives.sort_unstable();
            (
                reason["role"]["name"].as_str().expect("name").to_owned(),
                gives,
            )
        })
        .collect()
}

fn strings(names: &[&str]) -> Vec<String> {
    names.iter().map(|name| (*name).to_owned()).collect()
}

fn access_lists_name_everyone_with_access_and_why(backend: Backend) {
    let server = TestServer::start(backend);
    let ops = server.create_organization("Ops");
    let alice = server.create_user("alice", "Alice-pass-1", false);
    server.add_member(ops, alice);
    let bob = server.create_user("bob", "Bob-pass-1", false);
    server.add_admin(ops, bob);
    let carol = server.create_user("carol", "Carol-pass-1", false);
    server.create_user("dave", "Dave-pass-1", false);
    let eve = server.create_user("eve", "Eve-pass-1", false);
    let admin = server.admin();
    admin
        .patch(&format!("/api/v2/users/{eve}/"))
        .json(&json!({ "is_system_auditor": true }))
        .call()
        .expect(200);
    server.execute_sql(&format!(
        "INSERT INTO role_members (role_id, user_id) SELECT id, {carol} FROM roles \
         WHERE kind = 'organization' AND object_id = {ops} AND field = 'execute_role'"
    ));
    let bob_agent = server.as_user("bob", "Bob-pass-1");
    let alice_agent = server.as_user("alice", "Alice-pass-1");
    let dave_agent = server.as_user("dave", "Dave-pass-1");
    let path = format!("/api/v2/organizations/{ops}/access_list/");

    let reply = bob_agent.get(&path).call().expect(200);
    assert!(
        reply
            .header("warning")
            .is_some_and(|w| w.starts_with("299 awx"))
    );
    let page = reply.json();
    assert_eq!(
        usernames(&page),
        ["admin", "alice", "bob", "carol", "eve"],
        "{page}"
    );
    let alice_entry = entry(&page, "alice");
    assert_eq!(
        reasons(alice_entry, "direct_access"),
        [("Member".to_owned(), strings(&["member_role", "read_role"]))],
        "{alice_entry}"
    );
    assert_eq!(reasons(alice_entry, "indirect_access"), []);
    assert!(
        alice_entry["summary_fields"]
            .get("user_capabilities")
            .is_none()
    );
    let role = &alice_entry["summary_fields"]["direct_access"][0]["role"];
    assert_eq!(role["resource_type"], "organization", "{role}");
    assert_eq!(
        role["related"]["organization"],
        format!("/api/v2/organizations/{ops}/")
    );
    // Bob administers the organization: he may take it back.
    assert_eq!(role["user_capabilities"]["unattach"], true, "{role}");
    let carol_entry = entry(&page, "carol");
    assert_eq!(
        reasons(carol_entry, "direct_access"),
        [(
            "Execute".to_owned(),
            strings(&["execute_role", "read_role"])
        )],
    );
    let superuser = entry(&page, "admin");
    let system = reasons(superuser, "indirect_access");
    assert_eq!(system.len(), 1, "{superuser}");
    assert_eq!(system[0].0, "System Administrator");
    assert_eq!(system[0].1.len(), 13);
    assert!(superuser["summary_fields"]["indirect_access"][0]["role"]["id"].is_null());
    assert_eq!(
        reasons(entry(&page, "eve"), "indirect_access"),
        [("System Auditor".to_owned(), strings(&["read_role"]))]
    );

    // A member may read the list, and may take nothing back; who cannot see it gets 403.
    let page = alice_agent.get_json(&path);
    let role = &entry(&page, "carol")["summary_fields"]["direct_access"][0]["role"];
    assert_eq!(role["user_capabilities"]["unattach"], false, "{role}");
    dave_agent.get(&path).call().expect(403);

    // On a credential of the organization, its admin's role reaches it; a member's does not.
    let credential = acs_tests::id_of(
        &admin
            .post("/api/v2/credentials/")
            .json(&json!({
                "name": "key", "organization": ops, "inputs": {},
                "credential_type": server.managed_type_id("ssh"),
            }))
            .call()
            .expect(201)
            .json(),
    );
    let page = bob_agent.get_json(&format!("/api/v2/credentials/{credential}/access_list/"));
    assert_eq!(usernames(&page), ["admin", "bob", "eve"], "{page}");
    let bob_entry = entry(&page, "bob");
    assert_eq!(reasons(bob_entry, "direct_access"), []);
    assert_eq!(
        reasons(bob_entry, "indirect_access"),
        [(
            "Admin".to_owned(),
            strings(&["admin_role", "read_role", "use_role"])
        )],
        "{bob_entry}"
    );
    alice_agent
        .get(&format!("/api/v2/credentials/{credential}/access_list/"))
        .call()
        .expect(403);
    let record = admin.get_json(&format!("/api/v2/credentials/{credential}/"));
    assert_eq!(
        record["related"]["access_list"],
        format!("/api/v2/credentials/{credential}/access_list/")
    );
}

/// `OPTIONS` on the lists roles are granted through describes the grant's body (`POST`), as
/// the reference does and awxkit's `import` reads; to a read-scoped token only the `GET`;
/// an access list is only read.
fn grant_lists_describe_the_grant_to_who_may_post(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let user = server.create_user("alice", "Alice-pass-1", false);
    let organization = server.create_organization("Ops");
    let role = admin.get_json(&format!("/api/v2/organizations/{organization}/"))["summary_fields"]
        ["object_roles"]["member_role"]["id"]
        .as_i64()
        .expect("the member role");
    for (path, id_help) in [
        (
            format!("/api/v2/users/{user}/roles/"),
            "Database ID for this role.",
        ),
        (
            format!("/api/v2/roles/{role}/users/"),
            "Database ID for this user.",
        ),
    ] {
        let options = admin.options(&path).call().expect(200).json();
        let post = &options["actions"]["POST"];
        assert_eq!(post["id"]["help_text"], id_help, "{path}: {options}");
        assert_eq!(post["id"]["required"], true, "{path}: {options}");
        assert!(post["disassociate"].is_object(), "{path}: {options}");
    }
    // A read-scoped token writes nothing: only the `GET`.
    let reader = admin.with_bearer(&admin.personal_token("read"));
    let options = reader
        .options(&format!("/api/v2/users/{user}/roles/"))
        .call()
        .expect(200)
        .json();
    assert!(options["actions"]["GET"].is_object(), "{options}");
    assert!(options["actions"].get("POST").is_none(), "{options}");
    let access = admin
        .options(&format!(
            "/api/v2/organizations/{organization}/access_list/"
        ))
        .call()
        .expect(200)
        .json();
    assert!(access["actions"].get("POST").is_none(), "{access}");
}

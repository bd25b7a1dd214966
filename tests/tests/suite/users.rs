//! `/api/v2/users/`: lists, filters, validation, body handling, updates, deletion, RBAC and
//! `OPTIONS` metadata.

use acs_tests::{Backend, Call, TestServer, backend_tests, is_api_timestamp, usernames};
use serde_json::{Value, json};

backend_tests!(
    list_is_paginated_with_relative_links,
    page_size_is_capped_at_200,
    invalid_page_is_404,
    filters_select_users,
    order_by_sorts_users,
    search_matches_users,
    secret_fields_cannot_be_filtered_or_ordered,
    unknown_filter_field_is_400,
    create_returns_the_full_record,
    records_start_with_the_envelope_fields,
    duplicate_username_is_400,
    missing_username_is_400,
    invalid_email_is_400,
    wrong_field_types_are_400,
    non_json_body_is_415,
    malformed_json_is_400,
    json_array_body_is_400,
    body_over_one_mebibyte_is_413,
    detail_by_id_and_by_username,
    missing_user_is_404,
    put_and_patch_update_a_user,
    normal_user_cannot_make_themselves_superuser,
    normal_user_cannot_see_users_outside_their_organizations,
    user_changes_own_first_name,
    own_password_change_takes_effect_on_the_next_request,
    admin_password_change_takes_effect_on_the_next_request,
    delete_then_404,
    deleting_yourself_is_403,
    system_auditor_reads_every_user_but_cannot_change,
    org_admin_sees_all_users_and_edits_only_members,
    anonymous_list_is_401,
    collection_refuses_put_patch_delete,
    options_on_the_collection_describes_actions,
    options_for_a_normal_user_has_no_post,
    options_on_a_detail_sends_allow,
);

fn user_path(id: i64) -> String {
    format!("/api/v2/users/{id}/")
}

fn create_numbered_users(server: &TestServer, prefix: &str, count: usize) -> Vec<String> {
    (1..=count)
        .map(|n| {
            let name = format!("{prefix}{n:03}");
            server.create_user(&name, "pw-numbered", false);
            name
        })
        .collect()
}

fn list_is_paginated_with_relative_links(backend: Backend) {
    let server = TestServer::start(backend);
    let mut expected = create_numbered_users(&server, "user", 30);
    expected.push("admin".into());
    let admin = server.admin();

    let first = admin.get_json("/api/v2/users/");
    assert_eq!(first["count"], 31, "{first}");
    assert_eq!(
        first["results"].as_array().map(Vec::len),
        Some(25),
        "default page size 25"
    );
    assert_eq!(first["previous"], Value::Null);

    let page = admin.get_json("/api/v2/users/?page_size=5");
    assert_eq!(page["count"], 31);
    assert_eq!(page["results"].as_array().map(Vec::len), Some(5));
    let next = page["next"].as_str().expect("a next link").to_owned();
    assert!(next.starts_with("/api/v2/users/?"), "{next}");
    assert!(
        next.contains("page=2") && next.contains("page_size=5"),
        "{next}"
    );

    let second = admin.get_json(&next);
    let previous = second["previous"].as_str().expect("a previous link");
    assert!(previous.starts_with("/api/v2/users/"), "{previous}");

    // Following `next` visits every user exactly once (what `awx users list --all` does).
    let mut seen = Vec::new();
    let mut link = Some("/api/v2/users/?page_size=7".to_owned());
    while let Some(path) = link {
        let page = admin.get_json(&path);
        seen.extend(usernames(&page));
        link = page["next"].as_str().map(str::to_owned);
        if let Some(next) = &link {
            assert!(next.starts_with("/api/v2/users/"), "{next}");
        }
    }
    seen.sort();
    expected.sort();
    assert_eq!(seen, expected);
}

fn page_size_is_capped_at_200(backend: Backend) {
    let server = TestServer::start(backend);
    create_numbered_users(&server, "bulk", 201);
    let page = server.admin().get_json("/api/v2/users/?page_size=1000");
    assert_eq!(page["count"], 202);
    assert_eq!(page["results"].as_array().map(Vec::len), Some(200));
    let next = page["next"].as_str().expect("a second page");
    assert!(
        next.starts_with("/api/v2/users/") && next.contains("page_size=200"),
        "{next}"
    );
}

fn invalid_page_is_404(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = server
        .admin()
        .get("/api/v2/users/?page=999")
        .call()
        .expect(404);
    assert_eq!(reply.json(), json!({ "detail": "Invalid page." }));
    server
        .admin()
        .get("/api/v2/users/?page=abc")
        .call()
        .expect(404);
    server
        .admin()
        .get("/api/v2/users/?page=0")
        .call()
        .expect(404);
    server
        .admin()
        .get("/api/v2/users/?page=1")
        .call()
        .expect(200);
}

fn create_named_users(server: &TestServer) {
    for (name, superuser) in [
        ("alice", false),
        ("alicia", false),
        ("bob", false),
        ("carol", true),
    ] {
        server.create_user(name, &format!("pw-{name}"), superuser);
    }
}

fn filters_select_users(backend: Backend) {
    let server = TestServer::start(backend);
    create_named_users(&server);
    let admin = server.admin();

    let exact = admin.get_json("/api/v2/users/?username=alice");
    assert_eq!(exact["count"], 1, "{exact}");
    assert_eq!(usernames(&exact), ["alice"]);

    let mut contains = usernames(&admin.get_json("/api/v2/users/?username__icontains=ALI"));
    contains.sort();
    assert_eq!(contains, ["alice", "alicia"]);

    let mut superusers = usernames(&admin.get_json("/api/v2/users/?is_superuser=true"));
    superusers.sort();
    assert_eq!(superusers, ["admin", "carol"]);

    let none = admin.get_json("/api/v2/users/?username=nobody");
    assert_eq!(none["count"], 0);
    assert_eq!(none["results"], json!([]));
}

fn order_by_sorts_users(backend: Backend) {
    let server = TestServer::start(backend);
    create_named_users(&server);
    let admin = server.admin();
    assert_eq!(
        usernames(&admin.get_json("/api/v2/users/?order_by=-username")),
        ["carol", "bob", "alicia", "alice", "admin"]
    );
    assert_eq!(
        usernames(&admin.get_json("/api/v2/users/?order_by=username")),
        ["admin", "alice", "alicia", "bob", "carol"]
    );
}

fn search_matches_users(backend: Backend) {
    let server = TestServer::start(backend);
    create_named_users(&server);
    server.create_user_from(&json!({
        "username": "dave",
        "password": "pw-dave",
        "first_name": "Alister",
        "email": "dave@example.com",
    }));
    let mut found = usernames(&server.admin().get_json("/api/v2/users/?search=ali"));
    found.sort();
    assert_eq!(found, ["alice", "alicia", "dave"]);
}

fn secret_fields_cannot_be_filtered_or_ordered(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    for query in [
        "password=x",
        "password__startswith=p",
        "password__icontains=pbkdf2",
        "order_by=password",
        "order_by=-password",
    ] {
        let reply = admin.get(&format!("/api/v2/users/?{query}")).call();
        assert!(
            reply.status == 403,
            "?{query}: expected 403, got {}: {}",
            reply.status,
            reply.body
        );
        assert!(!reply.detail().is_empty());
        assert!(
            !reply.body.contains("pbkdf2_sha256$"),
            "?{query} leaked a hash: {}",
            reply.body
        );
    }
}

fn unknown_filter_field_is_400(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = server
        .admin()
        .get("/api/v2/users/?nope=1")
        .call()
        .expect(400);
    assert!(reply.body.contains("nope"), "{}", reply.body);
    server
        .admin()
        .get("/api/v2/users/?order_by=nope")
        .call()
        .expect(400);
}

fn create_returns_the_full_record(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = server
        .admin()
        .post("/api/v2/users/")
        .json(&json!({
            "username": "ada",
            "password": "pw-ada-123",
            "first_name": "Ada",
            "last_name": "Lovelace",
            "email": "ada@example.com",
        }))
        .call()
        .expect(201);
    let user = reply.json();
    let id = user["id"].as_i64().expect("integer id");
    assert_eq!(user["type"], "user");
    assert_eq!(user["url"], user_path(id));
    assert!(user["related"].is_object(), "{user}");
    assert!(
        user["summary_fields"]["user_capabilities"].is_object(),
        "{user}"
    );
    assert_eq!(
        user["summary_fields"]["user_capabilities"]["edit"], true,
        "{user}"
    );
    for field in ["created", "modified"] {
        let stamp = user[field].as_str().unwrap_or_default();
        assert!(is_api_timestamp(stamp), "{field} = {stamp:?}");
    }
    assert_eq!(user["username"], "ada");
    assert_eq!(user["first_name"], "Ada");
    assert_eq!(user["last_name"], "Lovelace");
    assert_eq!(user["email"], "ada@example.com");
    assert_eq!(user["is_superuser"], false);
    assert_eq!(user["is_system_auditor"], false);
    assert_eq!(user["password"], "$encrypted$");
    assert!(
        !reply.body.contains("pw-ada-123") && !reply.body.contains("pbkdf2"),
        "{}",
        reply.body
    );

    let detail = server.admin().get_json(&user_path(id));
    assert_eq!(detail["username"], "ada");
    server
        .as_user("ada", "pw-ada-123")
        .get("/api/v2/me/")
        .call()
        .expect(200);
}

fn records_start_with_the_envelope_fields(backend: Backend) {
    // Contract §2: every record starts `id, type, url, related, summary_fields, created,
    // modified`. Checked on the raw text, since a JSON parser may reorder keys.
    let server = TestServer::start(backend);
    let id = server.create_user("ordered", "pw-ordered", false);
    let body = server.admin().get(&user_path(id)).call().expect(200).body;
    assert!(body.starts_with(r#"{"id":"#), "{body}");
    let positions: Vec<usize> = [
        "type",
        "url",
        "related",
        "summary_fields",
        "created",
        "modified",
    ]
    .iter()
    .map(|key| {
        body.find(&format!("\"{key}\":"))
            .unwrap_or_else(|| panic!("no {key} in {body}"))
    })
    .collect();
    assert!(
        positions.windows(2).all(|w| w[0] < w[1]),
        "envelope out of order: {body}"
    );
}

fn duplicate_username_is_400(backend: Backend) {
    let server = TestServer::start(backend);
    server.create_user("twin", "pw-twin", false);
    let reply = server
        .admin()
        .post("/api/v2/users/")
        .json(&json!({ "username": "twin", "password": "pw-twin-2" }))
        .call()
        .expect(400);
    assert!(!reply.field_errors("username").is_empty());
    assert_eq!(
        server.admin().get_json("/api/v2/users/?username=twin")["count"],
        1
    );
}

fn missing_username_is_400(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = server
        .admin()
        .post("/api/v2/users/")
        .json(&json!({ "password": "pw" }))
        .call()
        .expect(400);
    assert_eq!(reply.field_errors("username"), ["This field is required."]);
}

fn invalid_email_is_400(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = server
        .admin()
        .post("/api/v2/users/")
        .json(&json!({ "username": "mailer", "password": "pw-mailer", "email": "not an address" }))
        .call()
        .expect(400);
    assert!(!reply.field_errors("email").is_empty());
}

fn wrong_field_types_are_400(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let reply = admin
        .post("/api/v2/users/")
        .json(&json!({ "username": 5, "password": "pw" }))
        .call()
        .expect(400);
    assert!(!reply.field_errors("username").is_empty());
    let reply = admin
        .post("/api/v2/users/")
        .json(&json!({ "username": "typed", "password": "pw", "is_superuser": "maybe" }))
        .call()
        .expect(400);
    assert!(!reply.field_errors("is_superuser").is_empty());
    assert_eq!(admin.get_json("/api/v2/users/?username=typed")["count"], 0);
}

fn non_json_body_is_415(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = server
        .admin()
        .post("/api/v2/users/")
        .header("Content-Type", "text/plain")
        .body("username=plain")
        .call()
        .expect(415);
    assert!(
        reply.detail().contains("application/json"),
        "{}",
        reply.body
    );
    server
        .admin()
        .post("/api/v2/users/")
        .form(&[("username", "formed"), ("password", "pw")])
        .call()
        .expect(415);
}

fn malformed_json_is_400(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = server
        .admin()
        .post("/api/v2/users/")
        .header("Content-Type", "application/json")
        .body(r#"{"username": "broken","#)
        .call()
        .expect(400);
    assert!(
        reply.detail().starts_with("JSON parse error - "),
        "{}",
        reply.body
    );
}

fn json_array_body_is_400(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = server
        .admin()
        .post("/api/v2/users/")
        .json(&json!([{ "username": "listed" }]))
        .call()
        .expect(400);
    assert!(
        reply.detail().starts_with("JSON parse error - "),
        "{}",
        reply.body
    );
}

fn body_over_one_mebibyte_is_413(backend: Backend) {
    let server = TestServer::start(backend);
    let big = "x".repeat((1 << 20) + 1024);
    server
        .admin()
        .post("/api/v2/users/")
        .json(&json!({ "username": "huge", "password": "pw", "first_name": big }))
        .call()
        .expect(413);
    server.admin().get("/api/v2/me/").call().expect(200);
}

fn detail_by_id_and_by_username(backend: Backend) {
    let server = TestServer::start(backend);
    let id = server.create_user("named", "pw-named", false);
    let by_id = server.admin().get_json(&user_path(id));
    let by_name = server.admin().get_json("/api/v2/users/named/");
    assert_eq!(by_id["id"], id);
    assert_eq!(by_name["id"], id);
    assert_eq!(by_name["username"], "named");
}

fn missing_user_is_404(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = server
        .admin()
        .get("/api/v2/users/999999/")
        .call()
        .expect(404);
    assert!(!reply.detail().is_empty());
    server
        .admin()
        .get("/api/v2/users/no-such-user/")
        .call()
        .expect(404);
}

fn put_and_patch_update_a_user(backend: Backend) {
    let server = TestServer::start(backend);
    let id = server.create_user("before", "pw-before", false);
    let admin = server.admin();
    let put = admin
        .put(&user_path(id))
        .json(&json!({
            "username": "after",
            "first_name": "Ann",
            "last_name": "Other",
            "email": "ann@example.com",
        }))
        .call()
        .expect(200)
        .json();
    assert_eq!(put["username"], "after");
    assert_eq!(put["first_name"], "Ann");
    assert_eq!(put["email"], "ann@example.com");

    let patch = admin
        .patch(&user_path(id))
        .json(&json!({ "last_name": "Changed" }))
        .call()
        .expect(200)
        .json();
    assert_eq!(patch["last_name"], "Changed");
    assert_eq!(patch["first_name"], "Ann", "PATCH keeps the other fields");
    assert_eq!(patch["username"], "after");

    let stored = admin.get_json(&user_path(id));
    assert_eq!(stored["last_name"], "Changed");
    // Updates without a password keep it.
    server
        .as_user("after", "pw-before")
        .get("/api/v2/me/")
        .call()
        .expect(200);
}

fn normal_user_cannot_make_themselves_superuser(backend: Backend) {
    let server = TestServer::start(backend);
    let id = server.create_user("ambitious", "pw-ambitious", false);
    let me = server.as_user("ambitious", "pw-ambitious");
    me.patch(&user_path(id))
        .json(&json!({ "is_superuser": true }))
        .call()
        .expect(403);
    me.patch(&user_path(id))
        .json(&json!({ "is_system_auditor": true }))
        .call()
        .expect(403);
    let stored = server.admin().get_json(&user_path(id));
    assert_eq!(stored["is_superuser"], false);
    assert_eq!(stored["is_system_auditor"], false);
}

fn normal_user_cannot_see_users_outside_their_organizations(backend: Backend) {
    let server = TestServer::start(backend);
    let viewer = server.create_user("viewer", "pw-viewer", false);
    let colleague = server.create_user("colleague", "pw-colleague", false);
    let stranger = server.create_user("stranger", "pw-stranger", false);
    let org = server.create_organization("Shared");
    server.add_member(org, viewer);
    server.add_member(org, colleague);

    let me = server.as_user("viewer", "pw-viewer");
    me.get(&user_path(stranger)).call().expect(403);
    me.get("/api/v2/users/999999/").call().expect(404);
    me.get(&user_path(colleague)).call().expect(200);
    me.get(&user_path(viewer)).call().expect(200);

    let listed = usernames(&me.get_json("/api/v2/users/?page_size=200"));
    assert!(listed.contains(&"colleague".to_owned()), "{listed:?}");
    assert!(listed.contains(&"viewer".to_owned()), "{listed:?}");
    assert!(!listed.contains(&"stranger".to_owned()), "{listed:?}");

    me.patch(&user_path(stranger))
        .json(&json!({ "first_name": "X" }))
        .call()
        .expect(403);
    me.patch(&user_path(colleague))
        .json(&json!({ "first_name": "X" }))
        .call()
        .expect(403);
}

fn user_changes_own_first_name(backend: Backend) {
    let server = TestServer::start(backend);
    let id = server.create_user("selfie", "pw-selfie", false);
    let reply = server
        .as_user("selfie", "pw-selfie")
        .patch(&user_path(id))
        .json(&json!({ "first_name": "Self" }))
        .call()
        .expect(200);
    assert_eq!(reply.json()["first_name"], "Self");
    assert_eq!(
        server.admin().get_json(&user_path(id))["first_name"],
        "Self"
    );
}

fn own_password_change_takes_effect_on_the_next_request(backend: Backend) {
    let server = TestServer::start(backend);
    let id = server.create_user("rotator", "old-password", false);
    let old = server.as_user("rotator", "old-password");
    old.get("/api/v2/me/").call().expect(200);
    let reply = old
        .patch(&user_path(id))
        .json(&json!({ "password": "new-password" }))
        .call()
        .expect(200);
    assert_eq!(reply.json()["password"], "$encrypted$");
    old.get("/api/v2/me/").call().expect(401);
    server
        .as_user("rotator", "new-password")
        .get("/api/v2/me/")
        .call()
        .expect(200);
}

fn admin_password_change_takes_effect_on_the_next_request(backend: Backend) {
    let server = TestServer::start(backend);
    let id = server.create_user("managed", "first-password", false);
    let user = server.as_user("managed", "first-password");
    user.get("/api/v2/me/").call().expect(200);
    server
        .admin()
        .patch(&user_path(id))
        .json(&json!({ "password": "second-password" }))
        .call()
        .expect(200);
    user.get("/api/v2/me/").call().expect(401);
    server
        .as_user("managed", "second-password")
        .get("/api/v2/me/")
        .call()
        .expect(200);
}

fn delete_then_404(backend: Backend) {
    let server = TestServer::start(backend);
    let id = server.create_user("doomed", "pw-doomed", false);
    let doomed = server.as_user("doomed", "pw-doomed");
    doomed.get("/api/v2/me/").call().expect(200);
    let reply = server.admin().delete(&user_path(id)).call().expect(204);
    assert!(reply.body.is_empty(), "{}", reply.body);
    server.admin().get(&user_path(id)).call().expect(404);
    server.admin().delete(&user_path(id)).call().expect(404);
    doomed.get("/api/v2/me/").call().expect(401);
}

fn deleting_yourself_is_403(backend: Backend) {
    let server = TestServer::start(backend);
    let me = server.admin().get_json("/api/v2/me/");
    let id = me["results"][0]["id"].as_i64().expect("id");
    server.admin().delete(&user_path(id)).call().expect(403);
    server.admin().get("/api/v2/me/").call().expect(200);

    let own = server.create_user("selfdelete", "pw-selfdelete", false);
    server
        .as_user("selfdelete", "pw-selfdelete")
        .delete(&user_path(own))
        .call()
        .expect(403);
}

fn system_auditor_reads_every_user_but_cannot_change(backend: Backend) {
    let server = TestServer::start(backend);
    server.create_auditor("auditor", "pw-auditor");
    let other = server.create_user("someone", "pw-someone", false);
    let auditor = server.as_user("auditor", "pw-auditor");

    let me = auditor.get_json("/api/v2/me/");
    assert_eq!(me["results"][0]["is_system_auditor"], true);
    let all = auditor.get_json("/api/v2/users/");
    assert_eq!(all["count"], 3, "{all}");
    auditor.get(&user_path(other)).call().expect(200);
    auditor
        .patch(&user_path(other))
        .json(&json!({ "first_name": "No" }))
        .call()
        .expect(403);
    auditor.delete(&user_path(other)).call().expect(403);
    auditor
        .post("/api/v2/users/")
        .json(&json!({ "username": "new", "password": "pw" }))
        .call()
        .expect(403);
}

fn org_admin_sees_all_users_and_edits_only_members(backend: Backend) {
    let server = TestServer::start(backend);
    let boss = server.create_user("boss", "pw-boss", false);
    let member = server.create_user("member", "pw-member", false);
    let outsider = server.create_user("outsider", "pw-outsider", false);
    let org = server.create_organization("Acme");
    server.add_admin(org, boss);
    server.add_member(org, member);

    let admin_of_org = server.as_user("boss", "pw-boss");
    let listed = usernames(&admin_of_org.get_json("/api/v2/users/?page_size=200"));
    for name in ["admin", "boss", "member", "outsider"] {
        assert!(
            listed.contains(&name.to_owned()),
            "{name} missing from {listed:?}"
        );
    }
    admin_of_org.get(&user_path(outsider)).call().expect(200);
    admin_of_org
        .patch(&user_path(member))
        .json(&json!({ "first_name": "Edited" }))
        .call()
        .expect(200);
    admin_of_org
        .patch(&user_path(outsider))
        .json(&json!({ "first_name": "Edited" }))
        .call()
        .expect(403);
    assert_eq!(
        server.admin().get_json(&user_path(member))["first_name"],
        "Edited"
    );
    assert_eq!(
        server.admin().get_json(&user_path(outsider))["first_name"],
        ""
    );
}

fn anonymous_list_is_401(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = server.anonymous().get("/api/v2/users/").call().expect(401);
    assert!(reply.detail().ends_with(acs_tests::LOGIN_HINT));
    server
        .anonymous()
        .get("/api/v2/users/1/")
        .call()
        .expect(401);
    server
        .anonymous()
        .post("/api/v2/users/")
        .json(&json!({ "username": "x" }))
        .call()
        .expect(401);
}

fn collection_refuses_put_patch_delete(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let put = admin
        .put("/api/v2/users/")
        .json(&json!({}))
        .call()
        .expect(405);
    assert_eq!(put.detail(), r#"Method "PUT" not allowed."#);
    let patch = admin
        .patch("/api/v2/users/")
        .json(&json!({}))
        .call()
        .expect(405);
    assert_eq!(patch.detail(), r#"Method "PATCH" not allowed."#);
    let delete = admin.delete("/api/v2/users/").call().expect(405);
    assert_eq!(delete.detail(), r#"Method "DELETE" not allowed."#);
}

fn options_on_the_collection_describes_actions(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = server.admin().options("/api/v2/users/").call().expect(200);
    let body = reply.json();
    let actions = body["actions"]
        .as_object()
        .unwrap_or_else(|| panic!("no actions in {body}"));
    assert!(actions.contains_key("GET"), "{body}");
    for key in actions.keys() {
        assert!(
            key == "GET" || key == "POST",
            "awxkit only understands GET and POST here: {key}"
        );
    }
    let username = &body["actions"]["POST"]["username"];
    assert_eq!(username["type"], "string", "{body}");
    assert_eq!(username["required"], true, "{body}");
    for (name, field) in body["actions"]["POST"].as_object().expect("POST fields") {
        assert!(field["type"].is_string(), "{name} has no type: {field}");
    }
    for (name, field) in body["actions"]["GET"].as_object().expect("GET fields") {
        assert!(field["type"].is_string(), "{name} has no type: {field}");
    }
    let allow = reply.header("allow").unwrap_or_default();
    assert!(
        allow.contains("GET") && allow.contains("POST"),
        "Allow: {allow}"
    );
}

fn options_for_a_normal_user_has_no_post(backend: Backend) {
    let server = TestServer::start(backend);
    server.create_user("plain", "pw-plain", false);
    let body = server
        .as_user("plain", "pw-plain")
        .options("/api/v2/users/")
        .call()
        .expect(200)
        .json();
    assert!(body["actions"]["GET"].is_object(), "{body}");
    assert!(body["actions"].get("POST").is_none(), "{body}");
}

fn options_on_a_detail_sends_allow(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = server
        .admin()
        .options("/api/v2/users/1/")
        .call()
        .expect(200);
    let allow = reply
        .header("allow")
        .unwrap_or_else(|| panic!("no Allow header: {:?}", reply.headers));
    let methods: Vec<&str> = allow.split(',').map(str::trim).collect();
    for method in ["GET", "PUT", "DELETE"] {
        assert!(methods.contains(&method), "Allow: {allow}");
    }
}

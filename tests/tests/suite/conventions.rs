//! Cross-cutting conventions: the collections awxkit probes with `OPTIONS`, and odd input that
//! must never produce a server error.

use acs_tests::{Backend, Call, TestServer, backend_tests};
use serde_json::json;

backend_tests!(
    probed_collections_answer_options_with_object_roles,
    unserved_collections_are_404_for_everything_else,
    odd_input_never_yields_a_server_error,
    nul_bytes_never_yield_a_server_error,
);

/// The collections `awx users list` probes besides `users` (awxkit-client-contract §4.3).
const PROBED: &[&str] = &[
    "organizations",
    "projects",
    "inventories",
    "teams",
    "credentials",
    "job_templates",
    "workflow_job_templates",
    "instance_groups",
];

fn probed_collections_answer_options_with_object_roles(backend: Backend) {
    let server = TestServer::start(backend);
    let mut failures = Vec::new();
    for name in PROBED {
        let reply = server.admin().options(&format!("/api/v2/{name}/")).call();
        if reply.status != 200 {
            failures.push(format!("{name}: {} {}", reply.status, reply.body));
            continue;
        }
        let body = reply.json();
        if !body["object_roles"].is_array() {
            failures.push(format!("{name}: no object_roles list in {body}"));
        }
        if let Some(actions) = body["actions"].as_object() {
            for key in actions.keys() {
                if key != "GET" && key != "POST" {
                    failures.push(format!("{name}: action {key} would crash awxkit"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

fn unserved_collections_are_404_for_everything_else(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    for name in ["workflow_job_templates", "instance_groups"] {
        let path = format!("/api/v2/{name}/");
        let body = admin.options(&path).call().expect(200).json();
        assert_eq!(body["actions"], json!({}), "{name}: {body}");
        admin.get(&path).call().expect(404);
        admin
            .post(&path)
            .json(&json!({ "name": "x" }))
            .call()
            .expect(404);
        admin.get(&format!("{path}1/")).call().expect(404);
    }
}

fn odd_input_never_yields_a_server_error(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let gets = [
        "/api/v2/users/99999999999999999999999/",
        "/api/v2/users/-1/",
        "/api/v2/users/%ff%fe/",
        "/api/v2/users/?page_size=99999999999999999999",
        "/api/v2/users/?page=99999999999999999999",
        "/api/v2/users/?id=abc",
        "/api/v2/users/?id__in=1,x",
        "/api/v2/users/?created__gt=not-a-date",
        "/api/v2/users/?is_superuser=maybe",
        "/api/v2/users/?username__nosuchlookup=x",
        "/api/v2/users/?order_by=",
        "/api/v2/users/?username=%27%3B%20DROP%20TABLE%20users%3B--",
        "/api/v2/organizations/abc/",
        "/api/v2/organizations/1/users/?nope=1",
        "/api/v2/settings/%2e%2e/",
    ];
    let mut failures = Vec::new();
    for path in gets {
        let reply = admin.get(path).call();
        if reply.status >= 500 {
            failures.push(format!("GET {path}: {} {}", reply.status, reply.body));
        }
    }
    let posts = [
        json!({ "username": "" }),
        json!({ "username": "x".repeat(10_000), "password": "pw" }),
        json!({ "username": "nul\u{0}byte", "password": "pw" }),
        json!({ "username": null }),
        json!({ "username": { "nested": true } }),
        json!({ "username": "ok-name", "password": null }),
        json!({ "username": "ok-name2", "password": "pw", "email": 7 }),
        json!({ "username": "ok-name3", "password": "pw", "is_superuser": null }),
    ];
    for body in posts {
        let reply = admin.post("/api/v2/users/").json(&body).call();
        if reply.status >= 500 {
            failures.push(format!(
                "POST users {body}: {} {}",
                reply.status, reply.body
            ));
        }
    }
    let org = server.create_organization("Odd inputs");
    for body in [
        json!({ "id": null }),
        json!({ "id": -1 }),
        json!({ "id": 1.5 }),
        json!({ "id": [1] }),
    ] {
        let reply = admin
            .post(&format!("/api/v2/organizations/{org}/users/"))
            .json(&body)
            .call();
        if reply.status >= 500 || reply.status < 400 {
            failures.push(format!(
                "POST organization users {body}: {} {}",
                reply.status, reply.body
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    admin.get("/api/v2/me/").call().expect(200);
}

fn nul_bytes_never_yield_a_server_error(backend: Backend) {
    // PostgreSQL text cannot hold NUL; a NUL that reaches a query must be refused, not crash it.
    let server = TestServer::start(backend);
    let admin = server.admin();
    let mut failures = Vec::new();
    let gets = [
        "/api/v2/users/?search=%00",
        "/api/v2/users/?username=%00",
        "/api/v2/users/?username__icontains=a%00",
        "/api/v2/users/a%00b/",
        "/api/v2/organizations/?search=%00",
        "/api/v2/organizations/?name=%00",
    ];
    for path in gets {
        let reply = admin.get(path).call();
        if reply.status >= 500 {
            failures.push(format!("GET {path}: {} {}", reply.status, reply.body));
        }
    }
    for body in [
        json!({ "username": "nul\u{0}byte", "password": "pw" }),
        json!({ "username": "nulpass", "password": "p\u{0}w" }),
    ] {
        let reply = admin.post("/api/v2/users/").json(&body).call();
        if reply.status >= 500 {
            failures.push(format!(
                "POST users {body}: {} {}",
                reply.status, reply.body
            ));
        }
    }
    let reply = server.as_user("ad\u{0}min", "pw").get("/api/v2/me/").call();
    if reply.status != 401 {
        failures.push(format!(
            "Basic with a NUL username: {} {}",
            reply.status, reply.body
        ));
    }
    let reply = server.login_attempt(&server.client(), "ad\u{0}min", "pw", Some("/api/"));
    if reply.status != 401 {
        failures.push(format!(
            "login form with a NUL username: {} {}",
            reply.status, reply.body
        ));
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

//! Contract §3: a token whose scope lacks `write` may only read. Every other method answers 403
//! before any other check (validation, 404, 405), superusers included, and
//! `user_capabilities` are all false. Sessions and Basic are never masked.

use acs_tests::{Backend, Call, TestServer, backend_tests};
use serde_json::{Value, json};

backend_tests!(
    read_token_refuses_every_unsafe_method_first,
    read_token_reads_with_capabilities_off,
    write_token_has_the_users_full_rights,
    bearer_requests_skip_csrf,
);

const DENIED: &str = "You do not have permission to perform this action.";

fn read_token_refuses_every_unsafe_method_first(backend: Backend) {
    let server = TestServer::start(backend);
    let reader = server
        .anonymous()
        .with_bearer(&server.admin().personal_token("read"));
    let own = reader.get_json("/api/v2/tokens/")["results"][0]["id"].clone();
    let cases = [
        // A valid creation.
        (
            reader
                .post("/api/v2/organizations/")
                .json(&json!({ "name": "x" })),
            "create",
        ),
        // An invalid body would be 400 without the mask.
        (
            reader.post("/api/v2/users/").json(&json!({})),
            "invalid create",
        ),
        // A missing object would be 404.
        (
            reader.patch("/api/v2/users/999999/").json(&json!({})),
            "missing object",
        ),
        // A method the resource does not serve would be 405.
        (reader.delete("/api/v2/me/"), "unserved method"),
        (
            reader
                .put(&format!("/api/v2/tokens/{own}/"))
                .json(&json!({})),
            "own token update",
        ),
        (
            reader.delete(&format!("/api/v2/tokens/{own}/")),
            "own token revoke",
        ),
        (reader.post("/api/v2/tokens/").json(&json!({})), "new token"),
        (
            reader
                .patch("/api/v2/settings/authentication/")
                .json(&json!({ "SESSIONS_PER_USER": 3 })),
            "settings",
        ),
    ];
    for (request, name) in cases {
        let reply = request.call();
        assert_eq!(reply.status, 403, "{name}: {}", reply.body);
        assert_eq!(reply.detail(), DENIED, "{name}");
    }
    // Nothing changed.
    assert_eq!(server.admin().get_json("/api/v2/tokens/")["count"], 1);
    assert_eq!(
        server.admin().get_json("/api/v2/organizations/")["count"],
        0
    );
}

fn all_capabilities(page: &Value) -> Vec<(bool, bool)> {
    page["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|record| {
            let caps = &record["summary_fields"]["user_capabilities"];
            (
                caps["edit"].as_bool().expect("edit"),
                caps["delete"].as_bool().expect("delete"),
            )
        })
        .collect()
}

fn read_token_reads_with_capabilities_off(backend: Backend) {
    let server = TestServer::start(backend);
    server.create_organization("reads");
    server.create_user("someone", "pw-someone-1", false);
    let reader = server
        .anonymous()
        .with_bearer(&server.admin().personal_token("read"));
    for path in ["/api/v2/users/", "/api/v2/organizations/", "/api/v2/me/"] {
        let page = reader.get_json(path);
        let caps = all_capabilities(&page);
        assert!(!caps.is_empty(), "{path}");
        assert!(
            caps.iter().all(|c| *c == (false, false)),
            "{path}: {caps:?}"
        );
    }
    // OPTIONS is safe, and offers no write action.
    let meta = reader.options("/api/v2/users/").call().expect(200).json();
    assert!(meta["actions"].get("POST").is_none(), "{meta}");
    // The same superuser over Basic is not masked.
    let caps = all_capabilities(&server.admin().get_json("/api/v2/organizations/"));
    assert_eq!(caps, [(true, true)]);
}

fn write_token_has_the_users_full_rights(backend: Backend) {
    let server = TestServer::start(backend);
    for scope in ["write", "read write", "write read"] {
        let writer = server
            .anonymous()
            .with_bearer(&server.admin().personal_token(scope));
        let org = writer
            .post("/api/v2/organizations/")
            .json(&json!({ "name": format!("by {scope}") }))
            .call()
            .expect(201)
            .json();
        assert_eq!(org["summary_fields"]["user_capabilities"]["edit"], true);
        writer
            .delete(&format!("/api/v2/organizations/{}/", org["id"]))
            .call()
            .expect(204);
    }
    // A write token never exceeds its user's rights.
    server.create_user("plain", "pw-plain-1", false);
    let plain = server.anonymous().with_bearer(
        &server
            .as_user("plain", "pw-plain-1")
            .personal_token("write"),
    );
    plain
        .post("/api/v2/organizations/")
        .json(&json!({ "name": "nope" }))
        .call()
        .expect(403);
}

fn bearer_requests_skip_csrf(backend: Backend) {
    let server = TestServer::start(backend);
    let token = server.admin().personal_token("write");
    // A cookie jar (as a browser has) without a CSRF header: bearer is never CSRF-checked.
    let browser = server.client().with_bearer(&token);
    browser
        .post("/api/v2/organizations/")
        .json(&json!({ "name": "no csrf" }))
        .call()
        .expect(201);
}

//! Discovery (`/api/`, `/api/v2/`, ping), unknown paths, and the headers every response carries.

use acs_tests::{Backend, Call, Reply, TestServer, backend_tests, is_total_time};
use serde_json::Value;

backend_tests!(
    api_root_is_anonymous_and_sets_csrf_cookie,
    api_v2_root_maps_names_to_api_paths,
    ping_is_anonymous,
    unknown_api_path_is_404_with_detail,
    gateway_and_root_token_paths_are_404,
    every_response_carries_request_id_and_timing,
    client_request_id_is_echoed,
    garbage_request_id_is_replaced,
);

fn api_root_is_anonymous_and_sets_csrf_cookie(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = server.anonymous().get("/api/").call().expect(200);
    let body = reply.json();
    assert_eq!(body["available_versions"]["v2"], "/api/v2/", "{body}");
    assert_eq!(body["current_version"], "/api/v2/", "{body}");
    let csrf = reply
        .set_cookie("csrftoken")
        .expect("GET /api/ sets csrftoken");
    assert!(!csrf.value.is_empty(), "{}", csrf.raw);
    assert_eq!(
        csrf.attribute("SameSite").as_deref(),
        Some("Lax"),
        "{}",
        csrf.raw
    );
    assert!(
        !csrf.has("HttpOnly"),
        "awxkit and browsers read csrftoken: {}",
        csrf.raw
    );
    assert!(!csrf.has("Secure"), "no Secure on plain http: {}", csrf.raw);
}

fn api_v2_root_maps_names_to_api_paths(backend: Backend) {
    let server = TestServer::start(backend);
    let body = server.anonymous().get("/api/v2/").call().expect(200).json();
    let map = body.as_object().expect("an object");
    assert!(!map.is_empty());
    for (name, path) in map {
        let path = path
            .as_str()
            .unwrap_or_else(|| panic!("{name}: not a string: {path}"));
        assert!(path.starts_with("/api/"), "{name} -> {path}");
    }
    for name in ["users", "me", "ping", "organizations"] {
        assert!(map.contains_key(name), "{name} missing from {body}");
    }
    assert_eq!(body["users"], "/api/v2/users/");
}

fn ping_is_anonymous(backend: Backend) {
    let server = TestServer::start(backend);
    let body = server
        .anonymous()
        .get("/api/v2/ping/")
        .call()
        .expect(200)
        .json();
    assert!(body.is_object(), "{body}");
    // The reference's fields: this node, alive by its heartbeat, alone.
    let node = body["active_node"].as_str().expect("the active node");
    assert!(!node.is_empty(), "{body}");
    assert_eq!(body["ha"], false, "{body}");
    let instances = body["instances"].as_array().expect("instances");
    assert_eq!(instances.len(), 1, "{body}");
    assert_eq!(instances[0]["node"], node, "{body}");
    assert_eq!(instances[0]["version"], body["version"], "{body}");
    assert!(
        instances[0]["capacity"].as_i64().is_some_and(|c| c > 0),
        "{body}"
    );
    assert!(instances[0]["heartbeat"].is_string(), "{body}");
    assert_eq!(
        body["instance_groups"][0]["instances"],
        serde_json::json!([node]),
        "{body}"
    );
    assert_eq!(
        body["instance_groups"][0]["capacity"], instances[0]["capacity"],
        "{body}"
    );
}

fn unknown_api_path_is_404_with_detail(backend: Backend) {
    let server = TestServer::start(backend);
    for agent in [server.anonymous(), server.admin()] {
        let reply = agent.get("/api/v2/nope/").call().expect(404);
        assert!(!reply.detail().is_empty());
    }
    let reply = server.admin().get("/api/nope/").call().expect(404);
    assert!(!reply.detail().is_empty());
}

fn gateway_and_root_token_paths_are_404(backend: Backend) {
    // Devel awxkit tries these first and falls back only on an exact 404.
    let server = TestServer::start(backend);
    let anonymous = server.anonymous();
    anonymous
        .post("/api/gateway/v1/tokens/")
        .json(&serde_json::json!({}))
        .call()
        .expect(404);
    anonymous.get("/api/gateway/v1/tokens/").call().expect(404);
    anonymous
        .post("/o/token/")
        .form(&[("grant_type", "client_credentials")])
        .call()
        .expect(404);
    anonymous.get("/o/token/").call().expect(404);
    server
        .admin()
        .post("/api/gateway/v1/tokens/")
        .json(&serde_json::json!({}))
        .call()
        .expect(404);
}

fn assert_standard_headers(reply: &Reply) {
    let id = reply
        .header("x-api-request-id")
        .unwrap_or_else(|| panic!("{} {}: no X-API-Request-Id", reply.method, reply.url));
    assert!(!id.is_empty());
    let time = reply
        .header("x-api-total-time")
        .unwrap_or_else(|| panic!("{} {}: no X-API-Total-Time", reply.method, reply.url));
    assert!(
        is_total_time(&time),
        "{} {}: X-API-Total-Time {time:?}",
        reply.method,
        reply.url
    );
    let exposed = reply
        .header("access-control-expose-headers")
        .unwrap_or_default();
    assert!(
        exposed
            .split(',')
            .any(|h| h.trim().eq_ignore_ascii_case("X-API-Request-Id")),
        "{} {}: Access-Control-Expose-Headers {exposed:?}",
        reply.method,
        reply.url
    );
}

fn every_response_carries_request_id_and_timing(backend: Backend) {
    let server = TestServer::start(backend);
    let anonymous = server.anonymous();
    let replies = [
        anonymous.get("/api/").call().expect(200),
        anonymous.get("/api/v2/").call().expect(200),
        anonymous.get("/api/v2/me/").call().expect(401),
        anonymous.get("/api/v2/nope/").call().expect(404),
        anonymous.get("/api/login/").call().expect(200),
        server.admin().get("/api/v2/me/").call().expect(200),
        server
            .admin()
            .put("/api/v2/users/")
            .json(&serde_json::json!({}))
            .call()
            .expect(405),
        server
            .admin()
            .post("/api/v2/users/")
            .json(&serde_json::json!({}))
            .call()
            .expect(400),
    ];
    for reply in &replies {
        assert_standard_headers(reply);
    }
    let first = replies[0].header("x-api-request-id");
    let second = replies[1].header("x-api-request-id");
    assert_ne!(first, second, "request ids are per request");
}

fn is_hex_uuid(text: &str) -> bool {
    let hex: String = text.chars().filter(|c| *c != '-').collect();
    hex.len() == 32 && hex.chars().all(|c| c.is_ascii_hexdigit())
}

fn client_request_id_is_echoed(backend: Backend) {
    let server = TestServer::start(backend);
    let sent = "3f0c2ad1b8e54b7f9a0e6c1d2b3a4f5e";
    let reply = server
        .anonymous()
        .get("/api/v2/")
        .header("X-API-Request-Id", sent)
        .call()
        .expect(200);
    assert_eq!(reply.header("x-api-request-id").as_deref(), Some(sent));

    // The dashed form comes back exactly as sent, dashes and case included.
    for dashed in [
        "3f0c2ad1-b8e5-4b7f-9a0e-6c1d2b3a4f5e",
        "3F0C2AD1-B8E5-4B7F-9A0E-6C1D2B3A4F5E",
    ] {
        let reply = server
            .anonymous()
            .get("/api/v2/")
            .header("X-API-Request-Id", dashed)
            .call()
            .expect(200);
        assert_eq!(reply.header("x-api-request-id").as_deref(), Some(dashed));
    }
}

fn garbage_request_id_is_replaced(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = server
        .anonymous()
        .get("/api/v2/")
        .header("X-API-Request-Id", "not-a-uuid<script>")
        .call()
        .expect(200);
    let id = reply.header("x-api-request-id").unwrap_or_default();
    assert_ne!(id, "not-a-uuid<script>");
    assert!(is_hex_uuid(&id), "replacement id {id:?}");
    let _: Value = reply.json();
}

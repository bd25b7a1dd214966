//! `/api/v2/settings/`: categories, defaults, validation, who may read and write, and settings
//! taking effect.

use acs_tests::{Backend, Call, SESSION_COOKIE, TestServer, backend_tests};
use serde_json::{Value, json};

backend_tests!(
    categories_are_listed,
    authentication_defaults,
    session_cookie_age_below_minimum_is_400,
    unknown_oauth2_provider_key_is_400,
    invalid_cors_regex_is_400,
    unknown_setting_is_400,
    rejected_patch_changes_nothing,
    normal_user_gets_403,
    anonymous_gets_401,
    unknown_category_is_404,
    valid_patch_is_read_back_and_used_by_the_next_login,
    delete_restores_defaults,
);

const AUTHENTICATION: &str = "/api/v2/settings/authentication/";

fn categories_are_listed(backend: Backend) {
    let server = TestServer::start(backend);
    let body = server.admin().get_json("/api/v2/settings/");
    let results = body["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results in {body}"));
    assert_eq!(body["count"].as_u64(), Some(results.len() as u64), "{body}");
    for slug in ["authentication", "system", "jobs"] {
        let category = results
            .iter()
            .find(|c| c["slug"] == slug)
            .unwrap_or_else(|| panic!("category {slug} missing from {body}"));
        assert_eq!(
            category["url"],
            format!("/api/v2/settings/{slug}/"),
            "{category}"
        );
        assert!(
            category["name"].as_str().is_some_and(|n| !n.is_empty()),
            "{category}"
        );
        server
            .admin()
            .get(&format!("/api/v2/settings/{slug}/"))
            .call()
            .expect(200);
    }
}

fn authentication_defaults(backend: Backend) {
    let server = TestServer::start(backend);
    let body = server.admin().get_json(AUTHENTICATION);
    assert_eq!(body["AUTH_BASIC_ENABLED"], true, "{body}");
    assert_eq!(body["SESSION_COOKIE_AGE"], 1800, "{body}");
    assert_eq!(body["SESSIONS_PER_USER"], -1, "{body}");
    assert_eq!(body["ALLOW_OAUTH2_FOR_EXTERNAL_USERS"], false, "{body}");
    assert!(body["OAUTH2_PROVIDER"].is_object(), "{body}");
    assert_eq!(body["CORS_ALLOWED_ORIGIN_REGEXES"], json!([]), "{body}");
}

fn patch(server: &TestServer, body: &Value) -> acs_tests::Reply {
    server.admin().patch(AUTHENTICATION).json(body).call()
}

fn session_cookie_age_below_minimum_is_400(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = patch(&server, &json!({ "SESSION_COOKIE_AGE": 30 })).expect(400);
    assert!(!reply.field_errors("SESSION_COOKIE_AGE").is_empty());
    patch(&server, &json!({ "SESSION_COOKIE_AGE": "soon" })).expect(400);
    assert_eq!(
        server.admin().get_json(AUTHENTICATION)["SESSION_COOKIE_AGE"],
        1800
    );
}

fn unknown_oauth2_provider_key_is_400(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = patch(&server, &json!({ "OAUTH2_PROVIDER": { "NOPE": 1 } })).expect(400);
    assert!(
        reply.body.contains("Invalid key names: NOPE"),
        "{}",
        reply.body
    );
    assert!(!reply.field_errors("OAUTH2_PROVIDER").is_empty());
    patch(
        &server,
        &json!({ "OAUTH2_PROVIDER": { "ACCESS_TOKEN_EXPIRE_SECONDS": 0 } }),
    )
    .expect(400);
    patch(
        &server,
        &json!({ "OAUTH2_PROVIDER": { "ACCESS_TOKEN_EXPIRE_SECONDS": 3600 } }),
    )
    .expect(200);
}

fn invalid_cors_regex_is_400(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = patch(&server, &json!({ "CORS_ALLOWED_ORIGIN_REGEXES": ["("] })).expect(400);
    assert!(!reply.field_errors("CORS_ALLOWED_ORIGIN_REGEXES").is_empty());
    let ok = patch(
        &server,
        &json!({ "CORS_ALLOWED_ORIGIN_REGEXES": ["^https://app\\.example$"] }),
    )
    .expect(200);
    assert_eq!(
        ok.json()["CORS_ALLOWED_ORIGIN_REGEXES"],
        json!(["^https://app\\.example$"])
    );
}

fn unknown_setting_is_400(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = patch(&server, &json!({ "NOPE": 1 })).expect(400);
    assert!(reply.body.contains("NOPE"), "{}", reply.body);
    // A setting of another category is not part of this one.
    let reply = patch(&server, &json!({ "BASE_URL": "https://acs.example" })).expect(400);
    assert!(reply.body.contains("BASE_URL"), "{}", reply.body);
}

fn rejected_patch_changes_nothing(backend: Backend) {
    let server = TestServer::start(backend);
    patch(
        &server,
        &json!({ "SESSION_COOKIE_AGE": 600, "SESSIONS_PER_USER": -5 }),
    )
    .expect(400);
    let body = server.admin().get_json(AUTHENTICATION);
    assert_eq!(body["SESSION_COOKIE_AGE"], 1800, "{body}");
    assert_eq!(body["SESSIONS_PER_USER"], -1, "{body}");
}

fn normal_user_gets_403(backend: Backend) {
    let server = TestServer::start(backend);
    server.create_user("plain", "pw-plain", false);
    let agent = server.as_user("plain", "pw-plain");
    agent.get(AUTHENTICATION).call().expect(403);
    agent
        .patch(AUTHENTICATION)
        .json(&json!({ "AUTH_BASIC_ENABLED": false }))
        .call()
        .expect(403);
    agent.delete(AUTHENTICATION).call().expect(403);
    assert_eq!(
        server.admin().get_json(AUTHENTICATION)["AUTH_BASIC_ENABLED"],
        true
    );
}

fn anonymous_gets_401(backend: Backend) {
    let server = TestServer::start(backend);
    server.anonymous().get(AUTHENTICATION).call().expect(401);
    server
        .anonymous()
        .get("/api/v2/settings/")
        .call()
        .expect(401);
}

fn unknown_category_is_404(backend: Backend) {
    let server = TestServer::start(backend);
    server
        .admin()
        .get("/api/v2/settings/nope/")
        .call()
        .expect(404);
    server
        .admin()
        .patch("/api/v2/settings/nope/")
        .json(&json!({ "X": 1 }))
        .call()
        .expect(404);
}

fn valid_patch_is_read_back_and_used_by_the_next_login(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = patch(&server, &json!({ "SESSION_COOKIE_AGE": 600 })).expect(200);
    assert_eq!(reply.json()["SESSION_COOKIE_AGE"], 600);
    assert_eq!(
        server.admin().get_json(AUTHENTICATION)["SESSION_COOKIE_AGE"],
        600
    );

    let login = server.login(&server.client(), "admin", &server.admin_password);
    let session = login
        .reply
        .set_cookie(SESSION_COOKIE)
        .expect("session cookie");
    assert_eq!(
        session.attribute("Max-Age").as_deref(),
        Some("600"),
        "{}",
        session.raw
    );
    assert_eq!(
        login.reply.header("session-timeout").as_deref(),
        Some("600")
    );
}

fn delete_restores_defaults(backend: Backend) {
    let server = TestServer::start(backend);
    patch(
        &server,
        &json!({ "SESSION_COOKIE_AGE": 600, "SESSIONS_PER_USER": 3 }),
    )
    .expect(200);
    let reply = server.admin().delete(AUTHENTICATION).call().expect(204);
    assert!(reply.body.is_empty(), "{}", reply.body);
    let body = server.admin().get_json(AUTHENTICATION);
    assert_eq!(body["SESSION_COOKIE_AGE"], 1800, "{body}");
    assert_eq!(body["SESSIONS_PER_USER"], -1, "{body}");
    assert_eq!(body["AUTH_BASIC_ENABLED"], true, "{body}");
}

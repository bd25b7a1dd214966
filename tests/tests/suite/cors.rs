//! Cross-origin requests (contract §4, reference §5): the live `CORS_ALLOWED_ORIGIN_REGEXES`
//! setting decides which origins get `Access-Control-Allow-Origin`; every preflight gets an
//! empty 200 before authentication, allowed or not. On SQLite and PostgreSQL.

use acs_tests::{Backend, Call, Reply, TestServer, backend_tests};
use serde_json::json;

backend_tests!(
    nothing_is_allowed_by_default,
    allowed_origins_follow_the_live_setting,
);

const ALLOWED: &str = "https://app.example.com";

fn preflight(server: &TestServer, path: &str, origin: Option<&str>) -> Reply {
    let mut request = server
        .anonymous()
        .options(path)
        .header("Access-Control-Request-Method", "POST")
        .header(
            "Access-Control-Request-Headers",
            "authorization, content-type",
        );
    if let Some(origin) = origin {
        request = request.header("Origin", origin);
    }
    request.call().expect(200)
}

fn varies_by_origin(reply: &Reply) -> bool {
    reply
        .headers
        .get_all("vary")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| {
            v.split(',')
                .any(|part| part.trim().eq_ignore_ascii_case("origin"))
        })
}

fn nothing_is_allowed_by_default(backend: Backend) {
    let server = TestServer::start(backend);
    for path in ["/api/o/token/", "/api/v2/users/", "/api/v2/me/"] {
        let reply = preflight(&server, path, Some(ALLOWED));
        assert!(reply.body.is_empty(), "{path}: {}", reply.body);
        assert!(
            reply.header("access-control-allow-origin").is_none(),
            "{path}"
        );
        assert!(varies_by_origin(&reply), "{path}");
    }
    // Without an Origin header too.
    preflight(&server, "/api/v2/users/", None);
    let ping = server
        .anonymous()
        .get("/api/v2/ping/")
        .header("Origin", ALLOWED)
        .call()
        .expect(200);
    assert!(ping.header("access-control-allow-origin").is_none());
    assert!(varies_by_origin(&ping));
}

fn allowed_origins_follow_the_live_setting(backend: Backend) {
    let server = TestServer::start(backend);
    let set = |patterns: serde_json::Value| {
        server
            .admin()
            .patch("/api/v2/settings/authentication/")
            .json(&json!({ "CORS_ALLOWED_ORIGIN_REGEXES": patterns }))
            .call()
            .expect(200);
    };
    set(json!([
        r"https://app\.example\.com$",
        r"http://localhost:\d+"
    ]));

    let allowed = preflight(&server, "/api/o/token/", Some(ALLOWED));
    assert_eq!(
        allowed.header("access-control-allow-origin").as_deref(),
        Some(ALLOWED)
    );
    assert_eq!(
        allowed.header("access-control-allow-methods").as_deref(),
        Some("DELETE, GET, OPTIONS, PATCH, POST, PUT")
    );
    let headers = allowed
        .header("access-control-allow-headers")
        .expect("allowed headers");
    for name in ["authorization", "content-type", "x-csrftoken"] {
        assert!(headers.contains(name), "{headers}");
    }
    assert_eq!(
        allowed.header("access-control-max-age").as_deref(),
        Some("86400")
    );
    assert!(allowed.header("access-control-allow-credentials").is_none());
    assert!(allowed.body.is_empty());

    for refused in [
        "https://app.example.com.evil.example",
        "https://evil.example",
        "null",
    ] {
        let reply = preflight(&server, "/api/o/token/", Some(refused));
        assert!(
            reply.header("access-control-allow-origin").is_none(),
            "{refused}"
        );
    }

    // Actual requests, answered or refused, carry the header for an allowed origin.
    let ping = server
        .anonymous()
        .get("/api/v2/ping/")
        .header("Origin", "http://localhost:3000")
        .call()
        .expect(200);
    assert_eq!(
        ping.header("access-control-allow-origin").as_deref(),
        Some("http://localhost:3000")
    );
    let token = server
        .anonymous()
        .post("/api/o/token/")
        .header("Origin", ALLOWED)
        .form(&[("grant_type", "password")])
        .call()
        .expect(401);
    assert_eq!(
        token.header("access-control-allow-origin").as_deref(),
        Some(ALLOWED)
    );
    let other = server
        .anonymous()
        .get("/api/v2/ping/")
        .header("Origin", "https://evil.example")
        .call()
        .expect(200);
    assert!(other.header("access-control-allow-origin").is_none());

    // Clearing the setting applies at once, without a restart.
    set(json!([]));
    let reply = preflight(&server, "/api/o/token/", Some(ALLOWED));
    assert!(reply.header("access-control-allow-origin").is_none());
    let ping = server
        .anonymous()
        .get("/api/v2/ping/")
        .header("Origin", ALLOWED)
        .call()
        .expect(200);
    assert!(ping.header("access-control-allow-origin").is_none());
}

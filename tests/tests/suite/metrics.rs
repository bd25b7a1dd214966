//! `GET /api/v2/metrics/`: Prometheus text for superusers only.

use acs_tests::{Backend, Call, TestServer, backend_tests};

fn superusers_read_prometheus_text(backend: Backend) {
    let server = TestServer::start(backend);
    server.create_user("mia", "mia-pw", false);
    let admin = server.admin();
    admin.get("/api/v2/me/").call().expect(200);
    let reply = admin.get("/api/v2/metrics/").call().expect(200);
    assert!(
        reply
            .header("content-type")
            .is_some_and(|t| t.starts_with("text/plain")),
        "{:?}",
        reply.header("content-type")
    );
    assert!(
        reply
            .body
            .contains("# TYPE acs_http_responses_total counter"),
        "{}",
        reply.body
    );
    assert!(reply.body.contains("acs_users 2\n"), "{}", reply.body);
    assert!(
        reply.body.contains("acs_organizations 0\n"),
        "{}",
        reply.body
    );
    let ok_responses: u64 = reply
        .body
        .lines()
        .find_map(|l| l.strip_prefix("acs_http_responses_total{status=\"2xx\"} "))
        .and_then(|n| n.parse().ok())
        .expect("a 2xx counter");
    assert!(ok_responses >= 1, "the GET /api/v2/me/ above was counted");
}

fn others_are_refused(backend: Backend) {
    let server = TestServer::start(backend);
    server.create_user("noah", "noah-pw", false);
    server
        .as_user("noah", "noah-pw")
        .get("/api/v2/metrics/")
        .call()
        .expect(403);
    server
        .anonymous()
        .get("/api/v2/metrics/")
        .call()
        .expect(401);
}

backend_tests!(superusers_read_prometheus_text, others_are_refused);

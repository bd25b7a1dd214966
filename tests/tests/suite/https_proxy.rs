//! HTTPS behind a reverse proxy: `X-Forwarded-Proto: https` counts only from an address in
//! `PROXY_IP_ALLOWED_LIST`; then cookies are `Secure`, `Strict-Transport-Security` is sent, and
//! unsafe session requests must name this site in `Origin` or `Referer`.

use acs_tests::{Backend, Call, Reply, TestServer, backend_tests};

/// Logs in as admin, claiming HTTPS through `X-Forwarded-Proto`, with `referer` if given.
fn login_claiming_https(server: &TestServer, referer: Option<String>) -> Reply {
    let agent = server.client();
    agent.get("/api/").call().expect(200);
    let csrf = agent.cookie("csrftoken").expect("csrftoken cookie");
    let mut request = agent
        .post("/api/login/")
        .header("X-CSRFToken", csrf)
        .header("X-Forwarded-Proto", "https")
        .form(&[
            ("username", "admin"),
            ("password", server.admin_password.as_str()),
        ]);
    if let Some(referer) = referer {
        request = request.header("Referer", referer);
    }
    request.call()
}

fn https_host(server: &TestServer) -> String {
    server.base.replace("http://", "https://")
}

fn forwarded_proto_from_an_untrusted_peer_is_ignored(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = login_claiming_https(&server, None).expect(302);
    let session = reply.set_cookie("acs_sessionid").expect("session cookie");
    assert!(
        !session.raw.to_ascii_lowercase().contains("secure"),
        "{}",
        session.raw
    );
    assert_eq!(reply.header("strict-transport-security"), None);
}

fn a_trusted_proxy_makes_cookies_secure(backend: Backend) {
    let server =
        TestServer::start_with(backend, &[("ACS_PROXY_IP_ALLOWED_LIST", "[\"127.0.0.1\"]")]);
    let referer = format!("{}/api/login/", https_host(&server));
    let reply = login_claiming_https(&server, Some(referer)).expect(302);
    let session = reply.set_cookie("acs_sessionid").expect("session cookie");
    assert!(
        session.raw.to_ascii_lowercase().contains("secure"),
        "{}",
        session.raw
    );
    assert!(
        session.raw.to_ascii_lowercase().contains("httponly"),
        "{}",
        session.raw
    );
    assert_eq!(
        reply.header("strict-transport-security").as_deref(),
        Some("max-age=31536000")
    );
}

fn https_requires_a_referer_or_origin(backend: Backend) {
    let server =
        TestServer::start_with(backend, &[("ACS_PROXY_IP_ALLOWED_LIST", "[\"127.0.0.1\"]")]);
    login_claiming_https(&server, None).expect(403);
    let foreign = "https://evil.example/api/login/".to_owned();
    login_claiming_https(&server, Some(foreign)).expect(403);
}

backend_tests!(
    forwarded_proto_from_an_untrusted_peer_is_ignored,
    a_trusted_proxy_makes_cookies_secure,
    https_requires_a_referer_or_origin,
);

//! HTTP Basic authentication, the generic 401, the `AUTH_BASIC_ENABLED` switch, and the
//! bounded queue of password checks.

use acs_tests::{Backend, Call, LOGIN_HINT, Reply, TestServer, WWW_AUTHENTICATE, backend_tests};
use serde_json::json;

backend_tests!(
    anonymous_me_is_401_with_login_hint,
    wrong_basic_password_is_the_generic_401,
    unknown_basic_user_is_the_generic_401,
    malformed_basic_headers_are_401,
    invalid_bearer_alone_is_the_generic_401,
    invalid_bearer_falls_through_to_the_session,
    admin_basic_me_shows_the_record_without_hash,
    basic_can_be_disabled_and_reenabled_through_a_session,
    ten_failed_basic_checks_throttle_the_username_everywhere,
    ten_failed_basic_checks_throttle_the_address,
    a_client_behind_a_proxy_cannot_escape_the_throttle_by_forging_its_address,
    password_checks_beyond_the_queue_are_refused_at_once,
    a_burst_of_first_logins_leaves_request_slots_to_the_rest,
);

#[track_caller]
fn assert_generic_401(reply: &Reply) {
    assert_eq!(
        reply.status, 401,
        "{} {}: {}",
        reply.method, reply.url, reply.body
    );
    let detail = reply.detail();
    assert!(detail.ends_with(LOGIN_HINT), "detail {detail:?}");
    assert_eq!(
        reply.header("www-authenticate").as_deref(),
        Some(WWW_AUTHENTICATE)
    );
}

fn anonymous_me_is_401_with_login_hint(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = server.anonymous().get("/api/v2/me/").call();
    assert_generic_401(&reply);
    assert_eq!(
        reply.detail(),
        "Authentication credentials were not provided. To establish a login session, visit /api/login/."
    );
}

fn wrong_basic_password_is_the_generic_401(backend: Backend) {
    let server = TestServer::start(backend);
    let anonymous = server.anonymous().get("/api/v2/me/").call();
    let reply = server
        .as_user("admin", "not-the-password")
        .get("/api/v2/me/")
        .call();
    assert_generic_401(&reply);
    assert_eq!(
        reply.detail(),
        anonymous.detail(),
        "bad credentials look like no credentials"
    );
}

fn unknown_basic_user_is_the_generic_401(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = server
        .as_user("nobody-here", "whatever")
        .get("/api/v2/me/")
        .call();
    assert_generic_401(&reply);
}

fn malformed_basic_headers_are_401(backend: Backend) {
    let server = TestServer::start(backend);
    // "bm9jb2xvbg==" is base64 of "nocolon".
    for header in [
        "Basic",
        "Basic !!!not-base64!!!",
        "Basic bm9jb2xvbg==",
        "Basic    ",
        "Digest abc",
    ] {
        let reply = server
            .anonymous()
            .get("/api/v2/me/")
            .header("Authorization", header)
            .call();
        assert_generic_401(&reply);
    }
}

fn invalid_bearer_alone_is_the_generic_401(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = server
        .anonymous()
        .get("/api/v2/me/")
        .header("Authorization", "Bearer garbage")
        .call();
    assert_generic_401(&reply);
}

fn invalid_bearer_falls_through_to_the_session(backend: Backend) {
    // One request carries one Authorization header, so "an invalid bearer falls through to
    // the others" is observable with a session cookie next to the bearer header.
    let server = TestServer::start(backend);
    let browser = server.client();
    server.login(&browser, "admin", &server.admin_password);
    let reply = browser
        .get("/api/v2/me/")
        .header("Authorization", "Bearer garbage")
        .call()
        .expect(200);
    assert_eq!(reply.json()["results"][0]["username"], "admin");
}

fn admin_basic_me_shows_the_record_without_hash(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = server.admin().get("/api/v2/me/").call().expect(200);
    let body = reply.json();
    assert_eq!(body["count"], 1, "{body}");
    let me = &body["results"][0];
    assert_eq!(me["username"], "admin");
    assert_eq!(me["is_superuser"], true);
    assert_eq!(me["type"], "user");
    assert_eq!(me["password"], "$encrypted$");
    assert!(
        !reply.body.contains("pbkdf2"),
        "the hash leaked: {}",
        reply.body
    );
}

fn basic_can_be_disabled_and_reenabled_through_a_session(backend: Backend) {
    let server = TestServer::start(backend);
    server
        .admin()
        .patch("/api/v2/settings/authentication/")
        .json(&json!({ "AUTH_BASIC_ENABLED": false }))
        .call()
        .expect(200);
    assert_generic_401(&server.admin().get("/api/v2/me/").call());

    let browser = server.client();
    let login = server.login(&browser, "admin", &server.admin_password);
    browser.get("/api/v2/me/").call().expect(200);
    let reply = browser
        .patch("/api/v2/settings/authentication/")
        .header("X-CSRFToken", &login.csrf)
        .json(&json!({ "AUTH_BASIC_ENABLED": true }))
        .call()
        .expect(200);
    assert_eq!(reply.json()["AUTH_BASIC_ENABLED"], true);
    server.admin().get("/api/v2/me/").call().expect(200);
}

/// The 429 of a throttled check: `Retry-After` within the five-minute window.
#[track_caller]
fn assert_throttled(reply: &Reply) {
    assert_eq!(
        reply.status, 429,
        "{} {}: {}",
        reply.method, reply.url, reply.body
    );
    let retry_after: i64 = reply
        .header("retry-after")
        .expect("a Retry-After header")
        .parse()
        .expect("Retry-After in seconds");
    assert!(
        retry_after > 0 && retry_after <= 300,
        "Retry-After {retry_after}"
    );
}

fn ten_failed_basic_checks_throttle_the_username_everywhere(backend: Backend) {
    // Basic failures alone throttle (auth_session.rs shows form failures throttling Basic):
    // the right password is refused afterwards, by Basic, the login form and the password
    // grant alike, and the principal cache of an earlier success does not get around it.
    let server = TestServer::start(backend);
    let organization = server.create_organization("Acme");
    let victim = server.create_user("victim", "right-password", false);
    server.add_member(organization, victim);
    let client = server.oauth_client(organization, "Client", "password", "confidential");
    let right = server.as_user("victim", "right-password");
    right.get("/api/v2/me/").call().expect(200);
    for attempt in 1..=10 {
        let reply = server
            .as_user("victim", "wrong-password")
            .get("/api/v2/me/")
            .call();
        assert_eq!(reply.status, 401, "attempt {attempt}: {}", reply.body);
    }
    assert_throttled(&right.get("/api/v2/me/").call());
    assert_throttled(&server.login_attempt(
        &server.client(),
        "victim",
        "right-password",
        Some("/api/"),
    ));
    let grant = client.token_request(
        &server,
        &[
            ("grant_type", "password"),
            ("username", "victim"),
            ("password", "right-password"),
        ],
    );
    assert_throttled(&grant);
    assert_eq!(grant.json()["error"], "invalid_grant", "{}", grant.body);
}

fn ten_failed_basic_checks_throttle_the_address(backend: Backend) {
    // Guesses spread over many usernames from one address are throttled too, for a user that
    // never failed.
    let server = TestServer::start(backend);
    server.create_user("bystander", "right-password", false);
    for attempt in 1..=10 {
        let reply = server
            .as_user(&format!("guess{attempt}"), "wrong-password")
            .get("/api/v2/me/")
            .call();
        assert_eq!(reply.status, 401, "attempt {attempt}: {}", reply.body);
    }
    assert_throttled(
        &server
            .as_user("guess11", "wrong-password")
            .get("/api/v2/me/")
            .call(),
    );
    assert_throttled(
        &server
            .as_user("bystander", "right-password")
            .get("/api/v2/me/")
            .call(),
    );
}

/// Behind a trusted proxy the client's address is the right-most `X-Forwarded-For` entry the
/// proxy wrote, not the left-most, which the client writes itself: a client that varies the
/// left-most entry on every guess is still throttled as one address, while another client
/// behind the same proxy is not.
fn a_client_behind_a_proxy_cannot_escape_the_throttle_by_forging_its_address(backend: Backend) {
    let server =
        TestServer::start_with(backend, &[("ACS_PROXY_IP_ALLOWED_LIST", "[\"127.0.0.1\"]")]);
    server.create_user("bystander", "right-password", false);
    // What the proxy appends for the guesser; the part before it is the guesser's own.
    let forged = |attempt: usize| format!("192.0.2.{attempt}, 198.51.100.7");
    for attempt in 1..=10 {
        let reply = server
            .as_user(&format!("guess{attempt}"), "wrong-password")
            .get("/api/v2/me/")
            .header("X-Forwarded-For", forged(attempt))
            .call();
        assert_eq!(reply.status, 401, "attempt {attempt}: {}", reply.body);
    }
    assert_throttled(
        &server
            .as_user("bystander", "right-password")
            .get("/api/v2/me/")
            .header("X-Forwarded-For", forged(99))
            .call(),
    );
    // Another client behind the same proxy is its own address.
    server
        .as_user("bystander", "right-password")
        .get("/api/v2/me/")
        .header("X-Forwarded-For", "198.51.100.8")
        .call()
        .expect(200);
}

/// First-time Basic logins hash their passwords at most `ACS_PASSWORD_VERIFIERS` at a time,
/// at most `ACS_PASSWORD_QUEUE` more wait, and the rest are answered 503 with `Retry-After`
/// at once, counted against nobody: each of them logs in afterwards.
fn password_checks_beyond_the_queue_are_refused_at_once(backend: Backend) {
    let server = TestServer::start_with(
        backend,
        &[
            ("ACS_PASSWORD_HASH_ITERATIONS", "1000000"),
            ("ACS_PASSWORD_VERIFIERS", "1"),
            ("ACS_PASSWORD_QUEUE", "1"),
        ],
    );
    let users: Vec<String> = (0..4).map(|n| format!("burst{n}")).collect();
    for user in &users {
        server.create_user(user, "Burst-pass-1", false);
    }
    let barrier = std::sync::Barrier::new(users.len());
    let replies: Vec<Reply> = std::thread::scope(|scope| {
        let running: Vec<_> = users
            .iter()
            .map(|user| {
                let agent = server.as_user(user, "Burst-pass-1");
                let barrier = &barrier;
                scope.spawn(move || {
                    barrier.wait();
                    agent.get("/api/v2/me/").call()
                })
            })
            .collect();
        running
            .into_iter()
            .map(|thread| thread.join().expect("a login"))
            .collect()
    });
    let statuses: Vec<u16> = replies.iter().map(|reply| reply.status).collect();
    let refused: Vec<&Reply> = replies.iter().filter(|reply| reply.status == 503).collect();
    assert!(
        statuses.iter().filter(|status| **status == 200).count() >= 2,
        "one hashing and one waiting succeed: {statuses:?}"
    );
    assert!(!refused.is_empty(), "none refused: {statuses:?}");
    assert!(
        statuses.iter().all(|status| matches!(status, 200 | 503)),
        "{statuses:?}"
    );
    for reply in refused {
        assert_eq!(
            reply.header("retry-after").as_deref(),
            Some("1"),
            "{}",
            reply.body
        );
        assert!(
            reply.body.contains("Try again in a moment"),
            "{}",
            reply.body
        );
    }
    // Nothing was counted against them: each logs in now.
    for user in &users {
        server
            .as_user(user, "Burst-pass-1")
            .get("/api/v2/me/")
            .call()
            .expect(200);
    }
}

/// Waiting password checks hold request slots; a burst of first-time logins takes at most half
/// of them, so another request that needs one is served within its budget while the checks
/// take longer than it. (Before, the burst took both slots for a budget, then the logins
/// queued behind them took them for another, and the write beside them got 503.)
fn a_burst_of_first_logins_leaves_request_slots_to_the_rest(backend: Backend) {
    let server = TestServer::start_with(
        backend,
        &[
            ("ACS_PASSWORD_HASH_ITERATIONS", "6000000"),
            ("ACS_PASSWORD_VERIFIERS", "1"),
            ("ACS_DATABASE_POOL_SIZE", "2"),
            ("ACS_DATABASE_TIMEOUT_SECONDS", "1"),
        ],
    );
    // The admin authenticates by a token, so its own requests hash nothing.
    let mut command = server.management_command("create_oauth2_token");
    let created = command
        .args(["--user", "admin"])
        .output()
        .expect("create_oauth2_token runs");
    assert!(created.status.success(), "{created:?}");
    let token = String::from_utf8_lossy(&created.stdout).trim().to_owned();
    let admin = server.anonymous().with_bearer(&token);
    admin
        .post("/api/v2/users/")
        .json(&json!({"username": "slow", "password": "Slow-pass-1"}))
        .call()
        .expect(201);
    std::thread::scope(|scope| {
        // Four first logins of one user at once: none finds the password cached.
        for _ in 0..4 {
            let agent = server.as_user("slow", "Slow-pass-1");
            scope.spawn(move || {
                let status = agent.get("/api/v2/me/").call().status;
                assert!(matches!(status, 200 | 503), "{status}");
            });
        }
        // The logins have reached the server and hold what they hold.
        std::thread::sleep(std::time::Duration::from_millis(300));
        admin
            .post("/api/v2/organizations/")
            .json(&json!({"name": "served beside the logins"}))
            .call()
            .expect(201);
    });
}

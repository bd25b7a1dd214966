//! Changes made behind the server's back (by another server on the same database, a
//! management command or SQL) take effect within the consistency bound (100 ms), even though
//! the server caches authenticated principals and settings in memory and reads the change
//! counters off the request path. Each test measures the delay.

use std::time::Instant;

use acs_tests::{Backend, Call, TestServer, backend_tests, honoured_within_bound};

fn sql_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

fn deactivated_user_is_refused_within_the_bound(backend: Backend) {
    let server = TestServer::start(backend);
    server.create_user("carol", "carol-pw", false);
    let carol = server.as_user("carol", "carol-pw");
    carol.get("/api/v2/me/").call().expect(200);
    carol.get("/api/v2/me/").call().expect(200);

    server.execute_sql_now("UPDATE users SET is_active = FALSE WHERE username = 'carol'");
    honoured_within_bound(Instant::now(), 401, || {
        carol.get("/api/v2/me/").call().status
    });
}

fn password_changed_elsewhere_is_refused_within_the_bound(backend: Backend) {
    let server = TestServer::start(backend);
    server.create_user("dave", "old-pw", false);
    let old = server.as_user("dave", "old-pw");
    old.get("/api/v2/me/").call().expect(200);

    let hash =
        acs_oauth2::hash_password("new-pw", 1000, &ring::rand::SystemRandom::new()).expect("hash");
    server.execute_sql_now(&format!(
        "UPDATE users SET password = {} WHERE username = 'dave'",
        sql_quote(&hash)
    ));
    honoured_within_bound(Instant::now(), 401, || old.get("/api/v2/me/").call().status);
    let new = server.as_user("dave", "new-pw");
    new.get("/api/v2/me/").call().expect(200);
}

fn session_deleted_elsewhere_is_refused_within_the_bound(backend: Backend) {
    let server = TestServer::start(backend);
    let browser = server.client();
    server.login(&browser, "admin", &server.admin_password);
    browser.get("/api/v2/me/").call().expect(200);

    server.execute_sql_now("DELETE FROM sessions");
    honoured_within_bound(Instant::now(), 401, || {
        browser.get("/api/v2/me/").call().status
    });
}

fn settings_changed_elsewhere_apply_within_the_bound(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    admin.get("/api/v2/me/").call().expect(200);

    server.execute_sql_now(
        "INSERT INTO settings (key, value, modified) VALUES ('AUTH_BASIC_ENABLED', 'false', CURRENT_TIMESTAMP)",
    );
    honoured_within_bound(Instant::now(), 401, || {
        admin.get("/api/v2/me/").call().status
    });
}

fn membership_changed_elsewhere_applies_within_the_bound(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("acme");
    let erin = server.create_user("erin", "erin-pw", false);
    let as_erin = server.as_user("erin", "erin-pw");
    as_erin
        .get(&format!("/api/v2/organizations/{org}/"))
        .call()
        .expect(403);

    server.execute_sql_now(&format!(
        "INSERT INTO organization_roles (organization_id, user_id, role) VALUES ({org}, {erin}, 'member')"
    ));
    honoured_within_bound(Instant::now(), 200, || {
        as_erin
            .get(&format!("/api/v2/organizations/{org}/"))
            .call()
            .status
    });
}

fn application_deleted_elsewhere_is_refused_within_the_bound(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("acme");
    let client = server.oauth_client(org, "cli", "password", "confidential");
    let admin_password = server.admin_password.clone();
    let grant = || {
        client
            .token_request(
                &server,
                &[
                    ("grant_type", "password"),
                    ("username", "admin"),
                    ("password", &admin_password),
                ],
            )
            .status
    };
    assert_eq!(grant(), 200);
    assert_eq!(grant(), 200);

    server.execute_sql_now(&format!(
        "DELETE FROM applications WHERE id = {}",
        client.id
    ));
    honoured_within_bound(Instant::now(), 401, grant);
}

backend_tests!(
    application_deleted_elsewhere_is_refused_within_the_bound,
    deactivated_user_is_refused_within_the_bound,
    password_changed_elsewhere_is_refused_within_the_bound,
    session_deleted_elsewhere_is_refused_within_the_bound,
    settings_changed_elsewhere_apply_within_the_bound,
    membership_changed_elsewhere_applies_within_the_bound,
);

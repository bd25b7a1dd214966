//! Changes made behind the server's back (by another server on the same database, or by a
//! management command) take effect on the server's very next request, even though it caches
//! authenticated principals and settings in memory.

use acs_tests::{Backend, Call, TestServer, backend_tests};

fn sql_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

fn deactivated_user_is_refused_at_once(backend: Backend) {
    let server = TestServer::start(backend);
    server.create_user("carol", "carol-pw", false);
    let carol = server.as_user("carol", "carol-pw");
    carol.get("/api/v2/me/").call().expect(200);
    carol.get("/api/v2/me/").call().expect(200);

    server.execute_sql("UPDATE users SET is_active = FALSE WHERE username = 'carol'");
    carol.get("/api/v2/me/").call().expect(401);
}

fn password_changed_elsewhere_is_refused_at_once(backend: Backend) {
    let server = TestServer::start(backend);
    server.create_user("dave", "old-pw", false);
    let old = server.as_user("dave", "old-pw");
    old.get("/api/v2/me/").call().expect(200);

    let hash =
        acs_oauth2::hash_password("new-pw", 1000, &ring::rand::SystemRandom::new()).expect("hash");
    server.execute_sql(&format!(
        "UPDATE users SET password = {} WHERE username = 'dave'",
        sql_quote(&hash)
    ));
    old.get("/api/v2/me/").call().expect(401);
    let new = server.as_user("dave", "new-pw");
    new.get("/api/v2/me/").call().expect(200);
}

fn session_deleted_elsewhere_is_refused_at_once(backend: Backend) {
    let server = TestServer::start(backend);
    let browser = server.client();
    server.login(&browser, "admin", &server.admin_password);
    browser.get("/api/v2/me/").call().expect(200);

    server.execute_sql("DELETE FROM sessions");
    browser.get("/api/v2/me/").call().expect(401);
}

fn settings_changed_elsewhere_apply_at_once(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    admin.get("/api/v2/me/").call().expect(200);

    server.execute_sql(
        "INSERT INTO settings (key, value, modified) VALUES ('AUTH_BASIC_ENABLED', 'false', CURRENT_TIMESTAMP)",
    );
    admin.get("/api/v2/me/").call().expect(401);
}

fn membership_changed_elsewhere_applies_at_once(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("acme");
    let erin = server.create_user("erin", "erin-pw", false);
    let as_erin = server.as_user("erin", "erin-pw");
    as_erin
        .get(&format!("/api/v2/organizations/{org}/"))
        .call()
        .expect(403);

    server.execute_sql(&format!(
        "INSERT INTO organization_roles (organization_id, user_id, role) VALUES ({org}, {erin}, 'member')"
    ));
    as_erin
        .get(&format!("/api/v2/organizations/{org}/"))
        .call()
        .expect(200);
}

backend_tests!(
    deactivated_user_is_refused_at_once,
    password_changed_elsewhere_is_refused_at_once,
    session_deleted_elsewhere_is_refused_at_once,
    settings_changed_elsewhere_apply_at_once,
    membership_changed_elsewhere_applies_at_once,
);

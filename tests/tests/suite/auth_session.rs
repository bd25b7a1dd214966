//! Session login (spec §4.4, contract §3): the form, CSRF, cookies, redirects, logout, session
//! limits, the profile page and login throttling.

use acs_tests::{
    Agent, Backend, Call, Reply, SESSION_COOKIE, TestServer, backend_tests, percent_decode,
};
use serde_json::{Value, json};

backend_tests!(
    login_page_is_html_and_sets_csrf_cookie,
    login_page_refuses_json_only_clients,
    login_post_without_csrf_is_403,
    login_with_wrong_password_is_401_with_the_form,
    login_redirects_to_a_local_next,
    login_without_next_redirects_to_profile,
    login_ignores_an_external_next,
    login_sets_session_headers_and_cookies,
    session_authenticates_api_requests,
    session_unsafe_requests_need_the_csrf_header,
    basic_requests_are_never_csrf_checked,
    csrf_form_field_works_instead_of_the_header,
    logout_redirects_and_ends_the_session,
    sessions_per_user_evicts_the_oldest,
    session_cookie_age_sets_max_age,
    an_idle_session_is_refused_by_the_server_itself,
    profile_sends_anonymous_visitors_to_login,
    profile_shows_the_logged_in_user,
    ten_failed_logins_throttle_the_username,
);

fn post_login_form(
    server: &TestServer,
    agent: &Agent,
    form: &[(&str, &str)],
    csrf: Option<&str>,
) -> Reply {
    let mut request = agent
        .post("/api/login/")
        .header("Referer", server.url("/api/login/"))
        .form(form);
    if let Some(csrf) = csrf {
        request = request.header("X-CSRFToken", csrf);
    }
    request.call()
}

fn login_page_is_html_and_sets_csrf_cookie(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = server.anonymous().get("/api/login/").call().expect(200);
    let content_type = reply.header("content-type").unwrap_or_default();
    assert!(content_type.starts_with("text/html"), "{content_type}");
    assert!(reply.body.contains("<form"), "{}", reply.body);
    let csrf = reply
        .set_cookie("csrftoken")
        .expect("the login page sets csrftoken");
    assert!(!csrf.value.is_empty());
    assert!(!csrf.has("Secure"), "{}", csrf.raw);
}

fn login_page_refuses_json_only_clients(backend: Backend) {
    let server = TestServer::start(backend);
    server
        .anonymous()
        .get("/api/login/")
        .header("Accept", "application/json")
        .call()
        .expect(406);
    server
        .anonymous()
        .get("/api/login/")
        .header("Accept", "text/html")
        .call()
        .expect(200);
    server
        .anonymous()
        .get("/api/login/")
        .header("Accept", "*/*")
        .call()
        .expect(200);
}

fn login_post_without_csrf_is_403(backend: Backend) {
    let server = TestServer::start(backend);
    let form = [
        ("username", "admin"),
        ("password", server.admin_password.as_str()),
        ("next", "/api/"),
    ];

    // No cookie and no token.
    let fresh = server.client();
    let reply = post_login_form(&server, &fresh, &form, None).expect(403);
    assert!(reply.set_cookie(SESSION_COOKIE).is_none());

    // The cookie, but no token.
    let browser = server.client();
    browser.get("/api/").call().expect(200);
    post_login_form(&server, &browser, &form, None).expect(403);

    // A token that is not the cookie.
    post_login_form(
        &server,
        &browser,
        &form,
        Some("0123456789abcdef0123456789abcdef"),
    )
    .expect(403);
    browser.get("/api/v2/me/").call().expect(401);
}

fn login_with_wrong_password_is_401_with_the_form(backend: Backend) {
    let server = TestServer::start(backend);
    let browser = server.client();
    let reply = server
        .login_attempt(&browser, "admin", "wrong-password", Some("/api/"))
        .expect(401);
    assert!(
        reply
            .header("content-type")
            .unwrap_or_default()
            .starts_with("text/html")
    );
    assert!(
        reply
            .body
            .contains("Please enter a correct username and password"),
        "{}",
        reply.body
    );
    assert!(
        reply.set_cookie(SESSION_COOKIE).is_none(),
        "no session on failure"
    );
    browser.get("/api/v2/me/").call().expect(401);
}

fn login_redirects_to_a_local_next(backend: Backend) {
    let server = TestServer::start(backend);
    let login = server.login(&server.client(), "admin", &server.admin_password);
    assert_eq!(login.reply.location().as_deref(), Some("/api/"));
    assert!(login.reply.body.is_empty(), "{}", login.reply.body);
}

fn login_without_next_redirects_to_profile(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = server
        .login_attempt(&server.client(), "admin", &server.admin_password, None)
        .expect(302);
    assert_eq!(reply.location().as_deref(), Some("/accounts/profile/"));
}

fn login_ignores_an_external_next(backend: Backend) {
    let server = TestServer::start(backend);
    for next in ["https://evil.example/", "//evil.example/"] {
        let reply = server
            .login_attempt(
                &server.client(),
                "admin",
                &server.admin_password,
                Some(next),
            )
            .expect(302);
        assert_eq!(
            reply.location().as_deref(),
            Some("/accounts/profile/"),
            "next={next}"
        );
    }
}

fn login_sets_session_headers_and_cookies(backend: Backend) {
    let server = TestServer::start(backend);
    let login = server.login(&server.client(), "admin", &server.admin_password);
    let reply = &login.reply;
    assert_eq!(
        reply.header("x-api-session-cookie-name").as_deref(),
        Some(SESSION_COOKIE)
    );
    assert_eq!(reply.header("session-timeout").as_deref(), Some("1800"));

    let session = reply
        .set_cookie(SESSION_COOKIE)
        .expect("the session cookie is set");
    assert!(!session.value.is_empty());
    assert!(session.has("HttpOnly"), "{}", session.raw);
    assert_eq!(
        session.attribute("Max-Age").as_deref(),
        Some("1800"),
        "{}",
        session.raw
    );
    assert_eq!(
        session.attribute("SameSite").as_deref(),
        Some("Lax"),
        "{}",
        session.raw
    );
    assert_eq!(
        session.attribute("Path").as_deref(),
        Some("/"),
        "{}",
        session.raw
    );
    assert!(
        !session.has("Secure"),
        "no Secure over plain http: {}",
        session.raw
    );

    let logged_in = reply
        .set_cookie("userLoggedIn")
        .expect("userLoggedIn is set");
    assert_eq!(logged_in.value, "true");
    assert!(!logged_in.has("Secure"), "{}", logged_in.raw);

    let current = reply
        .set_cookie("current_user")
        .expect("current_user is set");
    let decoded = percent_decode(current.value.trim_matches('"'));
    let user: Value =
        serde_json::from_str(&decoded).unwrap_or_else(|e| panic!("current_user {decoded:?}: {e}"));
    assert_eq!(user["username"], "admin", "{user}");
    assert_eq!(user["type"], "user", "{user}");
    assert!(user["id"].is_i64(), "{user}");
    assert_eq!(
        user["url"],
        format!("/api/v2/users/{}/", user["id"]),
        "{user}"
    );

    for cookie in reply.set_cookies() {
        assert!(
            !cookie.has("Secure"),
            "no Secure over plain http: {}",
            cookie.raw
        );
    }
}

fn session_authenticates_api_requests(backend: Backend) {
    let server = TestServer::start(backend);
    let browser = server.client();
    server.login(&browser, "admin", &server.admin_password);
    let reply = browser.get("/api/v2/me/").call().expect(200);
    assert_eq!(reply.json()["results"][0]["username"], "admin");
    assert_eq!(reply.header("session-timeout").as_deref(), Some("1800"));
    // The sliding expiry re-arms the cookie.
    let session = reply
        .set_cookie(SESSION_COOKIE)
        .expect("the session cookie is re-armed");
    assert_eq!(
        session.attribute("Max-Age").as_deref(),
        Some("1800"),
        "{}",
        session.raw
    );
}

fn admin_id(server: &TestServer) -> i64 {
    server.admin().get_json("/api/v2/me/")["results"][0]["id"]
        .as_i64()
        .expect("admin id")
}

fn session_unsafe_requests_need_the_csrf_header(backend: Backend) {
    let server = TestServer::start(backend);
    let browser = server.client();
    let login = server.login(&browser, "admin", &server.admin_password);
    let path = format!("/api/v2/users/{}/", admin_id(&server));

    let reply = browser
        .patch(&path)
        .json(&json!({ "first_name": "Ada" }))
        .call()
        .expect(403);
    assert_eq!(reply.detail(), "CSRF Failed: CSRF token missing.");
    browser
        .patch(&path)
        .header("X-CSRFToken", "wrong-token-wrong-token-wrong-token")
        .json(&json!({ "first_name": "Ada" }))
        .call()
        .expect(403);
    assert_eq!(server.admin().get_json(&path)["first_name"], "");

    let reply = browser
        .patch(&path)
        .header("X-CSRFToken", &login.csrf)
        .json(&json!({ "first_name": "Ada" }))
        .call()
        .expect(200);
    assert_eq!(reply.json()["first_name"], "Ada");
}

fn basic_requests_are_never_csrf_checked(backend: Backend) {
    let server = TestServer::start(backend);
    // A Basic client that also holds a csrftoken cookie, as awxkit's does.
    let agent = server.client().with_basic("admin", &server.admin_password);
    agent.get("/api/").call().expect(200);
    assert!(agent.cookie("csrftoken").is_some());
    let path = format!("/api/v2/users/{}/", admin_id(&server));
    agent
        .patch(&path)
        .json(&json!({ "last_name": "Lovelace" }))
        .call()
        .expect(200);
    let id = agent
        .post("/api/v2/users/")
        .json(&json!({ "username": "basic-made", "password": "pw-basic-made" }))
        .call()
        .expect(201)
        .json()["id"]
        .as_i64()
        .expect("id");
    agent
        .delete(&format!("/api/v2/users/{id}/"))
        .call()
        .expect(204);
}

fn csrf_form_field_works_instead_of_the_header(backend: Backend) {
    let server = TestServer::start(backend);
    let browser = server.client();
    browser.get("/api/login/").call().expect(200);
    let csrf = browser.cookie("csrftoken").expect("csrftoken");
    let form = [
        ("username", "admin"),
        ("password", server.admin_password.as_str()),
        ("next", "/api/"),
        ("csrfmiddlewaretoken", csrf.as_str()),
    ];
    let reply = post_login_form(&server, &browser, &form, None).expect(302);
    assert_eq!(reply.location().as_deref(), Some("/api/"));
    browser.get("/api/v2/me/").call().expect(200);
}

fn logout_redirects_and_ends_the_session(backend: Backend) {
    let server = TestServer::start(backend);
    let browser = server.client();
    let login = server.login(&browser, "admin", &server.admin_password);
    browser.get("/api/v2/me/").call().expect(200);

    let reply = browser.get("/api/logout/").call().expect(302);
    assert_eq!(reply.location().as_deref(), Some("/api/"));
    browser.get("/api/v2/me/").call().expect(401);

    // The old cookie, replayed by someone who kept it, no longer works.
    let replay = server
        .anonymous()
        .get("/api/v2/me/")
        .header("Cookie", format!("{SESSION_COOKIE}={}", login.session))
        .call();
    assert_eq!(replay.status, 401, "{}", replay.body);
}

fn sessions_per_user_evicts_the_oldest(backend: Backend) {
    let server = TestServer::start_with(backend, &[("ACS_SESSIONS_PER_USER", "2")]);
    let browsers = [server.client(), server.client(), server.client()];
    for browser in &browsers {
        server.login(browser, "admin", &server.admin_password);
    }
    browsers[0].get("/api/v2/me/").call().expect(401);
    browsers[1].get("/api/v2/me/").call().expect(200);
    browsers[2].get("/api/v2/me/").call().expect(200);
    // Basic is not subject to the limit.
    server.admin().get("/api/v2/me/").call().expect(200);
}

fn session_cookie_age_sets_max_age(backend: Backend) {
    let server = TestServer::start_with(backend, &[("ACS_SESSION_COOKIE_AGE", "60")]);
    let browser = server.client();
    let login = server.login(&browser, "admin", &server.admin_password);
    let session = login
        .reply
        .set_cookie(SESSION_COOKIE)
        .expect("session cookie");
    assert_eq!(
        session.attribute("Max-Age").as_deref(),
        Some("60"),
        "{}",
        session.raw
    );
    assert_eq!(login.reply.header("session-timeout").as_deref(), Some("60"));
    let reply = browser.get("/api/v2/me/").call().expect(200);
    assert_eq!(reply.header("session-timeout").as_deref(), Some("60"));
}

/// `SESSION_COOKIE_AGE` is enforced by the server, not only by the cookie's `Max-Age`: a
/// session idle past its age is refused even when a client still sends the cookie.
fn an_idle_session_is_refused_by_the_server_itself(backend: Backend) {
    let server = TestServer::start_with(backend, &[("ACS_SESSION_COOKIE_AGE", "60")]);
    let browser = server.client();
    let login = server.login(&browser, "admin", &server.admin_password);
    let cookie = format!("{SESSION_COOKIE}={}", login.session);
    let with_cookie = || {
        server
            .anonymous()
            .get("/api/v2/me/")
            .header("Cookie", cookie.clone())
            .call()
    };
    with_cookie().expect(200);
    // Sixty idle seconds pass (the session's expiry moved into the past).
    server.execute_sql("UPDATE sessions SET expires = '2000-01-01 00:00:00'");
    with_cookie().expect(401);
    browser.get("/api/v2/me/").call().expect(401);
}

fn profile_sends_anonymous_visitors_to_login(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = server
        .anonymous()
        .get("/accounts/profile/")
        .call()
        .expect(302);
    assert_eq!(
        reply.location().as_deref(),
        Some("/api/login/?next=/accounts/profile/")
    );
}

fn profile_shows_the_logged_in_user(backend: Backend) {
    let server = TestServer::start(backend);
    server.create_user("grace", "pw-grace-123", false);
    let browser = server.client();
    server.login(&browser, "grace", "pw-grace-123");
    let reply = browser.get("/accounts/profile/").call().expect(200);
    assert!(
        reply
            .header("content-type")
            .unwrap_or_default()
            .starts_with("text/html")
    );
    assert!(reply.body.contains("grace"), "{}", reply.body);
}

fn ten_failed_logins_throttle_the_username(backend: Backend) {
    let server = TestServer::start(backend);
    server.create_user("victim", "right-password", false);
    let browser = server.client();
    for attempt in 1..=10 {
        let reply = server.login_attempt(&browser, "victim", "wrong-password", Some("/api/"));
        assert_eq!(reply.status, 401, "attempt {attempt}: {}", reply.body);
    }
    let reply = server
        .login_attempt(&browser, "victim", "right-password", Some("/api/"))
        .expect(429);
    let retry_after: i64 = reply
        .header("retry-after")
        .expect("a Retry-After header")
        .parse()
        .expect("Retry-After in seconds");
    assert!(
        retry_after > 0 && retry_after <= 300,
        "Retry-After {retry_after}"
    );
    assert!(reply.set_cookie(SESSION_COOKIE).is_none());

    let basic = server
        .as_user("victim", "right-password")
        .get("/api/v2/me/")
        .call()
        .expect(429);
    assert!(
        basic.header("retry-after").is_some(),
        "Basic 429 without Retry-After"
    );
}

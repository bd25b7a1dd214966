//! The account pages over HTTP (the browser tests drive the same pages in Chromium): who may
//! see them, and that each form does what the API does under the API's rules, with the
//! API's refusals shown in the page.

use acs_tests::{Agent, Backend, Call, Reply, TestServer, backend_tests, id_of};
use serde_json::json;

backend_tests!(
    pages_send_anonymous_visitors_and_api_credentials_to_login,
    pages_carry_the_security_headers,
    profile_token_form_creates_a_working_token_shown_once,
    profile_token_form_shows_the_api_refusal,
    page_forms_need_the_csrf_token,
    revoking_from_the_profile_stops_the_token,
    nobody_revokes_another_users_token_from_a_page,
    external_users_get_the_api_refusal_in_the_page,
    applications_page_creates_only_where_the_api_would,
    application_page_edits_and_deletes,
);

/// A logged-in browser for `username` with its CSRF token.
fn signed_in(server: &TestServer, username: &str, password: &str) -> (Agent, String) {
    let browser = server.client();
    let login = server.login(&browser, username, password);
    (browser, login.csrf)
}

/// Posts a page form with its CSRF field, as a browser on this site does.
fn post_form(
    server: &TestServer,
    browser: &Agent,
    path: &str,
    csrf: &str,
    fields: &[(&str, &str)],
) -> Reply {
    let mut form = vec![("csrfmiddlewaretoken", csrf)];
    form.extend_from_slice(fields);
    browser
        .post(path)
        .header("Origin", server.base.as_str())
        .form(&form)
        .call()
}

/// The `value` of the read-only input `id` in a page.
fn shown_value(page: &str, id: &str) -> String {
    let marker = format!("id=\"{id}\" class=\"copyable\" value=\"");
    let start = page
        .find(&marker)
        .unwrap_or_else(|| panic!("no #{id} in {page}"))
        + marker.len();
    let end = page[start..].find('"').expect("the value ends") + start;
    page[start..end].to_owned()
}

/// Creates a personal token through the profile page's form and returns its value.
fn token_from_form(server: &TestServer, browser: &Agent, csrf: &str) -> String {
    let reply = post_form(
        server,
        browser,
        "/accounts/profile/tokens/",
        csrf,
        &[("description", "from the page"), ("scope", "write")],
    )
    .expect(201);
    shown_value(&reply.body, "new-token")
}

fn pages_send_anonymous_visitors_and_api_credentials_to_login(backend: Backend) {
    let server = TestServer::start(backend);
    let token = server.admin().personal_token("write");
    for path in [
        "/accounts/profile/",
        "/accounts/applications/",
        "/accounts/applications/1/",
    ] {
        for agent in [
            server.anonymous(),
            server.anonymous().with_bearer(&token),
            server
                .anonymous()
                .with_basic("admin", &server.admin_password),
        ] {
            let reply = agent.get(path).call().expect(302);
            assert_eq!(
                reply.location().as_deref(),
                Some(format!("/api/login/?next={path}").as_str())
            );
        }
    }
    // A form post without a session changes nothing either.
    let reply = server
        .anonymous()
        .with_basic("admin", &server.admin_password)
        .post("/accounts/profile/tokens/")
        .form(&[("description", "sneaky"), ("scope", "write")])
        .call()
        .expect(302);
    assert!(
        reply
            .location()
            .unwrap_or_default()
            .starts_with("/api/login/")
    );
    assert_eq!(server.query_i64("SELECT COUNT(*) FROM access_tokens"), 1);
}

fn pages_carry_the_security_headers(backend: Backend) {
    let server = TestServer::start(backend);
    let (browser, _) = signed_in(&server, "admin", &server.admin_password);
    for path in [
        "/api/login/",
        "/accounts/profile/",
        "/accounts/applications/",
    ] {
        let reply = browser.get(path).call().expect(200);
        let csp = reply.header("content-security-policy").unwrap_or_default();
        for directive in [
            "default-src 'none'",
            "script-src 'self'",
            "frame-ancestors 'none'",
        ] {
            assert!(csp.contains(directive), "{path}: {csp}");
        }
        assert_eq!(
            reply.header("x-frame-options").as_deref(),
            Some("DENY"),
            "{path}"
        );
        assert_eq!(
            reply.header("x-content-type-options").as_deref(),
            Some("nosniff")
        );
        assert!(
            reply
                .header("cache-control")
                .unwrap_or_default()
                .contains("no-store"),
            "{path}: pages showing secrets must not be stored"
        );
        assert!(
            !reply.body.contains("<script>") && !reply.body.contains("style="),
            "{path}"
        );
    }
    let script = server.anonymous().get("/static/acs.js").call().expect(200);
    assert!(
        script
            .header("content-type")
            .unwrap_or_default()
            .starts_with("text/javascript")
    );
    // Every page links the icon browsers ask for anyway; it is served, not a 404.
    let icon = server.anonymous().get("/favicon.ico").call().expect(200);
    assert_eq!(icon.header("content-type").as_deref(), Some("image/x-icon"));
    assert_eq!(
        icon.header("content-length"),
        Some(acs_api::pages::FAVICON.len().to_string())
    );
    let login = server.anonymous().get("/api/login/").call().expect(200);
    assert!(
        login
            .body
            .contains(r#"<link rel="icon" href="/favicon.ico">"#),
        "{}",
        login.body
    );
}

fn profile_token_form_creates_a_working_token_shown_once(backend: Backend) {
    let server = TestServer::start(backend);
    server.create_user("ada", "pw-ada-12345", false);
    let (browser, csrf) = signed_in(&server, "ada", "pw-ada-12345");
    let reply = post_form(
        &server,
        &browser,
        "/accounts/profile/tokens/",
        &csrf,
        &[("description", "laptop <cli>"), ("scope", "read")],
    )
    .expect(201);
    let value = shown_value(&reply.body, "new-token");
    assert!(
        reply.body.contains("laptop &lt;cli&gt;"),
        "escaped description listed"
    );
    assert_eq!(server.bearer_me_status(&value), 200);
    // A read token refuses writes, exactly as one created through the API.
    assert_eq!(server.bearer_write_status(&value), 403);
    let listed = browser.get_json("/api/v2/tokens/");
    assert_eq!(listed["count"], 1);
    assert_eq!(listed["results"][0]["scope"], "read");
    assert_eq!(listed["results"][0]["description"], "laptop <cli>");
    assert!(listed["results"][0]["application"].is_null());
    // Shown once: the profile lists the token but never its value again.
    let page = browser.get("/accounts/profile/").call().expect(200);
    assert!(page.body.contains("laptop &lt;cli&gt;"));
    assert!(!page.body.contains(&value));
    let id = id_of(&listed["results"][0]);
    let activity = browser.get_json(&format!("/api/v2/tokens/{id}/activity_stream/"));
    assert_eq!(activity["results"][0]["operation"], "create");
}

fn profile_token_form_shows_the_api_refusal(backend: Backend) {
    let server = TestServer::start(backend);
    let (browser, csrf) = signed_in(&server, "admin", &server.admin_password);
    let long = "x".repeat(5000);
    for (fields, expected) in [
        (vec![("description", "d"), ("scope", "admin")], "Scope: "),
        (
            vec![("description", long.as_str()), ("scope", "read")],
            "Description: ",
        ),
    ] {
        let reply = post_form(
            &server,
            &browser,
            "/accounts/profile/tokens/",
            &csrf,
            &fields,
        )
        .expect(400);
        assert!(reply.body.contains("role=\"alert\""), "{}", reply.body);
        assert!(
            reply.body.contains(expected),
            "{expected} in {}",
            reply.body
        );
    }
    assert_eq!(server.query_i64("SELECT COUNT(*) FROM access_tokens"), 0);
}

fn page_forms_need_the_csrf_token(backend: Backend) {
    let server = TestServer::start(backend);
    let (browser, csrf) = signed_in(&server, "admin", &server.admin_password);
    let token = token_from_form(&server, &browser, &csrf);
    let forged = [
        ("/accounts/profile/tokens/", "wrong"),
        ("/accounts/profile/tokens/1/revoke/", ""),
        ("/accounts/applications/", "wrong"),
    ];
    for (path, sent) in forged {
        let reply = post_form(
            &server,
            &browser,
            path,
            sent,
            &[("description", "x"), ("scope", "write")],
        );
        assert_eq!(reply.status, 403, "{path}: {}", reply.body);
        assert!(reply.body.contains("CSRF verification failed"), "{path}");
    }
    // The right token from another site is refused too.
    let reply = browser
        .post("/accounts/profile/tokens/1/revoke/")
        .header("Origin", "https://evil.example")
        .form(&[("csrfmiddlewaretoken", csrf.as_str())])
        .call();
    assert_eq!(reply.status, 403);
    assert_eq!(server.bearer_me_status(&token), 200);
    assert_eq!(server.query_i64("SELECT COUNT(*) FROM access_tokens"), 1);
}

fn revoking_from_the_profile_stops_the_token(backend: Backend) {
    let server = TestServer::start(backend);
    let (browser, csrf) = signed_in(&server, "admin", &server.admin_password);
    let token = token_from_form(&server, &browser, &csrf);
    let id = id_of(&browser.get_json("/api/v2/tokens/")["results"][0]);
    let reply = post_form(
        &server,
        &browser,
        &format!("/accounts/profile/tokens/{id}/revoke/"),
        &csrf,
        &[],
    )
    .expect(303);
    assert_eq!(
        reply.location().as_deref(),
        Some("/accounts/profile/?done=revoked")
    );
    assert_eq!(server.bearer_me_status(&token), 401);
    let page = browser
        .get("/accounts/profile/?done=revoked")
        .call()
        .expect(200);
    assert!(page.body.contains("The token was revoked."));
    assert!(page.body.contains("You have no personal tokens."));
    // Made-up notices are not echoed.
    let page = browser
        .get("/accounts/profile/?done=%3Cb%3Ehi")
        .call()
        .expect(200);
    assert!(!page.body.contains("role=\"status\""));
    // Revoking again: the page says the token is gone.
    let reply = post_form(
        &server,
        &browser,
        &format!("/accounts/profile/tokens/{id}/revoke/"),
        &csrf,
        &[],
    )
    .expect(404);
    assert!(
        reply.body.contains("No OAuth2AccessToken matches"),
        "{}",
        reply.body
    );
}

fn nobody_revokes_another_users_token_from_a_page(backend: Backend) {
    let server = TestServer::start(backend);
    server.create_user("alice", "pw-alice-123", false);
    server.create_user("mallory", "pw-mallory-1", false);
    let (alice, alice_csrf) = signed_in(&server, "alice", "pw-alice-123");
    let token = token_from_form(&server, &alice, &alice_csrf);
    let id = id_of(&alice.get_json("/api/v2/tokens/")["results"][0]);
    let (mallory, csrf) = signed_in(&server, "mallory", "pw-mallory-1");
    let reply = post_form(
        &server,
        &mallory,
        &format!("/accounts/profile/tokens/{id}/revoke/"),
        &csrf,
        &[],
    );
    assert_eq!(reply.status, 403, "{}", reply.body);
    assert_eq!(server.bearer_me_status(&token), 200);
    // A superuser may, as through the API.
    let (admin, admin_csrf) = signed_in(&server, "admin", &server.admin_password);
    post_form(
        &server,
        &admin,
        &format!("/accounts/profile/tokens/{id}/revoke/"),
        &admin_csrf,
        &[],
    )
    .expect(303);
    assert_eq!(server.bearer_me_status(&token), 401);
}

fn external_users_get_the_api_refusal_in_the_page(backend: Backend) {
    // A real directory user: an external account's local password never signs in.
    let directory = acs_tests::ldap::Directory::start();
    directory.add_user("ext", "pw-ext-12345", "Ext", "User", "ext@example.com");
    let server = TestServer::start(backend);
    directory.configure(&server);
    let (browser, csrf) = signed_in(&server, "ext", "pw-ext-12345");
    let reply = post_form(
        &server,
        &browser,
        "/accounts/profile/tokens/",
        &csrf,
        &[("description", "x"), ("scope", "read")],
    )
    .expect(403);
    assert!(reply.body.contains("role=\"alert\""), "{}", reply.body);
    assert!(
        reply.body.to_lowercase().contains("external"),
        "{}",
        reply.body
    );
    assert_eq!(server.query_i64("SELECT COUNT(*) FROM access_tokens"), 0);
}

fn applications_page_creates_only_where_the_api_would(backend: Backend) {
    let server = TestServer::start(backend);
    let mine = server.create_organization("Mine");
    let theirs = server.create_organization("Theirs");
    let boss = server.create_user("boss", "pw-boss-1234", false);
    server.add_admin(mine, boss);
    server.create_user("plain", "pw-plain-123", false);

    // A user who administers nothing gets no link and no form.
    let (plain, _) = signed_in(&server, "plain", "pw-plain-123");
    let profile = plain.get("/accounts/profile/").call().expect(200);
    assert!(!profile.body.contains("href=\"/accounts/applications/\""));
    let page = plain.get("/accounts/applications/").call().expect(200);
    assert!(page.body.contains("You administer no organization"));

    let (browser, csrf) = signed_in(&server, "boss", "pw-boss-1234");
    let page = browser.get("/accounts/applications/").call().expect(200);
    assert!(
        page.body
            .contains(&format!("<option value=\"{mine}\">Mine</option>"))
    );
    assert!(
        !page.body.contains("Theirs"),
        "only organizations the boss administers"
    );
    let fields = |org: String| {
        vec![
            ("name".to_owned(), "Portal".to_owned()),
            ("organization".to_owned(), org),
            (
                "authorization_grant_type".to_owned(),
                "authorization-code".to_owned(),
            ),
            ("client_type".to_owned(), "confidential".to_owned()),
            (
                "redirect_uris".to_owned(),
                "https://portal.example/cb".to_owned(),
            ),
        ]
    };
    let post = |org: String| {
        let mut form = vec![("csrfmiddlewaretoken".to_owned(), csrf.clone())];
        form.extend(fields(org));
        browser
            .post("/accounts/applications/")
            .header("Origin", server.base.as_str())
            .form(&form)
            .call()
    };
    // Another organization, chosen by editing the form: refused as the API refuses it.
    let refused = post(theirs.to_string()).expect(403);
    assert!(refused.body.contains("role=\"alert\""));
    assert_eq!(server.query_i64("SELECT COUNT(*) FROM applications"), 0);

    let created = post(mine.to_string()).expect(201);
    let client_id = shown_value(&created.body, "client-id");
    let secret = shown_value(&created.body, "client-secret");
    let app = &browser.get_json("/api/v2/applications/")["results"][0];
    assert_eq!(app["client_id"], client_id.as_str());
    assert_eq!(app["organization"], mine);
    // The secret shown works at the token endpoint (Basic client authentication).
    let reply = server
        .anonymous()
        .with_basic(&client_id, &secret)
        .post("/api/o/token/")
        .form(&[
            ("grant_type", "password"),
            ("username", "boss"),
            ("password", "pw-boss-1234"),
        ])
        .call();
    // The application uses the code grant: the client is authenticated, the grant refused.
    assert_eq!(reply.status, 400, "{}", reply.body);
    assert_eq!(reply.json()["error"], "unauthorized_client");

    // The same name again in the organization: the API's uniqueness message, in the page.
    let duplicate = post(mine.to_string()).expect(400);
    assert!(
        duplicate.body.contains("already exists"),
        "{}",
        duplicate.body
    );
    assert!(
        duplicate.body.contains("value=\"Portal\""),
        "the form keeps its values"
    );
    assert_eq!(server.query_i64("SELECT COUNT(*) FROM applications"), 1);
}

fn application_page_edits_and_deletes(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Org");
    let admin = server.admin();
    let app = admin
        .post("/api/v2/applications/")
        .json(&json!({
            "name": "Tool", "organization": org, "client_type": "public",
            "authorization_grant_type": "password", "redirect_uris": ""
        }))
        .call()
        .expect(201)
        .json();
    let id = id_of(&app);
    let token = admin
        .post(&format!("/api/v2/applications/{id}/tokens/"))
        .json(&json!({"scope": "read"}))
        .call()
        .expect(201)
        .json()["token"]
        .as_str()
        .expect("a token")
        .to_owned();
    server.create_user("plain", "pw-plain-123", false);
    let (plain, plain_csrf) = signed_in(&server, "plain", "pw-plain-123");
    let reply = plain.get(&format!("/accounts/applications/{id}/")).call();
    assert_eq!(reply.status, 403, "{}", reply.body);
    let reply = post_form(
        &server,
        &plain,
        &format!("/accounts/applications/{id}/delete/"),
        &plain_csrf,
        &[],
    );
    assert_eq!(reply.status, 403, "{}", reply.body);

    let (browser, csrf) = signed_in(&server, "admin", &server.admin_password);
    let page = browser
        .get(&format!("/accounts/applications/{id}/"))
        .call()
        .expect(200);
    assert!(
        page.body
            .contains(app["client_id"].as_str().expect("client id"))
    );
    let path = format!("/accounts/applications/{id}/");
    let refused = post_form(
        &server,
        &browser,
        &path,
        &csrf,
        &[("name", ""), ("client_type", "odd")],
    )
    .expect(400);
    assert!(
        refused.body.contains("Name: This field may not be blank."),
        "{}",
        refused.body
    );
    assert!(refused.body.contains("Client type: "), "{}", refused.body);
    assert!(
        refused.body.contains("<h1>Tool</h1>"),
        "the stored name stays the title"
    );
    let saved = post_form(
        &server,
        &browser,
        &path,
        &csrf,
        &[
            ("name", "Tool 2"),
            ("description", "d"),
            ("client_type", "confidential"),
            ("redirect_uris", ""),
            ("skip_authorization", "on"),
        ],
    )
    .expect(303);
    assert_eq!(
        saved.location().as_deref(),
        Some("/accounts/applications/?done=saved")
    );
    let record = browser.get_json(&format!("/api/v2/applications/{id}/"));
    assert_eq!(record["name"], "Tool 2");
    assert_eq!(record["client_type"], "confidential");
    assert_eq!(record["skip_authorization"], true);
    assert_eq!(record["authorization_grant_type"], "password");
    let changes = browser.get_json(&format!("/api/v2/applications/{id}/activity_stream/"));
    let operations: Vec<&str> = changes["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|entry| entry["operation"].as_str())
        .collect();
    assert_eq!(operations, ["create", "update"]);

    post_form(&server, &browser, &format!("{path}delete/"), &csrf, &[]).expect(303);
    browser
        .get(&format!("/api/v2/applications/{id}/"))
        .call()
        .expect(404);
    assert_eq!(
        server.bearer_me_status(&token),
        401,
        "the application's tokens went with it"
    );
    let gone = browser.get(&path).call().expect(404);
    assert!(gone.body.contains("No OAuth2Application matches"));
}

//! The pages end to end in headless Chromium: a personal token made, used and revoked; the
//! authorization-code flow through the consent page (and past it, for an application that
//! skips it) back to a client on another origin; applications managed by an organization
//! admin. Every page visited passes axe's WCAG 2.1 A/AA rules, does not scroll sideways at
//! phone size, and is saved as a screenshot (`tests/artifacts/browser/`).

use acs_oauth2::CodeChallenge;
use acs_tests::browser::Browser;
use acs_tests::client_site::ClientSite;
use acs_tests::oauth::{OAuthClient, authorize_path};
use acs_tests::{Backend, Call, TestServer, backend_tests, id_of, percent_decode};
use serde_json::json;

backend_tests!(
    personal_token_is_made_used_and_revoked_in_the_browser,
    authorization_code_flow_runs_through_the_consent_page,
    login_goes_straight_to_a_client_that_skips_consent,
    organization_admin_manages_applications_in_the_browser,
    a_person_browses_the_api,
);

const PASSWORD: &str = "pw-ada-12345";

fn sign_in(browser: &Browser, username: &str, password: &str) {
    browser.fill("#username", username);
    browser.fill("#password", password);
    browser.click_through("button[type=submit]");
}

/// Checks the page as it is now: no accessibility violations, no sideways scrolling on a
/// phone; saves `label.png` and `label-phone.png`.
fn check_page(browser: &Browser, label: &str) {
    let violations = browser.accessibility_violations();
    assert!(
        violations.is_empty(),
        "axe (WCAG 2.1 A/AA) on {} ({label}):\n{}",
        browser.path(),
        violations.join("\n")
    );
    browser.screenshot(label);
    browser.set_window_size(390, 844);
    assert!(
        !browser.overflows_horizontally(),
        "{} ({label}) scrolls sideways at 390x844",
        browser.path()
    );
    browser.screenshot(&format!("{label}-phone"));
    browser.set_window_size(1280, 900);
}

fn personal_token_is_made_used_and_revoked_in_the_browser(backend: Backend) {
    let server = TestServer::start(backend);
    server.create_user("ada", PASSWORD, false);
    let browser = Browser::open(
        &server,
        "personal_token_is_made_used_and_revoked_in_the_browser",
    );
    browser.goto("/api/login/");
    sign_in(&browser, "ada", PASSWORD);
    assert_eq!(browser.path(), "/accounts/profile/");
    assert!(
        browser
            .text("main")
            .contains("You have no personal tokens.")
    );
    check_page(&browser, "profile-empty");

    browser.fill("#token-description", "laptop");
    browser.click("#token-scope option[value=read]");
    browser.click_through("form[action='/accounts/profile/tokens/'] button[type=submit]");
    let value = browser.value("#new-token");
    assert_eq!(value.len(), 43, "{value}");
    assert!(
        browser.exists("button.copy"),
        "the script adds a copy button"
    );
    check_page(&browser, "profile-token-created");

    // The value works as a bearer token, with the scope chosen in the page.
    let me = server
        .anonymous()
        .with_bearer(&value)
        .get("/api/v2/me/")
        .call()
        .expect(200)
        .json();
    assert_eq!(me["results"][0]["username"], "ada");
    assert_eq!(server.bearer_write_status(&value), 403);

    // Shown once: a fresh visit lists the token without its value.
    browser.goto("/accounts/profile/");
    assert!(!browser.source().contains(&value));
    assert!(
        browser
            .text("ul[aria-label='Personal tokens']")
            .contains("laptop")
    );
    browser.click_through("ul[aria-label='Personal tokens'] button[type=submit]");
    assert_eq!(browser.path(), "/accounts/profile/?done=revoked");
    assert_eq!(browser.text("p.notice"), "The token was revoked.");
    assert_eq!(server.bearer_me_status(&value), 401);
    check_page(&browser, "profile-token-revoked");

    browser.click_through("form[action^='/api/logout/'] button[type=submit]");
    assert!(
        browser.path().starts_with("/api/login/"),
        "{}",
        browser.path()
    );
    browser.goto("/accounts/profile/");
    assert_eq!(browser.path(), "/api/login/?next=/accounts/profile/");
}

/// An authorization-code application whose redirect URI is on `site`, another origin.
fn client_on(
    server: &TestServer,
    site: &ClientSite,
    org: i64,
    skip: bool,
) -> (OAuthClient, String) {
    let redirect_uri = format!("{}/callback/", site.base);
    let app = server
        .admin()
        .post("/api/v2/applications/")
        .json(&json!({
            "name": "Portal", "organization": org, "client_type": "confidential",
            "authorization_grant_type": "authorization-code", "redirect_uris": redirect_uri,
            "skip_authorization": skip,
        }))
        .call()
        .expect(201)
        .json();
    let client = OAuthClient {
        id: id_of(&app),
        client_id: app["client_id"].as_str().expect("client_id").to_owned(),
        client_secret: app["client_secret"].as_str().expect("secret").to_owned(),
    };
    (client, redirect_uri)
}

/// The query parameters of the page the browser is on, which must be `redirect_uri` on the
/// client's site (and the site must have been asked for it, so the browser really went).
fn landed_on_client(
    browser: &Browser,
    site: &ClientSite,
    redirect_uri: &str,
) -> Vec<(String, String)> {
    let landed = browser.url();
    let query = landed
        .strip_prefix(&format!("{redirect_uri}?"))
        .unwrap_or_else(|| {
            panic!(
                "the browser stayed at {landed} instead of following the redirect to {redirect_uri} (another origin)"
            )
        });
    assert!(
        site.targets()
            .iter()
            .any(|target| landed.ends_with(target.as_str())),
        "the client's site was never asked for {landed}: {:?}",
        site.targets()
    );
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(name, value)| (name.to_owned(), percent_decode(value)))
        .collect()
}

fn param<'a>(query: &'a [(String, String)], name: &str) -> Option<&'a str> {
    query
        .iter()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.as_str())
}

fn authorization_code_flow_runs_through_the_consent_page(backend: Backend) {
    let server = TestServer::start(backend);
    let site = ClientSite::start();
    let org = server.create_organization("Acme");
    server.create_user("ada", PASSWORD, false);
    let (client, redirect_uri) = client_on(&server, &site, org, false);
    let verifier = "v".repeat(43) + "-ada";
    let challenge = CodeChallenge::s256_of(&verifier);
    let authorize = authorize_path(&[
        ("response_type", "code"),
        ("client_id", &client.client_id),
        ("redirect_uri", &redirect_uri),
        ("scope", "read"),
        ("state", "st-42"),
        ("code_challenge", challenge.as_str()),
        ("code_challenge_method", "S256"),
    ]);

    let browser = Browser::open(
        &server,
        "authorization_code_flow_runs_through_the_consent_page",
    );
    browser.goto(&authorize);
    assert!(
        browser.path().starts_with("/api/login/?next="),
        "{}",
        browser.path()
    );
    sign_in(&browser, "ada", PASSWORD);
    assert!(
        browser.path().starts_with("/api/o/authorize/"),
        "{}",
        browser.path()
    );
    assert_eq!(browser.text("h1"), "Authorize Portal?");
    assert!(browser.text("main").contains("Acme"));
    check_page(&browser, "consent");

    // Authorize: Chromium follows the answer's redirect to the client's origin, where the
    // code and the state arrive.
    browser.click_through("button[name=allow]");
    let query = landed_on_client(&browser, &site, &redirect_uri);
    assert_eq!(param(&query, "state"), Some("st-42"));
    let code = param(&query, "code").expect("a code").to_owned();
    // The code is bound to the PKCE challenge: the exchange needs the verifier.
    let exchange = |verifier: &str| {
        client.token_request(
            &server,
            &[
                ("grant_type", "authorization_code"),
                ("code", code.as_str()),
                ("redirect_uri", redirect_uri.as_str()),
                ("code_verifier", verifier),
            ],
        )
    };
    let tokens = exchange(&verifier).expect(200).json();
    let access = tokens["access_token"]
        .as_str()
        .expect("access_token")
        .to_owned();
    assert_eq!(tokens["scope"], "read");
    assert_eq!(server.bearer_me_status(&access), 200);
    exchange(&verifier).expect(400);

    // The profile lists the application's token; revoking it there stops it.
    browser.goto("/accounts/profile/");
    assert!(
        browser
            .text("ul[aria-label='Application tokens']")
            .contains("Portal")
    );
    check_page(&browser, "profile-authorized");
    browser.click_through("ul[aria-label='Application tokens'] button[type=submit]");
    assert_eq!(browser.path(), "/accounts/profile/?done=revoked");
    assert_eq!(server.bearer_me_status(&access), 401);

    // Deny: the client's origin gets `access_denied` with its state, and no code.
    browser.goto(&authorize);
    browser.click_through("button[name=deny]");
    let denied = landed_on_client(&browser, &site, &redirect_uri);
    assert_eq!(param(&denied, "error"), Some("access_denied"));
    assert_eq!(param(&denied, "state"), Some("st-42"));
    assert_eq!(param(&denied, "code"), None);
}

fn login_goes_straight_to_a_client_that_skips_consent(backend: Backend) {
    // The login form's submission follows `next` to the authorize endpoint, which answers
    // at once with a redirect to the client's origin: the login page's policy must allow it.
    let server = TestServer::start(backend);
    let site = ClientSite::start();
    let org = server.create_organization("Acme");
    server.create_user("ada", PASSWORD, false);
    let (client, redirect_uri) = client_on(&server, &site, org, true);
    let authorize = authorize_path(&[
        ("response_type", "code"),
        ("client_id", &client.client_id),
        ("state", "st-7"),
    ]);
    let browser = Browser::open(
        &server,
        "login_goes_straight_to_a_client_that_skips_consent",
    );
    browser.goto(&authorize);
    assert!(browser.path().starts_with("/api/login/?next="));
    sign_in(&browser, "ada", PASSWORD);
    let query = landed_on_client(&browser, &site, &redirect_uri);
    assert_eq!(param(&query, "state"), Some("st-7"));
    let code = param(&query, "code").expect("a code");
    let tokens = client
        .token_request(
            &server,
            &[("grant_type", "authorization_code"), ("code", code)],
        )
        .expect(200)
        .json();
    // No scope asked: every scope, in AWX's words.
    assert_eq!(tokens["scope"], "read write");
}

fn organization_admin_manages_applications_in_the_browser(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Mine");
    let boss = server.create_user("boss", PASSWORD, false);
    server.add_admin(org, boss);
    let browser = Browser::open(
        &server,
        "organization_admin_manages_applications_in_the_browser",
    );
    browser.goto("/api/login/");
    sign_in(&browser, "boss", PASSWORD);
    browser.click_through("nav a[href='/accounts/applications/']");
    assert_eq!(browser.path(), "/accounts/applications/");
    check_page(&browser, "applications-empty");

    // A refusal by the API's validation comes back in the page, the form filled in.
    browser.fill("#app-name", "Robot");
    browser.click("#app-redirect");
    browser.click_through("form[action='/accounts/applications/'] button[type=submit]");
    assert!(
        browser.text("[role=alert]").contains("redirect_uris"),
        "{}",
        browser.text("[role=alert]")
    );
    assert_eq!(browser.value("#app-name"), "Robot");
    check_page(&browser, "applications-refused");

    browser.click("#app-grant option[value=password]");
    browser.click_through("form[action='/accounts/applications/'] button[type=submit]");
    let id = id_of(&server.admin().get_json("/api/v2/applications/")["results"][0]);
    let client = OAuthClient {
        id,
        client_id: browser.value("#client-id"),
        client_secret: browser.value("#client-secret"),
    };
    assert_eq!(browser.count("button.copy"), 2);
    check_page(&browser, "application-created");
    // The credentials shown work at the token endpoint.
    let tokens = client.password_grant(&server, "boss", PASSWORD);
    let access = tokens["access_token"]
        .as_str()
        .expect("access_token")
        .to_owned();

    browser.click_through(&format!("ul a[href='/accounts/applications/{id}/']"));
    assert_eq!(browser.text("h1"), "Robot");
    check_page(&browser, "application-edit");
    browser.fill("#app-name", "Robot 2");
    browser.click("#app-skip");
    browser.click_through(&format!(
        "form[action='/accounts/applications/{id}/'] button[type=submit]"
    ));
    assert_eq!(browser.path(), "/accounts/applications/?done=saved");
    let record = server
        .admin()
        .get_json(&format!("/api/v2/applications/{id}/"));
    assert_eq!(record["name"], "Robot 2");
    assert_eq!(record["skip_authorization"], true);

    browser.goto(&format!("/accounts/applications/{id}/"));
    browser.click_through(&format!(
        "form[action='/accounts/applications/{id}/delete/'] button"
    ));
    assert_eq!(browser.path(), "/accounts/applications/?done=deleted");
    assert!(browser.text("main").contains("You manage no applications."));
    assert_eq!(
        server.bearer_me_status(&access),
        401,
        "its tokens went with it"
    );

    browser.goto(&format!("/accounts/applications/{id}/"));
    assert!(
        browser
            .text("[role=alert]")
            .contains("No OAuth2Application matches")
    );
    check_page(&browser, "not-found");
}

/// The browsable API: from the public root, a link to the users' list goes through the login
/// page and back, and on to a user's page; a record is created, refused, changed and deleted
/// with the pages' forms.
fn a_person_browses_the_api(backend: Backend) {
    let server = TestServer::start(backend);
    let ada = server.create_user("ada", PASSWORD, false);
    server
        .admin()
        .patch(&format!("/api/v2/users/{ada}/"))
        .json(&json!({"first_name": "<i>Ada</i>"}))
        .call()
        .expect(200);
    let browser = Browser::open(&server, "a_person_browses_the_api");
    // The root is public; the users' list sends the anonymous visitor to log in first.
    browser.goto("/api/v2/");
    assert_eq!(browser.path(), "/api/v2/");
    browser.click_through("pre.json a[href='/api/v2/users/']");
    assert_eq!(browser.path(), "/api/login/?next=%2Fapi%2Fv2%2Fusers%2F");
    sign_in(&browser, "admin", &server.admin_password);
    assert_eq!(browser.path(), "/api/v2/users/");
    assert!(
        browser.text("h1").contains("User List"),
        "{}",
        browser.text("h1")
    );
    assert_eq!(browser.count("a[rel=next]"), 0);
    check_page(&browser, "api-users");

    browser.click_through(&format!("pre.json a[href='/api/v2/users/{ada}/']"));
    assert_eq!(browser.path(), format!("/api/v2/users/{ada}/"));
    let body = browser.text("pre.json");
    assert!(body.contains("\"first_name\": \"<i>Ada</i>\""), "{body}");
    assert_eq!(browser.count("pre.json i"), 0, "markup in data stays text");
    assert!(
        browser.text("main").contains("PATCH"),
        "{}",
        browser.text("main")
    );
    check_page(&browser, "api-user");

    browser.click_through("nav a[href='/api/v2/']");
    assert_eq!(browser.path(), "/api/v2/");

    // Create from a list's page, then change the record from its own: a refusal is shown
    // there, a change goes through, and deleting leads back to the collection.
    browser.goto("/api/v2/organizations/");
    browser.fill("#create-name", "paged");
    browser.fill("#create-description", "made with the form");
    browser.click_through("#create-fields-submit");
    let path = browser.path();
    assert!(path.starts_with("/api/v2/organizations/"), "{path}");
    assert_ne!(path, "/api/v2/organizations/");
    assert!(browser.text("pre.json").contains("paged"));
    browser.fill("#edit-content", r#"{"name": ""}"#);
    browser.click_through("#edit-content ~ button[type=submit]");
    assert!(
        browser
            .text("pre.json")
            .contains("This field may not be blank."),
        "{}",
        browser.text("pre.json")
    );
    check_page(&browser, "api-refused");
    browser.fill("#edit-content", r#"{"description": "set in the browser"}"#);
    browser.click_through("#edit-content ~ button[type=submit]");
    assert_eq!(browser.path(), path);
    assert!(browser.text("pre.json").contains("set in the browser"));
    browser.click_through("button.danger");
    assert_eq!(browser.path(), "/api/v2/organizations/");
    server.admin().get(&path).call().expect(404);
}

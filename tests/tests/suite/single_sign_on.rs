//! Single sign-on with OpenID Connect against a real provider (the npm package
//! `oidc-provider` on loopback): the login page offers a button per provider; the browser
//! dance (authorization code with PKCE, state and nonce) ends in a session; a first login
//! creates the linked external user, a second finds it by issuer and subject; external users
//! get no token until allowed; a replayed state, a tampered ID token, an unreachable provider
//! and a wrong issuer end on an error page without a session, never a 500.

use acs_tests::oidc::{self, Account, Client, Provider, ProviderConfig};
use acs_tests::{Agent, Backend, Call, TestServer, backend_tests};
use serde_json::{Value, json};

const EXTERNAL_DENIED: &str = "OAuth2 Tokens cannot be created by users associated with an external authentication provider (oidc)";

fn provider_for(server: &TestServer, tamper_id_token: bool) -> Provider {
    Provider::start(ProviderConfig {
        clients: vec![Client {
            client_id: "acs".into(),
            client_secret: "acs-client-s3cret".into(),
            redirect_uris: vec![format!("{}/sso/complete/corp/", server.base)],
        }],
        accounts: vec![Account {
            sub: "sub-alice-1".into(),
            password: "al1ce-at-idp".into(),
            preferred_username: "alice".into(),
            given_name: "Alice".into(),
            family_name: "Liddell".into(),
            email: "alice@example.com".into(),
            groups: None,
        }],
        tamper_id_token,
    })
}

fn configure(server: &TestServer, issuer: &str) {
    server
        .admin()
        .patch("/api/v2/settings/oidc/")
        .json(&json!({"OIDC_PROVIDERS": [{
            "name": "corp", "label": "Corp ID", "issuer": issuer,
            "client_id": "acs", "client_secret": "acs-client-s3cret",
        }]}))
        .call()
        .expect(200);
}

/// Runs the whole dance for `browser`: ACS's start, the provider's login, and returns ACS's
/// answer to the provider's redirect back.
fn sign_in(server: &TestServer, browser: &Agent, login: &str, password: &str) -> acs_tests::Reply {
    let started = browser
        .get("/sso/login/corp/?next=/api/v2/me/")
        .call()
        .expect(302);
    let authorize = started.location().expect("a redirect to the provider");
    let at_provider = oidc::browser_client();
    let back = oidc::log_in_at_provider(&at_provider, &authorize, login, password);
    let path = back
        .strip_prefix(&server.base)
        .unwrap_or_else(|| panic!("the provider sent the browser to {back}"));
    browser.get(path).call()
}

fn me(agent: &Agent) -> Value {
    agent.get_json("/api/v2/me/")["results"][0].clone()
}

fn the_browser_dance_signs_in_a_linked_user(backend: Backend) {
    let server = TestServer::start(backend);
    let provider = provider_for(&server, false);
    configure(&server, provider.issuer());
    server.create_user("alice", "local-alice-pw", false);

    let login_page = server
        .anonymous()
        .get("/api/login/?next=/api/v2/me/")
        .call()
        .expect(200);
    assert!(
        login_page.body.contains(">Corp ID</a>"),
        "{}",
        login_page.body
    );
    assert!(
        login_page.body.contains("/sso/login/corp/?next"),
        "{}",
        login_page.body
    );

    let browser = server.client();
    let done = sign_in(&server, &browser, "alice", "al1ce-at-idp").expect(302);
    assert_eq!(done.location().as_deref(), Some("/api/v2/me/"));
    let record = me(&browser);
    assert_eq!(
        record["username"], "alice2",
        "the local alice keeps her name"
    );
    assert_eq!(record["external_account"], "oidc");
    assert_eq!(
        (record["first_name"].clone(), record["email"].clone()),
        (json!("Alice"), json!("alice@example.com"))
    );

    // A second sign-in, in another browser, finds the same user.
    let again = server.client();
    sign_in(&server, &again, "alice", "al1ce-at-idp").expect(302);
    assert_eq!(me(&again)["id"], record["id"]);

    // The token rule for external users.
    let tokens = format!("/api/v2/users/{}/personal_tokens/", record["id"]);
    let token_browser = server.client();
    sign_in(&server, &token_browser, "alice", "al1ce-at-idp").expect(302);
    let csrf = token_browser.cookie("csrftoken").expect("a csrftoken");
    let refused = token_browser
        .post(&tokens)
        .header("X-CSRFToken", csrf)
        .header("Referer", format!("{}/", server.base))
        .json(&json!({"scope": "read"}))
        .call()
        .expect(403);
    assert!(refused.body.contains(EXTERNAL_DENIED), "{}", refused.body);

    // The settings read back without the client secret, which is not stored in clear.
    let settings = server.admin().get_json("/api/v2/settings/oidc/");
    assert_eq!(
        settings["OIDC_PROVIDERS"][0]["client_secret"],
        "$encrypted$"
    );
    let clear =
        server.query_i64("SELECT COUNT(*) FROM settings WHERE value LIKE '%acs-client-s3cret%'");
    assert_eq!(clear, 0);
}

fn a_state_completes_once(backend: Backend) {
    let server = TestServer::start(backend);
    let provider = provider_for(&server, false);
    configure(&server, provider.issuer());
    let browser = server.client();
    let started = browser.get("/sso/login/corp/").call().expect(302);
    let authorize = started.location().expect("a redirect");
    let back =
        oidc::log_in_at_provider(&oidc::browser_client(), &authorize, "alice", "al1ce-at-idp");
    let path = back
        .strip_prefix(&server.base)
        .expect("back to ACS")
        .to_owned();
    let binding = started
        .set_cookies()
        .into_iter()
        .find(|cookie| cookie.name.starts_with("acs_sso_"))
        .expect("the start binds the sign-in to the browser");
    browser.get(&path).call().expect(302);
    // Even a browser that holds the binding cannot use the state twice.
    let replay = server
        .anonymous()
        .get(&path)
        .header("Cookie", format!("{}={}", binding.name, binding.value))
        .call()
        .expect(400);
    assert!(
        replay.body.contains("unknown, expired or already used"),
        "{}",
        replay.body
    );
    let forged = server
        .client()
        .get("/sso/complete/corp/?code=x&state=forged")
        .call()
        .expect(400);
    assert!(
        forged.set_cookie(acs_tests::SESSION_COOKIE).is_none(),
        "no session for a forged state"
    );
    server
        .client()
        .get("/sso/complete/corp/")
        .call()
        .expect(400);
    server.client().get("/sso/login/nobody/").call().expect(404);
}

/// Login CSRF, tried: the attacker starts a sign-in, signs in at the provider as themself and
/// sends the victim the completion URL. Opened in the victim's browser, which never started
/// that sign-in, it signs nobody in; the attacker's own browser still completes it.
fn a_completion_url_signs_in_only_the_browser_that_started_it(backend: Backend) {
    let server = TestServer::start(backend);
    let provider = provider_for(&server, false);
    configure(&server, provider.issuer());
    let attacker = server.client();
    let started = attacker
        .get("/sso/login/corp/?next=/api/v2/me/")
        .call()
        .expect(302);
    let binding = started
        .set_cookies()
        .into_iter()
        .find(|cookie| cookie.name.starts_with("acs_sso_"))
        .expect("a binding cookie");
    let attribute = |name: &str| {
        binding
            .attributes
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.clone().unwrap_or_default())
    };
    assert_eq!(
        attribute("HttpOnly").as_deref(),
        Some(""),
        "{}",
        binding.raw
    );
    assert_eq!(
        attribute("SameSite").as_deref(),
        Some("Lax"),
        "{}",
        binding.raw
    );
    assert_eq!(
        attribute("Path").as_deref(),
        Some("/sso/complete/"),
        "{}",
        binding.raw
    );
    assert_eq!(
        attribute("Max-Age").as_deref(),
        Some("600"),
        "{}",
        binding.raw
    );
    let authorize = started.location().expect("a redirect to the provider");
    let back =
        oidc::log_in_at_provider(&oidc::browser_client(), &authorize, "alice", "al1ce-at-idp");
    let path = back
        .strip_prefix(&server.base)
        .expect("back to ACS")
        .to_owned();

    let victim = server.client();
    let refused = victim.get(&path).call().expect(400);
    assert!(
        refused.body.contains("not started in this browser"),
        "{}",
        refused.body
    );
    assert!(
        refused.set_cookie(acs_tests::SESSION_COOKIE).is_none(),
        "no session for the victim"
    );
    victim.get("/api/v2/me/").call().expect(401);

    // The state was not used up by the refused attempt: its own browser completes it, and the
    // binding is removed.
    let done = attacker.get(&path).call().expect(302);
    assert_eq!(done.location().as_deref(), Some("/api/v2/me/"));
    let removed = done
        .set_cookie(&binding.name)
        .expect("the binding is removed at completion");
    assert!(
        removed.attributes.iter().any(
            |(key, value)| key.eq_ignore_ascii_case("Max-Age") && value.as_deref() == Some("0")
        ),
        "{}",
        removed.raw
    );
    assert_eq!(me(&attacker)["username"], "alice");
}

fn bad_providers_never_sign_anyone_in(backend: Backend) {
    let server = TestServer::start(backend);
    let tampering = provider_for(&server, true);
    configure(&server, tampering.issuer());
    let browser = server.client();
    let refused = sign_in(&server, &browser, "alice", "al1ce-at-idp").expect(403);
    assert!(
        refused.body.contains("identity token is not valid"),
        "{}",
        refused.body
    );
    assert!(browser.cookie(acs_tests::SESSION_COOKIE).is_none());
    browser.get("/api/v2/me/").call().expect(401);

    // An issuer that is not what the provider says it is.
    let honest = provider_for(&server, false);
    let wrong_issuer = honest.issuer().replace("127.0.0.1", "localhost");
    configure(&server, &wrong_issuer);
    let page = server.client().get("/sso/login/corp/").call().expect(502);
    assert!(
        page.body
            .contains("cannot be reached or its configuration cannot be read"),
        "{}",
        page.body
    );

    // A provider that is not there.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("a port")
        .local_addr()
        .expect("addr")
        .port();
    configure(&server, &format!("http://127.0.0.1:{closed}"));
    server.client().get("/sso/login/corp/").call().expect(502);

    // Invalid settings name the setting.
    let invalid = server
        .admin()
        .patch("/api/v2/settings/oidc/")
        .json(&json!({"OIDC_PROVIDERS": [{"name": "a b", "issuer": "x", "client_id": ""}]}))
        .call()
        .expect(400);
    assert!(!invalid.field_errors("OIDC_PROVIDERS").is_empty());
    assert_eq!(
        server
            .admin()
            .get_json("/api/v2/users/?username__startswith=alice")["count"],
        0
    );
}

/// `GET /api/v2/auth/` lists the providers for anyone, as the reference lists its methods;
/// the login page's buttons are the same list.
fn sign_on_methods_are_listed_for_anyone(backend: Backend) {
    let server = TestServer::start(backend);
    assert_eq!(server.anonymous().get_json("/api/v2/auth/"), json!({}));
    let options = server
        .anonymous()
        .options("/api/v2/auth/")
        .call()
        .expect(200);
    assert!(
        options.json()["actions"]["GET"]["login_url"].is_object(),
        "{}",
        options.body
    );
    server
        .anonymous()
        .post("/api/v2/auth/")
        .json(&json!({}))
        .call()
        .expect(405);
    let admin = server.admin();
    admin
        .patch("/api/v2/settings/oidc/")
        .json(&json!({"OIDC_PROVIDERS": [
            {"name": "zeta", "label": "Zeta ID", "issuer": "https://zeta.example.com", "client_id": "acs", "client_secret": "z"},
            {"name": "corp", "label": "Corp ID", "issuer": "https://id.example.com", "client_id": "acs", "client_secret": "c"},
        ]}))
        .call()
        .expect(200);
    let listed = server
        .anonymous()
        .get("/api/v2/auth/")
        .call()
        .expect(200)
        .json();
    assert_eq!(
        listed,
        json!({
            "oidc:corp": {
                "login_url": "/sso/login/corp/",
                "complete_url": format!("{}/sso/complete/corp/", server.base),
                "label": "Corp ID",
            },
            "oidc:zeta": {
                "login_url": "/sso/login/zeta/",
                "complete_url": format!("{}/sso/complete/zeta/", server.base),
                "label": "Zeta ID",
            },
        })
    );
    let keys: Vec<&String> = listed.as_object().expect("an object").keys().collect();
    assert_eq!(keys, ["oidc:corp", "oidc:zeta"], "sorted by key");
    assert!(
        !listed.to_string().contains("\"c\"") && !listed.to_string().contains("client"),
        "no client details: {listed}"
    );
    let page = server
        .anonymous()
        .get("/api/login/")
        .call()
        .expect(200)
        .body;
    let corp = page.find(">Corp ID</a>").expect("the corp button");
    let zeta = page.find(">Zeta ID</a>").expect("the zeta button");
    assert!(corp < zeta, "the page's buttons in the list's order");
    assert!(page.contains("href=\"/sso/login/corp/\""), "{page}");
}

backend_tests!(
    sign_on_methods_are_listed_for_anyone,
    a_completion_url_signs_in_only_the_browser_that_started_it,
    the_browser_dance_signs_in_a_linked_user,
    a_state_completes_once,
    bad_providers_never_sign_anyone_in,
);

//! The headers every kind of response carries, over a representative list: JSON API answers
//! (200, 201, 204, 400, 401, 403, 404, 405, 413, 414, 415, 429), OPTIONS and CORS preflights,
//! the HTML pages (login and its failure, consent, profile, applications, the error pages),
//! redirects, the OAuth endpoints (token, authorize, revoke, introspect, metadata), and the
//! static stylesheet and script.
//!
//! What the contract and `docs/` promise, checked on each:
//! - always (contract §2): `X-API-Request-Id`, `X-API-Total-Time`,
//!   `Access-Control-Expose-Headers: X-API-Request-Id`; and the security headers of
//!   `api::http::headers`: `X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY`,
//!   `Referrer-Policy: same-origin`; never `Strict-Transport-Security` on plain http (§3);
//! - a body has a `Content-Type`;
//! - HTML pages: the strict Content-Security-Policy and `Cache-Control: no-store`
//!   (decisions: every page is `no-store`, since pages show secrets once);
//! - everything under `/api/o/` (and the authorize redirect carrying a code):
//!   `Cache-Control: no-store` and `Pragma: no-cache` (contract §4, decisions);
//! - any other response carrying a token or a secret (`POST /api/v2/tokens/`, a new
//!   application's `client_secret`): `Cache-Control` with `no-store`;
//! - errors under `/api/o/` have RFC 6749's shape `{"error", "error_description"}`
//!   (decisions), unknown paths and methods there included;
//! - 401: the contract's `WWW-Authenticate`; 429: `Retry-After`.
//!
//! - 405: `Allow`, listing the methods the resource serves (RFC 9110 §15.5.6).
//!
//! `account_pages.rs` checks the CSP directives of the account pages in detail; here every
//! page must carry the exact policy of `acs_api::pages::CONTENT_SECURITY_POLICY`.

use acs_oauth2::CodeChallenge;
use acs_tests::oauth::authorize_path;
use acs_tests::{Agent, Backend, Call, Reply, TestServer, WWW_AUTHENTICATE, backend_tests};
use serde_json::json;

backend_tests!(every_response_carries_the_promised_headers);

/// What a response is, for the rules that apply to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// JSON from `/api/v2/`, `/api/` or the metadata endpoint.
    Json,
    /// JSON that carries a token or a secret.
    JsonSecret,
    /// Anything under `/api/o/`, or a redirect carrying an authorization code.
    OAuth,
    /// A server-rendered page.
    Html,
    /// The consent page: a page whose form ends, through a redirect, at the client's origin
    /// (`https://client.example`), which its `form-action` allows and nothing else.
    Consent,
    /// A redirect or an empty answer (204, preflight).
    Empty,
    /// The stylesheet or the script.
    Static,
}

fn header_values(reply: &Reply, name: &str) -> Vec<String> {
    reply
        .headers
        .get_all(name)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .map(str::to_owned)
        .collect()
}

/// Every promise a reply of `kind` breaks.
fn problems(reply: &Reply, kind: Kind) -> Vec<String> {
    let mut found = Vec::new();
    let mut expect = |ok: bool, what: &str| {
        if !ok {
            found.push(what.to_owned());
        }
    };
    let header = |name: &str| reply.header(name);
    expect(
        header("x-api-request-id").is_some_and(|id| id.len() == 32),
        "X-API-Request-Id",
    );
    expect(
        header("x-api-total-time").is_some_and(|t| acs_tests::is_total_time(&t)),
        "X-API-Total-Time",
    );
    expect(
        header("access-control-expose-headers").as_deref() == Some("X-API-Request-Id"),
        "Access-Control-Expose-Headers: X-API-Request-Id",
    );
    expect(
        header("x-content-type-options").as_deref() == Some("nosniff"),
        "X-Content-Type-Options: nosniff",
    );
    expect(
        header("x-frame-options").as_deref() == Some("DENY"),
        "X-Frame-Options: DENY",
    );
    expect(
        header("referrer-policy").as_deref() == Some("same-origin"),
        "Referrer-Policy: same-origin",
    );
    expect(
        header("strict-transport-security").is_none(),
        "no Strict-Transport-Security on http",
    );
    expect(
        header_values(reply, "x-content-type-options").len() <= 1
            && header_values(reply, "cache-control").len() <= 1,
        "each header once",
    );
    let content_type = header("content-type").unwrap_or_default();
    if !reply.body.is_empty() {
        expect(!content_type.is_empty(), "Content-Type on a body");
    }
    let cache_control = header("cache-control").unwrap_or_default();
    let no_store = cache_control.split(',').any(|d| d.trim() == "no-store");
    match kind {
        Kind::Json | Kind::JsonSecret => {
            expect(
                content_type.starts_with("application/json"),
                "Content-Type: application/json",
            );
            if kind == Kind::JsonSecret {
                expect(no_store, "Cache-Control: no-store on a secret");
            }
        }
        Kind::OAuth => {
            expect(no_store, "Cache-Control: no-store under /api/o/");
            expect(
                header("pragma").as_deref() == Some("no-cache"),
                "Pragma: no-cache under /api/o/",
            );
            if reply.status >= 400 {
                let body: serde_json::Value = serde_json::from_str(&reply.body).unwrap_or_default();
                expect(
                    body["error"].is_string() && body["error_description"].is_string(),
                    "an RFC 6749 error body under /api/o/",
                );
            }
        }
        Kind::Html | Kind::Consent => {
            expect(
                content_type.starts_with("text/html"),
                "Content-Type: text/html",
            );
            let policy = match kind {
                Kind::Consent => acs_api::pages::content_security_policy_with_form_target(
                    "https://client.example",
                ),
                _ => acs_api::pages::CONTENT_SECURITY_POLICY.to_owned(),
            };
            expect(
                header("content-security-policy").as_deref() == Some(policy.as_str()),
                "the pages' Content-Security-Policy",
            );
            expect(no_store, "Cache-Control: no-store on a page");
        }
        Kind::Empty => {}
        Kind::Static => {
            expect(
                content_type.starts_with("text/css")
                    || content_type.starts_with("text/javascript")
                    || content_type == "image/x-icon",
                "a stylesheet or script type",
            );
        }
    }
    match reply.status {
        401 if reply.url.contains("/api/v2/") => expect(
            header("www-authenticate").as_deref() == Some(WWW_AUTHENTICATE),
            "the contract's WWW-Authenticate on a 401",
        ),
        429 => expect(header("retry-after").is_some(), "Retry-After on a 429"),
        _ => {}
    }
    found
}

/// The responses, each with its expected status and kind.
struct Sample {
    label: String,
    status: u16,
    kind: Kind,
    reply: Reply,
}

#[derive(Default)]
struct Samples(Vec<Sample>);

impl Samples {
    fn add(&mut self, label: &str, status: u16, kind: Kind, reply: Reply) -> Reply {
        self.0.push(Sample {
            label: label.to_owned(),
            status,
            kind,
            reply: reply.clone(),
        });
        reply
    }
}

/// The hidden inputs of a page, `(name, value)` in order (values here need no unescaping
/// but `&#x3D;` and `&amp;`).
fn hidden_fields(html: &str) -> Vec<(String, String)> {
    const OPEN: &str = "<input type=\"hidden\" name=\"";
    html.split(OPEN)
        .skip(1)
        .filter_map(|rest| {
            let (name, rest) = rest.split_once("\" value=\"")?;
            let (value, _) = rest.split_once('"')?;
            let unescape = |t: &str| t.replace("&#x3D;", "=").replace("&amp;", "&");
            Some((unescape(name), unescape(value)))
        })
        .collect()
}

fn every_response_carries_the_promised_headers(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let anonymous = server.anonymous();
    let mut s = Samples::default();
    let org = server.create_organization("Acme");
    let carol = server.create_user("carol", "pw-carol-1234", false);
    server.add_member(org, carol);

    // The JSON API.
    s.add("GET /api/", 200, Kind::Json, anonymous.get("/api/").call());
    s.add(
        "GET /api/v2/",
        200,
        Kind::Json,
        anonymous.get("/api/v2/").call(),
    );
    s.add(
        "GET ping",
        200,
        Kind::Json,
        anonymous.get("/api/v2/ping/").call(),
    );
    s.add("GET me", 200, Kind::Json, admin.get("/api/v2/me/").call());
    s.add(
        "GET users",
        200,
        Kind::Json,
        admin.get("/api/v2/users/").call(),
    );
    s.add(
        "POST organizations",
        201,
        Kind::Json,
        admin
            .post("/api/v2/organizations/")
            .json(&json!({ "name": "Other" }))
            .call(),
    );
    s.add(
        "POST organizations (invalid)",
        400,
        Kind::Json,
        admin
            .post("/api/v2/organizations/")
            .json(&json!({ "name": "" }))
            .call(),
    );
    s.add(
        "POST organizations (malformed JSON)",
        400,
        Kind::Json,
        admin
            .post("/api/v2/organizations/")
            .header("Content-Type", "application/json")
            .body("{")
            .call(),
    );
    s.add(
        "POST organizations (form body)",
        415,
        Kind::Json,
        admin
            .post("/api/v2/organizations/")
            .form(&[("name", "x")])
            .call(),
    );
    s.add(
        "POST organizations (over the body limit)",
        413,
        Kind::Json,
        admin
            .post("/api/v2/organizations/")
            .header("Content-Type", "application/json")
            .body("x".repeat((1 << 20) + 1))
            .call(),
    );
    s.add(
        "GET users with a 20 KiB query",
        414,
        Kind::Json,
        admin
            .get(&format!("/api/v2/users/?search={}", "q".repeat(20 * 1024)))
            .call(),
    );
    s.add(
        "GET me with 40 KiB of headers",
        431,
        Kind::Json,
        admin
            .get("/api/v2/me/")
            .header("X-Big", "h".repeat(40 * 1024))
            .call(),
    );
    s.add(
        "GET me anonymously",
        401,
        Kind::Json,
        anonymous.get("/api/v2/me/").call(),
    );
    s.add(
        "GET me with a bad bearer token",
        401,
        Kind::Json,
        anonymous.with_bearer("nope").get("/api/v2/me/").call(),
    );
    s.add(
        "GET settings as a plain user",
        403,
        Kind::Json,
        server
            .as_user("carol", "pw-carol-1234")
            .get("/api/v2/settings/system/")
            .call(),
    );
    s.add(
        "GET a missing user",
        404,
        Kind::Json,
        admin.get("/api/v2/users/9999/").call(),
    );
    s.add(
        "GET an unknown path",
        404,
        Kind::Json,
        admin.get("/api/v2/nothing/").call(),
    );
    s.add(
        "GET a path outside the API",
        404,
        Kind::Json,
        anonymous.get("/nothing/").call(),
    );
    s.add(
        "PUT a collection",
        405,
        Kind::Json,
        admin.put("/api/v2/users/").json(&json!({})).call(),
    );
    s.add(
        "DELETE ping",
        405,
        Kind::Json,
        admin.delete("/api/v2/ping/").call(),
    );
    s.add(
        "OPTIONS users",
        200,
        Kind::Json,
        admin.options("/api/v2/users/").call(),
    );
    s.add(
        "OPTIONS a user",
        200,
        Kind::Json,
        admin.options(&format!("/api/v2/users/{carol}/")).call(),
    );
    s.add(
        "CORS preflight",
        200,
        Kind::Empty,
        anonymous
            .options("/api/v2/users/")
            .header("Origin", "https://elsewhere.example")
            .header("Access-Control-Request-Method", "POST")
            .call(),
    );
    s.add(
        "DELETE an organization",
        204,
        Kind::Empty,
        admin
            .delete(&format!(
                "/api/v2/organizations/{}/",
                server.create_organization("Doomed")
            ))
            .call(),
    );
    // Secrets in JSON.
    let me = admin.get_json("/api/v2/me/")["results"][0]["id"].clone();
    s.add(
        "POST personal_tokens",
        201,
        Kind::JsonSecret,
        admin
            .post(&format!("/api/v2/users/{me}/personal_tokens/"))
            .json(&json!({ "scope": "read" }))
            .call(),
    );
    s.add(
        "POST tokens",
        201,
        Kind::JsonSecret,
        admin.post("/api/v2/tokens/").json(&json!({})).call(),
    );
    let created = s.add(
        "POST applications (confidential)",
        201,
        Kind::JsonSecret,
        admin
            .post("/api/v2/applications/")
            .json(&json!({
                "name": "Code client",
                "organization": org,
                "authorization_grant_type": "authorization-code",
                "client_type": "confidential",
                "redirect_uris": "https://client.example/cb",
            }))
            .call(),
    );
    let app = created.json();
    let client_id = app["client_id"].as_str().unwrap_or_default().to_owned();
    let client_secret = app["client_secret"].as_str().unwrap_or_default().to_owned();
    let password_app = server.oauth_client(org, "Password client", "password", "confidential");

    // Login throttling: ten failures, then 429.
    for _ in 0..10 {
        server
            .as_user("carol", "wrong-password")
            .get("/api/v2/me/")
            .call();
    }
    s.add(
        "GET me throttled",
        429,
        Kind::Json,
        server
            .as_user("carol", "wrong-password")
            .get("/api/v2/me/")
            .call(),
    );
    server.execute_sql("DELETE FROM login_failures");

    // Pages.
    let browser = server.client();
    s.add(
        "GET the login page",
        200,
        Kind::Html,
        browser.get("/api/login/").call(),
    );
    s.add(
        "POST the login form (wrong password)",
        401,
        Kind::Html,
        server.login_attempt(&server.client(), "admin", "wrong", None),
    );
    s.add(
        "POST the login form (no CSRF token)",
        403,
        Kind::Html,
        server
            .client()
            .post("/api/login/")
            .form(&[("username", "admin"), ("password", "x")])
            .call(),
    );
    let login = server.login(&browser, "carol", "pw-carol-1234");
    s.add("POST the login form", 302, Kind::Empty, login.reply.clone());
    s.add(
        "GET the profile anonymously",
        302,
        Kind::Empty,
        server.client().get("/accounts/profile/").call(),
    );
    s.add(
        "GET the profile",
        200,
        Kind::Html,
        browser.get("/accounts/profile/").call(),
    );
    s.add(
        "GET the applications page",
        200,
        Kind::Html,
        browser.get("/accounts/applications/").call(),
    );
    s.add(
        "POST the profile's token form",
        201,
        Kind::Html,
        browser
            .post("/accounts/profile/tokens/")
            .header("Origin", server.base.as_str())
            .form(&[
                ("csrfmiddlewaretoken", login.csrf.as_str()),
                ("description", "page"),
                ("scope", "read"),
            ])
            .call(),
    );
    s.add(
        "POST the profile's token form (bad CSRF)",
        403,
        Kind::Html,
        browser
            .post("/accounts/profile/tokens/")
            .header("Origin", server.base.as_str())
            .form(&[("csrfmiddlewaretoken", "wrong"), ("description", "page")])
            .call(),
    );
    s.add(
        "GET a missing application page",
        404,
        Kind::Html,
        browser.get("/accounts/applications/9999/").call(),
    );
    s.add(
        "GET an unknown single sign-on provider",
        404,
        Kind::Html,
        browser.get("/sso/login/nobody/").call(),
    );

    // The OAuth endpoints.
    s.add(
        "GET /api/o/",
        200,
        Kind::OAuth,
        anonymous.get("/api/o/").call(),
    );
    s.add(
        "GET an unknown path under /api/o/",
        404,
        Kind::OAuth,
        anonymous.get("/api/o/nothing/").call(),
    );
    s.add(
        "GET the metadata",
        200,
        Kind::Json,
        anonymous
            .get("/.well-known/oauth-authorization-server")
            .call(),
    );
    let verifier = "v".repeat(43);
    let challenge = CodeChallenge::s256_of(&verifier);
    let params = [
        ("response_type", "code"),
        ("client_id", client_id.as_str()),
        ("state", "s"),
        ("code_challenge", challenge.as_str()),
        ("code_challenge_method", "S256"),
    ];
    let consent = s.add(
        "GET the consent page",
        200,
        Kind::Consent,
        browser.get(&authorize_path(&params)).call(),
    );
    s.add(
        "GET authorize anonymously",
        302,
        Kind::Empty,
        server.client().get(&authorize_path(&params)).call(),
    );
    s.add(
        "GET authorize for an unknown client",
        400,
        Kind::Html,
        browser
            .get(&authorize_path(&[
                ("response_type", "code"),
                ("client_id", "nobody"),
            ]))
            .call(),
    );
    let mut form = hidden_fields(&consent.body);
    form.push(("allow".into(), "Authorize".into()));
    let approved = s.add(
        "POST the consent form (a code in Location)",
        302,
        Kind::OAuth,
        browser.post("/api/o/authorize/").form(&form).call(),
    );
    let code = approved
        .location()
        .and_then(|location| reqwest::Url::parse(&location).ok())
        .and_then(|url| {
            url.query_pairs()
                .find(|(name, _)| name == "code")
                .map(|(_, code)| code.into_owned())
        })
        .unwrap_or_default();
    let client: Agent = server.anonymous().with_basic(&client_id, &client_secret);
    let tokens = s.add(
        "POST token (authorization code)",
        200,
        Kind::OAuth,
        client
            .post("/api/o/token/")
            .form(&[
                ("grant_type", "authorization_code"),
                ("code", code.as_str()),
                ("code_verifier", verifier.as_str()),
            ])
            .call(),
    );
    let access = tokens.json()["access_token"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    s.add(
        "POST token (code used again)",
        400,
        Kind::OAuth,
        client
            .post("/api/o/token/")
            .form(&[
                ("grant_type", "authorization_code"),
                ("code", code.as_str()),
            ])
            .call(),
    );
    s.add(
        "POST token (password grant)",
        200,
        Kind::OAuth,
        password_app.token_request(
            &server,
            &[
                ("grant_type", "password"),
                ("username", "carol"),
                ("password", "pw-carol-1234"),
            ],
        ),
    );
    s.add(
        "POST token (bad client)",
        401,
        Kind::OAuth,
        server
            .anonymous()
            .with_basic(&client_id, "wrong")
            .post("/api/o/token/")
            .form(&[("grant_type", "password")])
            .call(),
    );
    s.add(
        "POST token (JSON body)",
        400,
        Kind::OAuth,
        client.post("/api/o/token/").json(&json!({})).call(),
    );
    s.add(
        "POST token (over the body limit)",
        413,
        Kind::OAuth,
        client
            .post("/api/o/token/")
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(format!("grant_type={}", "x".repeat(1 << 20)))
            .call(),
    );
    s.add(
        "GET token",
        405,
        Kind::OAuth,
        client.get("/api/o/token/").call(),
    );
    s.add(
        "POST introspect",
        200,
        Kind::OAuth,
        client
            .post("/api/o/introspect/")
            .form(&[("token", access.as_str())])
            .call(),
    );
    s.add(
        "POST revoke_token",
        200,
        Kind::OAuth,
        client
            .post("/api/o/revoke_token/")
            .form(&[("token", access.as_str())])
            .call(),
    );

    // Static files.
    s.add(
        "GET the stylesheet",
        200,
        Kind::Static,
        anonymous.get("/static/acs.css").call(),
    );
    s.add(
        "GET the script",
        200,
        Kind::Static,
        anonymous.get("/static/acs.js").call(),
    );
    s.add(
        "GET the icon",
        200,
        Kind::Static,
        anonymous.get("/favicon.ico").call(),
    );

    let mut failures = Vec::new();
    for sample in &s.0 {
        if sample.reply.status != sample.status {
            failures.push(format!(
                "{}: answered {} (expected {}): {}",
                sample.label,
                sample.reply.status,
                sample.status,
                sample.reply.body.chars().take(300).collect::<String>()
            ));
            continue;
        }
        let missing = problems(&sample.reply, sample.kind);
        if !missing.is_empty() {
            failures.push(format!(
                "{} ({} {}): {missing:?}; headers {:?}",
                sample.label, sample.reply.method, sample.reply.status, sample.reply.headers
            ));
        }
    }
    let without_allow: Vec<&str> =
        s.0.iter()
            .filter(|sample| sample.reply.status == 405 && sample.reply.header("allow").is_none())
            .map(|sample| sample.label.as_str())
            .collect();
    let mut by_kind = std::collections::BTreeMap::new();
    for sample in &s.0 {
        *by_kind.entry(format!("{:?}", sample.kind)).or_insert(0) += 1;
    }
    eprintln!(
        "security_headers ({backend:?}): {} responses checked ({by_kind:?}); {} failed; \
         405s without Allow: {without_allow:?}",
        s.0.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{failures:#?}");
    assert!(
        without_allow.is_empty(),
        "405s without Allow: {without_allow:?}"
    );
}

//! `/api/o/authorize/`, the browser side of the authorization-code grant: the login detour,
//! the consent page and its form, the errors shown on a page and those sent back to the
//! client, PKCE, and exchanging the code at `/api/o/token/` (redirect URI rules, single use,
//! expiry, `AUTHORIZATION_CODE_EXPIRE_SECONDS`, `skip_authorization`,
//! `ALLOW_OAUTH2_FOR_EXTERNAL_USERS`, deactivated users).

use acs_oauth2::CodeChallenge;
use acs_tests::oauth::authorize_path;
use acs_tests::{Agent, Backend, Call, Reply, TestServer, backend_tests, percent_decode};
use reqwest::Url;
use serde_json::{Value, json};

backend_tests!(
    anonymous_visitor_is_sent_to_login_and_comes_back_to_the_consent_page,
    bearer_and_basic_credentials_are_not_a_browser_session,
    consent_page_shows_the_request_and_carries_exactly_the_parameters_sent,
    consent_page_escapes_the_application_name,
    allow_issues_a_code_that_exchanges_once_for_working_tokens,
    deny_redirects_with_access_denied_and_stores_no_code,
    consent_post_with_a_wrong_or_missing_csrf_token_is_403,
    unverifiable_requests_are_400_pages_never_redirects,
    errors_after_the_client_is_verified_go_back_to_the_redirect_uri,
    pkce_s256_binds_the_code_of_a_public_client_to_its_verifier,
    code_issued_without_challenge_refuses_a_code_verifier,
    redirect_uri_sent_at_authorize_must_be_repeated_at_the_exchange,
    redirect_uri_not_sent_at_authorize_need_not_be_repeated,
    expired_code_is_invalid_grant,
    code_lifetime_follows_authorization_code_expire_seconds,
    skip_authorization_redirects_with_a_code_without_consent,
    external_user_needs_allow_oauth2_for_external_users,
    external_user_code_refused_at_exchange_after_setting_off_is_kept,
    deactivated_user_code_is_invalid_grant,
);

const AUTHORIZE: &str = "/api/o/authorize/";
const TOKEN: &str = "/api/o/token/";
const AUTHENTICATION_SETTINGS: &str = "/api/v2/settings/authentication/";
/// The registered redirect URI of every application here; nothing listens there (redirects
/// are never followed, only their `Location` is read).
const REDIRECT: &str = "https://client.example/cb";
const ORGANIZATION: &str = "Acme Org";
const USER: &str = "alice";
const PASSWORD: &str = "pw-alice-1";
/// The description `ALLOW_OAUTH2_FOR_EXTERNAL_USERS` refuses an LDAP user with (AWX's).
const EXTERNAL_DENIED: &str = "(access_denied) OAuth2 Tokens cannot be created by users associated with an external authentication provider (ldap)";
/// RFC 7636 appendix B's verifier.
const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";

/// Request parameters, in order.
type Params<'a> = Vec<(&'a str, &'a str)>;

/// An application as created: its id, `client_id` and (confidential only) `client_secret`.
#[derive(Debug, Clone)]
struct App {
    id: i64,
    client_id: String,
    secret: Option<String>,
}

/// A server with an organization, a member `alice` with a password, and `alice` logged in
/// in a browser (`browser`, whose `csrftoken` after login is `csrf`).
#[derive(Debug)]
struct Flow {
    server: TestServer,
    organization: i64,
    user_id: i64,
    browser: Agent,
    csrf: String,
}

impl Flow {
    fn start(backend: Backend) -> Flow {
        let server = TestServer::start(backend);
        let organization = server.create_organization(ORGANIZATION);
        let user_id = server.create_user(USER, PASSWORD, false);
        server.add_member(organization, user_id);
        let browser = server.client();
        let login = server.login(&browser, USER, PASSWORD);
        Flow {
            server,
            organization,
            user_id,
            browser,
            csrf: login.csrf,
        }
    }

    /// Creates an application in the organization as admin; `extra` overrides the defaults
    /// (a confidential authorization-code client with `REDIRECT` registered).
    fn application(&self, name: &str, client_type: &str, extra: &Value) -> App {
        let mut body = json!({
            "name": name,
            "organization": self.organization,
            "client_type": client_type,
            "authorization_grant_type": "authorization-code",
            "redirect_uris": REDIRECT,
        });
        for (key, value) in extra.as_object().expect("extra is an object") {
            body[key] = value.clone();
        }
        let created = self
            .server
            .admin()
            .post("/api/v2/applications/")
            .json(&body)
            .call()
            .expect(201)
            .json();
        let secret = created["client_secret"].as_str().map(str::to_owned);
        assert_eq!(
            secret.is_some(),
            client_type == "confidential",
            "client_secret of a {client_type} client: {created}"
        );
        App {
            id: created["id"]
                .as_i64()
                .unwrap_or_else(|| panic!("no id in {created}")),
            client_id: created["client_id"]
                .as_str()
                .unwrap_or_else(|| panic!("no client_id in {created}"))
                .to_owned(),
            secret,
        }
    }

    fn confidential(&self) -> App {
        self.application("Client App", "confidential", &json!({}))
    }

    fn public(&self) -> App {
        self.application("Public App", "public", &json!({}))
    }

    /// `GET /api/o/authorize/?<params>` in the logged-in browser.
    fn authorize(&self, params: &[(&str, &str)]) -> Reply {
        self.browser.get(&authorize_path(params)).call()
    }

    /// The consent page for `params` (expects 200) and its hidden fields.
    fn consent(&self, params: &[(&str, &str)]) -> (Reply, Vec<(String, String)>) {
        let page = self.authorize(params).expect(200);
        let fields = hidden_fields(&page.body);
        (page, fields)
    }

    /// Posts the consent form back, as the browser would: `fields` plus the button pressed.
    fn decide(&self, fields: &[(String, String)], allow: bool) -> Reply {
        let mut form: Vec<(&str, &str)> = fields
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
            .collect();
        form.push(if allow {
            ("allow", "Authorize")
        } else {
            ("deny", "Deny")
        });
        self.browser.post(AUTHORIZE).form(&form).call()
    }

    /// Shows the consent page for `params`, presses Authorize and returns the code of the
    /// redirect (which must go to `REDIRECT` and echo `state`).
    fn code(&self, params: &[(&str, &str)]) -> String {
        let (_, fields) = self.consent(params);
        let reply = self.decide(&fields, true).expect(302);
        code_of(&reply, param(params, "state"))
    }

    /// `POST /api/o/token/` with `grant_type=authorization_code`, `code` and `extra`; a
    /// confidential client authenticates with Basic, a public one sends its `client_id`.
    fn exchange(&self, app: &App, code: &str, extra: &[(&str, &str)]) -> Reply {
        let mut form = vec![("grant_type", "authorization_code"), ("code", code)];
        form.extend_from_slice(extra);
        let agent = match &app.secret {
            Some(secret) => self.server.anonymous().with_basic(&app.client_id, secret),
            None => {
                form.push(("client_id", app.client_id.as_str()));
                self.server.anonymous()
            }
        };
        agent.post(TOKEN).form(&form).call()
    }

    /// How many authorization codes are stored.
    fn codes(&self) -> i64 {
        self.server
            .query_i64("SELECT count(*) FROM authorization_codes")
    }

    /// `PATCH /api/v2/settings/authentication/` as admin (expects 200).
    fn set(&self, settings: &Value) {
        self.server
            .admin()
            .patch(AUTHENTICATION_SETTINGS)
            .json(settings)
            .call()
            .expect(200);
    }
}

/// The path of the authorization endpoint with `params` form-urlencoded as its query.
/// The value of `name` in `params`.
fn param<'a>(params: &[(&'a str, &'a str)], name: &str) -> Option<&'a str> {
    params.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
}

/// The standard request of a client: `response_type=code`, its `client_id`, `state=s`.
fn request<'a>(app: &'a App, more: &[(&'a str, &'a str)]) -> Params<'a> {
    let mut params = vec![
        ("response_type", "code"),
        ("client_id", app.client_id.as_str()),
        ("state", "s"),
    ];
    params.extend_from_slice(more);
    params
}

/// Undoes the HTML escaping of the page templates (handlebars' set).
fn html_unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&#x60;", "`")
        .replace("&#x3D;", "=")
        .replace("&amp;", "&")
}

/// The hidden inputs of a page, `(name, value)` in order, unescaped.
fn hidden_fields(html: &str) -> Vec<(String, String)> {
    const OPEN: &str = "<input type=\"hidden\" name=\"";
    html.split(OPEN)
        .skip(1)
        .map(|rest| {
            let (name, rest) = rest
                .split_once("\" value=\"")
                .unwrap_or_else(|| panic!("a hidden input without value: {rest}"));
            let (value, _) = rest
                .split_once('"')
                .unwrap_or_else(|| panic!("an unterminated value: {rest}"));
            (html_unescape(name), html_unescape(value))
        })
        .collect()
}

/// The redirect's target without its query (`scheme://host/path`) and its decoded query.
fn redirect_target(reply: &Reply) -> (String, Vec<(String, String)>) {
    let location = reply
        .location()
        .unwrap_or_else(|| panic!("{} {}: no Location", reply.method, reply.url));
    let url = Url::parse(&location).unwrap_or_else(|error| panic!("{location}: {error}"));
    let base = format!(
        "{}://{}{}",
        url.scheme(),
        url.host_str().unwrap_or(""),
        url.path()
    );
    let query = url.query_pairs().into_owned().collect();
    (base, query)
}

/// The value of `name` in decoded query pairs.
fn value<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// The code of a 302 to `REDIRECT` carrying exactly `code` and the `state` sent.
#[track_caller]
fn code_of(reply: &Reply, state: Option<&str>) -> String {
    assert_eq!(reply.status, 302, "{}", reply.body);
    assert_eq!(reply.header("cache-control").as_deref(), Some("no-store"));
    let (base, query) = redirect_target(reply);
    assert_eq!(base, REDIRECT, "{query:?}");
    let names: Vec<&str> = query.iter().map(|(n, _)| n.as_str()).collect();
    let expected: Vec<&str> = match state {
        Some(_) => vec!["code", "state"],
        None => vec!["code"],
    };
    assert_eq!(names, expected, "{:?}", reply.location());
    assert_eq!(value(&query, "state"), state);
    let code = value(&query, "code").expect("a code").to_owned();
    assert!(code.len() >= 43, "{code}");
    code
}

/// Asserts a 302 to `REDIRECT` with `error`, an `error_description` (returned) and `state=s`,
/// and no code.
#[track_caller]
fn redirected_error(reply: &Reply, error: &str) -> String {
    assert_eq!(
        reply.status, 302,
        "{} {} (expected a redirected {error}): {}",
        reply.method, reply.url, reply.body
    );
    let (base, query) = redirect_target(reply);
    assert_eq!(base, REDIRECT, "{query:?}");
    assert_eq!(value(&query, "error"), Some(error), "{query:?}");
    assert_eq!(value(&query, "state"), Some("s"), "{query:?}");
    assert_eq!(value(&query, "code"), None, "{query:?}");
    value(&query, "error_description")
        .unwrap_or_else(|| panic!("no error_description in {query:?}"))
        .to_owned()
}

/// Asserts a JSON OAuth error with `status` and `error`; returns its description.
#[track_caller]
fn oauth_error(reply: Reply, status: u16, error: &str) -> String {
    let body = reply.expect(status).json();
    assert_eq!(body["error"], error, "{body}");
    body["error_description"]
        .as_str()
        .unwrap_or_else(|| panic!("no error_description in {body}"))
        .to_owned()
}

/// Asserts an HTML page with `status` and no redirect.
#[track_caller]
fn html_page(reply: &Reply, status: u16) {
    assert_eq!(
        reply.status,
        status,
        "{} {} answered {} (expected {status}); Location {:?}; body: {}",
        reply.method,
        reply.url,
        reply.status,
        reply.location(),
        reply.body
    );
    assert_eq!(reply.location(), None, "{} {}", reply.method, reply.url);
    let content_type = reply.header("content-type").unwrap_or_default();
    assert!(content_type.starts_with("text/html"), "{content_type}");
    assert!(reply.body.contains("<html"), "{}", reply.body);
}

/// Asserts a 302 to the login page and returns its `next`, decoded.
#[track_caller]
fn login_next(reply: &Reply) -> String {
    assert_eq!(
        reply.status, 302,
        "{} {} (expected the login redirect): {}",
        reply.method, reply.url, reply.body
    );
    let location = reply.location().expect("a Location");
    let encoded = location
        .strip_prefix("/api/login/?next=")
        .unwrap_or_else(|| panic!("not the login page: {location}"));
    percent_decode(encoded)
}

/// The token response of a successful exchange.
#[track_caller]
fn tokens(reply: Reply) -> Value {
    let body = reply.expect(200).json();
    for field in ["access_token", "refresh_token"] {
        assert!(
            body[field].as_str().is_some_and(|t| !t.is_empty()),
            "{field}: {body}"
        );
    }
    assert_eq!(body["token_type"], "Bearer", "{body}");
    body
}

/// The username `GET /api/v2/me/` answers for an access token.
fn me(server: &TestServer, access_token: &str) -> String {
    let me = server
        .anonymous()
        .with_bearer(access_token)
        .get_json("/api/v2/me/");
    me["results"][0]["username"]
        .as_str()
        .unwrap_or_else(|| panic!("no username in {me}"))
        .to_owned()
}

fn anonymous_visitor_is_sent_to_login_and_comes_back_to_the_consent_page(backend: Backend) {
    let flow = Flow::start(backend);
    let app = flow.confidential();
    let id = &app.client_id;
    let browser = flow.server.client();
    let reply = browser.get(&authorize_path(&request(&app, &[]))).call();
    assert_eq!(reply.status, 302, "{}", reply.body);
    assert_eq!(
        reply.location(),
        Some(format!(
            "/api/login/?next=/api/o/authorize/%3Fresponse_type%3Dcode%26client_id%3D{id}%26state%3Ds"
        ))
    );
    let next = login_next(&reply);
    assert_eq!(
        next,
        format!("/api/o/authorize/?response_type=code&client_id={id}&state=s")
    );
    let login = flow
        .server
        .login_attempt(&browser, USER, PASSWORD, Some(&next))
        .expect(302);
    assert_eq!(login.location().as_deref(), Some(next.as_str()));
    let page = browser.get(&next).call().expect(200);
    assert!(page.body.contains("Client App"), "{}", page.body);
    assert!(page.body.contains("name=\"allow\""), "{}", page.body);
}

fn bearer_and_basic_credentials_are_not_a_browser_session(backend: Backend) {
    let flow = Flow::start(backend);
    let app = flow.confidential();
    let path = authorize_path(&request(&app, &[]));
    let basic = flow.server.as_user(USER, PASSWORD);
    let token = basic.personal_token("write");
    // Both are valid credentials on the API.
    basic.get("/api/v2/me/").call().expect(200);
    let bearer = flow.server.anonymous().with_bearer(&token);
    bearer.get("/api/v2/me/").call().expect(200);
    for (how, agent) in [("Basic", basic), ("Bearer", bearer)] {
        let reply = agent.get(&path).call();
        let next = login_next(&reply);
        assert_eq!(next, path, "{how}");
    }
    assert_eq!(flow.codes(), 0);
}

fn consent_page_shows_the_request_and_carries_exactly_the_parameters_sent(backend: Backend) {
    let flow = Flow::start(backend);
    let app = flow.confidential();
    let (page, fields) = flow.consent(&request(&app, &[("scope", "read")]));
    let content_type = page.header("content-type").unwrap_or_default();
    assert!(content_type.starts_with("text/html"), "{content_type}");
    assert!(
        page.header("content-security-policy")
            .is_some_and(|csp| !csp.is_empty()),
        "{:?}",
        page.headers
    );
    assert_eq!(page.header("cache-control").as_deref(), Some("no-store"));
    for shown in ["Client App", ORGANIZATION, "<code>read</code>", USER] {
        assert!(page.body.contains(shown), "{shown} missing: {}", page.body);
    }
    let (csrf, carried) = fields.split_first().expect("hidden fields");
    assert_eq!(
        csrf,
        &("csrfmiddlewaretoken".to_owned(), flow.csrf.clone()),
        "the form carries the browser's csrftoken"
    );
    let mut carried = carried.to_vec();
    carried.sort();
    let mut sent: Vec<(String, String)> = request(&app, &[("scope", "read")])
        .into_iter()
        .map(|(n, v)| (n.to_owned(), v.to_owned()))
        .collect();
    sent.sort();
    assert_eq!(carried, sent, "no redirect_uri input when none was sent");

    // Everything sent is carried, the redirect URI and PKCE parameters included.
    let challenge = CodeChallenge::s256_of(VERIFIER);
    let full = request(
        &app,
        &[
            ("redirect_uri", REDIRECT),
            ("code_challenge", challenge.as_str()),
            ("code_challenge_method", "S256"),
        ],
    );
    let (page, fields) = flow.consent(&full);
    // The default scope is every scope, in the reference's words.
    assert!(
        page.body.contains("<code>read write</code>"),
        "{}",
        page.body
    );
    let mut carried: Vec<(String, String)> = fields
        .into_iter()
        .filter(|(name, _)| name != "csrfmiddlewaretoken")
        .collect();
    carried.sort();
    let mut sent: Vec<(String, String)> = full
        .into_iter()
        .map(|(n, v)| (n.to_owned(), v.to_owned()))
        .collect();
    sent.sort();
    assert_eq!(carried, sent);
}

fn consent_page_escapes_the_application_name(backend: Backend) {
    let flow = Flow::start(backend);
    let app = flow.application("<script>x</script>", "confidential", &json!({}));
    let (page, _) = flow.consent(&request(&app, &[]));
    assert!(!page.body.contains("<script>"), "{}", page.body);
    assert!(
        page.body.contains("&lt;script&gt;x&lt;/script&gt;"),
        "{}",
        page.body
    );
}

fn allow_issues_a_code_that_exchanges_once_for_working_tokens(backend: Backend) {
    let flow = Flow::start(backend);
    let app = flow.confidential();
    let code = flow.code(&request(
        &app,
        &[("scope", "read"), ("redirect_uri", REDIRECT)],
    ));
    assert_eq!(flow.codes(), 1);
    let body = tokens(flow.exchange(&app, &code, &[("redirect_uri", REDIRECT)]));
    assert_eq!(body["scope"], "read", "{body}");
    let access = body["access_token"].as_str().expect("access_token");
    assert_eq!(me(&flow.server, access), USER);
    assert_eq!(flow.codes(), 0, "the exchanged code is gone");
    oauth_error(
        flow.exchange(&app, &code, &[("redirect_uri", REDIRECT)]),
        400,
        "invalid_grant",
    );
}

fn deny_redirects_with_access_denied_and_stores_no_code(backend: Backend) {
    let flow = Flow::start(backend);
    let app = flow.confidential();
    let (_, fields) = flow.consent(&request(&app, &[]));
    let reply = flow.decide(&fields, false);
    let description = redirected_error(&reply, "access_denied");
    assert!(!description.is_empty());
    assert!(
        reply.location().is_some_and(|l| l.starts_with(&format!(
            "{REDIRECT}?error=access_denied&error_description="
        ))),
        "{:?}",
        reply.location()
    );
    assert_eq!(flow.codes(), 0);
}

fn consent_post_with_a_wrong_or_missing_csrf_token_is_403(backend: Backend) {
    let flow = Flow::start(backend);
    let app = flow.confidential();
    let (_, fields) = flow.consent(&request(&app, &[]));
    let without: Vec<(String, String)> = fields
        .iter()
        .filter(|(name, _)| name != "csrfmiddlewaretoken")
        .cloned()
        .collect();
    let mut wrong = without.clone();
    wrong.push((
        "csrfmiddlewaretoken".to_owned(),
        "x".repeat(flow.csrf.len()),
    ));
    for (case, form) in [("missing", without), ("wrong", wrong)] {
        let reply = flow.decide(&form, true);
        html_page(&reply, 403);
        assert!(reply.body.contains("CSRF"), "{case}: {}", reply.body);
    }
    assert_eq!(flow.codes(), 0);
    // The page's own form still works.
    let code = code_of(&flow.decide(&fields, true), Some("s"));
    assert!(!code.is_empty());
}

fn unverifiable_requests_are_400_pages_never_redirects(backend: Backend) {
    let flow = Flow::start(backend);
    let app = flow.confidential();
    let two = flow.application(
        "Two URIs",
        "confidential",
        &json!({ "redirect_uris": format!("{REDIRECT} https://client.example/other") }),
    );
    let id = app.client_id.as_str();
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "missing client_id",
            authorize_path(&[("response_type", "code"), ("state", "s")]),
            "Missing client_id parameter.",
        ),
        (
            "unknown client_id",
            authorize_path(&[
                ("response_type", "code"),
                ("client_id", "no-such-client"),
                ("state", "s"),
            ]),
            "Invalid client_id parameter value.",
        ),
        (
            "unregistered redirect_uri",
            authorize_path(&request(
                &app,
                &[("redirect_uri", "https://evil.example/cb")],
            )),
            "Mismatching redirect URI.",
        ),
        (
            "implicit grant",
            authorize_path(&[
                ("response_type", "token"),
                ("client_id", id),
                ("state", "s"),
            ]),
            "implicit grant",
        ),
        (
            "repeated parameter",
            format!("{AUTHORIZE}?response_type=code&client_id={id}&state=a&state=b"),
            "Duplicate state parameter.",
        ),
        (
            "two registered URIs, none sent",
            authorize_path(&request(&two, &[])),
            "Missing redirect URI.",
        ),
    ];
    for (case, path, message) in cases {
        let reply = flow.browser.get(&path).call();
        html_page(&reply, 400);
        assert!(
            reply.body.contains(message),
            "{case}: {message:?} not in {}",
            reply.body
        );
    }
    assert_eq!(flow.codes(), 0);
}

fn errors_after_the_client_is_verified_go_back_to_the_redirect_uri(backend: Backend) {
    let flow = Flow::start(backend);
    let app = flow.confidential();
    let public = flow.public();
    let password = flow.application(
        "Password App",
        "confidential",
        &json!({ "authorization_grant_type": "password" }),
    );
    let challenge = CodeChallenge::s256_of(VERIFIER);
    let id = app.client_id.as_str();
    let cases: Vec<(&str, Params<'_>, &str, Option<&str>)> = vec![
        (
            "response_type missing",
            vec![("client_id", id), ("state", "s")],
            "invalid_request",
            Some("Missing response_type parameter."),
        ),
        (
            "response_type other",
            vec![
                ("response_type", "other"),
                ("client_id", id),
                ("state", "s"),
            ],
            "unsupported_response_type",
            None,
        ),
        (
            "unknown scope",
            request(&app, &[("scope", "admin")]),
            "invalid_scope",
            None,
        ),
        (
            "password-grant application",
            request(&password, &[]),
            "unauthorized_client",
            None,
        ),
        (
            "plain PKCE method",
            request(
                &app,
                &[
                    ("code_challenge", challenge.as_str()),
                    ("code_challenge_method", "plain"),
                ],
            ),
            "invalid_request",
            Some("Transform algorithm not supported."),
        ),
        (
            "public client without code_challenge",
            request(&public, &[]),
            "invalid_request",
            Some("Code challenge required."),
        ),
    ];
    for (case, params, error, description) in cases {
        let reply = flow.authorize(&params);
        let got = redirected_error(&reply, error);
        if let Some(description) = description {
            assert_eq!(got, description, "{case}");
        }
    }
    assert_eq!(flow.codes(), 0);
}

fn pkce_s256_binds_the_code_of_a_public_client_to_its_verifier(backend: Backend) {
    let flow = Flow::start(backend);
    let app = flow.public();
    let challenge = CodeChallenge::s256_of(VERIFIER);
    let params = request(
        &app,
        &[
            ("code_challenge", challenge.as_str()),
            ("code_challenge_method", "S256"),
        ],
    );
    // Each refused exchange consumes its code, so every attempt gets a fresh one.
    let code = flow.code(&params);
    let other_verifier = "a".repeat(43);
    oauth_error(
        flow.exchange(&app, &code, &[("code_verifier", &other_verifier)]),
        400,
        "invalid_grant",
    );
    let code = flow.code(&params);
    oauth_error(flow.exchange(&app, &code, &[]), 400, "invalid_request");
    let code = flow.code(&params);
    let body = tokens(flow.exchange(&app, &code, &[("code_verifier", VERIFIER)]));
    assert_eq!(body["scope"], "read write", "{body}");
    let access = body["access_token"].as_str().expect("access_token");
    assert_eq!(me(&flow.server, access), USER);
    assert_eq!(flow.codes(), 0);
}

fn code_issued_without_challenge_refuses_a_code_verifier(backend: Backend) {
    let flow = Flow::start(backend);
    let app = flow.confidential();
    let code = flow.code(&request(&app, &[]));
    oauth_error(
        flow.exchange(&app, &code, &[("code_verifier", VERIFIER)]),
        400,
        "invalid_grant",
    );
}

fn redirect_uri_sent_at_authorize_must_be_repeated_at_the_exchange(backend: Backend) {
    let flow = Flow::start(backend);
    let app = flow.confidential();
    let params = request(&app, &[("redirect_uri", REDIRECT)]);
    for (case, extra) in [
        ("without redirect_uri", vec![]),
        (
            "with another redirect_uri",
            vec![("redirect_uri", "https://client.example/other")],
        ),
    ] {
        let code = flow.code(&params);
        let description = oauth_error(flow.exchange(&app, &code, &extra), 400, "invalid_request");
        assert_eq!(description, "Mismatching redirect URI.", "{case}");
    }
    let code = flow.code(&params);
    tokens(flow.exchange(&app, &code, &[("redirect_uri", REDIRECT)]));
}

fn redirect_uri_not_sent_at_authorize_need_not_be_repeated(backend: Backend) {
    let flow = Flow::start(backend);
    let app = flow.confidential();
    let code = flow.code(&request(&app, &[]));
    let body = tokens(flow.exchange(&app, &code, &[]));
    assert_eq!(body["scope"], "read write", "{body}");
}

fn expired_code_is_invalid_grant(backend: Backend) {
    let flow = Flow::start(backend);
    let app = flow.confidential();
    let code = flow.code(&request(&app, &[]));
    flow.server
        .execute_sql("UPDATE authorization_codes SET expires = '2000-01-01 00:00:00'");
    oauth_error(flow.exchange(&app, &code, &[]), 400, "invalid_grant");
}

/// `expires - created` of every stored code, in seconds, oldest first (read through diesel,
/// so the same on both backends).
fn code_lifetimes(server: &TestServer) -> Vec<i64> {
    use acs_storage::schema::authorization_codes::dsl::{
        authorization_codes, created, expires, id,
    };
    use diesel::{QueryDsl, RunQueryDsl};
    let mut conn = server.database().connect().expect("a database connection");
    let rows: Vec<(chrono::NaiveDateTime, chrono::NaiveDateTime)> = authorization_codes
        .order(id)
        .select((created, expires))
        .load(&mut conn)
        .expect("the authorization codes");
    rows.into_iter()
        .map(|(from, until)| (until - from).num_seconds())
        .collect()
}

fn code_lifetime_follows_authorization_code_expire_seconds(backend: Backend) {
    let flow = Flow::start(backend);
    let app = flow.confidential();
    flow.code(&request(&app, &[]));
    assert_eq!(code_lifetimes(&flow.server), vec![600], "the default");
    flow.set(&json!({ "OAUTH2_PROVIDER": { "AUTHORIZATION_CODE_EXPIRE_SECONDS": 60 } }));
    let code = flow.code(&request(&app, &[]));
    assert_eq!(code_lifetimes(&flow.server), vec![600, 60]);
    tokens(flow.exchange(&app, &code, &[]));
}

fn skip_authorization_redirects_with_a_code_without_consent(backend: Backend) {
    let flow = Flow::start(backend);
    let app = flow.application(
        "Trusted App",
        "confidential",
        &json!({ "skip_authorization": true }),
    );
    let reply = flow.authorize(&request(&app, &[("scope", "read")]));
    let code = code_of(&reply, Some("s"));
    assert_eq!(flow.codes(), 1);
    let body = tokens(flow.exchange(&app, &code, &[]));
    assert_eq!(body["scope"], "read", "{body}");
}

fn make_external(flow: &Flow) {
    flow.server.execute_sql(&format!(
        "UPDATE users SET external_account = 'ldap' WHERE id = {}",
        flow.user_id
    ));
}

fn external_user_needs_allow_oauth2_for_external_users(backend: Backend) {
    let flow = Flow::start(backend);
    let app = flow.confidential();
    make_external(&flow);
    let (_, fields) = flow.consent(&request(&app, &[]));
    let reply = flow.decide(&fields, true);
    let description = redirected_error(&reply, "access_denied");
    assert_eq!(description, EXTERNAL_DENIED);
    assert_eq!(flow.codes(), 0);

    flow.set(&json!({ "ALLOW_OAUTH2_FOR_EXTERNAL_USERS": true }));
    let code = flow.code(&request(&app, &[]));
    let body = tokens(flow.exchange(&app, &code, &[]));
    let access = body["access_token"].as_str().expect("access_token");
    assert_eq!(me(&flow.server, access), USER);
}

fn external_user_code_refused_at_exchange_after_setting_off_is_kept(backend: Backend) {
    let flow = Flow::start(backend);
    let app = flow.confidential();
    make_external(&flow);
    flow.set(&json!({ "ALLOW_OAUTH2_FOR_EXTERNAL_USERS": true }));
    let code = flow.code(&request(&app, &[]));
    flow.set(&json!({ "ALLOW_OAUTH2_FOR_EXTERNAL_USERS": false }));
    let description = oauth_error(flow.exchange(&app, &code, &[]), 403, "access_denied");
    assert_eq!(description, EXTERNAL_DENIED);
    assert_eq!(flow.codes(), 1, "the refused exchange rolled back");
    assert_eq!(
        flow.server.query_i64(&format!(
            "SELECT count(*) FROM access_tokens WHERE application_id = {}",
            app.id
        )),
        0
    );
    // The kept code is still good once the setting allows it again.
    flow.set(&json!({ "ALLOW_OAUTH2_FOR_EXTERNAL_USERS": true }));
    tokens(flow.exchange(&app, &code, &[]));
    assert_eq!(flow.codes(), 0);
}

fn deactivated_user_code_is_invalid_grant(backend: Backend) {
    let flow = Flow::start(backend);
    let app = flow.confidential();
    let code = flow.code(&request(&app, &[]));
    // The API has no way to deactivate a user (`is_active` is not a writable field of
    // /api/v2/users/, as in AWX: a PATCH of it answers 200 and changes nothing); an external
    // provider would, so the database is changed directly.
    flow.server.execute_sql(&format!(
        "UPDATE users SET is_active = FALSE WHERE id = {}",
        flow.user_id
    ));
    oauth_error(flow.exchange(&app, &code, &[]), 400, "invalid_grant");
}

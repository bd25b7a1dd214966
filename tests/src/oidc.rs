//! A real OpenID Connect provider on loopback for the single sign-on tests.
//!
//! Each [`Provider`] runs `tests/oidc/provider.mjs` (the npm package `oidc-provider`, pinned
//! in `scripts/setup-test-env.sh`) as a child process with `node`, configured with the
//! [`ProviderConfig`]'s clients and accounts. It listens on a free port of 127.0.0.1; its
//! issuer is `http://127.0.0.1:<port>` and its discovery document is at
//! `/.well-known/openid-configuration`.
//!
//! What it offers: the authorization code flow with PKCE S256 required, client
//! authentication `client_secret_basic` or `client_secret_post` (either, for every client),
//! scopes `openid profile email`, ID tokens signed RS256 with a key made at start that carry
//! `preferred_username`, `given_name`, `family_name`, `name`, `groups` when the account has
//! them (profile) and `email`, `email_verified` (email) themselves, and a userinfo endpoint.
//! Its authorization responses carry `iss` (RFC 9207) beside `code` and `state`.
//!
//! Its pages are plain HTML without JavaScript. The login page has a form posting `login`
//! (an account's `preferred_username`, or its `sub`) and `password` to
//! `/interaction/<uid>/login`, and a Cancel form posting to `/interaction/<uid>/abort` (the
//! relying party then gets `error=access_denied`). There is no consent page: logging in
//! grants the requested scopes. [`log_in_at_provider`] drives the pages as a browser would.
//!
//! The programs come from `ACS_NODE_BIN` and `ACS_OIDC_PROVIDER_SCRIPT`
//! (`scripts/setup-test-env.sh` installs `oidc-provider` into `<repo>/node_modules`,
//! `scripts/test-all.sh` sets the variables). A missing program fails the test; it never
//! skips it.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use reqwest::Url;
use reqwest::blocking::Response;
use serde_json::{Value, json};

const SETUP_HINT: &str = "run scripts/setup-test-env.sh (or scripts/test-all.sh, which runs it and \
                          sets ACS_NODE_BIN and ACS_OIDC_PROVIDER_SCRIPT=<repo>/tests/oidc/provider.mjs)";

/// How long the provider may take to print `READY`.
const START_TIMEOUT: Duration = Duration::from_secs(30);
/// How many redirects within the provider [`log_in_at_provider`] follows.
const MAX_HOPS: usize = 20;
/// How long one request to the provider may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// A client registered at the provider (a confidential client with a secret).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Client {
    /// `client_id`.
    pub client_id: String,
    /// `client_secret`, accepted with HTTP Basic and in the form body.
    pub client_secret: String,
    /// The exact redirect URIs it may use.
    pub redirect_uris: Vec<String>,
}

/// An account of the provider.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Account {
    /// The subject identifier (`sub`).
    pub sub: String,
    /// The password its login form takes.
    pub password: String,
    /// `preferred_username` (profile scope); also what the login form's `login` field takes.
    pub preferred_username: String,
    /// `given_name` (profile scope).
    pub given_name: String,
    /// `family_name` (profile scope).
    pub family_name: String,
    /// `email` (email scope, with `email_verified: true`).
    pub email: String,
    /// `groups` (profile scope, in the ID token): `None` leaves the claim out.
    pub groups: Option<Value>,
}

/// What the provider knows. Empty account fields are left out of the claims.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProviderConfig {
    /// The registered clients.
    pub clients: Vec<Client>,
    /// The accounts.
    pub accounts: Vec<Account>,
    /// The token endpoint answers ID tokens whose signature does not verify (the first
    /// character of the signature part is changed); everything else is as issued.
    pub tamper_id_token: bool,
}

impl ProviderConfig {
    fn to_json(&self) -> Value {
        json!({
            "port": 0,
            "clients": self.clients.iter().map(|c| json!({
                "client_id": c.client_id,
                "client_secret": c.client_secret,
                "redirect_uris": c.redirect_uris,
            })).collect::<Vec<_>>(),
            "accounts": self.accounts.iter().map(|a| json!({
                "sub": a.sub,
                "password": a.password,
                "preferred_username": a.preferred_username,
                "given_name": a.given_name,
                "family_name": a.family_name,
                "email": a.email,
                "groups": a.groups,
            })).collect::<Vec<_>>(),
            "tamper_id_token": self.tamper_id_token,
        })
    }
}

/// The `node` process, killed and reaped when dropped, also when `start` panics.
struct Node(Child);

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One running provider. Stopped when dropped (it also exits by itself when the test
/// process ends, as its stdin closes).
pub struct Provider {
    issuer: String,
    node: Node,
    log: Arc<Mutex<String>>,
    started_in: Duration,
}

impl std::fmt::Debug for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Provider")
            .field("issuer", &self.issuer)
            .field("pid", &self.node.0.id())
            .field("started_in", &self.started_in)
            .finish_non_exhaustive()
    }
}

/// The path named by `variable`, which must be set and name an existing file.
#[track_caller]
fn file_from_env(variable: &str, what: &str) -> PathBuf {
    let path = std::env::var_os(variable)
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            panic!("{variable} is not set: the OpenID Connect tests need {what}; {SETUP_HINT}")
        });
    assert!(
        path.is_file(),
        "{variable} names {}, which does not exist: the OpenID Connect tests need {what}; {SETUP_HINT}",
        path.display()
    );
    path
}

/// The `node_modules/oidc-provider` node resolves from `script` (in its directory or one
/// above it).
#[track_caller]
fn require_package(script: &Path) {
    let found = script.ancestors().skip(1).any(|dir| {
        dir.join("node_modules/oidc-provider/package.json")
            .is_file()
    });
    assert!(
        found,
        "the npm package oidc-provider is not installed in a node_modules directory above {}; \
         {SETUP_HINT}",
        script.display()
    );
}

fn drain(stream: impl Read + Send + 'static, log: Arc<Mutex<String>>) -> JoinHandle<()> {
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            if let Ok(mut log) = log.lock() {
                log.push_str(&line);
                log.push('\n');
            }
        }
    })
}

fn snapshot(log: &Mutex<String>) -> String {
    log.lock().map(|log| log.clone()).unwrap_or_default()
}

impl Provider {
    /// Starts a provider with `node` from `ACS_NODE_BIN` running `ACS_OIDC_PROVIDER_SCRIPT`
    /// and waits until it listens (at most 30 s).
    ///
    /// Panics, naming the variable and the setup script, if a program or the npm package is
    /// missing, and with the provider's stderr if it does not start.
    #[track_caller]
    pub fn start(config: ProviderConfig) -> Provider {
        let node = file_from_env("ACS_NODE_BIN", "Node.js (node >= 20.12)");
        let script = file_from_env(
            "ACS_OIDC_PROVIDER_SCRIPT",
            "the provider script tests/oidc/provider.mjs",
        );
        require_package(&script);

        let started = Instant::now();
        let mut child = Command::new(&node)
            .arg(&script)
            .env("ACS_OIDC_PROVIDER_CONFIG", config.to_json().to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|error| {
                panic!(
                    "{} {} does not start: {error}",
                    node.display(),
                    script.display()
                )
            });
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let mut node_process = Node(child);

        let log = Arc::new(Mutex::new(String::new()));
        let stderr_thread = drain(stderr, log.clone());
        let (ready_tx, ready_rx) = mpsc::channel();
        let stdout_log = log.clone();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            for line in lines.by_ref() {
                let Ok(line) = line else { break };
                if let Some(issuer) = line.strip_prefix("READY ") {
                    let _ = ready_tx.send(issuer.trim().to_owned());
                    break;
                }
                if let Ok(mut log) = stdout_log.lock() {
                    log.push_str("stdout: ");
                    log.push_str(&line);
                    log.push('\n');
                }
            }
            // Keep reading so the provider never blocks on a full pipe.
            for _ in lines {}
        });

        let issuer = match ready_rx.recv_timeout(START_TIMEOUT) {
            Ok(issuer) => issuer,
            Err(error) => {
                let why = match error {
                    mpsc::RecvTimeoutError::Timeout => {
                        format!("did not print READY within {START_TIMEOUT:?}")
                    }
                    mpsc::RecvTimeoutError::Disconnected => "exited before it printed READY".into(),
                };
                let _ = node_process.0.kill();
                let status = node_process
                    .0
                    .wait()
                    .map_or_else(|error| format!("wait failed: {error}"), |s| s.to_string());
                let _ = stderr_thread.join();
                panic!(
                    "the OpenID Connect provider ({} {}) {why} ({status}); its output:\n{}",
                    node.display(),
                    script.display(),
                    snapshot(&log)
                );
            }
        };
        Provider {
            issuer,
            node: node_process,
            log,
            started_in: started.elapsed(),
        }
    }

    /// `http://127.0.0.1:<port>`, without a trailing slash.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The absolute URL of `path` (which starts with `/`).
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.issuer)
    }

    /// `/.well-known/openid-configuration`.
    #[track_caller]
    pub fn discovery(&self) -> Value {
        let url = self.url("/.well-known/openid-configuration");
        let response = browser_client()
            .get(&url)
            .send()
            .unwrap_or_else(|error| panic!("GET {url}: {error}"));
        let status = response.status().as_u16();
        let body = response.text().unwrap_or_default();
        assert_eq!(status, 200, "GET {url}: {body}");
        serde_json::from_str(&body).unwrap_or_else(|error| panic!("GET {url}: {error}: {body}"))
    }

    /// What the provider has written so far: its warnings and one line per request
    /// (`METHOD path status`).
    pub fn log(&self) -> String {
        snapshot(&self.log)
    }

    /// How long it took from spawning `node` to `READY`.
    pub fn started_in(&self) -> Duration {
        self.started_in
    }
}

/// A client as a browser: a cookie jar, no redirects followed (so the redirect back to the
/// relying party can be read from `Location`), a 30 s timeout.
pub fn browser_client() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .timeout(REQUEST_TIMEOUT)
        .build()
        .expect("a reqwest client")
}

/// Where an attempt to log in at the provider ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoginOutcome {
    /// The provider redirected away from itself: the `Location` (the relying party's redirect
    /// URI with `code`, `state` and `iss`, or with `error`).
    Redirected(String),
    /// The provider answered its login page (again): the credentials were refused.
    LoginPage {
        /// The status (200).
        status: u16,
        /// The page.
        body: String,
    },
}

fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}

fn send(request: reqwest::blocking::RequestBuilder, what: &str) -> Response {
    request.send().unwrap_or_else(|error| {
        panic!(
            "{what}: {error} (is the client built with redirects disabled, as browser_client()?)"
        )
    })
}

/// Follows the redirects of `response` while they stay at the provider (`provider`, an
/// origin). Ends at a redirect elsewhere or a page.
fn follow(
    client: &reqwest::blocking::Client,
    provider: &str,
    mut url: Url,
    mut response: Response,
) -> (Url, Result<Response, String>) {
    for _ in 0..MAX_HOPS {
        if !response.status().is_redirection() {
            return (url, Ok(response));
        }
        let location = response
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_else(|| panic!("{} from {url} without a Location", response.status()))
            .to_owned();
        let next = url
            .join(&location)
            .unwrap_or_else(|error| panic!("Location {location} from {url}: {error}"));
        if origin(&next) != provider {
            return (url, Err(location));
        }
        response = send(client.get(next.clone()), &format!("GET {next}"));
        url = next;
    }
    panic!("more than {MAX_HOPS} redirects within the provider, the last to {url}")
}

/// The `action` of the page's form that ends with `/<name>`.
fn form_action(body: &str, name: &str) -> Option<String> {
    let suffix = format!("/{name}");
    body.split("action=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(|action| action.replace("&amp;", "&"))
        .find(|action| action.ends_with(&suffix))
}

fn page_of(url: &Url, response: Response) -> (u16, String) {
    let status = response.status().as_u16();
    let body = response
        .text()
        .unwrap_or_else(|error| panic!("the page at {url}: {error}"));
    (status, body)
}

/// Opens `authorize_url` with `client` and returns the provider's login page: its URL and
/// body. `Err(location)` when the provider redirects away at once (a session of `client`
/// is already logged in).
fn open_login_page(
    client: &reqwest::blocking::Client,
    authorize_url: &str,
) -> (String, Result<(Url, String), String>) {
    let url = Url::parse(authorize_url)
        .unwrap_or_else(|error| panic!("the authorization URL {authorize_url}: {error}"));
    let provider = origin(&url);
    let response = send(client.get(url.clone()), &format!("GET {url}"));
    match follow(client, &provider, url, response) {
        (_, Err(location)) => (provider, Err(location)),
        (url, Ok(response)) => {
            let (status, body) = page_of(&url, response);
            assert!(
                status == 200 && form_action(&body, "login").is_some(),
                "expected the provider's login page at {url}, got {status}: {body}"
            );
            (provider, Ok((url, body)))
        }
    }
}

/// Opens `authorize_url`, fills the provider's login form with `login` and `password` and
/// posts it, following the redirects within the provider. `client` must keep cookies and
/// not follow redirects ([`browser_client`]).
///
/// When the provider redirects away before showing its login page (`client` is already
/// logged in there), that redirect is the outcome.
#[track_caller]
pub fn attempt_login_at_provider(
    client: &reqwest::blocking::Client,
    authorize_url: &str,
    login: &str,
    password: &str,
) -> LoginOutcome {
    let (provider, (page_url, body)) = match open_login_page(client, authorize_url) {
        (_, Err(location)) => return LoginOutcome::Redirected(location),
        (provider, Ok(page)) => (provider, page),
    };
    let action = form_action(&body, "login").expect("the login form");
    let target = page_url
        .join(&action)
        .unwrap_or_else(|error| panic!("the login form's action {action}: {error}"));
    let response = send(
        client
            .post(target.clone())
            .form(&[("login", login), ("password", password)]),
        &format!("POST {target}"),
    );
    match follow(client, &provider, target, response) {
        (_, Err(location)) => LoginOutcome::Redirected(location),
        (url, Ok(response)) => {
            let (status, body) = page_of(&url, response);
            assert!(
                form_action(&body, "login").is_some(),
                "after posting the login form the provider answered {status} at {url}: {body}"
            );
            LoginOutcome::LoginPage { status, body }
        }
    }
}

/// Logs in at the provider ([`attempt_login_at_provider`]) and returns the `Location` that
/// sends the browser back to the relying party (not followed). Panics when the provider
/// refuses the credentials.
#[track_caller]
pub fn log_in_at_provider(
    client: &reqwest::blocking::Client,
    authorize_url: &str,
    login: &str,
    password: &str,
) -> String {
    match attempt_login_at_provider(client, authorize_url, login, password) {
        LoginOutcome::Redirected(location) => location,
        LoginOutcome::LoginPage { status, body } => {
            panic!("the provider refused {login}'s credentials ({status}): {body}")
        }
    }
}

/// Opens `authorize_url` and presses Cancel on the provider's login page; returns the
/// `Location` back to the relying party (with `error=access_denied`).
#[track_caller]
pub fn cancel_at_provider(client: &reqwest::blocking::Client, authorize_url: &str) -> String {
    let (provider, (page_url, body)) = match open_login_page(client, authorize_url) {
        (_, Err(location)) => {
            panic!("the provider redirected to {location} without showing its login page")
        }
        (provider, Ok(page)) => (provider, page),
    };
    let action = form_action(&body, "abort").expect("the login page's Cancel form");
    let target = page_url
        .join(&action)
        .unwrap_or_else(|error| panic!("the Cancel form's action {action}: {error}"));
    let response = send(client.post(target.clone()), &format!("POST {target}"));
    match follow(client, &provider, target, response) {
        (_, Err(location)) => location,
        (url, Ok(response)) => {
            let (status, body) = page_of(&url, response);
            panic!("after Cancel the provider answered {status} at {url}: {body}")
        }
    }
}

const BASE64URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Base64url without padding (RFC 4648 §5), as JOSE and PKCE use it.
pub fn base64url_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=chunk.len() {
            out.push(char::from(BASE64URL[((n >> (18 - 6 * i)) & 63) as usize]));
        }
    }
    out
}

/// Decodes base64url with or without padding; `None` when `text` is not base64url.
pub fn base64url_decode(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    if text.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes() {
        let value = BASE64URL.iter().position(|&b| b == c)?;
        acc = (acc << 6) | u32::try_from(value).ok()?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(u8::try_from((acc >> bits) & 0xff).ok()?);
        }
    }
    Some(out)
}

/// The PKCE S256 `code_challenge` of `verifier`: base64url(SHA-256(verifier)).
pub fn pkce_s256(verifier: &str) -> String {
    base64url_encode(ring::digest::digest(&ring::digest::SHA256, verifier.as_bytes()).as_ref())
}

/// The decoded payload (middle part) of a JWT, unverified.
#[track_caller]
pub fn jwt_payload(token: &str) -> Value {
    let part = token
        .split('.')
        .nth(1)
        .unwrap_or_else(|| panic!("{token} is not a JWT"));
    let bytes = base64url_decode(part).unwrap_or_else(|| panic!("{token}: payload not base64url"));
    serde_json::from_slice(&bytes).unwrap_or_else(|error| panic!("{token}: payload: {error}"))
}

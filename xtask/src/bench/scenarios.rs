//! What is measured on the real server. Each scenario sets itself up against the running
//! server (logging in, issuing a token, …) and returns the one request its connections repeat.

use std::net::SocketAddr;

use base64::Engine;
use base64::prelude::BASE64_STANDARD;

use super::ME_PATH;
use super::load::{self, Reply};
use super::server::{ADMIN_PASSWORD, ADMIN_USERNAME};
use crate::Result;

/// A row of [`SCENARIOS`].
#[derive(Debug)]
pub struct Scenario {
    pub name: &'static str,
    /// Prepares the scenario on the server at the address; returns the request to repeat.
    pub prepare: fn(SocketAddr) -> Result<Vec<u8>>,
}

/// Measured in this order, each after the previous on the same server.
pub const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "basic",
        prepare: basic,
    },
    Scenario {
        name: "session",
        prepare: session,
    },
    Scenario {
        name: "bearer",
        prepare: bearer,
    },
    Scenario {
        name: "token_issue",
        prepare: token_issue,
    },
];

const PERSONAL_TOKENS_PATH: &str = "/api/v2/users/admin/personal_tokens/";
const TOKENS_PATH: &str = "/api/v2/tokens/";

const LOGIN_PATH: &str = "/api/login/";

/// HTTP Basic on every request: password verification cost included.
fn basic(addr: SocketAddr) -> Result<Vec<u8>> {
    let credentials = BASE64_STANDARD.encode(format!("{ADMIN_USERNAME}:{ADMIN_PASSWORD}"));
    let authorization = format!("Basic {credentials}");
    Ok(load::request(
        "GET",
        addr,
        ME_PATH,
        &[("Authorization", authorization.as_str())],
        b"",
    ))
}

/// The browsable API's session cookie, obtained through the login form as a browser would.
fn session(addr: SocketAddr) -> Result<Vec<u8>> {
    let page = load::fetch(addr, &load::request("GET", addr, LOGIN_PATH, &[], b""))?;
    let csrf = cookie(&page, "csrftoken").ok_or_else(|| {
        format!(
            "GET {LOGIN_PATH} answered {} without a csrftoken cookie",
            page.status
        )
    })?;
    let form = serde_urlencoded::to_string([
        ("username", ADMIN_USERNAME),
        ("password", ADMIN_PASSWORD),
        ("next", "/api/"),
    ])?;
    let cookies = format!("csrftoken={csrf}");
    let referer = format!("http://{addr}{LOGIN_PATH}");
    let headers = [
        ("Content-Type", "application/x-www-form-urlencoded"),
        ("Cookie", cookies.as_str()),
        ("X-CSRFToken", csrf.as_str()),
        ("Referer", referer.as_str()),
    ];
    let login = load::fetch(
        addr,
        &load::request("POST", addr, LOGIN_PATH, &headers, form.as_bytes()),
    )?;
    if login.status != 302 {
        // The start of the body is enough to see why (an error page can be long).
        let body = String::from_utf8_lossy(&login.body);
        let body: String = body.chars().take(300).collect();
        let status = login.status;
        return Err(format!("POST {LOGIN_PATH} answered {status} instead of 302: {body}").into());
    }
    let session = cookie(&login, "acs_sessionid")
        .ok_or_else(|| format!("POST {LOGIN_PATH} set no acs_sessionid cookie"))?;
    // A login may rotate the CSRF token; a browser would send the newest one.
    let csrf = cookie(&login, "csrftoken").unwrap_or(csrf);
    let cookies = format!("acs_sessionid={session}; csrftoken={csrf}");
    Ok(load::request(
        "GET",
        addr,
        ME_PATH,
        &[("Cookie", cookies.as_str())],
        b"",
    ))
}

/// An OAuth 2 personal access token (write scope), as `awx login` obtains one.
fn bearer(addr: SocketAddr) -> Result<Vec<u8>> {
    let token = personal_token(addr)?;
    let authorization = format!("Bearer {token}");
    Ok(load::request(
        "GET",
        addr,
        ME_PATH,
        &[("Authorization", authorization.as_str())],
        b"",
    ))
}

/// Token issuance: every request creates a personal token (`POST /api/v2/tokens/`),
/// authenticated by a bearer token so that the figure is the issuing, not a password check.
fn token_issue(addr: SocketAddr) -> Result<Vec<u8>> {
    let token = personal_token(addr)?;
    let authorization = format!("Bearer {token}");
    Ok(load::request(
        "POST",
        addr,
        TOKENS_PATH,
        &[
            ("Authorization", authorization.as_str()),
            ("Content-Type", "application/json"),
        ],
        br#"{"description": "bench", "scope": "read"}"#,
    ))
}

/// Creates a write-scoped personal token for the admin with Basic credentials.
fn personal_token(addr: SocketAddr) -> Result<String> {
    let credentials = BASE64_STANDARD.encode(format!("{ADMIN_USERNAME}:{ADMIN_PASSWORD}"));
    let authorization = format!("Basic {credentials}");
    let body = br#"{"description": "bench", "scope": "write"}"#;
    let reply = load::fetch(
        addr,
        &load::request(
            "POST",
            addr,
            PERSONAL_TOKENS_PATH,
            &[
                ("Authorization", authorization.as_str()),
                ("Content-Type", "application/json"),
            ],
            body,
        ),
    )?;
    if reply.status != 201 {
        let body: String = String::from_utf8_lossy(&reply.body)
            .chars()
            .take(300)
            .collect();
        return Err(format!(
            "POST {PERSONAL_TOKENS_PATH} answered {} instead of 201: {body}",
            reply.status
        )
        .into());
    }
    let record: serde_json::Value = serde_json::from_slice(&reply.body)?;
    record["token"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("POST {PERSONAL_TOKENS_PATH} returned no token").into())
}

/// The last non-empty value `reply` sets for cookie `name` (an empty one only deletes it).
fn cookie(reply: &Reply, name: &str) -> Option<String> {
    reply
        .headers("set-cookie")
        .filter_map(|header| header.split(';').next()?.split_once('='))
        .filter(|(cookie, value)| cookie.trim() == name && !value.trim().is_empty())
        .last()
        .map(|(_, value)| value.trim().to_owned())
}

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
];

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

/// The last non-empty value `reply` sets for cookie `name` (an empty one only deletes it).
fn cookie(reply: &Reply, name: &str) -> Option<String> {
    reply
        .headers("set-cookie")
        .filter_map(|header| header.split(';').next()?.split_once('='))
        .filter(|(cookie, value)| cookie.trim() == name && !value.trim().is_empty())
        .last()
        .map(|(_, value)| value.trim().to_owned())
}

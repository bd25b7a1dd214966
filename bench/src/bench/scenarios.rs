//! What is measured on the real server. Each scenario sets itself up against the running
//! server (logging in, issuing a token, …) and returns the requests its connections send.

use std::net::SocketAddr;

use acs_api::http::list::MAX_PAGE_SIZE;
use base64::Engine;
use base64::prelude::BASE64_STANDARD;

use super::ME_PATH;
use super::dataset::{
    COLD_BASIC_USERS, COLD_SESSION_PREFIX, COLD_SESSIONS, COLD_TOKEN_DIGITS, COLD_TOKEN_PREFIX,
    COLD_TOKENS, FIRST_COLD_BASIC_USER_ID, LIST_TOKENS, LIST_USER_TEMPLATES, LIST_USER_TOKEN,
    LOGIN_PASSWORD,
};
use super::launch::{self, ProcessStarts};
use super::load::{self, Drawn, Reply, Workload};
use super::logins;
use super::server::{ADMIN_PASSWORD, ADMIN_USERNAME};
use crate::Result;

/// A row of [`SCENARIOS`].
#[derive(Debug)]
pub struct Scenario {
    pub name: &'static str,
    /// Prepares the scenario on the server at the address for this many connections;
    /// returns what they send.
    pub prepare: fn(SocketAddr, usize) -> Result<Workload>,
    /// Waits, once the load has stopped, for what the requests started in the background and
    /// reads how it went.
    pub settle: Option<fn(SocketAddr) -> Result<ProcessStarts>>,
    /// Other load sent beside this one's, in each of its windows.
    pub beside: Option<fn(SocketAddr) -> Result<logins::Logins>>,
    /// The status the server answers by design when full (a launch beyond the runs a node
    /// lets wait: 503): counted apart, neither speed nor an error.
    pub refusal: Option<u16>,
    /// Connections of the row when fewer than the run's: clients that wait for each answer,
    /// as scripts logging in do, rather than a flood (whose refusals would be most of what
    /// it measures).
    pub connections: Option<usize>,
}

/// Clients of the cold_basic row: four scripts logging in, as many as the logins beside
/// bearer_under_logins; each waits for its answer, so the rate is of verifications, and a
/// user drawn again (and found in the password cache) is rare.
const COLD_BASIC_CONNECTIONS: usize = 4;

/// Measured in this order, each after the previous on the same server.
pub const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "basic",
        prepare: basic,
        settle: None,
        beside: None,
        refusal: None,
        connections: None,
    },
    Scenario {
        name: "session",
        prepare: session,
        settle: None,
        beside: None,
        refusal: None,
        connections: None,
    },
    Scenario {
        name: "bearer",
        prepare: bearer,
        settle: None,
        beside: None,
        refusal: None,
        connections: None,
    },
    Scenario {
        name: "cold_bearer",
        prepare: cold_bearer,
        settle: None,
        beside: None,
        refusal: None,
        connections: None,
    },
    Scenario {
        name: "cold_session",
        prepare: cold_session,
        settle: None,
        beside: None,
        refusal: None,
        connections: None,
    },
    Scenario {
        name: "cold_basic",
        prepare: cold_basic,
        settle: None,
        beside: None,
        refusal: Some(503),
        connections: Some(COLD_BASIC_CONNECTIONS),
    },
    Scenario {
        name: "bearer_under_logins",
        prepare: bearer,
        settle: None,
        beside: Some(logins::start),
        refusal: None,
        connections: None,
    },
    Scenario {
        name: "team_bearer",
        prepare: team_bearer,
        settle: None,
        beside: None,
        refusal: None,
        connections: None,
    },
    Scenario {
        name: "token_list",
        prepare: token_list,
        settle: None,
        beside: None,
        refusal: None,
        connections: None,
    },
    Scenario {
        name: "template_list",
        prepare: template_list,
        settle: None,
        beside: None,
        refusal: None,
        connections: None,
    },
    Scenario {
        name: "token_issue",
        prepare: token_issue,
        settle: None,
        beside: None,
        refusal: None,
        connections: None,
    },
    Scenario {
        name: "password_grant",
        prepare: password_grant,
        settle: None,
        beside: None,
        refusal: None,
        connections: None,
    },
    Scenario {
        name: "refresh_grant",
        prepare: refresh_grant,
        settle: None,
        beside: None,
        refusal: None,
        connections: None,
    },
    Scenario {
        name: launch::NAME,
        prepare: launch::prepare,
        settle: Some(launch::settle),
        beside: None,
        refusal: Some(launch::REFUSAL),
        connections: None,
    },
];

/// The scenario called `name`.
pub fn named(name: &str) -> Result<&'static Scenario> {
    SCENARIOS
        .iter()
        .find(|scenario| scenario.name == name)
        .ok_or_else(|| format!("no scenario {name}").into())
}

const PERSONAL_TOKENS_PATH: &str = "/api/v2/users/admin/personal_tokens/";
const TOKENS_PATH: &str = "/api/v2/tokens/";
const TEMPLATES_PATH: &str = "/api/v2/job_templates/";

const LOGIN_PATH: &str = "/api/login/";
const TOKEN_PATH: &str = "/api/o/token/";
const ORGANIZATIONS_PATH: &str = "/api/v2/organizations/";
const APPLICATIONS_PATH: &str = "/api/v2/applications/";

/// HTTP Basic on every request, one user's password: after the first request the password
/// cache answers, so this is Basic's warm cost, not PBKDF2's.
fn basic(addr: SocketAddr, _connections: usize) -> Result<Workload> {
    let credentials = BASE64_STANDARD.encode(format!("{ADMIN_USERNAME}:{ADMIN_PASSWORD}"));
    let authorization = format!("Basic {credentials}");
    Ok(Workload::repeat(load::request(
        "GET",
        addr,
        ME_PATH,
        &[("Authorization", authorization.as_str())],
        b"",
    )))
}

/// The browsable API's session cookie, obtained through the login form as a browser would.
fn session(addr: SocketAddr, _connections: usize) -> Result<Workload> {
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
    Ok(Workload::repeat(load::request(
        "GET",
        addr,
        ME_PATH,
        &[("Cookie", cookies.as_str())],
        b"",
    )))
}

/// An OAuth 2 personal access token (write scope), as `awx login` obtains one.
fn bearer(addr: SocketAddr, _connections: usize) -> Result<Workload> {
    let token = personal_token(addr)?;
    let authorization = format!("Bearer {token}");
    Ok(Workload::repeat(load::request(
        "GET",
        addr,
        ME_PATH,
        &[("Authorization", authorization.as_str())],
        b"",
    )))
}

/// `bearer` with one of [`COLD_TOKENS`] tokens drawn at random for each request (see
/// `dataset::seed_cold_credentials`): ten times what the principal cache holds, so most requests
/// miss it and read their token's row and build its principal, as on a server whose clients
/// are many scripts and users rather than one.
fn cold_bearer(addr: SocketAddr, _connections: usize) -> Result<Workload> {
    drawn_me(
        addr,
        ("Authorization", "Bearer "),
        COLD_TOKEN_PREFIX,
        COLD_TOKENS,
    )
}

/// `session` with one of [`COLD_SESSIONS`] sessions drawn at random for each request (see
/// `dataset::seed_cold_credentials`): ten times what the principal cache holds, so most
/// requests miss it and read their session's row and build its principal.
fn cold_session(addr: SocketAddr, _connections: usize) -> Result<Workload> {
    drawn_me(
        addr,
        ("Cookie", "acs_sessionid="),
        COLD_SESSION_PREFIX,
        COLD_SESSIONS,
    )
}

/// `GET /api/v2/me/` with the header `name: <before><credential>`, the credential drawn for
/// each request from `count` texts `prefix` and a zero-padded number.
fn drawn_me(
    addr: SocketAddr,
    (name, before): (&str, &str),
    prefix: &'static str,
    count: u64,
) -> Result<Workload> {
    let marker = "\u{0}";
    let request = load::request(
        "GET",
        addr,
        ME_PATH,
        &[(name, &format!("{before}{marker}"))],
        b"",
    );
    drawn(request, marker, prefix, count)
}

/// HTTP Basic with one of [`COLD_BASIC_USERS`] users drawn at random for each request: the
/// password cache has seen almost none of them, so each request costs a whole PBKDF2
/// verification at the reference's cost, on one of `ACS_PASSWORD_VERIFIERS` threads. Sent by
/// [`COLD_BASIC_CONNECTIONS`] clients, each waiting for its answer: its rate is what Basic
/// costs when the password cache is cold. Checks beyond the queue in front of the hashing
/// threads would be answered 503 at once (the row's refusals).
fn cold_basic(addr: SocketAddr, _connections: usize) -> Result<Workload> {
    let requests = (0..COLD_BASIC_USERS)
        .map(|n| {
            let id = FIRST_COLD_BASIC_USER_ID + n;
            let credentials = BASE64_STANDARD.encode(format!("basic{id}:{LOGIN_PASSWORD}"));
            let authorization = format!("Basic {credentials}");
            load::request(
                "GET",
                addr,
                ME_PATH,
                &[("Authorization", authorization.as_str())],
                b"",
            )
        })
        .collect::<Vec<_>>();
    Ok(Workload::Shuffled(requests.into()))
}

/// `request` with its credential, at `marker`, drawn for each request from `count` texts
/// `prefix` and a zero-padded number.
fn drawn(request: Vec<u8>, marker: &str, prefix: &'static str, count: u64) -> Result<Workload> {
    let text = String::from_utf8(request).map_err(|_| "a request that is not text")?;
    let (before, after) = text
        .split_once(marker)
        .ok_or("the request lost its credential's place")?;
    Ok(Workload::Drawn(Drawn {
        before: before.as_bytes().to_vec(),
        prefix,
        digits: COLD_TOKEN_DIGITS,
        count,
        after: after.as_bytes().to_vec(),
    }))
}

/// `bearer` as the list user, who holds a thousand roles of its own and a thousand more
/// through its fifty teams (see `dataset`): the cached principal reads none of them again, so
/// this row should stay beside `bearer`.
fn team_bearer(addr: SocketAddr, _connections: usize) -> Result<Workload> {
    let authorization = format!("Bearer {LIST_USER_TOKEN}");
    Ok(Workload::repeat(load::request(
        "GET",
        addr,
        ME_PATH,
        &[("Authorization", authorization.as_str())],
        b"",
    )))
}

/// The list user's tokens (`GET /api/v2/tokens/`, the user seeded with them: see `dataset`),
/// a page at a time at the largest page size the API allows, the pages in turn. That user
/// sees only their own, however many others the database holds.
fn token_list(addr: SocketAddr, _connections: usize) -> Result<Workload> {
    list_user_pages(addr, TOKENS_PATH, LIST_TOKENS)
}

/// The job templates the list user may see (`GET /api/v2/job_templates/`): the 1 000 of
/// 10 000 it holds `execute` on (see `dataset`), as [`token_list`] reads its list, each
/// record with its roles and capabilities.
fn template_list(addr: SocketAddr, _connections: usize) -> Result<Workload> {
    list_user_pages(addr, TEMPLATES_PATH, LIST_USER_TEMPLATES)
}

/// The pages of the list at `path` as the list user reads them, at the largest page size,
/// in turn; refused unless the list counts `expected` items (a user who saw others' would
/// measure another list).
fn list_user_pages(addr: SocketAddr, path: &str, expected: u64) -> Result<Workload> {
    let authorization = format!("Bearer {LIST_USER_TOKEN}");
    let page_size = u64::try_from(MAX_PAGE_SIZE)?;
    let pages: Vec<_> = (1..=expected.div_ceil(page_size))
        .map(|page| {
            load::request(
                "GET",
                addr,
                &format!("{path}?page_size={page_size}&page={page}"),
                &[("Authorization", authorization.as_str())],
                b"",
            )
        })
        .collect();
    let first = load::fetch(addr, &pages[0])?;
    let count = ok_json(&first, path, 200)?["count"].as_u64();
    if count != Some(expected) {
        return Err(
            format!("GET {path} as the list user counts {count:?} items, not {expected}").into(),
        );
    }
    Ok(Workload::cycle(pages)?)
}

/// Token issuance: every request creates a personal token (`POST /api/v2/tokens/`),
/// authenticated by a bearer token so that the figure is the issuing, not a password check.
fn token_issue(addr: SocketAddr, _connections: usize) -> Result<Workload> {
    let token = personal_token(addr)?;
    let authorization = format!("Bearer {token}");
    Ok(Workload::repeat(load::request(
        "POST",
        addr,
        TOKENS_PATH,
        &[
            ("Authorization", authorization.as_str()),
            ("Content-Type", "application/json"),
        ],
        br#"{"description": "bench", "scope": "read"}"#,
    )))
}

/// The password grant at `/api/o/token/`: every request issues a new access and refresh
/// token pair for the admin. Client authentication (a SHA-256 digest) and the password
/// check (PBKDF2, kept in the server's verified-password cache after the first) included.
fn password_grant(addr: SocketAddr, _connections: usize) -> Result<Workload> {
    let client = oauth_client(addr)?;
    Ok(Workload::repeat(client.token_request(
        addr,
        &[
            ("grant_type", "password"),
            ("username", ADMIN_USERNAME),
            ("password", ADMIN_PASSWORD),
        ],
    )?))
}

/// The refresh grant at `/api/o/token/`: each connection rotates its own chain, every
/// response's refresh token making the next request (a pair per request: the old refresh
/// token marked used, its access token deleted, the new pair stored, in one transaction).
/// Where a refresh token goes in the chained request's template: letters and digits, as
/// long as a token (43), so it needs no encoding and the body keeps its length.
const REFRESH_PLACEHOLDER: &str = "REFRESHTOKENPLACEHOLDER00000000000000000000";

fn refresh_grant(addr: SocketAddr, connections: usize) -> Result<Workload> {
    let client = oauth_client(addr)?;
    let password = client.token_request(
        addr,
        &[
            ("grant_type", "password"),
            ("username", ADMIN_USERNAME),
            ("password", ADMIN_PASSWORD),
        ],
    )?;
    let first = (0..connections.max(1))
        .map(|_| {
            let reply = load::fetch(addr, &password)?;
            let pair = ok_json(&reply, TOKEN_PATH, 200)?;
            client.refresh_request(addr, &string_field(&pair, "refresh_token")?)
        })
        .collect::<Result<Vec<_>>>()?;
    let template = load::ChainTemplate {
        request: client.refresh_request(addr, REFRESH_PLACEHOLDER)?,
        placeholder: REFRESH_PLACEHOLDER,
        field: "refresh_token",
    };
    let next = move |body: &[u8]| -> std::result::Result<Vec<u8>, String> {
        let pair: serde_json::Value = serde_json::from_slice(body).map_err(|e| e.to_string())?;
        let token = pair["refresh_token"]
            .as_str()
            .ok_or_else(|| format!("no refresh_token in {}", String::from_utf8_lossy(body)))?;
        client
            .refresh_request(addr, token)
            .map_err(|e| e.to_string())
    };
    Ok(Workload::Chain {
        first,
        next: std::sync::Arc::new(next),
        template,
    })
}

/// A confidential password-grant application's client credentials, as Basic.
#[derive(Debug, Clone)]
struct OAuthClient {
    authorization: String,
}

impl OAuthClient {
    /// A token-endpoint request with this client's credentials and `form`.
    fn token_request(&self, addr: SocketAddr, form: &[(&str, &str)]) -> Result<Vec<u8>> {
        let form = serde_urlencoded::to_string(form)?;
        Ok(load::request(
            "POST",
            addr,
            TOKEN_PATH,
            &[
                ("Authorization", self.authorization.as_str()),
                ("Content-Type", "application/x-www-form-urlencoded"),
            ],
            form.as_bytes(),
        ))
    }

    fn refresh_request(&self, addr: SocketAddr, refresh_token: &str) -> Result<Vec<u8>> {
        self.token_request(
            addr,
            &[
                ("grant_type", "refresh_token"),
                ("refresh_token", refresh_token),
            ],
        )
    }
}

/// Creates an organization and a confidential password-grant application in it (admin,
/// Basic) and returns the client's credentials.
fn oauth_client(addr: SocketAddr) -> Result<OAuthClient> {
    let suffix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)?
        .as_nanos();
    let organization = admin_post(
        addr,
        ORGANIZATIONS_PATH,
        &serde_json::json!({ "name": format!("bench-{suffix}") }),
    )?;
    let application = admin_post(
        addr,
        APPLICATIONS_PATH,
        &serde_json::json!({
            "name": "bench",
            "organization": organization["id"],
            "client_type": "confidential",
            "authorization_grant_type": "password",
        }),
    )?;
    let credentials = format!(
        "{}:{}",
        string_field(&application, "client_id")?,
        string_field(&application, "client_secret")?
    );
    Ok(OAuthClient {
        authorization: format!("Basic {}", BASE64_STANDARD.encode(credentials)),
    })
}

/// POSTs `body` as JSON with the admin's Basic credentials; expects 201.
pub(super) fn admin_post(
    addr: SocketAddr,
    path: &str,
    body: &serde_json::Value,
) -> Result<serde_json::Value> {
    let credentials = BASE64_STANDARD.encode(format!("{ADMIN_USERNAME}:{ADMIN_PASSWORD}"));
    let authorization = format!("Basic {credentials}");
    let body = serde_json::to_vec(body)?;
    let reply = load::fetch(
        addr,
        &load::request(
            "POST",
            addr,
            path,
            &[
                ("Authorization", authorization.as_str()),
                ("Content-Type", "application/json"),
            ],
            &body,
        ),
    )?;
    ok_json(&reply, path, 201)
}

/// GETs `path` with the admin's Basic credentials; expects 200.
pub(super) fn admin_get(addr: SocketAddr, path: &str) -> Result<serde_json::Value> {
    let credentials = BASE64_STANDARD.encode(format!("{ADMIN_USERNAME}:{ADMIN_PASSWORD}"));
    let authorization = format!("Basic {credentials}");
    let reply = load::fetch(
        addr,
        &load::request(
            "GET",
            addr,
            path,
            &[("Authorization", authorization.as_str())],
            b"",
        ),
    )?;
    ok_json(&reply, path, 200)
}

/// The JSON body of `reply` to a request for `path`, which must have `status`.
fn ok_json(reply: &Reply, path: &str, status: u16) -> Result<serde_json::Value> {
    if reply.status != status {
        let body: String = String::from_utf8_lossy(&reply.body)
            .chars()
            .take(300)
            .collect();
        return Err(format!(
            "{path} answered {} instead of {status}: {body}",
            reply.status
        )
        .into());
    }
    Ok(serde_json::from_slice(&reply.body)?)
}

/// A string field of a JSON record.
fn string_field(record: &serde_json::Value, key: &str) -> Result<String> {
    record[key]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("no {key} in {record}").into())
}

/// Creates a write-scoped personal token for the admin with Basic credentials.
pub(super) fn personal_token(addr: SocketAddr) -> Result<String> {
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

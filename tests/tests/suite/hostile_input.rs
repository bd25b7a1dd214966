//! Hostile input at the HTTP level: bodies over the limit, deep nesting, invalid UTF-8
//! everywhere a client can put bytes, oversized headers and URLs, a slow client, absurd page
//! sizes and ids, SQL-looking filter values and path tricks in injector file names. The
//! server answers each with a 4xx (or, for what cannot be parsed at all, closes the
//! connection), never a 5xx, keeps its tables intact and keeps serving everyone else.
//!
//! `tests/tests/suite/conventions.rs` covers odd values of the users API and NUL bytes; the unit
//! tests of `crates/api/src/hostile_input.rs` cover the parsers without HTTP. Each test prints
//! how many cases it tried per category (`cargo test -- --nocapture`).

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

use acs_tests::{Agent, Backend, Call, Reply, TestServer, backend_tests, id_of, results};
use reqwest::header::{HeaderName, HeaderValue};
use serde_json::{Value, json};

backend_tests!(
    bodies_over_the_limit_are_413,
    deep_nesting_is_refused_and_the_server_lives,
    invalid_utf8_is_refused_everywhere,
    oversized_headers_and_urls_are_refused,
    a_slow_client_is_cut_off_while_others_are_served,
    absurd_page_sizes_are_capped_or_refused,
    absurd_ids_are_not_found,
    sql_looking_filter_values_match_literally,
    path_tricks_in_injector_file_names_are_refused,
);

/// The default `ACS_MAX_BODY_BYTES` (contract and README: 1 MiB).
const BODY_LIMIT: usize = 1 << 20;
/// actix's request timeout as the server sets it: a client must send its whole request head
/// within it.
const CLIENT_REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

/// Failures collected per test, so that one run shows every case that went wrong.
#[derive(Debug, Default)]
struct Cases {
    tried: BTreeMap<&'static str, usize>,
    failures: Vec<String>,
}

impl Cases {
    fn tried(&mut self, category: &'static str) {
        *self.tried.entry(category).or_insert(0) += 1;
    }

    fn fail(&mut self, message: String) {
        self.failures.push(message);
    }

    /// Counts a case; fails it unless `ok`.
    fn check(&mut self, category: &'static str, ok: bool, message: impl FnOnce() -> String) {
        self.tried(category);
        if !ok {
            self.fail(format!("{category}: {}", message()));
        }
    }

    /// Counts a reply that must be a 4xx in `allowed` (any 4xx when empty).
    fn expect_4xx(&mut self, category: &'static str, reply: &Reply, allowed: &[u16]) {
        let ok = if allowed.is_empty() {
            (400..500).contains(&reply.status)
        } else {
            allowed.contains(&reply.status)
        };
        self.check(category, ok, || {
            format!(
                "{} {} answered {} (expected {}): {}",
                reply.method,
                short(&reply.url),
                reply.status,
                if allowed.is_empty() {
                    "a 4xx".to_owned()
                } else {
                    format!("{allowed:?}")
                },
                short(&reply.body)
            )
        });
    }

    /// Prints the counts and fails the test with every failure.
    fn finish(self, test: &str, server: &TestServer) {
        // Whatever happened, the server still answers.
        server.admin().get("/api/v2/me/").call().expect(200);
        eprintln!(
            "hostile_input/{test} ({:?}): cases tried per category {:?}",
            server.backend, self.tried
        );
        assert!(self.failures.is_empty(), "{:#?}", self.failures);
    }
}

/// The first 200 characters of `text`, for messages.
fn short(text: &str) -> String {
    let mut cut: String = text.chars().take(200).collect();
    if cut.len() < text.len() {
        cut.push('…');
    }
    cut
}

/// `127.0.0.1:<port>` of a server.
fn address(server: &TestServer) -> String {
    server.base.trim_start_matches("http://").to_owned()
}

/// Sends raw bytes on a fresh connection and returns the status line's code of the reply,
/// or `None` when the server closed (or reset) the connection without one.
fn raw_status(server: &TestServer, request: &[u8]) -> Option<u16> {
    let mut stream = TcpStream::connect(address(server)).expect("a connection to the server");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("a read timeout");
    // The server may answer and close before it has read everything (a header too large):
    // a failed write is not the verdict, the reply is.
    let _ = stream.write_all(request);
    let _ = stream.shutdown(Shutdown::Write);
    let mut reply = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                reply.extend_from_slice(&buffer[..n]);
                if reply.windows(4).any(|w| w == b"\r\n\r\n") {
                    break;
                }
            }
        }
    }
    let text = String::from_utf8_lossy(&reply);
    let status = text.strip_prefix("HTTP/1.1 ")?.get(..3)?;
    status.parse().ok()
}

/// A raw `GET` request for `target` with `headers` (each a full `Name: value` line).
fn raw_get(target: &[u8], headers: &[&[u8]]) -> Vec<u8> {
    let mut request = Vec::new();
    request.extend_from_slice(b"GET ");
    request.extend_from_slice(target);
    request.extend_from_slice(b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
    for header in headers {
        request.extend_from_slice(header);
        request.extend_from_slice(b"\r\n");
    }
    request.extend_from_slice(b"\r\n");
    request
}

/// A form endpoint, the agent that posts to it, and the headers it needs.
type FormPost = (&'static str, Agent, Vec<(&'static str, String)>);

fn bodies_over_the_limit_are_413(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let mut cases = Cases::default();
    let over = BODY_LIMIT + 1;

    // JSON: a string field that makes the document one byte too long.
    let padding = "x".repeat(over - r#"{"description":""}"#.len());
    let json_body = format!(r#"{{"description":"{padding}"}}"#);
    assert_eq!(json_body.len(), over);
    for path in [
        "/api/v2/users/",
        "/api/v2/organizations/",
        "/api/v2/tokens/",
        "/api/v2/credential_types/",
        "/api/v2/settings/system/",
    ] {
        let method = if path.contains("settings") {
            reqwest::Method::PATCH
        } else {
            reqwest::Method::POST
        };
        let reply = admin
            .request(method.clone(), path)
            .header("Content-Type", "application/json")
            .body(json_body.clone())
            .call();
        cases.expect_4xx("json body over the limit", &reply, &[413]);
        if reply.status == 413 {
            cases.check(
                "json body over the limit",
                reply.json()["detail"]
                    .as_str()
                    .is_some_and(|d| d.contains(&BODY_LIMIT.to_string())),
                || {
                    format!(
                        "{path}: 413 without the limit in its detail: {}",
                        reply.body
                    )
                },
            );
        }
        // Streamed (chunked, no Content-Length): the limit holds while reading.
        let reply = admin
            .request(method, path)
            .header("Content-Type", "application/json")
            .body(reqwest::blocking::Body::new(std::io::Cursor::new(
                json_body.clone().into_bytes(),
            )))
            .call();
        cases.expect_4xx("chunked json body over the limit", &reply, &[413]);
    }
    // Exactly at the limit is read (and judged on its content).
    let at_limit = format!(r#"{{"description":"{}"}}"#, &padding[1..]);
    let reply = admin
        .post("/api/v2/organizations/")
        .header("Content-Type", "application/json")
        .body(at_limit)
        .call();
    cases.check(
        "json body at the limit",
        reply.status != 413 && reply.status < 500,
        || format!("answered {}: {}", reply.status, short(&reply.body)),
    );

    // Forms: the login form, the token endpoint, the profile page's token form.
    let form_padding = "x".repeat(over - "username=admin&password=".len());
    let form = format!("username=admin&password={form_padding}");
    assert_eq!(form.len(), over);
    let browser = server.client();
    let login = server.login(&browser, "admin", &server.admin_password);
    let form_posts: Vec<FormPost> = vec![
        ("/api/login/", server.client(), vec![]),
        ("/api/o/token/", server.anonymous(), vec![]),
        (
            "/accounts/profile/tokens/",
            browser.clone(),
            vec![
                ("X-CSRFToken", login.csrf.clone()),
                ("Referer", server.url("/accounts/profile/")),
            ],
        ),
    ];
    for (path, agent, headers) in form_posts {
        for chunked in [false, true] {
            let mut request = agent
                .post(path)
                .header("Content-Type", "application/x-www-form-urlencoded");
            for (name, value) in &headers {
                request = request.header(*name, value.as_str());
            }
            let request = if chunked {
                request.body(reqwest::blocking::Body::new(std::io::Cursor::new(
                    form.clone().into_bytes(),
                )))
            } else {
                request.body(form.clone())
            };
            let reply = request.call();
            cases.expect_4xx("form body over the limit", &reply, &[413]);
            if path == "/api/o/token/" && reply.status == 413 {
                cases.check(
                    "form body over the limit",
                    reply.json()["error"] == "invalid_request",
                    || {
                        format!(
                            "the token endpoint's 413 is not an OAuth error: {}",
                            reply.body
                        )
                    },
                );
            }
        }
    }
    // A declared length far over the limit is refused before anything is read.
    let status = raw_status(
        &server,
        b"POST /api/v2/organizations/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000000000000\r\nConnection: close\r\n\r\n{}",
    );
    cases.check(
        "declared length over the limit",
        status == Some(413),
        || format!("Content-Length 10^12 answered {status:?}"),
    );
    cases.finish("bodies_over_the_limit_are_413", &server);
}

fn deep_nesting_is_refused_and_the_server_lives(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let mut cases = Cases::default();
    let arrays = "[".repeat(100_000);
    let objects = r#"{"a":"#.repeat(100_000);
    let closed_arrays = format!("{}{}", "[".repeat(50_000), "]".repeat(50_000));
    for body in [&arrays, &objects, &closed_arrays] {
        for path in [
            "/api/v2/users/",
            "/api/v2/organizations/",
            "/api/v2/credential_types/",
        ] {
            let reply = admin
                .post(path)
                .header("Content-Type", "application/json")
                .body(body.clone())
                .call();
            cases.expect_4xx("deeply nested json", &reply, &[400]);
        }
    }
    // Nesting inside a document that parses: YAML or JSON text in `inputs`, and a JSON object
    // nested as deep as the JSON parser allows.
    let mut nested = json!("leaf");
    for _ in 0..100 {
        nested = json!({ "a": nested });
    }
    let texts = [
        json!("[".repeat(100_000)),
        json!(format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000))),
        json!("a: ".repeat(20_000)),
        json!(format!("{}x", "- ".repeat(20_000))),
        nested,
    ];
    for inputs in texts {
        let reply = admin
            .post("/api/v2/credential_types/")
            .json(&json!({ "name": "Nested", "kind": "cloud", "inputs": inputs }))
            .call();
        cases.expect_4xx("deeply nested document", &reply, &[400]);
    }
    cases.finish("deep_nesting_is_refused_and_the_server_lives", &server);
}

fn invalid_utf8_is_refused_everywhere(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let mut cases = Cases::default();

    // JSON bodies.
    for body in [
        &b"{\"username\": \"\xff\xfe\", \"password\": \"pw\"}"[..],
        b"{\"\xc3\x28\": 1}",
        b"\xef\xbb\xbf{}",
        b"{\"username\": \"a\xed\xa0\x80b\"}",
    ] {
        let reply = admin
            .post("/api/v2/users/")
            .header("Content-Type", "application/json")
            .body(body.to_vec())
            .call();
        cases.expect_4xx("invalid utf-8 in a json body", &reply, &[400]);
    }
    // Form bodies, raw and percent-encoded.
    for body in [
        &b"username=\xff\xfe&password=pw"[..],
        b"username=%ff%fe&password=%c3%28",
    ] {
        let agent = server.client();
        agent.get("/api/").call().expect(200);
        let csrf = agent.cookie("csrftoken").expect("a csrftoken cookie");
        let reply = agent
            .post("/api/login/")
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("X-CSRFToken", csrf)
            .body(body.to_vec())
            .call();
        cases.expect_4xx("invalid utf-8 in a form body", &reply, &[401]);
        let reply = server
            .anonymous()
            .with_basic("nobody", "pw")
            .post("/api/o/token/")
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body([&b"grant_type=password&"[..], body].concat())
            .call();
        cases.expect_4xx("invalid utf-8 in a form body", &reply, &[400, 401]);
    }
    // Query strings: percent-encoded (decoded leniently: matches nothing) and raw bytes.
    for path in [
        "/api/v2/users/?username=%ff%fe",
        "/api/v2/users/?search=%c3%28",
        "/api/v2/organizations/?name__icontains=%ed%a0%80",
        "/api/v2/users/?%ff=1",
        "/api/v2/tokens/?order_by=%ff",
        "/api/login/?next=%ff%fe",
    ] {
        let reply = admin.get(path).call();
        let lenient = reply.status == 200
            && (!reply.body.starts_with('{') || reply.json()["count"].as_i64() == Some(0));
        cases.check(
            "invalid utf-8 in a query string",
            lenient || (400..500).contains(&reply.status),
            || format!("GET {path}: {} {}", reply.status, short(&reply.body)),
        );
    }
    for target in [
        &b"/api/v2/users/?username=\xff\xfe"[..],
        b"/api/v2/users/?\xff=1",
        b"/api/v2/users/\xff\xfe/",
        b"/api/v2/organizations/\xc3\x28/",
        b"/accounts/\xff/",
    ] {
        let status = raw_status(&server, &raw_get(target, &[]));
        cases.check(
            "raw invalid utf-8 in a request target",
            status.is_none_or(|s| (400..500).contains(&s)),
            || format!("{:?}: {status:?}", String::from_utf8_lossy(target)),
        );
    }
    // Paths, percent-encoded.
    for path in [
        "/api/v2/users/%ff%fe/",
        "/api/v2/organizations/%c3%28/",
        "/api/v2/tokens/%ed%a0%80/",
        "/api/v2/settings/%ff/",
        "/api/v2/credential_types/%ff/",
        "/accounts/applications/%ff/",
        "/sso/login/%ff/",
    ] {
        let reply = admin.get(path).call();
        cases.expect_4xx("invalid utf-8 in a path", &reply, &[]);
    }
    // Header values: every header the server reads, on a request that carries no other
    // credential, answers 401 (or 4xx).
    let bad = |bytes: &[u8]| HeaderValue::from_bytes(bytes).expect("obs-text is a valid header");
    let headers: Vec<(&str, HeaderValue)> = vec![
        ("authorization", bad(b"Bearer \xff\xfe")),
        ("authorization", bad(b"\xff\xfe")),
        ("authorization", bad(b"Basic /w==")),
        ("authorization", bad(b"Basic //46cHc=")),
        ("authorization", bad(b"Basic \xff")),
        ("cookie", bad(b"acs_sessionid=\xff\xfe")),
        ("cookie", bad(b"acs_sessionid=%ff%fe; csrftoken=\xff")),
        ("x-csrftoken", bad(b"\xff")),
        ("x-api-request-id", bad(b"\xff\xfe")),
        ("origin", bad(b"http://\xff")),
        ("referer", bad(b"http://\xff/")),
        ("x-forwarded-for", bad(b"\xff")),
        ("x-forwarded-proto", bad(b"\xff")),
        ("accept", bad(b"\xff")),
        ("content-type", bad(b"application/\xff")),
    ];
    for (name, value) in &headers {
        let reply = server
            .anonymous()
            .get("/api/v2/me/")
            .header(HeaderName::from_static(name), value.clone())
            .call();
        cases.expect_4xx("invalid utf-8 in a header value", &reply, &[401, 406]);
    }
    // A session-authenticated write with a garbage CSRF header, and a garbage Host.
    let browser = server.client();
    server.login(&browser, "admin", &server.admin_password);
    let reply = browser
        .post("/api/v2/organizations/")
        .header("X-CSRFToken", bad(b"\xff\xfe"))
        .json(&json!({ "name": "csrf" }))
        .call();
    cases.expect_4xx("invalid utf-8 in a header value", &reply, &[403]);
    let status = raw_status(
        &server,
        &raw_get(
            b"/api/v2/me/",
            &[b"Host: \xff\xfe", b"Authorization: Bearer \xff"],
        ),
    );
    cases.check(
        "invalid utf-8 in a header value",
        status.is_none_or(|s| (400..500).contains(&s)),
        || format!("a raw Host of invalid UTF-8: {status:?}"),
    );
    cases.finish("invalid_utf8_is_refused_everywhere", &server);
}

/// Standard base64 with padding (for a raw `Authorization: Basic` header).
fn base64_encode(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn oversized_headers_and_urls_are_refused(backend: Backend) {
    let server = TestServer::start(backend);
    let mut cases = Cases::default();
    let big = "a".repeat(100 * 1024);
    let acceptable = |status: Option<u16>| {
        status.is_none_or(|s| matches!(s, 400 | 404 | 413 | 414 | 431) || s == 401)
    };
    let requests: Vec<(&str, Vec<u8>)> = vec![
        (
            "a 100 KiB header",
            raw_get(b"/api/v2/ping/", &[format!("X-Big: {big}").as_bytes()]),
        ),
        (
            "a 100 KiB bearer token",
            raw_get(
                b"/api/v2/me/",
                &[format!("Authorization: Bearer {big}").as_bytes()],
            ),
        ),
        (
            "a 100 KiB cookie",
            raw_get(
                b"/api/v2/me/",
                &[format!("Cookie: acs_sessionid={big}").as_bytes()],
            ),
        ),
        (
            "2000 small headers",
            raw_get(
                b"/api/v2/ping/",
                &(0..2000)
                    .map(|i| format!("X-H{i}: v").into_bytes())
                    .collect::<Vec<_>>()
                    .iter()
                    .map(Vec::as_slice)
                    .collect::<Vec<_>>(),
            ),
        ),
        (
            "a 100 KiB path",
            raw_get(format!("/api/v2/{big}/").as_bytes(), &[]),
        ),
        (
            "a 100 KiB query",
            raw_get(format!("/api/v2/users/?search={big}").as_bytes(), &[]),
        ),
        (
            "a 100 KiB id",
            raw_get(
                format!("/api/v2/users/{}/", "9".repeat(100 * 1024)).as_bytes(),
                &[],
            ),
        ),
    ];
    for (what, request) in requests {
        let status = raw_status(&server, &request);
        cases.check("oversized header or url", acceptable(status), || {
            format!("{what}: {status:?}")
        });
    }
    // Within what actix itself reads (its head buffer is 128 KiB, a URI at most 64 KiB) but
    // over the server's own limits, authenticated so that only the limit can refuse them.
    let basic = format!(
        "Authorization: Basic {}",
        base64_encode(format!("admin:{}", server.admin_password).as_bytes())
    );
    let requests: Vec<(&str, Vec<u8>, u16)> = vec![
        (
            "a 60 KiB query",
            raw_get(
                format!("/api/v2/users/?search={}", "b".repeat(60 * 1024)).as_bytes(),
                &[basic.as_bytes()],
            ),
            414,
        ),
        (
            "a 20 KiB path",
            raw_get(
                format!("/api/v2/users/{}/", "u".repeat(20 * 1024)).as_bytes(),
                &[basic.as_bytes()],
            ),
            414,
        ),
        (
            "a 40 KiB header",
            raw_get(
                b"/api/v2/me/",
                &[
                    basic.as_bytes(),
                    format!("X-Big: {}", "d".repeat(40 * 1024)).as_bytes(),
                ],
            ),
            431,
        ),
        (
            "50 headers of 1 KiB",
            raw_get(
                b"/api/v2/me/",
                &std::iter::once(basic.clone().into_bytes())
                    .chain((0..50).map(|i| format!("X-H{i}: {}", "e".repeat(1024)).into_bytes()))
                    .collect::<Vec<_>>()
                    .iter()
                    .map(Vec::as_slice)
                    .collect::<Vec<_>>(),
            ),
            431,
        ),
        (
            "a 60 KiB authorization request",
            raw_get(
                format!("/api/o/authorize/?state={}", "s".repeat(60 * 1024)).as_bytes(),
                &[],
            ),
            414,
        ),
    ];
    for (what, request, expected) in requests {
        let status = raw_status(&server, &request);
        cases.check("oversized header or url", status == Some(expected), || {
            format!("{what}: {status:?}, expected {expected}")
        });
    }
    // Under the limits, long values are served as usual.
    let reply = server
        .admin()
        .get(&format!("/api/v2/users/?search={}", "f".repeat(8 * 1024)))
        .header("X-Long", "g".repeat(8 * 1024))
        .call();
    cases.check(
        "long but acceptable header and url",
        reply.status == 200,
        || {
            format!(
                "8 KiB query and header: {} {}",
                reply.status,
                short(&reply.body)
            )
        },
    );
    cases.finish("oversized_headers_and_urls_are_refused", &server);
}

/// What became of one slow connection.
#[derive(Debug)]
struct SlowEnd {
    after: Duration,
    /// The server's last words (a 408), if any.
    reply: String,
}

/// Opens a connection, sends the start of a request head and then one byte every 200 ms,
/// never finishing it; returns when the server closes the connection (or `limit` passes).
fn slowloris(server: &TestServer, limit: Duration) -> Option<SlowEnd> {
    let mut stream = TcpStream::connect(address(server)).expect("a connection to the server");
    stream
        .set_read_timeout(Some(Duration::from_millis(200)))
        .expect("a read timeout");
    let opened = Instant::now();
    let _ = stream.write_all(b"GET /api/v2/ping/ HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    let mut reply = Vec::new();
    let mut buffer = [0u8; 1024];
    while opened.elapsed() < limit {
        if stream.write_all(b"X").is_err() {
            return Some(SlowEnd {
                after: opened.elapsed(),
                reply: String::from_utf8_lossy(&reply).into_owned(),
            });
        }
        match stream.read(&mut buffer) {
            Ok(0) => {
                return Some(SlowEnd {
                    after: opened.elapsed(),
                    reply: String::from_utf8_lossy(&reply).into_owned(),
                });
            }
            Ok(n) => reply.extend_from_slice(&buffer[..n]),
            Err(error)
                if matches!(
                    error.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => {
                return Some(SlowEnd {
                    after: opened.elapsed(),
                    reply: String::from_utf8_lossy(&reply).into_owned(),
                });
            }
        }
    }
    None
}

fn a_slow_client_is_cut_off_while_others_are_served(backend: Backend) {
    const SLOW_CLIENTS: usize = 16;
    let server = TestServer::start(backend);
    let mut cases = Cases::default();
    let limit = CLIENT_REQUEST_TIMEOUT * 3;
    std::thread::scope(|scope| {
        let slow: Vec<_> = (0..SLOW_CLIENTS)
            .map(|_| scope.spawn(|| slowloris(&server, limit)))
            .collect();
        // Meanwhile others are served, each promptly.
        let admin = server.admin();
        let anonymous = server.anonymous();
        let started = Instant::now();
        let mut served = 0;
        let mut slowest = Duration::ZERO;
        while started.elapsed() < CLIENT_REQUEST_TIMEOUT + Duration::from_secs(1) {
            let sent = Instant::now();
            let ping = anonymous.get("/api/v2/ping/").call();
            let me = admin.get("/api/v2/me/").call();
            slowest = slowest.max(sent.elapsed());
            cases.check(
                "others served during a slow client",
                ping.status == 200 && me.status == 200,
                || format!("ping {} me {}", ping.status, me.status),
            );
            served += 2;
            std::thread::sleep(Duration::from_millis(100));
        }
        cases.check(
            "others served during a slow client",
            slowest < Duration::from_secs(2),
            || format!("a request took {slowest:?} while slow clients were connected"),
        );
        let mut ends = Vec::new();
        for handle in slow {
            let end = handle.join().expect("a slow client thread");
            cases.check("slow client cut off", end.is_some(), || {
                format!("a slow client was still connected after {limit:?}")
            });
            if let Some(end) = end {
                cases.check(
                    "slow client cut off",
                    end.after <= CLIENT_REQUEST_TIMEOUT + Duration::from_secs(3),
                    || format!("cut off only after {:?}", end.after),
                );
                cases.check(
                    "slow client cut off",
                    end.reply.is_empty() || end.reply.starts_with("HTTP/1.1 408"),
                    || format!("answered {:?}", short(&end.reply)),
                );
                ends.push(end.after);
            }
        }
        eprintln!(
            "hostile_input/slow clients ({:?}): {SLOW_CLIENTS} cut off after {:?}; {served} other requests \
             served meanwhile, the slowest in {slowest:?}",
            server.backend, ends
        );
    });
    cases.finish("a_slow_client_is_cut_off_while_others_are_served", &server);
}

fn absurd_page_sizes_are_capped_or_refused(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let mut cases = Cases::default();
    // More than one capped page of tokens.
    let me = admin.get_json("/api/v2/me/")["results"][0]["id"].clone();
    for _ in 0..205 {
        admin
            .post(&format!("/api/v2/users/{me}/personal_tokens/"))
            .json(&json!({ "scope": "read" }))
            .call()
            .expect(201);
    }
    for size in [
        "1000000000000",
        "99999999999999999999",
        "9223372036854775807",
        "-1",
        "0",
        "abc",
        "1e3",
        "",
        "%20",
        "2.5",
        "0x10",
    ] {
        for page in ["1", "2", "1000000000000", "-1", "abc"] {
            let path = format!("/api/v2/tokens/?page_size={size}&page={page}");
            let reply = admin.get(&path).call();
            match reply.status {
                200 => {
                    let body = reply.json();
                    let rows = body["results"].as_array().map_or(usize::MAX, Vec::len);
                    cases.check(
                        "absurd page_size or page",
                        rows <= 200 && body["count"] == 205,
                        || format!("GET {path}: {rows} rows, count {}", body["count"]),
                    );
                }
                _ => cases.expect_4xx("absurd page_size or page", &reply, &[400, 404]),
            }
        }
    }
    let capped = admin.get_json("/api/v2/tokens/?page_size=1000000000000");
    assert_eq!(results(&capped).len(), 200, "page_size is capped at 200");
    cases.finish("absurd_page_sizes_are_capped_or_refused", &server);
}

fn absurd_ids_are_not_found(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let mut cases = Cases::default();
    let paths = [
        "/api/v2/users/{}/",
        "/api/v2/users/{}/personal_tokens/",
        "/api/v2/users/{}/activity_stream/",
        "/api/v2/organizations/{}/",
        "/api/v2/organizations/{}/users/",
        "/api/v2/organizations/{}/source_credentials/",
        "/api/v2/applications/{}/",
        "/api/v2/applications/{}/tokens/",
        "/api/v2/tokens/{}/",
        "/api/v2/credential_types/{}/",
        "/api/v2/credential_types/{}/credentials/",
        "/api/v2/credentials/{}/",
        "/api/v2/activity_stream/{}/",
        "/api/v2/projects/{}/",
        "/api/v2/inventories/{}/",
        "/api/v2/hosts/{}/",
        "/api/v2/job_templates/{}/",
        "/api/v2/job_templates/{}/credentials/",
        "/api/v2/jobs/{}/",
        "/api/v2/jobs/{}/stdout/",
        "/api/v2/project_updates/{}/",
        "/api/v2/inventory_sources/{}/",
        "/api/v2/inventory_updates/{}/",
        "/accounts/applications/{}/",
    ];
    let ids = [
        "-1",
        "0",
        "99999999999999999999",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "1e3",
        "0x10",
        "1.0",
        "%201",
        "1%00",
    ];
    let browser = server.client();
    server.login(&browser, "admin", &server.admin_password);
    for path in paths {
        for id in ids {
            let path = path.replace("{}", id);
            let agent = if path.starts_with("/accounts/") {
                &browser
            } else {
                &admin
            };
            let reply = agent.get(&path).call();
            cases.expect_4xx("absurd id", &reply, &[400, 404]);
            if !path.starts_with("/accounts/") && !path.ends_with("stdout/") {
                for method in [reqwest::Method::PATCH, reqwest::Method::DELETE] {
                    let reply = agent
                        .request(method, &path)
                        .json(&json!({ "name": "x" }))
                        .call();
                    cases.expect_4xx("absurd id", &reply, &[400, 404, 405]);
                }
            }
        }
    }
    // `+1` is read as 1 (Rust's integer parsing takes a sign): an alias, never an error.
    for path in [
        "/api/v2/users/+1/",
        "/api/v2/credential_types/+1/",
        "/api/v2/tokens/+1/",
    ] {
        let reply = admin.get(path).call();
        cases.check("signed id", reply.status < 500, || {
            format!("GET {path}: {} {}", reply.status, short(&reply.body))
        });
    }
    cases.finish("absurd_ids_are_not_found", &server);
}

/// Values that would change a query if they were pasted into its SQL or its LIKE pattern.
const SQL_LOOKING: &[&str] = &[
    "' OR 1=1 --",
    "' OR '1'='1",
    "%",
    "_",
    "\\",
    "\\%",
    "%_%",
    "\"; DROP TABLE users; --",
    "'); DELETE FROM users; --",
    "a%",
    "*",
];

/// Whether `value` passes `lookup` with `wanted`, as Django defines the lookups.
fn matches(lookup: &str, value: &str, wanted: &str) -> bool {
    let (v, w) = (value.to_lowercase(), wanted.to_lowercase());
    match lookup {
        "exact" => value == wanted,
        "iexact" => v == w,
        "contains" => value.contains(wanted),
        "icontains" => v.contains(&w),
        "startswith" => value.starts_with(wanted),
        "endswith" => value.ends_with(wanted),
        "in" => wanted.split(',').any(|part| part == value),
        other => panic!("no lookup {other}"),
    }
}

fn sql_looking_filter_values_match_literally(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let mut cases = Cases::default();
    // Users and organizations whose names hold the hostile values, and some that do not.
    for (i, value) in SQL_LOOKING.iter().enumerate() {
        server.create_user_from(&json!({
            "username": format!("user{i}"),
            "password": "pw-1234567",
            "first_name": value,
            "last_name": format!("x{value}y"),
        }));
        server.create_organization(&format!("Org {value} {i}"));
    }
    for name in ["plain", "Percent 100", "under_score"] {
        server.create_user_from(&json!({
            "username": name.replace(' ', ""),
            "password": "pw-1234567",
            "first_name": name,
        }));
        server.create_organization(name);
    }
    let users_before = server.query_i64("SELECT COUNT(*) FROM users");
    let organizations_before = server.query_i64("SELECT COUNT(*) FROM organizations");
    let users = results(&admin.get_json("/api/v2/users/?page_size=200"));
    let organizations = results(&admin.get_json("/api/v2/organizations/?page_size=200"));
    let text = |record: &Value, field: &str| record[field].as_str().unwrap_or_default().to_owned();

    for value in SQL_LOOKING {
        for lookup in [
            "exact",
            "iexact",
            "contains",
            "icontains",
            "startswith",
            "endswith",
            "in",
        ] {
            for (list, records, field) in [
                ("users", &users, "first_name"),
                ("users", &users, "last_name"),
                ("organizations", &organizations, "name"),
            ] {
                let expected: Vec<i64> = records
                    .iter()
                    .filter(|r| matches(lookup, &text(r, field), value))
                    .map(id_of)
                    .collect();
                let mut url = reqwest::Url::parse("http://x/").expect("a URL");
                url.set_path(&format!("/api/v2/{list}/"));
                url.query_pairs_mut()
                    .append_pair(&format!("{field}__{lookup}"), value)
                    .append_pair("page_size", "200");
                let path = format!("{}?{}", url.path(), url.query().unwrap_or(""));
                let reply = admin.get(&path).call();
                if reply.status != 200 {
                    cases.expect_4xx("sql-looking filter value", &reply, &[400]);
                    continue;
                }
                let found: Vec<i64> = results(&reply.json()).iter().map(id_of).collect();
                cases.check("sql-looking filter value", found == expected, || {
                    format!("GET {path}: ids {found:?}, expected {expected:?}")
                });
            }
        }
        // `search` looks in username, names and e-mail (users) and name and description
        // (organizations), case-insensitively, for the trimmed text.
        let wanted = value.trim();
        for (list, records, fields) in [
            (
                "users",
                &users,
                &["username", "first_name", "last_name", "email"][..],
            ),
            (
                "organizations",
                &organizations,
                &["name", "description"][..],
            ),
        ] {
            let expected: Vec<i64> = records
                .iter()
                .filter(|r| {
                    fields
                        .iter()
                        .any(|f| matches("icontains", &text(r, f), wanted))
                })
                .map(id_of)
                .collect();
            let mut url = reqwest::Url::parse("http://x/").expect("a URL");
            url.set_path(&format!("/api/v2/{list}/"));
            url.query_pairs_mut()
                .append_pair("search", value)
                .append_pair("page_size", "200");
            let path = format!("{}?{}", url.path(), url.query().unwrap_or(""));
            let reply = admin.get(&path).call().expect(200);
            let found: Vec<i64> = results(&reply.json()).iter().map(id_of).collect();
            cases.check("sql-looking search value", found == expected, || {
                format!("GET {path}: ids {found:?}, expected {expected:?}")
            });
        }
    }
    // SQL in field names and orderings: refused, never run.
    for path in [
        "/api/v2/users/?order_by=username%3BDROP%20TABLE%20users",
        "/api/v2/users/?order_by=(SELECT%201)",
        "/api/v2/users/?order_by=username%20DESC%2C%20password",
        "/api/v2/users/?username%3BDROP%20TABLE%20users=1",
        "/api/v2/users/?username__icontains%27=1",
        "/api/v2/organizations/?name__in=%27)%20OR%20(1%3D1",
    ] {
        let reply = admin.get(path).call();
        if reply.status == 200 {
            cases.check(
                "sql in a field or ordering",
                reply.json()["count"] == 0,
                || format!("GET {path}: {}", short(&reply.body)),
            );
        } else {
            cases.expect_4xx("sql in a field or ordering", &reply, &[400, 403]);
        }
    }
    assert_eq!(server.query_i64("SELECT COUNT(*) FROM users"), users_before);
    assert_eq!(
        server.query_i64("SELECT COUNT(*) FROM organizations"),
        organizations_before
    );
    cases.finish("sql_looking_filter_values_match_literally", &server);
}

fn path_tricks_in_injector_file_names_are_refused(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let mut cases = Cases::default();
    let inputs = json!({"fields": [{"id": "cert", "label": "Cert", "secret": true}]});
    let names = [
        "../x",
        "/etc/passwd",
        "a/b",
        "",
        "..",
        ".",
        "a\\b",
        "..\\x",
        "a\u{0}b",
        "x y",
        "%2e%2e",
        "~root",
        "\u{2215}etc",
    ];
    for name in names {
        let key = format!("template.{name}");
        for injectors in [
            json!({"file": { &key: "{{ cert }}" }}),
            // As YAML text, the way the CLI sends it.
            json!(format!(
                "file:\n  {}: '{{{{ cert }}}}'\n",
                serde_json::to_string(&key).expect("a JSON string")
            )),
            json!({
                "file": { &key: "{{ cert }}" },
                "env": { "CERT_FILE": format!("{{{{ svc.filename.{name} }}}}") },
            }),
        ] {
            let reply = admin
                .post("/api/v2/credential_types/")
                .json(&json!({
                    "name": format!("Tricky {name:?}"),
                    "kind": "cloud",
                    "inputs": inputs,
                    "injectors": injectors,
                }))
                .call();
            cases.expect_4xx("path trick in a file injector name", &reply, &[400]);
            if reply.status == 400 {
                let body = reply.json();
                cases.check(
                    "path trick in a file injector name",
                    body.get("injectors").is_some(),
                    || format!("{key:?}: the 400 does not name injectors: {body}"),
                );
            }
        }
    }
    // Nothing was created, and a well-named file still is.
    assert_eq!(
        admin.get_json("/api/v2/credential_types/?managed=false")["count"],
        0
    );
    admin
        .post("/api/v2/credential_types/")
        .json(&json!({
            "name": "Fine",
            "kind": "cloud",
            "inputs": inputs,
            "injectors": {"file": {"template.cert_file": "{{ cert }}"}},
        }))
        .call()
        .expect(201);
    cases.finish("path_tricks_in_injector_file_names_are_refused", &server);
}

//! Faults under load: the database server stopped and started while requests keep coming
//! (PostgreSQL, on a private cluster), and the server process killed with SIGKILL in the
//! middle of a burst of writes (SQLite). Requests during the outage fail fast with a clear
//! 503, the server recovers by itself, and no write is ever half done.
//!
//! Each scenario is inherently tied to one backend: only a PostgreSQL server can be stopped
//! under a running ACS server, and only the embedded SQLite file lives and dies with the
//! process. The counts each test saw are printed (`cargo test -- --nocapture` shows them).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use acs_tests::pg_cluster::{PgCluster, StopMode};
use acs_tests::process::ServerProcess;
use acs_tests::{Backend, Call, TestServer};
use diesel::RunQueryDsl;
use reqwest::blocking::Client;
use serde_json::{Value, json};

/// The server's default `ACS_DATABASE_TIMEOUT_SECONDS`: how long a request may wait for the
/// database (a free slot, then a connection) before it answers 503.
const CHECKOUT_TIMEOUT: Duration = Duration::from_secs(5);
/// Longest any response may take, outage included: the checkout timeout and some slack for
/// a loaded two-core machine. A request that hangs (on a TCP connect to a dead server, or
/// queued behind others that each wait out the timeout) blows it.
const RESPONSE_BOUND: Duration = Duration::from_secs(7);
/// The client's own timeout: far above the bound, so a hang is measured, not cut short.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(40);
/// How long every load thread may take, after PostgreSQL accepts connections again, to see
/// its first success.
const RECOVERY_BOUND: Duration = Duration::from_secs(15);
/// More clients than the server has database connections (the harness gives it 4).
const LOAD_THREADS: usize = 10;
/// How long PostgreSQL stays down: over two checkout timeouts, so that requests begin and
/// end inside the outage.
const OUTAGE: Duration = Duration::from_secs(12);
const _: () = assert!(OUTAGE.as_secs() > 2 * CHECKOUT_TIMEOUT.as_secs());

/// What one request of a load thread got.
#[derive(Debug, Clone)]
struct Outcome {
    thread: usize,
    what: &'static str,
    sent: Instant,
    answered: Instant,
    /// `None`: no HTTP reply (connection refused or reset, timeout).
    status: Option<u16>,
    retry_after: Option<String>,
    body: String,
    /// The token value of a 201 from `POST /api/v2/tokens/`.
    token: Option<String>,
}

impl Outcome {
    fn elapsed(&self) -> Duration {
        self.answered - self.sent
    }

    fn describe(&self) -> String {
        format!(
            "thread {} {} -> {:?} after {:?}: {}",
            self.thread,
            self.what,
            self.status,
            self.elapsed(),
            self.body.chars().take(300).collect::<String>()
        )
    }
}

/// Sends one request and records what came back.
fn record(
    thread: usize,
    what: &'static str,
    request: reqwest::blocking::RequestBuilder,
) -> Outcome {
    let sent = Instant::now();
    let (status, retry_after, body) = match request.send() {
        Ok(reply) => {
            let status = reply.status().as_u16();
            let retry_after = reply
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            (Some(status), retry_after, reply.text().unwrap_or_default())
        }
        Err(error) => (None, None, format!("{error:?}")),
    };
    let token = (what == "POST /api/v2/tokens/" && status == Some(201))
        .then(|| serde_json::from_str::<Value>(&body).ok())
        .flatten()
        .and_then(|created| created["token"].as_str().map(str::to_owned));
    Outcome {
        thread,
        what,
        sent,
        answered: Instant::now(),
        status,
        retry_after,
        body,
        token,
    }
}

fn client() -> Client {
    Client::builder()
        .timeout(CLIENT_TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("an HTTP client")
}

/// A running load: its threads, the flag that stops them, and a count of 201s so far.
struct Load {
    threads: Vec<JoinHandle<Vec<Outcome>>>,
    stop: Arc<AtomicBool>,
    created: Arc<AtomicUsize>,
}

impl Load {
    /// Stops the threads and returns every outcome.
    fn finish(self) -> Vec<Outcome> {
        self.stop.store(true, Ordering::SeqCst);
        self.threads
            .into_iter()
            .flat_map(|handle| handle.join().expect("a load thread panicked"))
            .collect()
    }
}

/// Load threads that run until stopped, each issuing `POST /api/v2/tokens/` (alternating
/// with `GET /api/v2/me/` when `alternate_reads`), authenticated by `auth`.
fn start_load<F>(base: &str, threads: usize, alternate_reads: bool, auth: F) -> Load
where
    F: Fn(reqwest::blocking::RequestBuilder) -> reqwest::blocking::RequestBuilder
        + Send
        + Sync
        + Clone
        + 'static,
{
    let stop = Arc::new(AtomicBool::new(false));
    let created = Arc::new(AtomicUsize::new(0));
    let threads = (0..threads)
        .map(|thread| {
            let base = base.to_owned();
            let stop = Arc::clone(&stop);
            let created = Arc::clone(&created);
            let auth = auth.clone();
            std::thread::spawn(move || {
                let client = client();
                let mut outcomes = Vec::new();
                let mut i = 0usize;
                while !stop.load(Ordering::SeqCst) {
                    let read = alternate_reads && (i + thread).is_multiple_of(2);
                    i += 1;
                    let outcome = if read {
                        let request = auth(client.get(format!("{base}/api/v2/me/")));
                        record(thread, "GET /api/v2/me/", request)
                    } else {
                        let request = auth(client.post(format!("{base}/api/v2/tokens/")).json(
                            &json!({ "description": format!("load {thread}/{i}"), "scope": "read" }),
                        ));
                        record(thread, "POST /api/v2/tokens/", request)
                    };
                    let refused = outcome.status.is_none();
                    if outcome.token.is_some() {
                        created.fetch_add(1, Ordering::SeqCst);
                    }
                    outcomes.push(outcome);
                    if refused {
                        // Nobody listens (the process was killed): do not spin.
                        std::thread::sleep(Duration::from_millis(20));
                    }
                }
                outcomes
            })
        })
        .collect();
    Load {
        threads,
        stop,
        created,
    }
}

/// Waits, polling every 20 ms up to `limit`, until `done` holds; returns whether it did.
fn wait_until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if done() {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Counts by status (`none` for no reply).
fn by_status(outcomes: &[Outcome]) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for outcome in outcomes {
        let key = outcome
            .status
            .map_or_else(|| "none".to_owned(), |status| status.to_string());
        *counts.entry(key).or_insert(0) += 1;
    }
    counts
}

/// Token values of the 201s, each once.
fn created_tokens(outcomes: &[Outcome]) -> Vec<String> {
    let tokens: Vec<String> = outcomes.iter().filter_map(|o| o.token.clone()).collect();
    let distinct: BTreeSet<&String> = tokens.iter().collect();
    assert_eq!(
        distinct.len(),
        tokens.len(),
        "two 201s carried the same token"
    );
    tokens
}

/// `SELECT COUNT(*)` of rows that would betray a half-done write: tokens without their
/// user or application, tokens without the activity-stream entry written in the same
/// transaction, and such entries without their token.
const ORPHANS: &[(&str, &str)] = &[
    (
        "tokens without their user",
        "SELECT COUNT(*) FROM access_tokens t WHERE NOT EXISTS \
         (SELECT 1 FROM users u WHERE u.id = t.user_id)",
    ),
    (
        "tokens without their application",
        "SELECT COUNT(*) FROM access_tokens t WHERE t.application_id IS NOT NULL AND NOT EXISTS \
         (SELECT 1 FROM applications a WHERE a.id = t.application_id)",
    ),
    (
        "tokens without their creation entry",
        "SELECT COUNT(*) FROM access_tokens t WHERE NOT EXISTS \
         (SELECT 1 FROM activity_stream a WHERE a.operation = 'create' \
          AND a.object1 = 'o_auth2_access_token' AND a.object1_id = t.id)",
    ),
    (
        "creation entries without their token",
        "SELECT COUNT(*) FROM activity_stream a WHERE a.operation = 'create' \
         AND a.object1 = 'o_auth2_access_token' AND NOT EXISTS \
         (SELECT 1 FROM access_tokens t WHERE t.id = a.object1_id)",
    ),
];

fn postgres_stopped_and_started_under_load() {
    let began = Instant::now();
    let mut cluster = PgCluster::start();
    let url = cluster.url("postgres");
    // The server's own configuration: the checkout timeout is its default.
    let server = TestServer::start_with(Backend::Postgres, &[("ACS_DATABASE_URL", &url)]);
    let bearer = server.admin().personal_token("write");
    let tokens_before = server.query_i64("SELECT COUNT(*) FROM access_tokens");

    let auth = {
        let bearer = bearer.clone();
        move |request: reqwest::blocking::RequestBuilder| request.bearer_auth(&bearer)
    };
    let load = start_load(&server.base, LOAD_THREADS, true, auth);
    std::thread::sleep(Duration::from_millis(1500));

    let stopping = Instant::now();
    cluster.stop(StopMode::Fast);
    let stopped = Instant::now();
    // The outage: long enough for each thread to meet the checkout timeout at least once.
    std::thread::sleep(OUTAGE);
    let starting = Instant::now();
    let start_took = cluster.start_again();
    let started = Instant::now();

    // Recovery: every thread must see a success on its own, without a server restart. The
    // load keeps running meanwhile; its outcomes are read when it stops.
    let recovered_by = started + RECOVERY_BOUND;
    let probe = client();
    let recovered = wait_until(RECOVERY_BOUND, || {
        probe
            .get(server.url("/api/v2/me/"))
            .bearer_auth(&bearer)
            .send()
            .is_ok_and(|reply| reply.status().as_u16() == 200)
    });
    let probe_recovered = started.elapsed();
    // Then a steady phase, in which everything must succeed.
    std::thread::sleep(Duration::from_secs(3));
    let steady_from = Instant::now() - Duration::from_secs(2);
    let outcomes = load.finish();

    let counts = by_status(&outcomes);
    let slowest = outcomes
        .iter()
        .map(Outcome::elapsed)
        .max()
        .unwrap_or_default();
    let in_gap: Vec<&Outcome> = outcomes
        .iter()
        .filter(|o| o.sent >= stopped && o.answered <= starting)
        .collect();
    let slowest_in_gap = in_gap.iter().map(|o| o.elapsed()).max().unwrap_or_default();
    let per_thread_recovery: Vec<Option<Duration>> = (0..LOAD_THREADS)
        .map(|thread| {
            outcomes
                .iter()
                .filter(|o| o.thread == thread && o.sent >= started)
                .filter(|o| matches!(o.status, Some(200 | 201)))
                .map(|o| o.answered - started)
                .min()
        })
        .collect();
    let created = created_tokens(&outcomes);
    let mut unavailable: Vec<u128> = outcomes
        .iter()
        .filter(|o| o.status == Some(503))
        .map(|o| o.elapsed().as_millis())
        .collect();
    unavailable.sort_unstable();
    eprintln!(
        "faults/postgres: {} requests sent ({} during the outage), statuses {counts:?}; \
         201s: {}; slowest response {slowest:?} (outage: {slowest_in_gap:?}); 503s took (ms) \
         {unavailable:?}; \
         pg_ctl stop -m fast took {:?}, start {start_took:?}; a probe succeeded {probe_recovered:?} \
         after the restart; first success per load thread after the restart: {per_thread_recovery:?}",
        outcomes.len(),
        in_gap.len(),
        created.len(),
        stopped - stopping,
    );

    let mut failures = Vec::new();
    if !recovered {
        failures.push(format!(
            "no successful GET /api/v2/me/ within {RECOVERY_BOUND:?} of PostgreSQL's restart"
        ));
    }
    for (thread, first) in per_thread_recovery.iter().enumerate() {
        if first.is_none_or(|took| started + took > recovered_by) {
            failures.push(format!(
                "load thread {thread} saw no success within {RECOVERY_BOUND:?} of the restart ({first:?})"
            ));
        }
    }
    for outcome in &outcomes {
        if outcome.elapsed() > RESPONSE_BOUND {
            failures.push(format!(
                "slower than {RESPONSE_BOUND:?}: {}",
                outcome.describe()
            ));
        }
        match outcome.status {
            Some(200 | 201) => {}
            Some(503) => {
                let body: Value = serde_json::from_str(&outcome.body).unwrap_or(Value::Null);
                let detail = body["detail"].as_str().unwrap_or_default();
                if !detail.contains("database is unavailable") || outcome.retry_after.is_none() {
                    failures.push(format!(
                        "a 503 without the JSON message or Retry-After: {}",
                        outcome.describe()
                    ));
                }
            }
            _ => failures.push(format!("unexpected: {}", outcome.describe())),
        }
        if outcome.sent >= stopped && outcome.answered <= starting && outcome.status != Some(503) {
            failures.push(format!(
                "answered other than 503 while PostgreSQL was down: {}",
                outcome.describe()
            ));
        }
        if outcome.sent < stopping && outcome.answered < stopping && outcome.status.is_none() {
            failures.push(format!("failed before the outage: {}", outcome.describe()));
        }
        if outcome.sent >= steady_from && !matches!(outcome.status, Some(200 | 201)) {
            failures.push(format!("failed after recovery: {}", outcome.describe()));
        }
    }
    let during = outcomes.iter().filter(|o| o.status == Some(503)).count();
    if during < LOAD_THREADS {
        failures.push(format!(
            "only {during} requests met the outage; the test did not observe it"
        ));
    }
    assert!(failures.is_empty(), "{failures:#?}");

    // No half-written rows: every 201 is one token that works, and nothing else was stored.
    let stored = server.query_i64("SELECT COUNT(*) FROM access_tokens");
    assert_eq!(
        stored,
        tokens_before + i64::try_from(created.len()).expect("a count"),
        "tokens stored vs. tokens before ({tokens_before}) + 201s ({})",
        created.len()
    );
    for (what, sql) in ORPHANS {
        assert_eq!(server.query_i64(sql), 0, "{what}");
    }
    let refused: Vec<&String> = created
        .iter()
        .filter(|token| server.bearer_me_status(token) != 200)
        .collect();
    assert!(
        refused.is_empty(),
        "{} of {} created tokens do not authenticate",
        refused.len(),
        created.len()
    );
    eprintln!(
        "faults/postgres: all {} created tokens authenticate, {stored} tokens stored ({tokens_before} \
         before the load); scenario took {:?}",
        created.len(),
        began.elapsed()
    );
}

/// `PRAGMA integrity_check` on an SQLite file, all its rows joined.
fn integrity_check(file: &std::path::Path) -> String {
    let mut conn = acs_storage::Database::Sqlite(file.to_owned())
        .connect()
        .expect("the SQLite file opens");
    diesel::select(diesel::dsl::sql::<diesel::sql_types::Text>(
        "(SELECT group_concat(integrity_check, '; ') FROM pragma_integrity_check())",
    ))
    .get_result(&mut conn)
    .expect("integrity_check runs")
}

fn sqlite_server_killed_mid_burst() {
    let mut server = ServerProcess::start(Backend::Sqlite, &[]);
    let began = Instant::now();
    let password = server.admin_password.clone();
    server.admin().get("/api/v2/me/").call().expect(200);

    let auth = move |request: reqwest::blocking::RequestBuilder| {
        request.basic_auth("admin", Some(&password))
    };
    let burst = start_load(&server.base, LOAD_THREADS, false, auth);
    // Kill once the burst is well under way (20 tokens answered), then half a second on.
    let under_way = wait_until(Duration::from_secs(30), || {
        burst.created.load(Ordering::SeqCst) >= 20
    });
    assert!(under_way, "the burst did not get going:\n{}", server.log());
    std::thread::sleep(Duration::from_millis(500));
    let killed = Instant::now();
    server.kill_9();
    // The threads meet refused connections now; let each notice.
    std::thread::sleep(Duration::from_millis(300));
    let outcomes = burst.finish();
    let counts = by_status(&outcomes);
    let created = created_tokens(&outcomes);
    let in_flight = outcomes
        .iter()
        .filter(|o| o.sent < killed && o.status.is_none())
        .count();
    let after_kill = outcomes.iter().filter(|o| o.sent >= killed).count();

    let integrity_after_kill = integrity_check(&server.database_file());
    server.start_again();
    let integrity_after_restart = integrity_check(&server.database_file());

    let stored = count_tokens(&server);
    let anonymous = server.anonymous();
    let working = created
        .iter()
        .filter(|token| {
            anonymous
                .with_bearer(token)
                .get("/api/v2/me/")
                .call()
                .status
                == 200
        })
        .count();
    eprintln!(
        "faults/sqlite: {} requests sent, statuses {counts:?} (none = no reply: {in_flight} in flight \
         at the SIGKILL, {after_kill} sent after it); 201s: {}; tokens stored after the restart: \
         {stored}; 201 tokens that authenticate: {working}; integrity_check after the kill: \
         {integrity_after_kill:?}, after the restart: {integrity_after_restart:?}; scenario took \
         {:?}",
        outcomes.len(),
        created.len(),
        began.elapsed(),
    );

    assert_eq!(integrity_after_kill, "ok");
    assert_eq!(integrity_after_restart, "ok");
    let unexpected: Vec<String> = outcomes
        .iter()
        .filter(|o| !matches!(o.status, Some(201) | None))
        .map(Outcome::describe)
        .collect();
    assert!(unexpected.is_empty(), "{unexpected:#?}");
    assert!(
        outcomes
            .iter()
            .any(|o| o.sent < killed && o.status == Some(201)),
        "no token was created before the kill"
    );
    assert_eq!(working, created.len(), "every 201 token authenticates");
    // Tokens of requests cut off by the kill may or may not have committed; nothing else
    // may exist (the admin's tokens are all from the burst).
    let created_count = i64::try_from(created.len()).expect("a count");
    let cut_off = i64::try_from(in_flight).expect("a count");
    assert!(
        (created_count..=created_count + cut_off).contains(&stored),
        "{stored} tokens stored for {created_count} 201s and {cut_off} requests cut off"
    );
    let mut conn = acs_storage::Database::Sqlite(server.database_file())
        .connect()
        .expect("the SQLite file opens");
    for (what, sql) in ORPHANS {
        let orphans: i64 = diesel::select(diesel::dsl::sql::<diesel::sql_types::BigInt>(&format!(
            "({sql})"
        )))
        .get_result(&mut conn)
        .unwrap_or_else(|error| panic!("{sql}: {error}"));
        assert_eq!(orphans, 0, "{what}");
    }
}

/// How many tokens the admin sees (`count` of `GET /api/v2/tokens/`).
fn count_tokens(server: &ServerProcess) -> i64 {
    let page = server.admin().get_json("/api/v2/tokens/?page_size=1");
    page["count"]
        .as_i64()
        .unwrap_or_else(|| panic!("no count in {page}"))
}

mod postgres {
    #[test]
    fn stopped_and_started_under_load() {
        super::postgres_stopped_and_started_under_load();
    }
}

mod sqlite {
    #[test]
    fn server_killed_mid_burst() {
        super::sqlite_server_killed_mid_burst();
    }
}

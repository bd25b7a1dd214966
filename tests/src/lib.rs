//! Harness of the HTTP-level integration tests.
//!
//! Every test starts its own ACS server in-process ([`TestServer::start`]) on a fresh data
//! directory and a fresh database: a SQLite file, or a new PostgreSQL database created on
//! `ACS_TEST_POSTGRES_URL` (default `postgres://postgres@127.0.0.1:5432/postgres`) and dropped
//! afterwards. A missing PostgreSQL server fails the PostgreSQL tests; it never skips them.
//!
//! Requests go through [`Agent`]s (a blocking HTTP client bound to the server, optionally with
//! HTTP Basic credentials and a cookie jar) and come back as [`Reply`]s that hold everything
//! a test wants to assert on. [`backend_tests!`] turns each test function into one test per
//! backend.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use actix_web::dev::ServerHandle;
use diesel::Connection;
use diesel::connection::SimpleConnection;
use reqwest::Method;
use reqwest::blocking::{Client, RequestBuilder};
use reqwest::cookie::{CookieStore, Jar};
use reqwest::header::HeaderMap;
use serde_json::{Value, json};

pub mod ansible;
pub mod awx_collection;
pub mod browser;
pub mod client_site;
pub mod galaxy;
pub mod git_server;
pub mod ldap;
pub mod netns;
pub mod oauth;
pub mod oidc;
pub mod pg_cluster;
pub mod process;

/// Where the PostgreSQL tests create their databases unless `ACS_TEST_POSTGRES_URL` says
/// otherwise.
pub const DEFAULT_POSTGRES_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

/// Name of the session cookie with default settings.
pub const SESSION_COOKIE: &str = "acs_sessionid";

/// The tail of every 401 body.
pub const LOGIN_HINT: &str = "To establish a login session, visit /api/login/.";

/// The `WWW-Authenticate` header of every 401.
pub const WWW_AUTHENTICATE: &str = "Bearer realm=api authorization_url=/api/o/authorize/";

/// How long one request may take before the test fails.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// The database a server runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// An SQLite file in the server's temporary data directory.
    Sqlite,
    /// A fresh database on the PostgreSQL server of `ACS_TEST_POSTGRES_URL`.
    Postgres,
}

/// Expands, in a test file, to one `#[test]` per listed function and backend:
/// `sqlite::name` calls `name(Backend::Sqlite)`, `postgres::name` calls
/// `name(Backend::Postgres)`.
#[macro_export]
macro_rules! backend_tests {
    ($($name:ident),+ $(,)?) => {
        mod sqlite {
            $(
                #[test]
                fn $name() {
                    super::$name($crate::Backend::Sqlite)
                }
            )+
        }
        mod postgres {
            $(
                #[test]
                fn $name() {
                    super::$name($crate::Backend::Postgres)
                }
            )+
        }
    };
}

static COUNTER: AtomicUsize = AtomicUsize::new(0);

fn unique_suffix() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "{}_{}_{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::SeqCst),
        nanos
    )
}

/// A PostgreSQL database created for one server and dropped with it.
#[derive(Debug)]
struct PgDatabase {
    admin_url: String,
    name: String,
    url: String,
}

impl PgDatabase {
    fn create() -> Self {
        let admin_url = std::env::var("ACS_TEST_POSTGRES_URL")
            .unwrap_or_else(|_| DEFAULT_POSTGRES_URL.to_owned());
        let mut conn = diesel::PgConnection::establish(&admin_url).unwrap_or_else(|error| {
            panic!(
                "the PostgreSQL tests need a PostgreSQL server at {admin_url} (set ACS_TEST_POSTGRES_URL, \
                 or run scripts/test-all.sh, which starts one); connecting failed: {error}"
            )
        });
        let name = format!("acs_t_{}", unique_suffix());
        conn.batch_execute(&format!("CREATE DATABASE \"{name}\""))
            .unwrap_or_else(|error| {
                panic!("CREATE DATABASE {name} on {admin_url} failed: {error}")
            });
        let mut url = reqwest::Url::parse(&admin_url).unwrap_or_else(|error| {
            panic!("ACS_TEST_POSTGRES_URL {admin_url} is not a URL: {error}")
        });
        url.set_path(&format!("/{name}"));
        PgDatabase {
            admin_url,
            name,
            url: url.to_string(),
        }
    }
}

impl Drop for PgDatabase {
    fn drop(&mut self) {
        let dropped = diesel::PgConnection::establish(&self.admin_url)
            .map_err(|e| e.to_string())
            .and_then(|mut conn| {
                conn.batch_execute(&format!(
                    "DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)",
                    self.name
                ))
                .map_err(|e| e.to_string())
            });
        if let Err(error) = dropped {
            eprintln!(
                "warning: could not drop test database {}: {error}",
                self.name
            );
        }
    }
}

/// How long after a change made behind a server's back (by another server, a management
/// command or SQL) the server may still act on what it knew before: the consistency contract
/// of `docs/architecture.md`.
pub const CHANGE_BOUND: Duration = Duration::from_millis(100);

/// Probes every millisecond or so until `probe` answers `want`, and returns for how long
/// after `changed_at` the server kept giving another answer: from `changed_at` to the moment
/// the last such probe was sent (zero if the first probe got `want`). A probe sent later than
/// that cannot have been answered before the change. Panics if `want` never comes within 5 s.
#[track_caller]
pub fn served_stale_for(changed_at: Instant, want: u16, probe: impl Fn() -> u16) -> Duration {
    let mut stale_for = Duration::ZERO;
    loop {
        let sent = Instant::now();
        let status = probe();
        if status == want {
            return stale_for;
        }
        stale_for = sent.saturating_duration_since(changed_at);
        assert!(
            stale_for < Duration::from_secs(5),
            "still {status} (expected {want}) 5 s after the change"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Asserts that the server honoured a change within [`CHANGE_BOUND`] (see
/// [`served_stale_for`]), and returns the delay measured.
#[track_caller]
pub fn honoured_within_bound(changed_at: Instant, want: u16, probe: impl Fn() -> u16) -> Duration {
    let stale_for = served_stale_for(changed_at, want, probe);
    assert!(
        stale_for < CHANGE_BOUND,
        "the old answer was still given {stale_for:?} after the change (bound {CHANGE_BOUND:?})"
    );
    stale_for
}

/// One running ACS server with its own data directory and database.
pub struct TestServer {
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    /// Password of the first superuser, `admin`.
    pub admin_password: String,
    /// The backend this server runs on.
    pub backend: Backend,
    vars: Vec<(String, String)>,
    handle: Option<ServerHandle>,
    thread: Option<JoinHandle<()>>,
    /// The server's state, whose runs outlive its HTTP server: ended before the test does.
    state: Option<acs_api::state::AppStateData>,
    bare: Option<Client>,
    database: Option<PgDatabase>,
    data_dir: Option<tempfile::TempDir>,
}

impl std::fmt::Debug for TestServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestServer")
            .field("base", &self.base)
            .field("backend", &self.backend)
            .finish_non_exhaustive()
    }
}

impl TestServer {
    /// Starts a server with default settings.
    pub fn start(backend: Backend) -> Self {
        Self::start_with(backend, &[])
    }

    /// Starts a server with extra `ACS_*` variables (which override the harness's own), e.g.
    /// `("ACS_SESSIONS_PER_USER", "2")` to seed a setting. An `ACS_DATABASE_URL` among them
    /// names a database the test owns (a private PostgreSQL cluster, say): the harness then
    /// creates and drops none.
    pub fn start_with(backend: Backend, extra: &[(&str, &str)]) -> Self {
        let data_dir = tempfile::tempdir().expect("a temporary data directory");
        let admin_password = format!("Adm1n-{}", unique_suffix());
        let own_database = extra.iter().any(|(name, _)| *name == "ACS_DATABASE_URL");
        let database = match backend {
            Backend::Postgres if !own_database => Some(PgDatabase::create()),
            Backend::Sqlite | Backend::Postgres => None,
        };
        let mut vars: Vec<(String, String)> = vec![
            ("ACS_DATA_DIR".into(), data_dir.path().display().to_string()),
            ("ACS_BIND".into(), "127.0.0.1:0".into()),
            ("ACS_ADMIN_USERNAME".into(), "admin".into()),
            ("ACS_ADMIN_PASSWORD".into(), admin_password.clone()),
            ("ACS_PASSWORD_HASH_ITERATIONS".into(), "1000".into()),
            ("ACS_WORKERS".into(), "2".into()),
            ("ACS_DATABASE_POOL_SIZE".into(), "4".into()),
        ];
        if let Some(db) = &database {
            vars.push(("ACS_DATABASE_URL".into(), db.url.clone()));
        }
        for (name, value) in extra {
            vars.retain(|(n, _)| n != name);
            vars.push(((*name).to_owned(), (*value).to_owned()));
        }
        let (handle, thread, port, state) = serve(backend, vars.clone());
        TestServer {
            base: format!("http://127.0.0.1:{port}"),
            admin_password,
            backend,
            vars,
            handle: Some(handle),
            thread: Some(thread),
            state: Some(state),
            bare: Some(build_client(None)),
            database,
            data_dir: Some(data_dir),
        }
    }

    /// Starts a second server (another node) on this server's database, with the same secret
    /// key and admin, its own data directory, port and node name: what a deployment of several
    /// `acs-server` processes is. Drop it before this one (declare it after), since this one
    /// drops the database.
    pub fn start_peer(&self) -> TestServer {
        let key_file = self
            .vars
            .iter()
            .find(|(name, _)| name == "ACS_SECRET_KEY_FILE")
            .map_or_else(
                || self.data_dir().join("secret_key"),
                |(_, file)| file.into(),
            );
        self.start_peer_with_key_file(&key_file)
    }

    /// [`TestServer::start_peer`], the peer reading its secret key from `key_file` (a node
    /// with a copy of the key files of its own).
    pub fn start_peer_with_key_file(&self, key_file: &Path) -> TestServer {
        let data_dir = tempfile::tempdir().expect("a temporary data directory");
        let database = self.database();
        let mut vars: Vec<(String, String)> = self
            .vars
            .iter()
            .filter(|(name, _)| {
                !matches!(
                    name.as_str(),
                    "ACS_DATA_DIR" | "ACS_NODE_NAME" | "ACS_SECRET_KEY_FILE" | "ACS_DATABASE_URL"
                )
            })
            .cloned()
            .collect();
        vars.push(match database {
            acs_storage::Database::Sqlite(path) => {
                ("ACS_DATABASE_URL".into(), path.display().to_string())
            }
            acs_storage::Database::Postgres(url) => ("ACS_DATABASE_URL".into(), url),
        });
        vars.push(("ACS_DATA_DIR".into(), data_dir.path().display().to_string()));
        vars.push(("ACS_SECRET_KEY_FILE".into(), key_file.display().to_string()));
        vars.push(("ACS_NODE_NAME".into(), format!("peer-{}", unique_suffix())));
        let (handle, thread, port, state) = serve(self.backend, vars.clone());
        TestServer {
            base: format!("http://127.0.0.1:{port}"),
            admin_password: self.admin_password.clone(),
            backend: self.backend,
            vars,
            handle: Some(handle),
            thread: Some(thread),
            state: Some(state),
            bare: Some(build_client(None)),
            database: None,
            data_dir: Some(data_dir),
        }
    }

    /// Stops the server and starts it again on the same data directory, database and
    /// configuration, as a restarted process would (it listens on a new port).
    pub fn restart(&mut self) {
        self.stop();
        self.state = None;
        let (handle, thread, port, state) = serve(self.backend, self.vars.clone());
        self.base = format!("http://127.0.0.1:{port}");
        self.handle = Some(handle);
        self.thread = Some(thread);
        self.state = Some(state);
        self.bare = Some(build_client(None));
    }

    /// Cancels the runs this server still has (a test that launched jobs need not wait for
    /// them) and waits, a minute at most, for their threads to end: a run thread left using
    /// the database while the test process exits can crash it in the database client's exit
    /// handlers, and would hold the test's PostgreSQL database open.
    fn end_runs(&self) {
        let Some(state) = &self.state else {
            return;
        };
        let runs = &state.runs;
        if runs.load() == (0, 0) {
            return;
        }
        let now = chrono::SubsecRound::trunc_subsecs(chrono::Utc::now().naive_utc(), 6);
        let node = state.config.node_name.clone();
        let _ = state
            .pool
            .write(|conn| acs_storage::unified_jobs::cancel_unfinished(conn, &node, now));
        let started = std::time::Instant::now();
        while runs.load() != (0, 0) && started.elapsed() < Duration::from_secs(60) {
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn stop(&mut self) {
        // Idle pooled connections would hold up a graceful stop.
        self.bare = None;
        if let Some(handle) = self.handle.take() {
            drop(handle.stop(true));
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }

    /// The server's data directory.
    pub fn data_dir(&self) -> &Path {
        self.data_dir
            .as_ref()
            .map(tempfile::TempDir::path)
            .expect("the server has a data directory")
    }

    /// The server's database, for changes made behind its back (as another server or a
    /// management command would make them).
    pub fn database(&self) -> acs_storage::Database {
        let url = self
            .vars
            .iter()
            .find(|(name, _)| name == "ACS_DATABASE_URL")
            .map(|(_, url)| url.as_str());
        acs_storage::Database::from_url(url, self.data_dir())
    }

    /// Runs SQL on the server's database through a connection of its own, as another process
    /// would, and returns once every server must honour it ([`CHANGE_BOUND`] later).
    pub fn execute_sql(&self, sql: &str) {
        self.execute_sql_now(sql);
        std::thread::sleep(CHANGE_BOUND);
    }

    /// Runs SQL on the server's database through a connection of its own and returns at once,
    /// for tests that measure when the server honours it (see [`served_stale_for`]).
    pub fn execute_sql_now(&self, sql: &str) {
        let mut conn = self
            .database()
            .connect()
            .expect("a connection to the test database");
        conn.batch_execute(sql)
            .unwrap_or_else(|error| panic!("{sql}: {error}"));
    }

    /// Runs a query that returns one integer (`SELECT COUNT(*) …`) on the server's database.
    pub fn query_i64(&self, sql: &str) -> i64 {
        use diesel::RunQueryDsl;
        let mut conn = self
            .database()
            .connect()
            .expect("a connection to the test database");
        diesel::select(diesel::dsl::sql::<diesel::sql_types::BigInt>(&format!(
            "({sql})"
        )))
        .get_result(&mut conn)
        .unwrap_or_else(|error| panic!("{sql}: {error}"))
    }

    /// The management command `name` (see [`management_binary`]) set to work on this server's
    /// database, as an operator on the server's machine would run it: `ACS_DATA_DIR` and
    /// `ACS_DATABASE_URL` name the server's, and no other `ACS_` variable is passed on.
    pub fn management_command(&self, name: &str) -> Command {
        let mut command = Command::new(management_binary(name));
        for (variable, _) in std::env::vars_os() {
            if variable.to_string_lossy().starts_with("ACS_") {
                command.env_remove(variable);
            }
        }
        let data_dir = self
            .data_dir
            .as_ref()
            .expect("the server has a data directory");
        command.env("ACS_DATA_DIR", data_dir.path());
        match self.database() {
            acs_storage::Database::Postgres(url) => command.env("ACS_DATABASE_URL", url),
            acs_storage::Database::Sqlite(path) => command.env("ACS_DATABASE_URL", path),
        };
        command
    }

    /// The absolute URL of `path` (which starts with `/`).
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn bare_client(&self) -> Client {
        self.bare.clone().expect("the server is running")
    }

    /// An agent with a cookie jar and no credentials: a browser, or awxkit's session.
    pub fn client(&self) -> Agent {
        let jar = Arc::new(Jar::default());
        Agent {
            base: self.base.clone(),
            client: build_client(Some(jar.clone())),
            jar: Some(jar),
            basic: None,
            bearer: None,
        }
    }

    /// An agent without cookies or credentials.
    pub fn anonymous(&self) -> Agent {
        Agent {
            base: self.base.clone(),
            client: self.bare_client(),
            jar: None,
            basic: None,
            bearer: None,
        }
    }

    /// An agent that sends HTTP Basic credentials of `username` on every request (no cookies).
    pub fn as_user(&self, username: &str, password: &str) -> Agent {
        self.anonymous().with_basic(username, password)
    }

    /// The first superuser, authenticated with HTTP Basic.
    pub fn admin(&self) -> Agent {
        self.as_user("admin", &self.admin_password)
    }

    /// Creates a user as `admin` and returns its id.
    pub fn create_user(&self, username: &str, password: &str, superuser: bool) -> i64 {
        self.create_user_from(&json!({
            "username": username,
            "password": password,
            "is_superuser": superuser,
        }))
    }

    /// Creates a system auditor as `admin` and returns its id.
    pub fn create_auditor(&self, username: &str, password: &str) -> i64 {
        self.create_user_from(&json!({
            "username": username,
            "password": password,
            "is_system_auditor": true,
        }))
    }

    /// Creates a user from a full JSON body as `admin` (expects 201) and returns its id.
    pub fn create_user_from(&self, body: &Value) -> i64 {
        let reply = self
            .admin()
            .post("/api/v2/users/")
            .json(body)
            .call()
            .expect(201);
        reply.json()["id"]
            .as_i64()
            .unwrap_or_else(|| panic!("no integer id in {}", reply.body))
    }

    /// Creates an organization as `admin` and returns its id.
    pub fn create_organization(&self, name: &str) -> i64 {
        let reply = self
            .admin()
            .post("/api/v2/organizations/")
            .json(&json!({ "name": name, "description": "" }))
            .call()
            .expect(201);
        reply.json()["id"]
            .as_i64()
            .unwrap_or_else(|| panic!("no integer id in {}", reply.body))
    }

    /// Makes `user` a member of `organization` (as `admin`).
    pub fn add_member(&self, organization: i64, user: i64) {
        self.admin()
            .post(&format!("/api/v2/organizations/{organization}/users/"))
            .json(&json!({ "id": user }))
            .call()
            .expect(204);
    }

    /// Makes `user` an administrator of `organization` (as `admin`).
    pub fn add_admin(&self, organization: i64, user: i64) {
        self.admin()
            .post(&format!("/api/v2/organizations/{organization}/admins/"))
            .json(&json!({ "id": user }))
            .call()
            .expect(204);
    }

    /// Posts the login form as awxkit does, after `GET /api/` has set `csrftoken`, and returns
    /// the reply without judging it. `next: None` leaves the field out.
    pub fn login_attempt(
        &self,
        agent: &Agent,
        username: &str,
        password: &str,
        next: Option<&str>,
    ) -> Reply {
        agent.get("/api/").call().expect(200);
        let csrf = agent
            .cookie("csrftoken")
            .expect("GET /api/ sets the csrftoken cookie");
        let mut form = vec![("username", username), ("password", password)];
        if let Some(next) = next {
            form.push(("next", next));
        }
        agent
            .post("/api/login/")
            .header("X-CSRFToken", csrf)
            .header("Referer", self.url("/api/login/"))
            .form(&form)
            .call()
    }

    /// Logs `agent` in exactly as awxkit does (`GET /api/`, then the form POST with
    /// `next=/api/`, `X-CSRFToken` and `Referer`) and asserts the 302.
    pub fn login(&self, agent: &Agent, username: &str, password: &str) -> Login {
        let reply = self
            .login_attempt(agent, username, password, Some("/api/"))
            .expect(302);
        Login {
            csrf: agent
                .cookie("csrftoken")
                .expect("a csrftoken cookie after login"),
            session: agent
                .cookie(SESSION_COOKIE)
                .expect("a session cookie after login"),
            reply,
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.end_runs();
        self.stop();
        self.state = None;
        // The database goes after the server has released its connections.
        self.database = None;
        self.data_dir = None;
    }
}

/// Prepares a server from `vars` (as `ACS_*` environment variables) and runs it on a free
/// loopback port in a thread of its own; returns its handle, thread and port.
fn serve(
    backend: Backend,
    vars: Vec<(String, String)>,
) -> (
    ServerHandle,
    JoinHandle<()>,
    u16,
    acs_api::state::AppStateData,
) {
    let lookup_vars = vars.clone();
    let config = acs_api::config::Config::from_lookup(
        move |name| {
            lookup_vars
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
        },
        vars,
    )
    .unwrap_or_else(|error| panic!("test configuration rejected: {error:?}"));
    let state = acs_api::server::prepare(config)
        .unwrap_or_else(|error| panic!("the server did not prepare ({backend:?}): {error:?}"));
    let kept = state.clone();

    // The listener acs-server itself opens.
    let listener = acs_api::listener::listen("127.0.0.1:0").expect("a free loopback port");
    let port = listener.local_addr().expect("the bound address").port();
    let (tx, rx) = mpsc::channel::<Result<ServerHandle, String>>();
    let thread = std::thread::Builder::new()
        .name(format!("acs-server-{port}"))
        .spawn(move || {
            actix_rt::System::new().block_on(async move {
                let server = match acs_api::server::http_server(state, listener) {
                    Ok(server) => server,
                    Err(error) => {
                        let _ = tx.send(Err(error.to_string()));
                        return;
                    }
                };
                let _ = tx.send(Ok(server.handle()));
                if let Err(error) = server.await {
                    eprintln!("acs test server on port {port} ended with an error: {error}");
                }
            });
        })
        .expect("the server thread starts");
    let handle = match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(Ok(handle)) => handle,
        Ok(Err(error)) => panic!("http_server failed: {error}"),
        Err(error) => panic!("the server thread did not report its handle: {error}"),
    };
    (handle, thread, port, kept)
}

/// The path of management command `name`, a binary of the `xtask` package
/// (`revoke_oauth2_tokens`, `create_oauth2_token`, `cleanup_tokens`), built beside this test
/// by the same `cargo test` or `cargo nextest run` ([`built_binary`]). A command that is
/// missing fails the test; it is never skipped.
pub fn management_binary(name: &str) -> PathBuf {
    built_binary(name, "-p xtask")
}

/// The path of binary `name` in the profile directory this test runs from, where the
/// workspace's test build puts every binary before any test runs: the binaries' own
/// integration tests (`crates/api/tests`, `xtask/tests`) make Cargo build them with the test
/// build's features. A test never builds anything itself (a build started from a test would
/// resolve features differently, compile a second variant of the dependency tree on the
/// test's clock and invalidate the next build); when the binary is missing, the message says
/// how to build it. `package` is how to select its package on Cargo's command line.
pub fn built_binary(name: &str, package: &str) -> PathBuf {
    // This test runs as <target>/<profile>/deps/<test>-<hash>.
    let exe = std::env::current_exe().expect("the test knows its own path");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .unwrap_or_else(|| panic!("unexpected test location {}", exe.display()));
    let path = profile_dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.is_file(),
        "{name} is not built at {}: run the tests with `cargo nextest run --workspace` (or \
         `cargo test --workspace`), which build it first, or build it with \
         `cargo build {package} --bins`",
        path.display()
    );
    path
}

/// What a successful [`TestServer::login`] left behind.
#[derive(Debug)]
pub struct Login {
    /// The `csrftoken` cookie to send as `X-CSRFToken`.
    pub csrf: String,
    /// The session cookie's value.
    pub session: String,
    /// The 302 of the login POST.
    pub reply: Reply,
}

fn build_client(jar: Option<Arc<Jar>>) -> Client {
    let mut builder = Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(REQUEST_TIMEOUT);
    if let Some(jar) = jar {
        builder = builder.cookie_provider(jar);
    }
    builder.build().expect("an HTTP client")
}

/// A blocking HTTP client bound to one server: paths instead of URLs, optional Basic
/// credentials, optional cookie jar. Redirects are never followed.
#[derive(Clone)]
pub struct Agent {
    base: String,
    /// The underlying client.
    pub client: Client,
    jar: Option<Arc<Jar>>,
    basic: Option<(String, String)>,
    bearer: Option<String>,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("base", &self.base)
            .field("cookies", &self.jar.is_some())
            .field("user", &self.basic.as_ref().map(|(user, _)| user))
            .finish_non_exhaustive()
    }
}

impl Agent {
    /// The same agent, sending HTTP Basic credentials.
    pub fn with_basic(&self, username: &str, password: &str) -> Agent {
        Agent {
            basic: Some((username.to_owned(), password.to_owned())),
            ..self.clone()
        }
    }

    /// The same agent, sending `Authorization: Bearer <token>` (and no Basic credentials).
    pub fn with_bearer(&self, token: &str) -> Agent {
        Agent {
            basic: None,
            bearer: Some(token.to_owned()),
            ..self.clone()
        }
    }

    /// Creates a personal token for this agent's user (`POST /api/v2/users/<me>/personal_tokens/`)
    /// and returns its value.
    pub fn personal_token(&self, scope: &str) -> String {
        let me = self.get_json("/api/v2/me/")["results"][0]["id"].clone();
        let created = self
            .post(&format!("/api/v2/users/{me}/personal_tokens/"))
            .json(&json!({ "scope": scope, "description": "test" }))
            .call()
            .expect(201)
            .json();
        created["token"]
            .as_str()
            .unwrap_or_else(|| panic!("no token in {created}"))
            .to_owned()
    }

    /// A request to `path` (a path starting with `/`, query included).
    pub fn request(&self, method: Method, path: &str) -> RequestBuilder {
        let builder = self.client.request(method, format!("{}{path}", self.base));
        match (&self.basic, &self.bearer) {
            (Some((user, password)), _) => builder.basic_auth(user, Some(password)),
            (None, Some(token)) => builder.bearer_auth(token),
            (None, None) => builder,
        }
    }

    /// `GET path`.
    pub fn get(&self, path: &str) -> RequestBuilder {
        self.request(Method::GET, path)
    }

    /// `POST path`.
    pub fn post(&self, path: &str) -> RequestBuilder {
        self.request(Method::POST, path)
    }

    /// `PUT path`.
    pub fn put(&self, path: &str) -> RequestBuilder {
        self.request(Method::PUT, path)
    }

    /// `PATCH path`.
    pub fn patch(&self, path: &str) -> RequestBuilder {
        self.request(Method::PATCH, path)
    }

    /// `DELETE path`.
    pub fn delete(&self, path: &str) -> RequestBuilder {
        self.request(Method::DELETE, path)
    }

    /// `OPTIONS path`.
    pub fn options(&self, path: &str) -> RequestBuilder {
        self.request(Method::OPTIONS, path)
    }

    /// `GET path`, expecting 200 and JSON.
    pub fn get_json(&self, path: &str) -> Value {
        self.get(path).call().expect(200).json()
    }

    /// The results of the list at `path` (one page, whose `count` must agree), each as
    /// `item` reads it, sorted.
    #[track_caller]
    fn listed<T: Ord>(&self, path: &str, item: impl Fn(&Value) -> T) -> Vec<T> {
        let page = self.get_json(path);
        let mut items: Vec<T> = page["results"]
            .as_array()
            .unwrap_or_else(|| panic!("no results in {page}"))
            .iter()
            .map(item)
            .collect();
        assert_eq!(
            page["count"],
            serde_json::json!(items.len()),
            "{path}: {page}"
        );
        items.sort();
        items
    }

    /// The ids listed at `path`, sorted.
    #[track_caller]
    pub fn ids_at(&self, path: &str) -> Vec<i64> {
        self.listed(path, id_of)
    }

    /// The usernames listed at `path`, sorted.
    #[track_caller]
    pub fn usernames_at(&self, path: &str) -> Vec<String> {
        self.listed(path, |user| {
            user["username"].as_str().expect("a username").to_owned()
        })
    }

    /// The activity-stream entries whose changes name `source` (`ldap`, `oidc:<provider>`),
    /// oldest first, each as `operation changes`.
    pub fn activity_from(&self, source: &str) -> Vec<String> {
        self.get_json("/api/v2/activity_stream/?page_size=200&order_by=id")["results"]
            .as_array()
            .expect("a page")
            .iter()
            .filter(|entry| entry["changes"]["source"] == source)
            .map(|entry| {
                format!(
                    "{} {}",
                    entry["operation"].as_str().unwrap_or(""),
                    entry["changes"]
                )
            })
            .collect()
    }

    /// The value of cookie `name` in this agent's jar (panics for agents without a jar).
    pub fn cookie(&self, name: &str) -> Option<String> {
        let jar = self.jar.as_ref().expect("this agent has no cookie jar");
        let url = reqwest::Url::parse(&format!("{}/", self.base)).expect("the base URL parses");
        let header = jar.cookies(&url)?;
        let text = header.to_str().ok()?.to_owned();
        text.split(';').find_map(|pair| {
            let (key, value) = pair.trim().split_once('=')?;
            (key == name).then(|| value.to_owned())
        })
    }
}

/// Sends a request and collects the reply (panics if no HTTP reply arrives).
pub trait Call {
    /// Sends the request and reads the whole reply.
    fn call(self) -> Reply;
}

impl Call for RequestBuilder {
    fn call(self) -> Reply {
        let (client, request) = self.build_split();
        let request = request.unwrap_or_else(|error| panic!("the request does not build: {error}"));
        let method = request.method().to_string();
        let url = request.url().to_string();
        let response = client
            .execute(request)
            .unwrap_or_else(|error| panic!("{method} {url}: no HTTP reply: {error:?}"));
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = response
            .text()
            .unwrap_or_else(|error| panic!("{method} {url}: body unreadable: {error}"));
        Reply {
            method,
            url,
            status,
            headers,
            body,
        }
    }
}

/// A complete HTTP reply.
#[derive(Debug, Clone)]
pub struct Reply {
    /// Request method (for messages).
    pub method: String,
    /// Request URL (for messages).
    pub url: String,
    /// Status code.
    pub status: u16,
    /// Response headers.
    pub headers: HeaderMap,
    /// Response body as text.
    pub body: String,
}

impl Reply {
    /// Asserts the status, showing the request and body when it differs.
    #[track_caller]
    pub fn expect(self, status: u16) -> Self {
        assert_eq!(
            self.status, status,
            "{} {} answered {} (expected {status}); body: {}",
            self.method, self.url, self.status, self.body
        );
        self
    }

    /// The body as JSON (panics with the body when it is not JSON).
    #[track_caller]
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|error| {
            panic!(
                "{} {} ({}): body is not JSON ({error}): {}",
                self.method, self.url, self.status, self.body
            )
        })
    }

    /// The `detail` of a JSON error body.
    #[track_caller]
    pub fn detail(&self) -> String {
        match self.json().get("detail") {
            Some(Value::String(detail)) => detail.clone(),
            _ => panic!(
                "{} {} ({}): no string detail in {}",
                self.method, self.url, self.status, self.body
            ),
        }
    }

    /// The first value of header `name`.
    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    }

    /// `Location`.
    pub fn location(&self) -> Option<String> {
        self.header("location")
    }

    /// Every `Set-Cookie` of the reply.
    pub fn set_cookies(&self) -> Vec<SetCookie> {
        self.headers
            .get_all("set-cookie")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .map(SetCookie::parse)
            .collect()
    }

    /// The `Set-Cookie` for `name`, if any.
    pub fn set_cookie(&self, name: &str) -> Option<SetCookie> {
        self.set_cookies().into_iter().find(|c| c.name == name)
    }

    /// The field errors of a 400 for `field` (panics if absent).
    #[track_caller]
    pub fn field_errors(&self, field: &str) -> Vec<String> {
        let body = self.json();
        let Some(Value::Array(messages)) = body.get(field) else {
            panic!(
                "{} {} ({}): no error list for {field:?} in {}",
                self.method, self.url, self.status, self.body
            )
        };
        messages
            .iter()
            .map(|m| m.as_str().map_or_else(|| m.to_string(), str::to_owned))
            .collect()
    }
}

/// One parsed `Set-Cookie` header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetCookie {
    /// Cookie name.
    pub name: String,
    /// Cookie value.
    pub value: String,
    /// Attributes in order, names as sent.
    pub attributes: Vec<(String, Option<String>)>,
    /// The header as received.
    pub raw: String,
}

impl SetCookie {
    /// Parses one `Set-Cookie` value.
    pub fn parse(raw: &str) -> Self {
        let mut parts = raw.split(';');
        let first = parts.next().unwrap_or("");
        let (name, value) = first.split_once('=').unwrap_or((first, ""));
        let attributes = parts
            .map(str::trim)
            .filter(|part| !part.is_empty())
            .map(|part| match part.split_once('=') {
                Some((key, value)) => (key.trim().to_owned(), Some(value.trim().to_owned())),
                None => (part.to_owned(), None),
            })
            .collect();
        SetCookie {
            name: name.trim().to_owned(),
            value: value.trim().to_owned(),
            attributes,
            raw: raw.to_owned(),
        }
    }

    /// Whether attribute `name` (case-insensitive) is present.
    pub fn has(&self, name: &str) -> bool {
        self.attributes
            .iter()
            .any(|(key, _)| key.eq_ignore_ascii_case(name))
    }

    /// The value of attribute `name` (case-insensitive).
    pub fn attribute(&self, name: &str) -> Option<String> {
        self.attributes
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .and_then(|(_, v)| v.clone())
    }
}

fn hex(byte: u8) -> Option<u8> {
    char::from(byte)
        .to_digit(16)
        .and_then(|d| u8::try_from(d).ok())
}

/// Decodes `%XX` escapes (and `+` as a space) of a URL-encoded value.
pub fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(high), Some(low)) => {
                    out.push(high * 16 + low);
                    i += 3;
                }
                _ => {
                    out.push(b'%');
                    i += 1;
                }
            },
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            byte => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether `text` is an ISO 8601 UTC timestamp with microseconds and `Z`
/// (`2024-07-01T12:34:56.123456Z`).
pub fn is_api_timestamp(text: &str) -> bool {
    let b = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| range.into_iter().all(|i| b[i].is_ascii_digit());
    b.len() == 27
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && b[10] == b'T'
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19)
        && b[19] == b'.'
        && digits(20..26)
        && b[26] == b'Z'
}

/// Whether `text` matches `^\d+\.\d{3}s$` (the `X-API-Total-Time` format).
pub fn is_total_time(text: &str) -> bool {
    let Some(number) = text.strip_suffix('s') else {
        return false;
    };
    let Some((whole, fraction)) = number.split_once('.') else {
        return false;
    };
    !whole.is_empty()
        && whole.bytes().all(|b| b.is_ascii_digit())
        && fraction.len() == 3
        && fraction.bytes().all(|b| b.is_ascii_digit())
}

/// Usernames of a list page's results.
#[track_caller]
pub fn usernames(page: &Value) -> Vec<String> {
    page["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results in {page}"))
        .iter()
        .map(|user| {
            user["username"]
                .as_str()
                .unwrap_or_else(|| panic!("no username in {user}"))
                .to_owned()
        })
        .collect()
}

/// The integer `id` of a record.
#[track_caller]
pub fn id_of(record: &Value) -> i64 {
    record["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("no integer id in {record}"))
}

/// Every result of a list page.
#[track_caller]
pub fn results(page: &Value) -> Vec<Value> {
    page["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results in {page}"))
        .clone()
}

impl TestServer {
    /// The id of the managed credential type with `namespace`.
    #[track_caller]
    pub fn managed_type_id(&self, namespace: &str) -> i64 {
        let page = self
            .admin()
            .get_json(&format!("/api/v2/credential_types/?namespace={namespace}"));
        assert_eq!(page["count"], 1, "{namespace}: {page}");
        id_of(&page["results"][0])
    }

    /// Sets `ALLOW_OAUTH2_FOR_EXTERNAL_USERS` as the superuser.
    pub fn allow_oauth2_for_external_users(&self, allowed: bool) {
        self.admin()
            .patch("/api/v2/settings/authentication/")
            .json(&json!({ "ALLOW_OAUTH2_FOR_EXTERNAL_USERS": allowed }))
            .call()
            .expect(200);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_cookie_parses() {
        let c = SetCookie::parse("acs_sessionid=abc; HttpOnly; Max-Age=1800; Path=/; SameSite=Lax");
        assert_eq!(
            (c.name.as_str(), c.value.as_str()),
            ("acs_sessionid", "abc")
        );
        assert!(c.has("httponly") && !c.has("Secure"));
        assert_eq!(c.attribute("max-age").as_deref(), Some("1800"));
    }

    #[test]
    fn formats() {
        assert!(is_total_time("0.012s") && is_total_time("12.345s"));
        assert!(!is_total_time("0.01s") && !is_total_time(".012s") && !is_total_time("0.012"));
        assert!(is_api_timestamp("2024-07-01T12:34:56.123456Z"));
        assert!(
            !is_api_timestamp("2024-07-01T12:34:56Z")
                && !is_api_timestamp("2024-07-01T12:34:56.123456+00:00")
        );
        assert_eq!(percent_decode("%7B%22a%22%3A1%7D+x%"), "{\"a\":1} x%");
    }
}

//! The real `acs-server` binary as a separate process, for what an in-process server cannot
//! show: a server killed with SIGKILL (`tests/tests/suite/faults.rs`) and what the process
//! writes to its log (`tests/tests/suite/secrets_in_logs.rs`, `log_format.rs`).
//!
//! [`ServerProcess::start`] runs the binary the test build made ([`server_binary`]) on a fresh
//! data directory with the embedded SQLite database (or a fresh PostgreSQL database, created
//! and dropped as [`crate::TestServer`]'s are), on a free loopback port, with the same `ACS_*`
//! defaults as [`crate::TestServer`] and nothing else from the test's environment. Its stdout
//! and stderr go to `server.log` in the data directory. [`ServerProcess::kill_9`] kills it
//! with SIGKILL; [`ServerProcess::start_again`] starts a new process on the same data
//! directory and configuration (on a new port).

use std::fs::File;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::{Agent, Backend, PgDatabase, build_client};

/// How long a started process may take until `GET /api/v2/ping/` answers 200.
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a process may take to stop after SIGTERM before it is killed.
const STOP_TIMEOUT: Duration = Duration::from_secs(20);
/// How many ports are tried when the server cannot listen on the one picked.
const START_ATTEMPTS: usize = 3;
const POLL: Duration = Duration::from_millis(50);

/// The path of the `acs-server` binary, built by the same test build ([`crate::built_binary`]).
pub fn server_binary() -> PathBuf {
    crate::built_binary("acs-server", "-p acs-api")
}

/// One `acs-server` process (or a stopped one, ready to start again) with its data directory.
#[derive(Debug)]
pub struct ServerProcess {
    /// `http://127.0.0.1:<port>` of the running process.
    pub base: String,
    /// Password of the first superuser, `admin`.
    pub admin_password: String,
    /// The backend it runs on.
    pub backend: Backend,
    vars: Vec<(String, String)>,
    child: Option<Child>,
    data_dir: tempfile::TempDir,
    starts: usize,
    /// Dropped after the process is gone (fields drop after [`Drop::drop`]).
    _database: Option<PgDatabase>,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free loopback port")
        .port()
}

impl ServerProcess {
    /// Starts a server on a fresh data directory and database with extra environment
    /// variables (which override the harness's own; `RUST_LOG` is passed on only if given
    /// here).
    pub fn start(backend: Backend, extra: &[(&str, &str)]) -> ServerProcess {
        let data_dir = tempfile::Builder::new()
            .prefix("acs-process-")
            .tempdir()
            .expect("a temporary data directory");
        let admin_password = format!("Adm1n-{}", crate::unique_suffix());
        let mut vars: Vec<(String, String)> = vec![
            ("ACS_DATA_DIR".into(), data_dir.path().display().to_string()),
            ("ACS_ADMIN_USERNAME".into(), "admin".into()),
            ("ACS_ADMIN_PASSWORD".into(), admin_password.clone()),
            ("ACS_PASSWORD_HASH_ITERATIONS".into(), "1000".into()),
            ("ACS_WORKERS".into(), "2".into()),
            ("ACS_DATABASE_POOL_SIZE".into(), "4".into()),
            ("ACS_NODE_NAME".into(), "acs-test-process".into()),
        ];
        let database = match backend {
            Backend::Sqlite => None,
            Backend::Postgres => Some(PgDatabase::create()),
        };
        if let Some(db) = &database {
            vars.push(("ACS_DATABASE_URL".into(), db.url.clone()));
        }
        for (name, value) in extra {
            vars.retain(|(n, _)| n != name);
            vars.push(((*name).to_owned(), (*value).to_owned()));
        }
        let admin_password = vars
            .iter()
            .find(|(name, _)| name == "ACS_ADMIN_PASSWORD")
            .map_or(admin_password, |(_, value)| value.clone());
        let mut server = ServerProcess {
            base: String::new(),
            admin_password,
            backend,
            vars,
            child: None,
            data_dir,
            starts: 0,
            _database: database,
        };
        server.start_again();
        server
    }

    /// The resident memory of the running process: (now, peak since the last
    /// [`ServerProcess::reset_peak_memory`]), in KiB, from `/proc/<pid>/status`.
    pub fn memory_kib(&self) -> (u64, u64) {
        let pid = self.child.as_ref().expect("the server runs").id();
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("its status");
        let field = |name: &str| {
            status
                .lines()
                .find_map(|line| line.strip_prefix(name))
                .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
                .unwrap_or_else(|| panic!("{name} in /proc/{pid}/status"))
        };
        (field("VmRSS:"), field("VmHWM:"))
    }

    /// Starts a new peak-memory measurement (`VmHWM` becomes the current resident size).
    pub fn reset_peak_memory(&self) {
        let pid = self.child.as_ref().expect("the server runs").id();
        std::fs::write(format!("/proc/{pid}/clear_refs"), "5").expect("the peak reset");
    }

    /// The data directory (SQLite file `acs.sqlite3`, secret key, log).
    pub fn data_dir(&self) -> &Path {
        self.data_dir.path()
    }

    /// The server's database.
    pub fn database(&self) -> acs_storage::Database {
        let url = self
            .vars
            .iter()
            .find(|(name, _)| name == "ACS_DATABASE_URL")
            .map(|(_, url)| url.as_str());
        acs_storage::Database::from_url(url, self.data_dir())
    }

    /// The SQLite database file (panics on PostgreSQL).
    pub fn database_file(&self) -> PathBuf {
        match self.database() {
            acs_storage::Database::Sqlite(path) => path,
            acs_storage::Database::Postgres(_) => panic!("the server runs on PostgreSQL"),
        }
    }

    /// The log file: stdout and stderr of every process started, appended.
    pub fn log_file(&self) -> PathBuf {
        self.data_dir().join("server.log")
    }

    /// Everything the processes wrote so far.
    pub fn log(&self) -> String {
        String::from_utf8_lossy(&std::fs::read(self.log_file()).unwrap_or_default()).into_owned()
    }

    /// Whether a process is running.
    pub fn is_running(&mut self) -> bool {
        self.child
            .as_mut()
            .is_some_and(|child| matches!(child.try_wait(), Ok(None)))
    }

    /// Starts a process on this data directory and configuration, on a new free port, and
    /// waits until it answers `GET /api/v2/ping/`. Panics (with the log) if it does not.
    pub fn start_again(&mut self) {
        assert!(self.child.is_none(), "the server process is still running");
        let binary = server_binary();
        let mut last_error = String::new();
        for _ in 0..START_ATTEMPTS {
            let port = free_port();
            match self.spawn(&binary, port) {
                Ok(()) => return,
                Err(error) => last_error = error,
            }
        }
        panic!(
            "acs-server did not start: {last_error}\nlog:\n{}",
            self.log()
        );
    }

    fn spawn(&mut self, binary: &Path, port: u16) -> Result<(), String> {
        self.starts += 1;
        let log = File::options()
            .create(true)
            .append(true)
            .open(self.log_file())
            .map_err(|error| format!("cannot open the log file: {error}"))?;
        let log_err = log
            .try_clone()
            .map_err(|error| format!("cannot share the log file: {error}"))?;
        let mut command = Command::new(binary);
        for (variable, _) in std::env::vars_os() {
            let name = variable.to_string_lossy();
            if name.starts_with("ACS_") || name == "RUST_LOG" {
                command.env_remove(variable);
            }
        }
        command
            .envs(self.vars.iter().map(|(n, v)| (n.as_str(), v.as_str())))
            .env("ACS_BIND", format!("127.0.0.1:{port}"))
            .current_dir(self.data_dir())
            .stdin(Stdio::null())
            .stdout(Stdio::from(log))
            .stderr(Stdio::from(log_err));
        let mut child = command
            .spawn()
            .map_err(|error| format!("cannot run {}: {error}", binary.display()))?;
        let base = format!("http://127.0.0.1:{port}");
        let probe = build_client(None);
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                return Err(format!("start {} exited with {status}", self.starts));
            }
            let ready = probe
                .get(format!("{base}/api/v2/ping/"))
                .timeout(Duration::from_secs(5))
                .send()
                .is_ok_and(|reply| reply.status().as_u16() == 200);
            if ready {
                break;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "start {} did not answer /api/v2/ping/ within {START_TIMEOUT:?}",
                    self.starts
                ));
            }
            std::thread::sleep(POLL);
        }
        self.base = base;
        self.child = Some(child);
        Ok(())
    }

    /// Kills the process with SIGKILL and waits for it to be gone.
    pub fn kill_9(&mut self) {
        let mut child = self.child.take().expect("the server process is running");
        // `Child::kill` sends SIGKILL on Unix.
        child.kill().expect("SIGKILL is delivered");
        child.wait().expect("the killed process is reaped");
    }

    /// Stops the process as an operator would (SIGTERM: actix finishes the requests in
    /// flight), waits for it, and returns whether it exited by itself within the timeout
    /// (otherwise it is killed).
    pub fn stop(&mut self) -> bool {
        let Some(mut child) = self.child.take() else {
            return true;
        };
        let sent = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .is_ok_and(|status| status.success());
        let deadline = Instant::now() + STOP_TIMEOUT;
        while sent && Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                return true;
            }
            std::thread::sleep(POLL);
        }
        let _ = child.kill();
        let _ = child.wait();
        false
    }

    /// An agent without cookies or credentials.
    pub fn anonymous(&self) -> Agent {
        Agent {
            base: self.base.clone(),
            client: build_client(None),
            jar: None,
            basic: None,
            bearer: None,
        }
    }

    /// An agent with a cookie jar and no credentials (a browser).
    pub fn client(&self) -> Agent {
        let jar = std::sync::Arc::new(reqwest::cookie::Jar::default());
        Agent {
            base: self.base.clone(),
            client: crate::build_client(Some(jar.clone())),
            jar: Some(jar),
            basic: None,
            bearer: None,
        }
    }

    /// The first superuser, authenticated with HTTP Basic.
    pub fn admin(&self) -> Agent {
        self.anonymous().with_basic("admin", &self.admin_password)
    }

    /// The absolute URL of `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

//! A private PostgreSQL cluster for tests that stop and start the database server itself
//! (`tests/tests/suite/faults.rs`): the shared server of `ACS_TEST_POSTGRES_URL` is never touched.
//!
//! [`PgCluster::start`] runs `initdb` into a temporary directory (trust authentication,
//! superuser `postgres`) and `pg_ctl start` on a free loopback port, with the Unix socket and
//! the server log in that directory too. [`PgCluster::stop`] and [`PgCluster::start_again`]
//! stop and restart the same cluster on the same port; dropping it stops it with
//! `pg_ctl stop -m immediate` and removes the directory.
//!
//! The programs come from `ACS_PG_BIN_DIR` when set, else from the newest
//! `/usr/lib/postgresql/<version>/bin` (Debian's `postgresql` package). As root they run as
//! the `postgres` user (`runuser -u postgres --`), which owns the directory; otherwise as the
//! current user. A missing program fails the test; it is never skipped.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// Where Debian installs the server programs, one directory per major version.
const DEBIAN_DIR: &str = "/usr/lib/postgresql";
/// How long `pg_ctl` may wait for the server to start or stop (`-t`, seconds).
const PG_CTL_WAIT_SECONDS: &str = "60";
/// How many ports are tried when the server cannot listen on the one picked.
const START_ATTEMPTS: usize = 3;

const SETUP_HINT: &str = "install Debian's `postgresql` package (apt-get install postgresql), or set \
                          ACS_PG_BIN_DIR to a directory holding initdb and pg_ctl";

/// How `pg_ctl stop` ends the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopMode {
    /// `-m fast`: sessions are ended (their transactions rolled back), then a clean shutdown.
    Fast,
    /// `-m immediate`: every process quits at once; the next start runs crash recovery.
    Immediate,
}

impl StopMode {
    fn as_arg(self) -> &'static str {
        match self {
            StopMode::Fast => "fast",
            StopMode::Immediate => "immediate",
        }
    }
}

/// One private PostgreSQL cluster, running or stopped.
#[derive(Debug)]
pub struct PgCluster {
    bin_dir: PathBuf,
    dir: Option<tempfile::TempDir>,
    port: u16,
    as_postgres: bool,
    running: bool,
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .ok()
        .is_some_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
}

/// The directory holding `initdb` and `pg_ctl`.
fn bin_dir() -> PathBuf {
    let has_programs = |dir: &Path| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file();
    if let Some(dir) = std::env::var_os("ACS_PG_BIN_DIR") {
        let dir = PathBuf::from(dir);
        assert!(
            has_programs(&dir),
            "ACS_PG_BIN_DIR={} holds no initdb and pg_ctl; {SETUP_HINT}",
            dir.display()
        );
        return dir;
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir(DEBIAN_DIR)
        .unwrap_or_else(|error| panic!("cannot read {DEBIAN_DIR} ({error}); {SETUP_HINT}"))
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = entry.path().join("bin");
            has_programs(&bin).then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin).unwrap_or_else(|| {
        panic!("no {DEBIAN_DIR}/<version>/bin with initdb and pg_ctl; {SETUP_HINT}")
    })
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free loopback port")
        .port()
}

impl PgCluster {
    /// Creates the cluster in a fresh temporary directory and starts it.
    pub fn start() -> PgCluster {
        let bin_dir = bin_dir();
        let as_postgres = is_root();
        let dir = tempfile::Builder::new()
            .prefix("acs-pg-")
            .tempdir()
            .expect("a temporary directory for the cluster");
        if as_postgres {
            let status = Command::new("chown")
                .arg("postgres:postgres")
                .arg(dir.path())
                .status()
                .expect("chown runs");
            assert!(
                status.success(),
                "chown postgres {} failed: {status}",
                dir.path().display()
            );
        }
        let mut cluster = PgCluster {
            bin_dir,
            dir: Some(dir),
            port: 0,
            as_postgres,
            running: false,
        };
        let data = cluster.data_dir();
        let output = cluster.run(
            "initdb",
            &[
                "-D",
                &data,
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
            ],
        );
        assert!(
            output.status.success(),
            "initdb failed ({}): {}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        let mut last_error = String::new();
        for _ in 0..START_ATTEMPTS {
            cluster.port = free_port();
            match cluster.try_start() {
                Ok(()) => return cluster,
                Err(error) => last_error = error,
            }
        }
        panic!("the private PostgreSQL cluster did not start: {last_error}");
    }

    fn dir(&self) -> &Path {
        self.dir
            .as_ref()
            .map(tempfile::TempDir::path)
            .expect("the cluster has a directory")
    }

    fn data_dir(&self) -> String {
        self.dir().join("data").display().to_string()
    }

    fn log_file(&self) -> PathBuf {
        self.dir().join("server.log")
    }

    /// The server log so far (for failure messages).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.log_file()).unwrap_or_default()
    }

    /// The port the cluster listens on (the same across stops and starts).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The URL of database `name` as superuser `postgres` over loopback TCP.
    pub fn url(&self, name: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }

    /// Runs one of the cluster's programs (as `postgres` when we are root).
    fn run(&self, program: &str, args: &[&str]) -> Output {
        let path = self.bin_dir.join(program);
        let mut command = if self.as_postgres {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(&path);
            command
        } else {
            Command::new(&path)
        };
        command
            .args(args)
            .current_dir(self.dir())
            .output()
            .unwrap_or_else(|error| panic!("cannot run {}: {error}", path.display()))
    }

    fn try_start(&mut self) -> Result<(), String> {
        let data = self.data_dir();
        let log = self.log_file().display().to_string();
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c max_connections=50",
            self.port,
            self.dir().display()
        );
        let output = self.run(
            "pg_ctl",
            &[
                "start",
                "-w",
                "-t",
                PG_CTL_WAIT_SECONDS,
                "-D",
                &data,
                "-l",
                &log,
                "-o",
                &options,
            ],
        );
        if output.status.success() {
            self.running = true;
            Ok(())
        } else {
            Err(format!(
                "pg_ctl start on port {} failed ({}): {}{}\nserver log:\n{}",
                self.port,
                output.status,
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr),
                self.log()
            ))
        }
    }

    /// Stops the server (`pg_ctl stop -m <mode>`, waiting until it is down).
    pub fn stop(&mut self, mode: StopMode) {
        let data = self.data_dir();
        let output = self.run(
            "pg_ctl",
            &[
                "stop",
                "-w",
                "-t",
                PG_CTL_WAIT_SECONDS,
                "-D",
                &data,
                "-m",
                mode.as_arg(),
            ],
        );
        assert!(
            output.status.success(),
            "pg_ctl stop -m {} failed ({}): {}{}",
            mode.as_arg(),
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        self.running = false;
    }

    /// Starts the stopped server again on the same port and data; returns how long
    /// `pg_ctl start` took until the server accepted connections.
    pub fn start_again(&mut self) -> Duration {
        let started = Instant::now();
        self.try_start().unwrap_or_else(|error| panic!("{error}"));
        started.elapsed()
    }
}

impl Drop for PgCluster {
    fn drop(&mut self) {
        if self.running {
            let data = self.data_dir();
            let output = self.run("pg_ctl", &["stop", "-D", &data, "-m", "immediate"]);
            if !output.status.success() {
                eprintln!(
                    "warning: pg_ctl stop -m immediate of the test cluster failed: {}",
                    String::from_utf8_lossy(&output.stderr)
                );
            }
        }
        if let Some(dir) = self.dir.take()
            && let Err(error) = dir.close()
        {
            eprintln!("warning: could not remove the test cluster's directory: {error}");
        }
    }
}

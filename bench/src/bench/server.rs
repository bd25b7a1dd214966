//! The real server under test: a child process on a fresh [`Store`] (a data directory and, on
//! PostgreSQL, a database), all of which are cleaned up when [`Server`] is dropped, failures
//! included. Its `jobs` settings point at a projects root of its own holding one project, and
//! at a playbook program that exits at once, so a launched job costs the API, the run record
//! and the spawning of a process, not Ansible.

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use acs_storage::Database;

use super::{load, memory};
use crate::Result;

pub const ADMIN_USERNAME: &str = "admin";
pub const ADMIN_PASSWORD: &str = "bench-password";
/// The project directory under the server's `PROJECTS_ROOT`, and its playbook.
pub const PROJECT_DIRECTORY: &str = "bench";
pub const PLAYBOOK: &str = "site.yml";
/// What the server runs as `ansible-playbook`: it ignores its arguments and exits 0.
const TRIVIAL_PLAYBOOK_PROGRAM: &str = "/bin/true";

/// A release build with an empty database starts in well under a second; a minute only
/// allows for a slow PostgreSQL or a loaded machine.
const READY_TIMEOUT: Duration = Duration::from_secs(60);
/// SIGTERM starts a graceful shutdown; past this the server is killed.
const STOP_TIMEOUT: Duration = Duration::from_secs(10);

/// A fresh database for one server: a data directory of its own (holding the SQLite file, as
/// the server's default) and, on PostgreSQL, a database created for it. Both go on drop.
#[derive(Debug)]
pub struct Store {
    label: String,
    data_dir: TempDir,
    postgres: Option<PgDatabase>,
}

impl Store {
    /// An empty store named after `label` (unique among the stores alive at once): on the
    /// PostgreSQL server at `postgres_url` if given, SQLite otherwise.
    pub fn create(label: &str, postgres_url: Option<&str>) -> Result<Store> {
        let data_dir = TempDir::create(label)?;
        let postgres = postgres_url
            .map(|url| PgDatabase::create(url, label))
            .transpose()?;
        Ok(Store {
            label: label.to_owned(),
            data_dir,
            postgres,
        })
    }

    /// The data directory.
    pub fn data_dir(&self) -> &Path {
        &self.data_dir.0
    }

    /// The database, as the server will find it.
    pub fn database(&self) -> Database {
        match &self.postgres {
            Some(db) => Database::Postgres(db.url.clone()),
            None => Database::Sqlite(self.data_dir.0.join("acs.sqlite3")),
        }
    }
}

/// A running `acs-server`; SIGTERMed (then killed) on drop, before its data goes.
#[derive(Debug)]
pub struct Server {
    pub addr: SocketAddr,
    /// The server's log (stderr), in the store's data directory.
    log: std::path::PathBuf,
    child: Child,
    // Dropped after the child has stopped, in this order: the server holds them open.
    _projects_root: TempDir,
    _store: Store,
}

impl Server {
    /// Starts `binary` on `store` (migrated and seeded or empty: the server migrates at start)
    /// and waits until it answers.
    pub fn start(binary: &Path, store: Store) -> Result<Server> {
        if !Path::new(TRIVIAL_PLAYBOOK_PROGRAM).is_file() {
            return Err(format!(
                "{TRIVIAL_PLAYBOOK_PROGRAM} is missing: job launches need a program that exits 0"
            )
            .into());
        }
        let projects_root = TempDir::create(&format!("{}-projects", store.label))?;
        let project = projects_root.0.join(PROJECT_DIRECTORY);
        std::fs::create_dir_all(&project)
            .map_err(|error| format!("cannot create {}: {error}", project.display()))?;
        let playbook = project.join(PLAYBOOK);
        std::fs::write(
            &playbook,
            "- hosts: all\n  gather_facts: false\n  tasks: []\n",
        )
        .map_err(|error| format!("cannot write {}: {error}", playbook.display()))?;
        let addr = SocketAddr::from(([127, 0, 0, 1], free_port()?));
        let log = store.data_dir.0.join("server.log");
        let mut command = Command::new(binary);
        // The bench measures the defaults: settings from the caller's environment would make
        // runs incomparable, and ACS_DATABASE_URL would point the server at a real database.
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("ACS_") {
                command.env_remove(name);
            }
        }
        command
            .env("ACS_DATA_DIR", &store.data_dir.0)
            .env("ACS_BIND", addr.to_string())
            .env("ACS_WORKERS", super::baseline::workers().to_string())
            .env("ACS_ADMIN_USERNAME", ADMIN_USERNAME)
            .env("ACS_ADMIN_PASSWORD", ADMIN_PASSWORD)
            .env("ACS_PROJECTS_ROOT", &projects_root.0)
            .env("ACS_ANSIBLE_PLAYBOOK_PATH", TRIVIAL_PLAYBOOK_PROGRAM)
            // The default log level, as deployed: an access-log line per request is part of
            // what a request costs. The log goes to a file beside the data.
            .env_remove("RUST_LOG")
            .stderr(std::fs::File::create(&log)?);
        if let Some(database) = &store.postgres {
            command.env("ACS_DATABASE_URL", &database.url);
        }
        let child = command
            .spawn()
            .map_err(|error| format!("cannot start {}: {error}", binary.display()))?;
        let mut server = Server {
            addr,
            log,
            child,
            _projects_root: projects_root,
            _store: store,
        };
        server.wait_ready()?;
        Ok(server)
    }

    /// The server's peak resident memory so far, in MiB (`None` where `/proc` cannot tell).
    pub fn peak_mib(&self) -> Option<f64> {
        memory::peak_kib(self.child.id()).map(memory::mib)
    }

    fn wait_ready(&mut self) -> Result<()> {
        let ping = load::request("GET", self.addr, "/api/v2/ping/", &[], b"");
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait()? {
                let log = std::fs::read_to_string(&self.log).unwrap_or_default();
                return Err(format!("acs-server exited while starting: {status}\n{log}").into());
            }
            let last = match load::fetch(self.addr, &ping) {
                Ok(reply) if reply.status == 200 => return Ok(()),
                Ok(reply) => format!("GET /api/v2/ping/ answered {}", reply.status),
                Err(error) => error.to_string(),
            };
            if Instant::now() >= deadline {
                return Err(format!("acs-server not ready after {READY_TIMEOUT:?}: {last}").into());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // SIGTERM lets the server close its database cleanly; std only offers SIGKILL. An
        // exited but unreaped child keeps its pid, so this cannot hit another process.
        let _ = Command::new("kill")
            .arg(self.child.id().to_string())
            .status();
        let deadline = Instant::now() + STOP_TIMEOUT;
        while Instant::now() < deadline {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        eprintln!("warning: acs-server ignored SIGTERM for {STOP_TIMEOUT:?}; killing it");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A port free right now. Another process could take it before the server binds it; on a
/// bench machine that race is not worth a protocol for handing over the socket.
fn free_port() -> Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// A directory of this process under the system's temporary directory, removed on drop.
#[derive(Debug)]
struct TempDir(PathBuf);

impl TempDir {
    /// `acs-bench-<pid>-<label>`, empty.
    fn create(label: &str) -> Result<TempDir> {
        let path = std::env::temp_dir().join(format!("acs-bench-{}-{label}", std::process::id()));
        // Left over by an earlier run that had the same pid and was killed: start empty.
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path)
            .map_err(|error| format!("cannot create {}: {error}", path.display()))?;
        Ok(TempDir(path))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A database created for this run with `psql`, dropped on drop.
#[derive(Debug)]
struct PgDatabase {
    /// The server's maintenance database, where CREATE and DROP run.
    admin_url: String,
    name: String,
    /// The URL of the new database.
    url: String,
}

impl PgDatabase {
    /// `acs_bench_<pid>_<label>` on the server of `admin_url`, empty.
    fn create(admin_url: &str, label: &str) -> Result<PgDatabase> {
        let name = format!("acs_bench_{}_{label}", std::process::id());
        let url = with_database(admin_url, &name)?;
        // Left over by an earlier run that had the same pid and was killed: start empty.
        psql(
            admin_url,
            &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
        )?;
        psql(admin_url, &format!("CREATE DATABASE {name}"))?;
        Ok(PgDatabase {
            admin_url: admin_url.to_owned(),
            name,
            url,
        })
    }
}

impl Drop for PgDatabase {
    fn drop(&mut self) {
        // FORCE: a server killed after the timeout may leave sessions behind for a moment.
        let drop = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        if let Err(error) = psql(&self.admin_url, &drop) {
            eprintln!(
                "warning: could not drop the bench database {}: {error}",
                self.name
            );
        }
    }
}

/// Fails unless the PostgreSQL server at `url` answers, so that a run on both databases stops
/// at once rather than after its SQLite part.
pub fn check_postgres(url: &str) -> Result<()> {
    psql(url, "SELECT 1").map_err(|error| {
        format!("PostgreSQL at --postgres-url does not answer ({error}); pass --database sqlite to bench SQLite alone").into()
    })
}

fn psql(url: &str, sql: &str) -> Result<()> {
    let status = Command::new("psql")
        .args([
            url,
            "--quiet",
            "--no-psqlrc",
            "-v",
            "ON_ERROR_STOP=1",
            "-c",
            sql,
        ])
        // Errors go to stderr; a query's rows, and notices such as DROP … IF EXISTS finding
        // nothing, are of no use here.
        .env("PGOPTIONS", "-c client_min_messages=warning")
        .stdout(Stdio::null())
        .status()
        .map_err(|error| format!("cannot run psql: {error}"))?;
    if !status.success() {
        return Err(format!("psql -c {sql:?} failed: {status}").into());
    }
    Ok(())
}

/// The URL of database `name` on the server `url` names: its path replaced, its query kept.
fn with_database(url: &str, name: &str) -> Result<String> {
    let (base, query) = url
        .split_once('?')
        .map_or((url, None), |(base, query)| (base, Some(query)));
    let authority = base
        .find("://")
        .ok_or_else(|| format!("not a URL: {url:?}"))?
        + 3;
    let path = base[authority..]
        .find('/')
        .map_or(base.len(), |at| authority + at);
    let mut result = format!("{}/{name}", &base[..path]);
    if let Some(query) = query {
        result.push('?');
        result.push_str(query);
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::with_database;

    #[test]
    fn with_database_replaces_only_the_path() {
        let cases = [
            (
                "postgres://postgres@127.0.0.1:5432/postgres",
                "postgres://postgres@127.0.0.1:5432/db",
            ),
            ("postgresql://u:p@host", "postgresql://u:p@host/db"),
            (
                "postgres://host/x?sslmode=disable",
                "postgres://host/db?sslmode=disable",
            ),
        ];
        for (url, expected) in cases {
            assert_eq!(with_database(url, "db").unwrap(), expected);
        }
        assert!(with_database("host:5432", "db").is_err());
    }
}

//! Process configuration read from the environment at start (contract §1). Everything that can
//! change while servers run is a database setting instead (see `settings`).

use std::path::PathBuf;
use std::time::Duration;

use acs_storage::Database;

/// How one `acs-server` process is configured.
#[derive(Debug, Clone)]
pub struct Config {
    /// `ACS_DATA_DIR`, default `./data`.
    pub data_dir: PathBuf,
    /// `ACS_DATABASE_URL`, default the embedded SQLite file in the data directory.
    pub database: Database,
    /// `ACS_BIND`, default `127.0.0.1:8013`.
    pub bind: String,
    /// `ACS_SECRET_KEY_FILE`, default `<data dir>/secret_key`.
    pub secret_key_file: PathBuf,
    /// `ACS_ADMIN_USERNAME`, default `admin`.
    pub admin_username: String,
    /// `ACS_ADMIN_PASSWORD`; unset means a random password printed once.
    pub admin_password: Option<String>,
    /// `ACS_PASSWORD_HASH_ITERATIONS`, default 600 000 (PBKDF2 rounds for new hashes).
    pub password_iterations: u32,
    /// `ACS_WORKERS`, default the number of CPUs.
    pub workers: usize,
    /// `ACS_PASSWORD_VERIFIERS`, default half the CPUs (at least one): password hashes
    /// computed at once; the other checks wait.
    pub password_verifiers: usize,
    /// `ACS_PASSWORD_QUEUE`, default eight per verifier: checks that may wait for a turn;
    /// past it a check is answered 503 at once. Never more than [`Config::password_checks_waiting`]
    /// allows.
    pub password_queue: usize,
    /// `ACS_DATABASE_POOL_SIZE`, default 8.
    pub pool_size: u32,
    /// `ACS_DATABASE_TIMEOUT_SECONDS`, default 5: how long a request waits for a connection.
    pub pool_timeout: Duration,
    /// `ACS_MAX_BODY_BYTES`, default 1 MiB.
    pub max_body_bytes: usize,
    /// `ACS_MAX_CONCURRENT_RUNS`, default four per CPU: runs (jobs, project and inventory
    /// updates) executing at once on this node; later launches wait, `pending`, in order.
    pub max_concurrent_runs: usize,
    /// `ACS_MAX_WAITING_RUNS`, default a hundred per concurrent run: runs that may wait for a
    /// place on this node; a launch beyond them is answered 503 with nothing written.
    pub max_waiting_runs: usize,
    /// `ACS_NODE_NAME`, default `<host name>/<bind address>`: the name runs record as the node
    /// that runs them. It must be stable across restarts and unique among the servers sharing
    /// a database, because a node that starts ends its own unfinished runs.
    pub node_name: String,
    /// Settings seeded from `ACS_<SETTING_NAME>` variables, as raw strings.
    pub setting_overrides: Vec<(String, String)>,
}

impl Config {
    /// The password checks that may wait for a turn: `ACS_PASSWORD_QUEUE`, but never so many
    /// that checks hashing and waiting hold more than half the request slots. A request holds
    /// its slot (one of `ACS_DATABASE_POOL_SIZE`) while its check waits, so without the bound
    /// a burst of first-time logins took every slot, and every other request that needs one
    /// waited behind PBKDF2 until its budget ran out.
    pub fn password_checks_waiting(&self) -> usize {
        let half_the_slots = (self.pool_size as usize / 2).max(1);
        self.password_queue
            .min(half_the_slots.saturating_sub(self.password_verifiers))
    }
}

/// A configuration variable that does not parse.
#[derive(Debug, thiserror::Error)]
#[error("{name}: {reason}")]
pub struct ConfigError {
    /// The variable.
    pub name: &'static str,
    /// What is wrong.
    pub reason: String,
}

impl Config {
    /// Reads the configuration from environment variables.
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(|name| std::env::var(name).ok(), std::env::vars().collect())
    }

    /// Reads the configuration through `lookup`; `all` lists every variable (for settings).
    pub fn from_lookup(
        lookup: impl Fn(&str) -> Option<String>,
        all: Vec<(String, String)>,
    ) -> Result<Self, ConfigError> {
        let data_dir = PathBuf::from(lookup("ACS_DATA_DIR").unwrap_or_else(|| "./data".into()));
        let database = Database::from_url(lookup("ACS_DATABASE_URL").as_deref(), &data_dir);
        let secret_key_file = lookup("ACS_SECRET_KEY_FILE")
            .map(PathBuf::from)
            .unwrap_or_else(|| data_dir.join("secret_key"));
        let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
        let password_verifiers = number(
            &lookup,
            "ACS_PASSWORD_VERIFIERS",
            (workers / 2).max(1),
            1..=256,
        )?;
        let max_concurrent_runs =
            number(&lookup, "ACS_MAX_CONCURRENT_RUNS", workers * 4, 1..=4096)?;
        let setting_overrides = all
            .into_iter()
            .filter_map(|(name, value)| {
                let setting = name.strip_prefix("ACS_")?;
                acs_app::settings::registry::find(setting).map(|def| (def.name.to_owned(), value))
            })
            .collect();
        let bind = lookup("ACS_BIND").unwrap_or_else(|| "127.0.0.1:8013".into());
        let node_name = lookup("ACS_NODE_NAME")
            .filter(|name| !name.trim().is_empty())
            .unwrap_or_else(|| format!("{}/{bind}", host_name()));
        Ok(Config {
            node_name,
            bind,
            admin_username: lookup("ACS_ADMIN_USERNAME").unwrap_or_else(|| "admin".into()),
            admin_password: lookup("ACS_ADMIN_PASSWORD").filter(|p| !p.is_empty()),
            password_iterations: number(
                &lookup,
                "ACS_PASSWORD_HASH_ITERATIONS",
                600_000,
                1..=acs_oauth2::MAX_ITERATIONS,
            )?,
            workers: number(&lookup, "ACS_WORKERS", workers, 1..=256)?,
            password_verifiers,
            password_queue: number(
                &lookup,
                "ACS_PASSWORD_QUEUE",
                password_verifiers * 8,
                0..=4096,
            )?,
            pool_size: number(&lookup, "ACS_DATABASE_POOL_SIZE", 8, 1..=512)?,
            pool_timeout: Duration::from_secs(number(
                &lookup,
                "ACS_DATABASE_TIMEOUT_SECONDS",
                5,
                1..=600,
            )?),
            max_body_bytes: number(&lookup, "ACS_MAX_BODY_BYTES", 1 << 20, 1024..=(64 << 20))?,
            max_concurrent_runs,
            max_waiting_runs: number(
                &lookup,
                "ACS_MAX_WAITING_RUNS",
                max_concurrent_runs * 100,
                0..=1_000_000,
            )?,
            data_dir,
            database,
            secret_key_file,
            setting_overrides,
        })
    }
}

/// The machine's host name, or `localhost` when it cannot be read.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|name| name.trim().to_owned())
        .ok()
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "localhost".to_owned())
}

fn number<T>(
    lookup: &impl Fn(&str) -> Option<String>,
    name: &'static str,
    default: T,
    range: std::ops::RangeInclusive<T>,
) -> Result<T, ConfigError>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy,
{
    let Some(raw) = lookup(name) else {
        return Ok(default);
    };
    let value: T = raw.trim().parse().map_err(|_| ConfigError {
        name,
        reason: format!("'{raw}' is not a number"),
    })?;
    if !range.contains(&value) {
        return Err(ConfigError {
            name,
            reason: format!("{value} is outside {}..={}", range.start(), range.end()),
        });
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::Config;

    fn config(variables: &[(&str, &str)]) -> Config {
        let variables: Vec<(String, String)> = variables
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect();
        let lookup = |name: &str| {
            variables
                .iter()
                .find(|(variable, _)| variable == name)
                .map(|(_, value)| value.clone())
        };
        Config::from_lookup(lookup, Vec::new()).expect("a configuration")
    }

    #[test]
    fn password_checks_never_hold_more_than_half_the_request_slots() {
        let one_verifier = [("ACS_PASSWORD_VERIFIERS", "1")];
        // Eight slots: one check hashing and three waiting, whatever the queue asks.
        assert_eq!(config(&one_verifier).password_checks_waiting(), 3);
        let small_queue = [("ACS_PASSWORD_VERIFIERS", "1"), ("ACS_PASSWORD_QUEUE", "2")];
        assert_eq!(config(&small_queue).password_checks_waiting(), 2);
        let large_pool = [
            ("ACS_PASSWORD_VERIFIERS", "2"),
            ("ACS_DATABASE_POOL_SIZE", "64"),
        ];
        assert_eq!(config(&large_pool).password_checks_waiting(), 16);
        let tiny_pool = [
            ("ACS_PASSWORD_VERIFIERS", "1"),
            ("ACS_DATABASE_POOL_SIZE", "1"),
        ];
        assert_eq!(config(&tiny_pool).password_checks_waiting(), 0);
    }
}

//! The `key_rotation` scenario of `cargo xtask bench`: a fresh database of credentials, each
//! with one secret input sealed under a key, then the release `rotate_secret_key` run on it as
//! an operator would (no pause between its passes), timed and its peak memory measured. The
//! baseline rewrites the same rows with one plain `UPDATE` in one transaction: what the
//! database itself needs to write every row once.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use acs_app::secret_key::{KeyFiles, SecretKey};
use acs_storage::Database;
use diesel::connection::SimpleConnection;
use serde_json::{Value, json};
use xtask::management::database::SQLITE_COMMAND_PRAGMAS;

use super::housekeeping::child;
use super::markdown::thousands;
use super::server::Store;
use crate::Result;

/// The scenario's name for `--scenario`.
pub const NAME: &str = "key_rotation";

/// Credentials seeded, one secret input each.
const CREDENTIALS: u64 = 100_000;

/// Rows per seeding statement.
const SEED_ROWS: u64 = 1_000;

/// One rotation measured.
#[derive(Debug)]
pub struct Step {
    /// Values the command sealed again.
    values: u64,
    seed_seconds: f64,
    seconds: f64,
    /// The same rows rewritten by one plain `UPDATE`.
    baseline_seconds: f64,
    peak_mib: Option<f64>,
}

impl Step {
    fn values_per_second(&self) -> f64 {
        self.values as f64 / self.seconds
    }

    fn ratio(&self) -> f64 {
        self.seconds / self.baseline_seconds
    }

    /// The step as it goes into `benchmarks.json`.
    pub fn json(&self) -> Value {
        json!({
            "command": "rotate_secret_key",
            "values": self.values,
            "seed_seconds": self.seed_seconds,
            "seconds": self.seconds,
            "values_per_second": self.values_per_second(),
            "baseline_seconds": self.baseline_seconds,
            "ratio_to_baseline": self.ratio(),
            "peak_rss_mib": self.peak_mib,
        })
    }
}

/// Seeds a fresh database (SQLite, or a PostgreSQL database at `postgres_url`), rotates its
/// key with the command in `bin_dir`, then times the baseline on the same rows.
pub fn run(bin_dir: &Path, postgres_url: Option<&str>) -> Result<Step> {
    let store = Store::create(NAME, postgres_url)?;
    let database = store.database();
    let key_file = store.data_dir().join("secret_key");
    let files = KeyFiles::new(&key_file);
    let rng = ring::rand::SystemRandom::new();
    let keys = files.read_or_create(&rng)?;
    eprintln!("bench: {NAME}: seeding {CREDENTIALS} credentials");
    let seeding = Instant::now();
    seed(&database, &keys.current)?;
    let seed_seconds = seeding.elapsed().as_secs_f64();

    eprintln!("bench: {NAME}: rotate_secret_key");
    let mut process =
        Command::new(bin_dir.join(format!("rotate_secret_key{}", std::env::consts::EXE_SUFFIX)));
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("ACS_") {
            process.env_remove(name);
        }
    }
    process
        .args(["--settle", "0"])
        .env("ACS_DATA_DIR", store.data_dir())
        .env("ACS_SECRET_KEY_FILE", &key_file);
    match &database {
        Database::Postgres(url) => process.env("ACS_DATABASE_URL", url),
        Database::Sqlite(path) => process.env("ACS_DATABASE_URL", path),
    };
    let measured = child::run(process)?;
    let expected = format!(
        "Re-encrypted {CREDENTIALS} credential inputs, 0 setting secrets, 0 sign-in secrets"
    );
    if !measured.status.success() || !measured.stdout.starts_with(&expected) {
        return Err(format!(
            "rotate_secret_key: {} with stdout {:?} (expected {expected:?}…) and stderr {:?}",
            measured.status, measured.stdout, measured.stderr
        )
        .into());
    }

    eprintln!("bench: {NAME}: baseline");
    let mut conn = database.connect()?;
    if database.is_sqlite() {
        conn.batch_execute(SQLITE_COMMAND_PRAGMAS)?;
    }
    let started = Instant::now();
    conn.batch_execute("BEGIN; UPDATE credentials SET inputs = inputs || ''; COMMIT;")?;
    let baseline_seconds = started.elapsed().as_secs_f64();
    Ok(Step {
        values: CREDENTIALS,
        seed_seconds,
        seconds: measured.elapsed.as_secs_f64(),
        baseline_seconds,
        peak_mib: measured.peak_rss_kib.map(|kib| kib as f64 / 1024.0),
    })
}

/// Migrates `database` and writes [`CREDENTIALS`] credentials of a custom type with a plain
/// `user` and a secret `token`, sealed under `key` as a server seals them.
fn seed(database: &Database, key: &SecretKey) -> Result<()> {
    let mut conn = database.connect()?;
    acs_storage::run_migrations(&mut conn)?;
    let cipher = acs_credential_types::InputCipher::from_secret_key(&key.0);
    let rng = ring::rand::SystemRandom::new();
    let at = "'2024-01-01 00:00:00'";
    let fields = json!({"fields": [
        {"id": "user", "label": "User"},
        {"id": "token", "label": "Token", "secret": true},
    ]});
    let mut sql = format!(
        "BEGIN;
         INSERT INTO organizations (id, name, created, modified) VALUES (1, 'bench', {at}, {at});
         INSERT INTO credential_types (id, name, description, kind, managed, inputs, injectors,
           created, modified) VALUES (1, 'bench', '', 'cloud', false, '{fields}', '{{}}', {at}, {at});\n"
    );
    for start in (0..CREDENTIALS).step_by(SEED_ROWS as usize) {
        let mut rows = Vec::with_capacity(SEED_ROWS as usize);
        for i in start..(start + SEED_ROWS).min(CREDENTIALS) {
            let token = cipher
                .seal(&rng, "token", &format!("bench-secret-{i}"))
                .map_err(|error| format!("sealing: {error}"))?;
            let inputs = json!({"user": format!("user-{i}"), "token": token});
            rows.push(format!("('bench {i}', '', 1, 1, '{inputs}', {at}, {at})"));
        }
        sql.push_str(&format!(
            "INSERT INTO credentials (name, description, credential_type_id, organization_id,
               inputs, created, modified) VALUES {};\n",
            rows.join(", ")
        ));
    }
    sql.push_str("COMMIT;");
    conn.batch_execute(&sql)?;
    Ok(())
}

/// The scenario's table of the report: one row per database.
pub fn markdown(steps: &[(&str, &Step)]) -> String {
    let mut text = String::from(
        "| database | values | seed s | run s | values/s | baseline s | ratio | peak MiB |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for (database, step) in steps {
        let peak = step
            .peak_mib
            .map_or_else(|| "n/a".to_owned(), |mib| format!("{mib:.1}"));
        text.push_str(&format!(
            "| {database} | {} | {:.2} | {:.2} | {} | {:.2} | {:.2}× | {peak} |\n",
            thousands(step.values as f64),
            step.seed_seconds,
            step.seconds,
            thousands(step.values_per_second()),
            step.baseline_seconds,
            step.ratio(),
        ));
    }
    text
}

//! The `token_housekeeping` scenario of `cargo xtask bench`: a fresh database seeded with many
//! tokens (a million by default), then the release `revoke_oauth2_tokens --all` and
//! `cleanup_tokens` binaries run on it as an operator would, each timed and its peak memory
//! measured. Each command gets its own freshly seeded database, and so does its baseline
//! (`floor`): the same work as plain unbatched SQL, against which the command's time is
//! reported as a ratio.

pub(super) mod child;
mod floor;
mod seed;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use acs_app::housekeeping::counted;
use acs_storage::Database;
use serde_json::{Value, json};

use super::markdown::thousands;
use super::server::Store;
use crate::Result;
use seed::Dataset;

/// The scenario's name for `--scenario`.
pub const NAME: &str = "token_housekeeping";
/// What the issue asks of a million rows on SQLite.
const TARGET_SECONDS: f64 = 10.0;
const TARGET_PEAK_MIB: f64 = 100.0;

/// One command measured.
#[derive(Debug)]
pub struct Step {
    command: &'static str,
    /// Rows the command changed (revoked or deleted).
    rows: u64,
    seed_seconds: f64,
    /// The same work as plain SQL in one transaction (see `floor`).
    baseline_seconds: f64,
    seconds: f64,
    peak_mib: Option<f64>,
}

impl Step {
    /// Whether the run met the targets (time, and memory where it was measured).
    fn on_target(&self) -> bool {
        self.seconds < TARGET_SECONDS && self.peak_mib.is_none_or(|mib| mib < TARGET_PEAK_MIB)
    }

    /// The command's time over its baseline's.
    fn ratio(&self) -> f64 {
        self.seconds / self.baseline_seconds
    }

    /// The step as it goes into `benchmarks.json`.
    pub fn json(&self) -> Value {
        json!({
            "command": self.command,
            "rows": self.rows,
            "seed_seconds": self.seed_seconds,
            "seconds": self.seconds,
            "baseline_seconds": self.baseline_seconds,
            "ratio_to_baseline": self.ratio(),
            "peak_rss_mib": self.peak_mib,
            "on_target": self.on_target(),
        })
    }
}

/// Runs the scenario with the commands in `bin_dir` on `tokens` access tokens, on SQLite or,
/// given `postgres_url`, on a fresh PostgreSQL database there.
pub fn run(bin_dir: &Path, postgres_url: Option<&str>, tokens: u64) -> Result<Vec<Step>> {
    let dataset = Dataset {
        access_tokens: tokens,
    };
    let revoke_expected = format!(
        "Revoked {} and {}.\n",
        counted(
            dataset.access_tokens as usize,
            "access token",
            "access tokens"
        ),
        counted(
            dataset.refresh_tokens() as usize,
            "refresh token",
            "refresh tokens"
        ),
    );
    let cleanup_expected = format!(
        "Deleted {}, {}, 0 expired authorization codes and {}.\n",
        counted(
            dataset.expired_access_tokens() as usize,
            "expired access token",
            "expired access tokens"
        ),
        counted(
            dataset.expired_refresh_tokens() as usize,
            "expired refresh token",
            "expired refresh tokens"
        ),
        counted(
            dataset.expired_sessions() as usize,
            "expired session",
            "expired sessions"
        ),
    );
    let revoke = measure(
        bin_dir,
        postgres_url,
        dataset,
        ("revoke_oauth2_tokens", &["--all"]),
        dataset.access_tokens + dataset.refresh_tokens(),
        0,
        &revoke_expected,
    )?;
    let cleanup = measure(
        bin_dir,
        postgres_url,
        dataset,
        ("cleanup_tokens", &[]),
        dataset.expired_access_tokens()
            + dataset.expired_refresh_tokens()
            + dataset.expired_sessions(),
        dataset.access_tokens - dataset.expired_access_tokens(),
        &cleanup_expected,
    )?;
    Ok(vec![revoke, cleanup])
}

/// Seeds a fresh database, runs `command` with `args` on it and checks its summary line;
/// then seeds another and times the baseline on it, which must leave `access_tokens_left`.
fn measure(
    bin_dir: &Path,
    postgres_url: Option<&str>,
    dataset: Dataset,
    (command, args): (&'static str, &[&str]),
    rows: u64,
    access_tokens_left: u64,
    expected_stdout: &str,
) -> Result<Step> {
    let (seed_seconds, measured) = {
        let store = Store::create(command, postgres_url)?;
        let database = store.database();
        let seed_seconds = seed_timed(&database, dataset, command)?;
        eprintln!("bench: {NAME}: {command} {}", args.join(" "));
        (
            seed_seconds,
            run_command(bin_dir, &database, command, args)?,
        )
    };
    if !measured.status.success() || measured.stdout != expected_stdout {
        return Err(format!(
            "{command} {}: {} with stdout {:?} (expected {expected_stdout:?}) and stderr {:?}",
            args.join(" "),
            measured.status,
            measured.stdout,
            measured.stderr
        )
        .into());
    }
    let baseline = {
        let store = Store::create(&format!("{command}_baseline"), postgres_url)?;
        let database = store.database();
        seed_timed(&database, dataset, &format!("the {command} baseline"))?;
        eprintln!("bench: {NAME}: {command} baseline");
        floor::measure(&database, command, access_tokens_left)?
    };
    Ok(Step {
        command,
        rows,
        seed_seconds,
        baseline_seconds: baseline.as_secs_f64(),
        seconds: measured.elapsed.as_secs_f64(),
        peak_mib: measured.peak_rss_kib.map(|kib| kib as f64 / 1024.0),
    })
}

/// Seeds `database` with `dataset` for `purpose`; returns the seconds it took.
fn seed_timed(database: &Database, dataset: Dataset, purpose: &str) -> Result<f64> {
    eprintln!(
        "bench: {NAME}: seeding {} access tokens for {purpose}",
        dataset.access_tokens
    );
    let seeding = Instant::now();
    seed::seed(database, dataset).map_err(|error| format!("seeding failed: {error}"))?;
    Ok(seeding.elapsed().as_secs_f64())
}

/// Runs the release `command` on `database` as an operator would: only `ACS_DATA_DIR` and
/// `ACS_DATABASE_URL` set.
fn run_command(
    bin_dir: &Path,
    database: &Database,
    command: &str,
    args: &[&str],
) -> Result<child::Measured> {
    let mut process =
        Command::new(bin_dir.join(format!("{command}{}", std::env::consts::EXE_SUFFIX)));
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("ACS_") {
            process.env_remove(name);
        }
    }
    process.args(args);
    match database {
        Database::Postgres(url) => process.env("ACS_DATABASE_URL", url),
        Database::Sqlite(path) => process.env("ACS_DATABASE_URL", path),
    };
    child::run(process)
}

/// The scenario's table of the report, and a line for each step off target.
pub fn markdown(steps: &[Step]) -> String {
    let mut text = String::from(
        "| command | rows | seed s | run s | baseline s | ratio | peak MiB |\n\
         |---|---:|---:|---:|---:|---:|---:|\n",
    );
    for step in steps {
        let peak = step
            .peak_mib
            .map_or_else(|| "n/a".to_owned(), |mib| format!("{mib:.1}"));
        text.push_str(&format!(
            "| {}{} | {} | {:.2} | {:.2} | {:.2} | {:.2}× | {peak} |\n",
            step.command,
            if step.on_target() { "" } else { " !" },
            thousands(step.rows as f64),
            step.seed_seconds,
            step.seconds,
            step.baseline_seconds,
            step.ratio(),
        ));
    }
    for step in steps.iter().filter(|step| !step.on_target()) {
        text.push_str(&format!(
            "\n! {}: over the target of {TARGET_SECONDS} s and {TARGET_PEAK_MIB} MiB peak\n",
            step.command
        ));
    }
    text
}

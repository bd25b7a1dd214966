//! `cargo xtask`: maintenance tasks of the ACS workspace.

mod migrate;

use std::ffi::OsString;
use std::path::Path;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Errors of a task: each is reported once, on stderr, by `main`.
type Error = Box<dyn std::error::Error + Send + Sync>;
type Result<T> = std::result::Result<T, Error>;

#[derive(Debug, Parser)]
#[command(bin_name = "cargo xtask", about = "ACS maintenance tasks")]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// Apply pending database migrations (reads ACS_DATABASE_URL and ACS_DATA_DIR like the server).
    Migrate,
    /// Build acs-server in release and measure it against a bare actix-web baseline
    /// (`cargo xtask bench --help` for its options).
    #[command(disable_help_flag = true)]
    Bench {
        /// Passed to the bench (crate `acs-bench`).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<OsString>,
    },
}

fn main() -> ExitCode {
    let outcome = match Cli::parse().task {
        Task::Migrate => migrate::run(),
        Task::Bench { args } => bench(&args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the bench from a release build. Unoptimised, its load generator and in-process
/// baseline top out well below a release server (about 50 000 against 80 000 requests/s on
/// two cores), so a debug build would measure the bench rather than ACS.
fn bench(args: &[OsString]) -> Result<()> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap_or(Path::new("."));
    let status = xtask::nested_cargo::command(workspace)
        .args(["run", "--release", "--package", "acs-bench", "--"])
        .args(args)
        .status()
        .map_err(|error| format!("cannot run cargo: {error}"))?;
    if !status.success() {
        return Err(format!("the bench failed: {status}").into());
    }
    Ok(())
}

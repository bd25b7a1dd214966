//! `cargo xtask`: maintenance tasks of the ACS workspace.

mod bench;
mod migrate;

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
    /// Build acs-server in release and measure it against a bare actix-web baseline.
    Bench(bench::BenchArgs),
}

fn main() -> ExitCode {
    let outcome = match Cli::parse().task {
        Task::Migrate => migrate::run(),
        Task::Bench(args) => bench::run(&args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

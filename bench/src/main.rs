//! `acs-bench`, run as `cargo xtask bench`: see [`bench`].

mod bench;

use std::process::ExitCode;

use clap::Parser;

/// Errors of the bench: each is reported once, on stderr, by `main`.
type Error = Box<dyn std::error::Error + Send + Sync>;
type Result<T> = std::result::Result<T, Error>;

#[derive(Debug, Parser)]
#[command(
    bin_name = "cargo xtask bench",
    about = "Build acs-server in release and measure it against a bare actix-web baseline"
)]
struct Cli {
    #[command(flatten)]
    args: bench::BenchArgs,
}

fn main() -> ExitCode {
    match bench::run(&Cli::parse().args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

//! `cargo xtask bench`: throughput and latency of the release server, scenario by scenario,
//! next to a bare actix-web server measured in the same run on the same machine.

mod baseline;
mod housekeeping;
mod injection;
mod load;
mod scenarios;
mod server;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use clap::ValueEnum;
use serde_json::json;

use crate::Result;
use load::{Load, Measurement, Workload};

/// Every scenario and the baseline request this path, so their costs compare.
const ME_PATH: &str = "/api/v2/me/";
/// Load applied before measuring: connections open, caches and pools fill.
const WARMUP: Duration = Duration::from_secs(1);

#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// Seconds each scenario is measured, after a 1 s warm-up.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
    duration: u64,
    /// Concurrent keep-alive connections, each sending its next request once answered.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u16).range(1..))]
    connections: u16,
    /// The server's database: SQLite in a temporary directory, or a temporary PostgreSQL database.
    #[arg(long, value_enum, default_value_t = Backend::Sqlite)]
    database: Backend,
    /// A PostgreSQL server where the bench may create and drop its database.
    #[arg(long, default_value = "postgres://postgres@127.0.0.1:5432/postgres")]
    postgres_url: String,
    /// Run only these scenarios (repeatable; all when absent): basic, session, bearer,
    /// token_issue, password_grant, refresh_grant (HTTP, next to the baseline) and
    /// token_housekeeping (the management commands on a seeded database) and injection_plan
    /// (credential injection plans in process, next to the same output written by hand).
    #[arg(long = "scenario", value_name = "NAME", value_parser = scenario_name)]
    scenarios: Vec<String>,
    /// Access tokens seeded for token_housekeeping.
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    tokens: u64,
}

/// Every scenario `--scenario` accepts.
fn scenario_names() -> impl Iterator<Item = &'static str> {
    scenarios::SCENARIOS
        .iter()
        .map(|scenario| scenario.name)
        .chain([housekeeping::NAME, injection::NAME])
}

fn scenario_name(name: &str) -> std::result::Result<String, String> {
    if scenario_names().any(|known| known == name) {
        Ok(name.to_owned())
    } else {
        let known: Vec<_> = scenario_names().collect();
        Err(format!("unknown scenario; one of: {}", known.join(", ")))
    }
}

impl BenchArgs {
    fn selected(&self, name: &str) -> bool {
        self.scenarios.is_empty() || self.scenarios.iter().any(|selected| selected == name)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Backend {
    Sqlite,
    Postgres,
}

/// One line of the report.
#[derive(Debug)]
struct Row {
    scenario: &'static str,
    requests: u64,
    requests_per_sec: f64,
    p50_ms: f64,
    p99_ms: f64,
    errors: u64,
    /// Requests per second as a percentage of the baseline's.
    baseline_percent: f64,
}

impl Row {
    fn new(scenario: &'static str, measured: &Measurement, baseline_rps: f64) -> Row {
        let requests_per_sec = measured.requests_per_sec();
        Row {
            scenario,
            requests: measured.requests(),
            requests_per_sec,
            p50_ms: measured.percentile_ms(0.50),
            p99_ms: measured.percentile_ms(0.99),
            errors: measured.errors,
            baseline_percent: 100.0 * requests_per_sec / baseline_rps,
        }
    }
}

pub fn run(args: &BenchArgs) -> Result<()> {
    let workspace = workspace_root();
    if cfg!(debug_assertions) {
        return rerun_optimised(workspace);
    }
    let postgres_url = (args.database == Backend::Postgres).then_some(args.postgres_url.as_str());
    let http: Vec<_> = scenarios::SCENARIOS
        .iter()
        .filter(|scenario| args.selected(scenario.name))
        .collect();
    let rows = if http.is_empty() {
        Vec::new()
    } else {
        let binary = build(workspace, &["-p", "acs-api", "--bin", "acs-server"])?
            .join(format!("acs-server{}", std::env::consts::EXE_SUFFIX));
        run_http(args, &binary, postgres_url, &http)?
    };
    let steps = if args.selected(housekeeping::NAME) {
        let bin_dir = build(workspace, &["-p", "xtask", "--bins"])?;
        housekeeping::run(&bin_dir, postgres_url, args.tokens)
            .map_err(|error| format!("{}: {error}", housekeeping::NAME))?
    } else {
        Vec::new()
    };

    let injection = args
        .selected(injection::NAME)
        .then(|| injection::run(Duration::from_secs(args.duration)));

    if !rows.is_empty() {
        print_table(&rows);
    }
    if let Some(result) = &injection {
        injection::print(result);
    }
    if !steps.is_empty() {
        housekeeping::print(&steps);
    }
    let path = workspace.join("target/bench/results.json");
    write_json(&path, args, &rows, &steps, injection.as_ref())?;
    println!("\nwritten to {}", path.display());

    let failed: Vec<_> = rows
        .iter()
        .filter(|row| row.requests == 0 || row.errors == row.requests)
        .collect();
    if !failed.is_empty() {
        let names: Vec<_> = failed.iter().map(|row| row.scenario).collect();
        return Err(format!("no successful response in: {}", names.join(", ")).into());
    }
    Ok(())
}

/// The baseline, then each HTTP scenario on one release server.
fn run_http(
    args: &BenchArgs,
    binary: &Path,
    postgres_url: Option<&str>,
    selected: &[&scenarios::Scenario],
) -> Result<Vec<Row>> {
    let load = |addr| Load {
        addr,
        connections: usize::from(args.connections),
        warmup: WARMUP,
        duration: Duration::from_secs(args.duration),
    };

    eprintln!("bench: baseline (bare actix-web)");
    let baseline = {
        let server = baseline::start()?;
        let request = Workload::repeat(load::request("GET", server.addr, ME_PATH, &[], b""));
        load::run(load(server.addr), &request).map_err(|error| format!("baseline: {error}"))?
    };
    let baseline_rps = baseline.requests_per_sec();
    if baseline_rps == 0.0 {
        return Err("the baseline completed no request: nothing to compare with".into());
    }
    let mut rows = vec![Row::new("baseline", &baseline, baseline_rps)];

    let server = server::Server::start(binary, postgres_url)?;
    for scenario in selected {
        eprintln!("bench: {}", scenario.name);
        let workload = (scenario.prepare)(server.addr, usize::from(args.connections))
            .map_err(|error| format!("setting up {}: {error}", scenario.name))?;
        let measured = load::run(load(server.addr), &workload)
            .map_err(|error| format!("{}: {error}", scenario.name))?;
        rows.push(Row::new(scenario.name, &measured, baseline_rps));
    }
    Ok(rows)
}

/// The workspace root: the parent of this crate's directory.
fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap_or(Path::new("."))
}

/// Runs this same command from a release build of xtask. Unoptimised, the load generator
/// and the in-process baseline top out well below a release server (about 50 000 against
/// 80 000 requests/s on two cores, even with xtask itself at opt-level 3), so a debug run
/// would measure xtask rather than ACS.
fn rerun_optimised(workspace: &Path) -> Result<()> {
    eprintln!(
        "bench: running from a release build of xtask, so the load generator is not the bottleneck"
    );
    let status = Command::new(cargo())
        .current_dir(workspace)
        .args(["run", "--release", "--package", "xtask", "--"])
        .args(std::env::args_os().skip(1))
        .status()
        .map_err(|error| format!("cannot run cargo: {error}"))?;
    if !status.success() {
        return Err(format!("the release bench failed: {status}").into());
    }
    Ok(())
}

/// The cargo running this task, so nested builds use the same toolchain.
fn cargo() -> std::ffi::OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// Builds `what` (cargo package and target options) in release, its output shown as it
/// goes, and returns the directory of the release binaries.
fn build(workspace: &Path, what: &[&str]) -> Result<PathBuf> {
    let status = Command::new(cargo())
        .current_dir(workspace)
        .args(["build", "--release"])
        .args(what)
        .status()
        .map_err(|error| format!("cannot run cargo: {error}"))?;
    if !status.success() {
        return Err(format!("cargo build --release {} failed: {status}", what.join(" ")).into());
    }
    // Cargo honours CARGO_TARGET_DIR, relative to where it ran; `join` keeps an absolute one.
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| workspace.join("target"), |dir| workspace.join(dir));
    Ok(target.join("release"))
}

fn print_table(rows: &[Row]) {
    println!(
        "\n{:<10} {:>12} {:>9} {:>9} {:>10} {:>12}",
        "scenario", "requests/s", "p50 ms", "p99 ms", "errors", "vs baseline"
    );
    for row in rows {
        // A scenario with errors measured something other than what it names: flag it.
        let errors = if row.errors > 0 {
            format!("{} !", row.errors)
        } else {
            "0".into()
        };
        println!(
            "{:<10} {:>12.1} {:>9.3} {:>9.3} {:>10} {:>11.1}%",
            row.scenario,
            row.requests_per_sec,
            row.p50_ms,
            row.p99_ms,
            errors,
            row.baseline_percent
        );
    }
    for row in rows.iter().filter(|row| row.errors > 0) {
        println!(
            "! {}: {} of {} responses were errors (non-2xx status or a failed connection)",
            row.scenario, row.errors, row.requests
        );
    }
}

fn write_json(
    path: &Path,
    args: &BenchArgs,
    rows: &[Row],
    steps: &[housekeeping::Step],
    injection: Option<&injection::Measured>,
) -> Result<()> {
    let results: Vec<_> = rows
        .iter()
        .map(|row| {
            json!({
                "scenario": row.scenario,
                "requests": row.requests,
                "requests_per_sec": row.requests_per_sec,
                "p50_ms": row.p50_ms,
                "p99_ms": row.p99_ms,
                "errors": row.errors,
                "baseline_percent": row.baseline_percent,
            })
        })
        .collect();
    let report = json!({
        "database": args.database.to_possible_value().map(|value| value.get_name().to_owned()),
        "duration_secs": args.duration,
        "warmup_secs": WARMUP.as_secs(),
        "connections": args.connections,
        "results": results,
        "housekeeping": {
            "access_tokens_seeded": args.tokens,
            "steps": steps.iter().map(housekeeping::Step::json).collect::<Vec<_>>(),
        },
        "injection": injection.map(injection::Measured::json),
    });
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, serde_json::to_string_pretty(&report)? + "\n")
        .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    Ok(())
}

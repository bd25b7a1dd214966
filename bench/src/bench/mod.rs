//! `cargo xtask bench` (which runs this crate's release build): throughput and latency of the release server, scenario by scenario, on
//! SQLite and on PostgreSQL, next to a bare actix-web server measured in the same run on the
//! same machine; how they hold as the database grows; the server's peak memory. One run
//! writes `benchmarks.md` and `benchmarks.json` (see `report`).

mod baseline;
mod bounds;
mod dataset;
mod housekeeping;
mod injection;
mod key_rotation;
mod launch;
mod load;
mod logins;
mod machine;
mod markdown;
mod memory;
mod principal_miss;
mod report;
mod row;
mod scale;
mod scenarios;
mod server;
mod suite;
mod targets;
mod wrk;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::ValueEnum;

use crate::Result;
use load::Workload;
use report::{DatabaseReport, Report};
use row::Row;
use suite::Pace;

/// Every scenario and the baseline request this path, so their costs compare.
const ME_PATH: &str = "/api/v2/me/";
/// Load applied before measuring: connections open, caches and pools fill.
const WARMUP: Duration = Duration::from_secs(1);
/// Seconds each scenario is measured unless `--duration` says otherwise; a shorter run is
/// marked as such in the report.
const DEFAULT_DURATION: u64 = 10;

#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// Seconds each scenario is measured, after a 1 s warm-up.
    #[arg(long, default_value_t = DEFAULT_DURATION, value_parser = clap::value_parser!(u64).range(1..=3600))]
    duration: u64,
    /// Concurrent keep-alive connections, each sending its next request once answered.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u16).range(1..))]
    connections: u16,
    /// The server's database: SQLite in a temporary directory, a temporary PostgreSQL
    /// database, or both, one after the other, against the same baseline.
    #[arg(long, value_enum, default_value_t = Databases::All)]
    database: Databases,
    /// A PostgreSQL server where the bench may create and drop its databases.
    #[arg(long, default_value = "postgres://postgres@127.0.0.1:5432/postgres")]
    postgres_url: String,
    /// Run only these scenarios (repeatable; all when absent): basic, session, bearer,
    /// cold_bearer, cold_session, cold_basic, bearer_under_logins, team_bearer, token_list, template_list, token_issue,
    /// password_grant, refresh_grant, job_launch (HTTP, each beside the baseline), scale (bearer and token_list on 1 000 and on --tokens tokens),
    /// token_housekeeping (the management commands on a seeded database), key_rotation
    /// (rotate_secret_key on 100 000 credentials) and injection_plan
    /// (credential injection plans in process, next to the same output written by hand).
    #[arg(long = "scenario", value_name = "NAME", value_parser = scenario_name)]
    scenarios: Vec<String>,
    /// Access tokens of the large scale dataset and of token_housekeeping's databases.
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    tokens: u64,
    /// Users of both scale datasets.
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(2..=10_000_000))]
    users: u64,
    /// Where benchmarks.md and benchmarks.json go, relative to the workspace root. By default
    /// docs/ after a complete run (every scenario on both databases), so that the published
    /// report always comes from one; target/bench/ otherwise.
    #[arg(long, value_name = "DIR")]
    output: Option<PathBuf>,
}

/// Every scenario `--scenario` accepts.
fn scenario_names() -> impl Iterator<Item = &'static str> {
    scenarios::SCENARIOS
        .iter()
        .map(|scenario| scenario.name)
        .chain([
            scale::NAME,
            housekeeping::NAME,
            key_rotation::NAME,
            injection::NAME,
        ])
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

    fn pace(&self) -> Pace {
        Pace {
            connections: usize::from(self.connections),
            warmup: WARMUP,
            duration: Duration::from_secs(self.duration),
        }
    }

    fn postgres_url(&self, backend: Backend) -> Option<&str> {
        (backend == Backend::Postgres).then_some(self.postgres_url.as_str())
    }
}

/// What `--database` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Databases {
    Sqlite,
    Postgres,
    All,
}

impl Databases {
    fn backends(self) -> &'static [Backend] {
        match self {
            Databases::Sqlite => &[Backend::Sqlite],
            Databases::Postgres => &[Backend::Postgres],
            Databases::All => &[Backend::Sqlite, Backend::Postgres],
        }
    }
}

/// A database the server runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    /// As in `--database` and `benchmarks.json`.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
        }
    }

    /// As in `benchmarks.md`.
    pub fn title(self) -> &'static str {
        match self {
            Backend::Sqlite => "SQLite",
            Backend::Postgres => "PostgreSQL",
        }
    }
}

pub fn run(args: &BenchArgs) -> Result<()> {
    let workspace = workspace_root();
    let machine = machine::Machine::describe(workspace);
    let backends = args.database.backends();
    if backends.contains(&Backend::Postgres) {
        server::check_postgres(&args.postgres_url)?;
    }
    let http: Vec<_> = scenarios::SCENARIOS
        .iter()
        .filter(|scenario| args.selected(scenario.name))
        .collect();
    let scaling = args.selected(scale::NAME);
    let binary = if http.is_empty() && !scaling {
        None
    } else {
        Some(
            build(workspace, &["-p", "acs-api", "--bin", "acs-server"])?
                .join(format!("acs-server{}", std::env::consts::EXE_SUFFIX)),
        )
    };
    let commands = if args.selected(housekeeping::NAME) || args.selected(key_rotation::NAME) {
        Some(build(workspace, &["-p", "xtask", "--bins"])?)
    } else {
        None
    };

    // The run's time, as the report gives it, leaves out building.
    let started = Instant::now();
    let pace = args.pace();
    let (baseline, generator) = match binary {
        Some(_) => {
            let (wrk, generator) = measure_baseline(pace)?;
            (Some(wrk), Some(generator))
        }
        None => (None, None),
    };
    let mut databases = Vec::new();
    for &backend in backends {
        databases.push(run_database(
            args,
            backend,
            (binary.as_deref(), commands.as_deref()),
            &http,
            baseline.as_ref(),
        )?);
    }
    let injection = args
        .selected(injection::NAME)
        .then(|| injection::run(Duration::from_secs(args.duration)));

    let complete = args.scenarios.is_empty() && args.database == Databases::All;
    let report = Report {
        machine,
        settings: report::Settings {
            connections: pace.connections,
            warmup: pace.warmup,
            duration: pace.duration,
            tokens: args.tokens,
            users: args.users,
        },
        baseline,
        generator,
        databases,
        injection,
        elapsed: started.elapsed(),
        complete,
        short: args.duration < DEFAULT_DURATION,
    };
    let output = match &args.output {
        // `join` keeps an absolute path as it is.
        Some(dir) => workspace.join(dir),
        None if complete => workspace.join("docs"),
        None => workspace.join("target/bench"),
    };
    let (json, markdown) = report.write(&output)?;
    println!("\n{}", markdown::render(&report));
    println!("written to {} and {}", markdown.display(), json.display());

    let failed = report.failed();
    if !failed.is_empty() {
        return Err(format!(
            "unexpected answers (or none) in: {} (the first failures are printed above where wrk read the bodies)",
            failed.join(", ")
        )
        .into());
    }
    Ok(())
}

/// The bare actix-web server under the same load as the real one, driven by wrk (the row
/// every share is of) and by the bench's own generator (the row that shows how hard the
/// generator of the open-loop rows can drive it).
fn measure_baseline(pace: Pace) -> Result<(Row, Row)> {
    eprintln!("bench: baseline (bare actix-web), with wrk and with the bench's generator");
    let server = baseline::start()?;
    let request = Workload::repeat(load::request("GET", server.addr, ME_PATH, &[], b""));
    let by_wrk = wrk::run(pace.load(server.addr), &request, None)
        .map_err(|error| format!("baseline with wrk: {error}"))?;
    let rps = by_wrk.requests_per_sec();
    if rps == 0.0 {
        return Err("the baseline completed no request: nothing to compare with".into());
    }
    let by_generator = load::run(pace.load(server.addr), &request)
        .map_err(|error| format!("baseline: {error}"))?;
    Ok((
        Row::new("baseline", &by_wrk, rps),
        Row::new("baseline_bench_generator", &by_generator, rps),
    ))
}

/// Everything selected on one database: the HTTP scenarios, the scale, the housekeeping
/// commands, with the server binary and the commands' directory when they were built.
fn run_database(
    args: &BenchArgs,
    backend: Backend,
    (binary, commands): (Option<&Path>, Option<&Path>),
    http: &[&scenarios::Scenario],
    baseline: Option<&Row>,
) -> Result<DatabaseReport> {
    eprintln!("bench: on {}", backend.title());
    let postgres_url = args.postgres_url(backend);
    let in_context = |part: &'static str| {
        let title = backend.title();
        move |error| format!("{part} on {title}: {error}")
    };
    let (mut suite, mut scale) = (None, None);
    if let (Some(binary), Some(baseline)) = (binary, baseline) {
        if !http.is_empty() {
            let measured = suite::run(
                binary,
                postgres_url,
                http,
                args.pace(),
                baseline.requests_per_sec,
            );
            suite = Some(measured.map_err(in_context("HTTP scenarios"))?);
        }
        if args.selected(scale::NAME) {
            let sizes = (args.users, args.tokens);
            let measured = scale::run(binary, postgres_url, sizes, args.pace());
            scale = Some(measured.map_err(in_context(scale::NAME))?);
        }
    }
    let housekeeping = match commands {
        Some(commands) if args.selected(housekeeping::NAME) => {
            housekeeping::run(commands, postgres_url, args.tokens)
                .map_err(in_context(housekeeping::NAME))?
        }
        _ => Vec::new(),
    };
    let key_rotation = match commands {
        Some(commands) if args.selected(key_rotation::NAME) => Some(
            key_rotation::run(commands, postgres_url).map_err(in_context(key_rotation::NAME))?,
        ),
        _ => None,
    };
    Ok(DatabaseReport {
        backend,
        suite,
        scale,
        housekeeping,
        key_rotation,
    })
}

/// The workspace root: the parent of this crate's directory.
fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap_or(Path::new("."))
}

/// Builds `what` (cargo package and target options) in release, its output shown as it
/// goes, and returns the directory of the release binaries.
fn build(workspace: &Path, what: &[&str]) -> Result<PathBuf> {
    let status = xtask::nested_cargo::command(workspace)
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

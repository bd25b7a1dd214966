//! One database's HTTP scenarios: a release server on a fresh store holding the list user and
//! its tokens (see `dataset`), each selected scenario measured on it in turn, and the
//! server's peak memory read after each.

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use super::dataset::{self, Dataset};
use super::load::{self, Load, Measurement, Workload};
use super::principal_miss::PrincipalMiss;
use super::row::Row;
use super::scenarios::Scenario;
use super::server::{Server, Store};
use crate::Result;

/// How every HTTP scenario is loaded, whatever the server.
#[derive(Debug, Clone, Copy)]
pub struct Pace {
    pub connections: usize,
    /// Load applied before measuring: connections open, caches and pools fill.
    pub warmup: Duration,
    pub duration: Duration,
}

impl Pace {
    pub fn load(&self, addr: SocketAddr) -> Load {
        Load {
            addr,
            connections: self.connections,
            warmup: self.warmup,
            duration: self.duration,
            rate: None,
        }
    }
}

/// What one database's server did.
#[derive(Debug)]
pub struct Suite {
    pub rows: Vec<Row>,
    /// A principal built on a cache miss, on this database.
    pub principal_miss: PrincipalMiss,
    /// The server's peak resident memory at the end, in MiB.
    pub peak_mib: Option<f64>,
}

/// Measures `selected` on a server of `binary` on SQLite or, given `postgres_url`, on a fresh
/// PostgreSQL database there.
pub fn run(
    binary: &Path,
    postgres_url: Option<&str>,
    selected: &[&Scenario],
    pace: Pace,
    baseline_rps: f64,
) -> Result<Suite> {
    let store = Store::create("server", postgres_url)?;
    dataset::seed(&store.database(), Dataset::LIST_USER_ONLY)
        .map_err(|error| format!("seeding the list user: {error}"))?;
    if selected
        .iter()
        .any(|scenario| matches!(scenario.name, "cold_bearer" | "cold_session"))
    {
        dataset::seed_cold_credentials(&store.database(), Dataset::LIST_USER_ONLY)
            .map_err(|error| format!("seeding the cold tokens and sessions: {error}"))?;
    }
    if selected
        .iter()
        .any(|scenario| scenario.beside.is_some() || scenario.name == "cold_basic")
    {
        dataset::seed_login_users(&store.database())
            .map_err(|error| format!("seeding the login users: {error}"))?;
    }
    eprintln!("bench: principal_miss");
    let principal_miss = super::principal_miss::measure(&store.database())
        .map_err(|error| format!("principal_miss: {error}"))?;
    let server = Server::start(binary, store)?;
    let mut rows = Vec::new();
    for scenario in selected {
        let row = measure(&server, scenario, pace)?;
        let half = (scenario.name == HALF_LOAD_OF).then(|| row.requests_per_sec / 2.0);
        rows.push(row);
        if let Some(rate) = half {
            let (at_rate, baseline_at_rate) =
                measure_at_rate(&server, scenario, pace, baseline_rps, rate)?;
            rows.push(at_rate);
            rows.push(baseline_at_rate);
        }
    }
    Ok(Suite {
        rows,
        principal_miss,
        peak_mib: server.peak_mib(),
    })
}

/// The scenario measured again at half its closed-loop rate, for its latency under a
/// sustainable load (issue target: bearer p99 under 5 ms there).
const HALF_LOAD_OF: &str = "bearer";

/// How often each connection of an open loop sends.
const OPEN_LOOP_INTERVAL: Duration = Duration::from_millis(5);

/// Windows the half-load time is cut into, the server's and the bare handler's taken in turn,
/// so that both are read through the same noise of a shared machine (a virtual CPU taken
/// away, another process's periodic work); each row's percentiles are of all its windows'
/// latencies together, the worst window included.
const HALF_LOAD_WINDOWS: u32 = 3;

/// `scenario` as an open loop at `rate` requests per second, the row `bearer_half_load`, and
/// the bare handler under the same open loop, the row `baseline_half_load`: the latency the
/// machine itself gives at that rate, which the scenario's is to be read against. Each is
/// measured in [`HALF_LOAD_WINDOWS`] windows, alternately, and reported by
/// [`Measurement::pooled`] them.
fn measure_at_rate(
    server: &Server,
    scenario: &Scenario,
    pace: Pace,
    baseline_rps: f64,
    rate: f64,
) -> Result<(Row, Row)> {
    eprintln!("bench: {} at {rate:.0} requests/s", scenario.name);
    let workload = (scenario.prepare)(server.addr, pace.connections)
        .map_err(|error| format!("setting up {}: {error}", scenario.name))?;
    // Enough connections that each sends every 5 ms: tokio's timers tick in milliseconds, and
    // a connection due more often would be late by the timer, not by the server.
    let connections = pace
        .connections
        .max((rate * OPEN_LOOP_INTERVAL.as_secs_f64()).ceil() as usize);
    let load = Load {
        rate: Some(rate),
        connections,
        duration: pace.duration / HALF_LOAD_WINDOWS,
        ..pace.load(server.addr)
    };
    let bare = super::baseline::start()?;
    let bare_load = Load {
        addr: bare.addr,
        ..load
    };
    let request = Workload::repeat(load::request("GET", bare.addr, super::ME_PATH, &[], b""));
    let (mut windows, mut bare_windows) = (Vec::new(), Vec::new());
    for _ in 0..HALF_LOAD_WINDOWS {
        windows.push(
            load::run(load, &workload).map_err(|error| format!("{}: {error}", scenario.name))?,
        );
        bare_windows.push(
            load::run(bare_load, &request)
                .map_err(|error| format!("baseline at {rate:.0} requests/s: {error}"))?,
        );
    }
    let combined = |windows: &[Measurement]| {
        Measurement::pooled(windows).ok_or("no half-load window was measured")
    };
    let mut row = Row::new("bearer_half_load", &combined(&windows)?, baseline_rps);
    row.peak_mib = server.peak_mib();
    Ok((
        row,
        Row::new(
            "baseline_half_load",
            &combined(&bare_windows)?,
            baseline_rps,
        ),
    ))
}

/// Windows a closed-loop row is cut into, each after one of the bare handler under the same
/// load: the row's ratio is of the baseline measured around it, not of one taken minutes
/// earlier on a machine whose speed drifts.
const CLOSED_LOOP_WINDOWS: u32 = 3;

/// Sets `scenario` up on `server`, measures it in [`CLOSED_LOOP_WINDOWS`] windows, each after
/// one of the bare handler's, and, if it started work in the background, waits for that work
/// to end. A scenario that leaves work running (job launches) is one window, after the bare
/// handler's, so that its runs never slow the baseline it is read against. The row's
/// percentiles are its worst window's.
pub fn measure(server: &Server, scenario: &Scenario, pace: Pace) -> Result<Row> {
    eprintln!("bench: {}", scenario.name);
    let count = if scenario.settle.is_some() {
        1
    } else {
        CLOSED_LOOP_WINDOWS
    };
    let window = Pace {
        duration: pace.duration / count,
        ..pace
    };
    let bare = super::baseline::start()?;
    let bare_request = Workload::repeat(load::request("GET", bare.addr, super::ME_PATH, &[], b""));
    let prepare = || {
        (scenario.prepare)(server.addr, pace.connections + super::wrk::SPARE_CHAINS)
            .map_err(|error| format!("setting up {}: {error}", scenario.name))
    };
    let mut workload = prepare()?;
    let (mut windows, mut bare_windows) = (Vec::new(), Vec::new());
    for index in 0..count {
        // A chain's first credentials are single-use: each window has its own.
        if index > 0 && matches!(workload, Workload::Chain { .. }) {
            workload = prepare()?;
        }
        bare_windows.push(
            super::wrk::run(window.load(bare.addr), &bare_request, None)
                .map_err(|error| format!("baseline beside {}: {error}", scenario.name))?,
        );
        let beside = scenario
            .beside
            .map(|start| start(server.addr))
            .transpose()?;
        let connections = scenario.connections.unwrap_or(window.connections);
        let row_pace = Pace {
            connections: connections.min(window.connections),
            ..window
        };
        windows.push(
            super::wrk::run(row_pace.load(server.addr), &workload, scenario.refusal)
                .map_err(|error| format!("{}: {error}", scenario.name))?,
        );
        if let Some(beside) = beside {
            let logins = beside.stop();
            eprintln!(
                "bench: {}: {} first-time logins beside it answered, {} refused",
                scenario.name, logins.succeeded, logins.refused
            );
        }
    }
    let combined = |windows: &[Measurement]| {
        Measurement::worst_of(windows).ok_or_else(|| format!("{}: no window", scenario.name))
    };
    let beside = combined(&bare_windows)?;
    let mut row = Row::new(
        scenario.name,
        &combined(&windows)?,
        beside.requests_per_sec(),
    );
    row.baseline_rps = Some(beside.requests_per_sec());
    if let Some(settle) = scenario.settle {
        row.process_starts = Some(
            settle(server.addr)
                .map_err(|error| format!("{} after the load: {error}", scenario.name))?,
        );
    }
    row.peak_mib = server.peak_mib();
    Ok(row)
}

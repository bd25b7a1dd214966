//! `job_launch`: `POST /api/v2/job_templates/<id>/launch/` as fast as the server takes it,
//! up to the start of each job's process. The server's `ansible-playbook` is a program that
//! exits at once (see `server`), so what is measured is the API, the run's record, its
//! private directory and inventory, and the spawning of a process, not Ansible.
//!
//! A launch answers 201 once its run is committed, and the run goes on in the background: the
//! HTTP figures say how fast launches are taken. Once the load stops, [`settle`] waits for
//! every run to end and reads, from each run's record, the time from its launch (`created`)
//! to the start of its process (`started`, stored just before the spawn), and whether it
//! succeeded.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use chrono::NaiveDateTime;
use serde_json::{Value, json};

use super::load::{self, Workload};
use super::scenarios::{admin_get, admin_post, personal_token};
use super::server::{PLAYBOOK, PROJECT_DIRECTORY};
use crate::Result;

/// The scenario's name for `--scenario`.
pub const NAME: &str = "job_launch";
/// What a launch is answered when as many runs wait as the node lets wait
/// (`ACS_MAX_WAITING_RUNS`).
pub const REFUSAL: u16 = 503;

const JOBS_PATH: &str = "/api/v2/jobs/";
/// Runs left and none of them ended for this long mean the runner is stuck. A bound on the
/// whole drain would not do: the faster launches are taken, the longer the queue they leave.
const STALL_TIMEOUT: Duration = Duration::from_secs(60);
/// How often the runs left are counted while draining.
const DRAIN_POLL: Duration = Duration::from_millis(100);
/// Rows per page when reading the runs back (the API's largest).
const PAGE_SIZE: i64 = acs_api::http::list::MAX_PAGE_SIZE;

/// What the runs launched during the scenario (warm-up included) did.
#[derive(Debug, Clone)]
pub struct ProcessStarts {
    pub runs: u64,
    /// Runs that did not end `successful`: each one means a launch measured less than a job.
    pub unsuccessful: u64,
    /// From launch to the start of the process.
    pub p50_ms: f64,
    pub p99_ms: f64,
    /// From the end of the load to the end of the last run.
    pub drain_seconds: f64,
    /// Runs started per second, from the first start to the last: what users mean by a job
    /// rate (the row's own rate is of launches accepted into the queue).
    pub started_per_sec: f64,
    /// Runs finished per second, from the first end to the last.
    pub finished_per_sec: f64,
    /// The most runs waiting (`pending`, launched and not yet started) at once.
    pub most_waiting: u64,
    /// Runs waiting at each whole second from the first launch on: the queue's depth over
    /// time.
    pub waiting_by_second: Vec<u64>,
}

impl ProcessStarts {
    /// Its part of `benchmarks.json`.
    pub fn json(&self) -> Value {
        json!({
            "runs": self.runs,
            "unsuccessful": self.unsuccessful,
            "launch_to_process_start_p50_ms": self.p50_ms,
            "launch_to_process_start_p99_ms": self.p99_ms,
            "drain_seconds": self.drain_seconds,
            "started_per_sec": self.started_per_sec,
            "finished_per_sec": self.finished_per_sec,
            "most_waiting": self.most_waiting,
            "waiting_by_second": self.waiting_by_second,
        })
    }
}

/// Creates, as the admin, an organization with a project on the server's project directory,
/// an inventory of one host and a job template of both; returns its launch by a bearer token.
pub fn prepare(addr: SocketAddr, _connections: usize) -> Result<Workload> {
    let organization = admin_post(
        addr,
        "/api/v2/organizations/",
        &json!({ "name": "bench-jobs" }),
    )?;
    let project = admin_post(
        addr,
        "/api/v2/projects/",
        &json!({
            "name": "bench",
            "organization": organization["id"],
            "local_path": PROJECT_DIRECTORY,
        }),
    )?;
    let inventory = admin_post(
        addr,
        "/api/v2/inventories/",
        &json!({ "name": "bench", "organization": organization["id"] }),
    )?;
    admin_post(
        addr,
        &format!("/api/v2/inventories/{}/hosts/", inventory["id"]),
        &json!({ "name": "localhost", "variables": "ansible_connection: local\n" }),
    )?;
    let template = admin_post(
        addr,
        "/api/v2/job_templates/",
        &json!({
            "name": "bench",
            "project": project["id"],
            "inventory": inventory["id"],
            "playbook": PLAYBOOK,
        }),
    )?;
    let authorization = format!("Bearer {}", personal_token(addr)?);
    let path = format!("/api/v2/job_templates/{}/launch/", template["id"]);
    Ok(Workload::repeat(load::request(
        "POST",
        addr,
        &path,
        &[
            ("Authorization", authorization.as_str()),
            ("Content-Type", "application/json"),
        ],
        b"{}",
    )))
}

/// Waits for every run to end, then reads them all back.
pub fn settle(addr: SocketAddr) -> Result<ProcessStarts> {
    let drain_seconds = drain(addr)?;
    let mut latencies_us = Vec::new();
    let (mut starts, mut ends, mut waits) = (Vec::new(), Vec::new(), Vec::new());
    let mut runs = 0;
    let mut unsuccessful = 0;
    for page in 1.. {
        let list = admin_get(
            addr,
            &format!("{JOBS_PATH}?page_size={PAGE_SIZE}&page={page}&order_by=id"),
        )?;
        let results = list["results"].as_array().cloned().unwrap_or_default();
        for run in &results {
            runs += 1;
            if run["status"] != "successful" {
                unsuccessful += 1;
            }
            starts.extend(timestamp(&run["started"]));
            ends.extend(timestamp(&run["finished"]));
            // A run canceled while it waited never starts: it stopped waiting when it ended.
            let left_the_queue = timestamp(&run["started"]).or_else(|| timestamp(&run["finished"]));
            if let (Some(created), Some(left)) = (timestamp(&run["created"]), left_the_queue) {
                waits.push((created, left));
            }
            if let (Some(created), Some(started)) =
                (timestamp(&run["created"]), timestamp(&run["started"]))
            {
                let micros = (started - created).num_microseconds().unwrap_or(0).max(0);
                latencies_us.push(u32::try_from(micros).unwrap_or(u32::MAX));
            }
        }
        if list["next"].is_null() || results.is_empty() {
            break;
        }
    }
    latencies_us.sort_unstable();
    let (most_waiting, waiting_by_second) = waiting_over_time(&waits);
    Ok(ProcessStarts {
        runs,
        unsuccessful,
        p50_ms: load::percentile_ms(&latencies_us, 0.50),
        p99_ms: load::percentile_ms(&latencies_us, 0.99),
        drain_seconds,
        started_per_sec: rate(&starts),
        finished_per_sec: rate(&ends),
        most_waiting,
        waiting_by_second,
    })
}

/// From each run's wait (launched, left the queue): the most waiting at once, and how many
/// waited at each whole second from the first launch on.
fn waiting_over_time(waits: &[(NaiveDateTime, NaiveDateTime)]) -> (u64, Vec<u64>) {
    // +1 when a run is launched, -1 when it leaves the queue; a leaving sorts before a
    // launch at the same instant.
    let mut events: Vec<(NaiveDateTime, i64)> = waits
        .iter()
        .flat_map(|&(launched, left)| [(launched, 1), (left.max(launched), -1)])
        .collect();
    events.sort_unstable();
    let Some(&(first, _)) = events.first() else {
        return (0, Vec::new());
    };
    let (mut waiting, mut most) = (0_i64, 0_i64);
    let mut by_second = Vec::new();
    let mut next_sample = first;
    for (at, change) in events {
        while next_sample < at {
            by_second.push(waiting.max(0).unsigned_abs());
            next_sample += chrono::TimeDelta::seconds(1);
        }
        waiting += change;
        most = most.max(waiting);
    }
    (most.max(0).unsigned_abs(), by_second)
}

/// Events per second from the first of `times` to the last (0 for fewer than two).
fn rate(times: &[chrono::NaiveDateTime]) -> f64 {
    let (Some(first), Some(last)) = (times.iter().min(), times.iter().max()) else {
        return 0.0;
    };
    let seconds = (*last - *first).num_microseconds().unwrap_or(0) as f64 / 1e6;
    if times.len() < 2 || seconds <= 0.0 {
        0.0
    } else {
        (times.len() - 1) as f64 / seconds
    }
}

/// Waits until no run is pending or running; returns the seconds it took.
fn drain(addr: SocketAddr) -> Result<f64> {
    let started = Instant::now();
    let path = format!("{JOBS_PATH}?status__in=pending,running&page_size=1");
    let mut watch = StallWatch::new(started);
    loop {
        let left = admin_get(addr, &path)?["count"].as_u64().unwrap_or(0);
        if left == 0 {
            return Ok(started.elapsed().as_secs_f64());
        }
        if watch.stalled(left, Instant::now()) {
            return Err(format!(
                "{left} runs still unfinished, none ended in the last {STALL_TIMEOUT:?}"
            )
            .into());
        }
        std::thread::sleep(DRAIN_POLL);
    }
}

/// When the count of runs left last went down.
#[derive(Debug)]
struct StallWatch {
    fewest: u64,
    since: Instant,
}

impl StallWatch {
    fn new(now: Instant) -> Self {
        StallWatch {
            fewest: u64::MAX,
            since: now,
        }
    }

    /// True once `left` has not gone below its lowest count for [`STALL_TIMEOUT`].
    fn stalled(&mut self, left: u64, now: Instant) -> bool {
        if left < self.fewest {
            self.fewest = left;
            self.since = now;
        }
        now.duration_since(self.since) >= STALL_TIMEOUT
    }
}

/// A record's timestamp (`2026-01-02T03:04:05.678901Z`); `None` when null or malformed.
fn timestamp(value: &Value) -> Option<NaiveDateTime> {
    NaiveDateTime::parse_from_str(value.as_str()?, "%Y-%m-%dT%H:%M:%S%.fZ").ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_api_timestamps() {
        let created = timestamp(&json!("2026-01-02T03:04:05.000100Z")).unwrap();
        let started = timestamp(&json!("2026-01-02T03:04:05.002600Z")).unwrap();
        assert_eq!((started - created).num_microseconds(), Some(2500));
        assert_eq!(timestamp(&Value::Null), None);
    }

    #[test]
    fn the_queue_depth_is_counted_from_each_run_s_wait() {
        let at = |ms: i64| {
            timestamp(&json!("2026-01-02T03:04:05.000000Z")).unwrap()
                + chrono::TimeDelta::milliseconds(ms)
        };
        // Three launched within 100 ms, started at 0.5 s, 1.5 s and 2.5 s; a fourth launched at
        // 2 s and started at once.
        let waits = [
            (at(0), at(500)),
            (at(50), at(1500)),
            (at(100), at(2500)),
            (at(2000), at(2000)),
        ];
        let (most, by_second) = waiting_over_time(&waits);
        assert_eq!(most, 3);
        // At 0 s, 1 s and 2 s, counting what happened at that instant.
        assert_eq!(by_second, [1, 2, 1]);
        assert_eq!(waiting_over_time(&[]), (0, Vec::new()));
    }

    #[test]
    fn a_drain_is_stuck_only_when_no_run_ends_for_the_stall_timeout() {
        let start = Instant::now();
        let mut watch = StallWatch::new(start);
        assert!(!watch.stalled(30_000, start));
        // A long queue that keeps shrinking is never stuck.
        assert!(!watch.stalled(29_000, start + STALL_TIMEOUT * 3));
        assert!(!watch.stalled(29_000, start + STALL_TIMEOUT * 3 + STALL_TIMEOUT / 2));
        assert!(watch.stalled(29_000, start + STALL_TIMEOUT * 4));
    }
}

//! One measured HTTP scenario: a line of a report's tables.

use serde_json::{Value, json};

use super::launch::ProcessStarts;
use super::load::Measurement;

#[derive(Debug)]
pub struct Row {
    pub scenario: &'static str,
    pub requests: u64,
    pub requests_per_sec: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub errors: u64,
    /// Answers of the refusal the scenario expects when the server is full by design; not in
    /// `requests_per_sec`, and no error.
    pub refused: u64,
    /// Requests per second as a percentage of the baseline's.
    pub baseline_percent: f64,
    /// The bare handler's rate in the windows alternating with this row's, which
    /// `baseline_percent` is of; `None` where the row is of the run's first baseline.
    pub baseline_rps: Option<f64>,
    /// The server's peak resident memory once the scenario had run (its high-water mark, so
    /// the peak of everything before too); `None` for the baseline, which is no server.
    pub peak_mib: Option<f64>,
    /// For a job launch, what the launched runs did.
    pub process_starts: Option<ProcessStarts>,
}

impl Row {
    pub fn new(scenario: &'static str, measured: &Measurement, baseline_rps: f64) -> Row {
        let requests_per_sec = measured.requests_per_sec();
        Row {
            scenario,
            requests: measured.requests(),
            requests_per_sec,
            p50_ms: measured.p50_ms(),
            p99_ms: measured.p99_ms(),
            errors: measured.errors,
            refused: measured.refused,
            baseline_percent: 100.0 * requests_per_sec / baseline_rps,
            baseline_rps: None,
            peak_mib: None,
            process_starts: None,
        }
    }

    /// Whether the row cannot stand: nothing was measured, or an answer was not the one
    /// expected (a fast error would pass for speed; the rate counts the expected ones only,
    /// and the bench fails on any).
    pub fn failed(&self) -> bool {
        self.requests == 0 || self.errors > 0
    }

    /// The row as it goes into `benchmarks.json`.
    pub fn json(&self) -> Value {
        json!({
            "scenario": self.scenario,
            "requests": self.requests,
            "requests_per_sec": self.requests_per_sec,
            "p50_ms": self.p50_ms,
            "p99_ms": self.p99_ms,
            "errors": self.errors,
            "refused": self.refused,
            "baseline_percent": self.baseline_percent,
            "baseline_beside_requests_per_sec": self.baseline_rps,
            "server_peak_rss_mib": self.peak_mib,
            "job_runs": self.process_starts.as_ref().map(ProcessStarts::json),
        })
    }
}

//! Everything one run measured, written as `benchmarks.json` (for machines) and
//! `benchmarks.md` (for people, see `markdown`) side by side.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use super::dataset::Dataset;
use super::machine::Machine;
use super::row::Row;
use super::scale::Scale;
use super::suite::Suite;
use super::{Backend, bounds, housekeeping, injection, key_rotation, markdown};
use crate::Result;

/// The peak resident memory every server process should stay under.
pub const TARGET_PEAK_MIB: f64 = 100.0;

#[derive(Debug)]
pub struct Report {
    pub machine: Machine,
    pub settings: Settings,
    /// The bare actix-web server, measured once for the whole run (absent when no HTTP
    /// scenario ran).
    pub baseline: Option<Row>,
    /// The same bare server driven by the bench's own generator (which drives the open-loop
    /// rows): its share of wrk's rate says whether it can.
    pub generator: Option<Row>,
    pub databases: Vec<DatabaseReport>,
    pub injection: Option<injection::Measured>,
    pub elapsed: Duration,
    /// Every scenario on both databases: what a published report must be.
    pub complete: bool,
    /// Measured for less than the default duration: the figures show that the harness works,
    /// not how fast ACS is.
    pub short: bool,
}

/// How the run was asked to measure.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    pub connections: usize,
    pub warmup: Duration,
    pub duration: Duration,
    /// Tokens of the large scale dataset and of token_housekeeping.
    pub tokens: u64,
    /// Users of the scale datasets.
    pub users: u64,
}

/// What one database's part of the run measured.
#[derive(Debug)]
pub struct DatabaseReport {
    pub backend: Backend,
    pub suite: Option<Suite>,
    pub scale: Option<Scale>,
    pub housekeeping: Vec<housekeeping::Step>,
    pub key_rotation: Option<key_rotation::Step>,
}

/// One server process of a database's part and its peak memory.
#[derive(Debug, Clone, Copy)]
pub struct ServerPeak {
    /// What it served: `http_scenarios` or `scale`.
    pub served: &'static str,
    /// What its database was seeded with.
    pub dataset: Dataset,
    pub peak_mib: Option<f64>,
}

impl DatabaseReport {
    /// Each server process of this database's part, in the order they ran.
    pub fn servers(&self) -> Vec<ServerPeak> {
        let mut servers = Vec::new();
        if let Some(suite) = &self.suite {
            servers.push(ServerPeak {
                served: "http_scenarios",
                dataset: Dataset::LIST_USER_ONLY,
                peak_mib: suite.peak_mib,
            });
        }
        for size in self.scale.iter().flat_map(|scale| &scale.sizes) {
            servers.push(ServerPeak {
                served: super::scale::NAME,
                dataset: size.dataset,
                peak_mib: size.peak_mib,
            });
        }
        servers
    }

    fn json(&self) -> Value {
        let peaks: Vec<_> = self
            .servers()
            .into_iter()
            .map(|server| {
                json!({
                    "served": server.served,
                    "users": server.dataset.users,
                    "tokens": server.dataset.tokens,
                    "peak_rss_mib": server.peak_mib,
                })
            })
            .collect();
        json!({
            "database": self.backend.name(),
            "results": self.suite.as_ref().map(|suite| suite.rows.iter().map(Row::json).collect::<Vec<_>>()),
            "principal_miss": self.suite.as_ref().map(|suite| suite.principal_miss.json()),
            "targets": self.suite.as_ref().map(|suite| {
                super::targets::judge(self.backend, &suite.rows)
                    .iter()
                    .map(super::targets::Judged::json)
                    .collect::<Vec<_>>()
            }),
            "server_peak_rss_mib": peaks,
            "scale": self.scale.as_ref().map(Scale::json),
            "housekeeping": (!self.housekeeping.is_empty()).then(|| {
                self.housekeeping.iter().map(housekeeping::Step::json).collect::<Vec<_>>()
            }),
            "key_rotation": self.key_rotation.as_ref().map(key_rotation::Step::json),
        })
    }
}

impl Report {
    /// Every row of every table that measured nothing successfully.
    pub fn failed(&self) -> Vec<String> {
        let mut failed = Vec::new();
        for database in &self.databases {
            let suite = database.suite.iter().flat_map(|suite| &suite.rows);
            let scale = database
                .scale
                .iter()
                .flat_map(|scale| &scale.sizes)
                .flat_map(|size| &size.rows);
            for row in suite.chain(scale).filter(|row| row.failed()) {
                failed.push(format!("{} on {}", row.scenario, database.backend.title()));
            }
        }
        failed
    }

    pub fn json(&self) -> Value {
        json!({
            "machine": self.machine.json(),
            "settings": {
                "connections": self.settings.connections,
                "warmup_secs": self.settings.warmup.as_secs_f64(),
                "duration_secs": self.settings.duration.as_secs_f64(),
                "tokens": self.settings.tokens,
                "users": self.settings.users,
            },
            "complete": self.complete,
            "short": self.short,
            "elapsed_secs": self.elapsed.as_secs_f64(),
            "peak_rss_target_mib": TARGET_PEAK_MIB,
            "baseline": self.baseline.as_ref().map(Row::json),
            "baseline_bench_generator": self.generator.as_ref().map(Row::json),
            "databases": self.databases.iter().map(DatabaseReport::json).collect::<Vec<_>>(),
            "injection": self.injection.as_ref().map(injection::Measured::json),
            "bounds": bounds::BOUNDS
                .iter()
                .map(|(path, text)| ((*path).to_owned(), json!(text)))
                .collect::<serde_json::Map<_, _>>(),
        })
    }

    /// Writes `benchmarks.json` and `benchmarks.md` into `dir`; returns their paths.
    pub fn write(&self, dir: &Path) -> Result<(PathBuf, PathBuf)> {
        std::fs::create_dir_all(dir)
            .map_err(|error| format!("cannot create {}: {error}", dir.display()))?;
        let json_path = dir.join("benchmarks.json");
        let markdown_path = dir.join("benchmarks.md");
        let json = serde_json::to_string_pretty(&self.json())? + "\n";
        let mut files = vec![
            (json_path.clone(), json.clone()),
            (markdown_path.clone(), markdown::render(self)),
        ];
        // Every complete run is kept beside the latest, so that runs can be compared.
        if self.complete {
            files.push((dir.join("benchmarks").join(self.archive_name()), json));
        }
        for (path, text) in files {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|error| format!("cannot create {}: {error}", parent.display()))?;
            }
            std::fs::write(&path, text)
                .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
        }
        Ok((json_path, markdown_path))
    }

    /// The archived report's file name: the run's date and time and the commit measured.
    fn archive_name(&self) -> String {
        let date: String = self
            .machine
            .date
            .chars()
            .filter(char::is_ascii_digit)
            .collect();
        let commit = self.machine.commit.as_deref().unwrap_or("uncommitted");
        format!("{date}-{}.json", &commit[..commit.len().min(12)])
    }
}

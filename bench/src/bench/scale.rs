//! `scale`: whether the paths that read the tokens keep their speed as the database grows.
//! One server on a store with the scale's users and a thousand tokens, then one with the same
//! users and a million tokens (both seeded straight into the database before the server
//! starts: see `dataset`), each with the cold rows' 100 000 tokens besides; the same `bearer`,
//! `token_list` and `cold_bearer` scenarios on each. The target is on every row, those that
//! read the data included (bearer alone could not miss it: its token's row is read only on a
//! cache miss, which cold_bearer makes most requests take): with a million tokens at least
//! 90% of its rate with a thousand.

use std::path::Path;
use std::time::Instant;

use serde_json::{Value, json};

use super::dataset::{self, Dataset, LIST_TOKENS};
use super::row::Row;
use super::scenarios;
use super::server::{Server, Store};
use super::suite::{self, Pace};
use crate::Result;

/// The part's name for `--scenario`.
pub const NAME: &str = "scale";
/// Measured on each dataset, in this order.
const MEASURED: [&str; 3] = ["bearer", "token_list", "cold_bearer"];
/// The scenarios the target is about: every one measured.
pub const TARGET_SCENARIOS: [&str; 3] = MEASURED;
/// Each one's share of the baseline on the large dataset over that on the small, at least.
pub const TARGET_RATIO: f64 = 0.9;

/// One dataset measured.
#[derive(Debug)]
pub struct Size {
    pub dataset: Dataset,
    pub seed_seconds: f64,
    pub rows: Vec<Row>,
    /// The server's peak resident memory at the end, in MiB.
    pub peak_mib: Option<f64>,
}

impl Size {
    fn json(&self) -> Value {
        json!({
            "users": self.dataset.users,
            "tokens": self.dataset.tokens,
            "seed_seconds": self.seed_seconds,
            "server_peak_rss_mib": self.peak_mib,
            "results": self.rows.iter().map(Row::json).collect::<Vec<_>>(),
        })
    }
}

/// Both datasets measured, small then large.
#[derive(Debug)]
pub struct Scale {
    pub sizes: Vec<Size>,
}

impl Scale {
    /// `scenario`'s share of the baseline beside it on the large dataset over that on the
    /// small: each rate is of the bare handler measured in the windows around it, so the
    /// machine's drift between the two servers (minutes apart) is not taken for the data's
    /// cost.
    pub fn ratio(&self, scenario: &str) -> Option<f64> {
        let rate = |size: &Size| {
            size.rows
                .iter()
                .find(|row| row.scenario == scenario)
                .map(|row| row.baseline_percent)
        };
        let (small, large) = (rate(self.sizes.first()?)?, rate(self.sizes.last()?)?);
        (small > 0.0).then(|| large / small)
    }

    /// Whether the target is met by every scenario; `None` when one could not be measured.
    pub fn on_target(&self) -> Option<bool> {
        TARGET_SCENARIOS
            .iter()
            .map(|scenario| self.ratio(scenario).map(|ratio| ratio >= TARGET_RATIO))
            .collect::<Option<Vec<bool>>>()
            .map(|met| met.into_iter().all(|met| met))
    }

    /// Its part of `benchmarks.json`.
    pub fn json(&self) -> Value {
        json!({
            "datasets": self.sizes.iter().map(Size::json).collect::<Vec<_>>(),
            "large_over_small": MEASURED
                .iter()
                .map(|&scenario| (scenario.to_owned(), json!(self.ratio(scenario))))
                .collect::<serde_json::Map<_, _>>(),
            "target": format!("{} each on the large dataset at least {TARGET_RATIO} of its share of the baseline on the small", TARGET_SCENARIOS.join(" and ")),
            "on_target": self.on_target(),
        })
    }
}

/// Measures both datasets, `users` users each, the large one with `tokens` tokens, on a
/// server of `binary` on SQLite or, given `postgres_url`, PostgreSQL.
pub fn run(
    binary: &Path,
    postgres_url: Option<&str>,
    (users, tokens): (u64, u64),
    pace: Pace,
) -> Result<Scale> {
    if tokens <= LIST_TOKENS || users < 2 {
        return Err(format!(
            "{NAME} needs more than {LIST_TOKENS} tokens (--tokens) and at least 2 users (--users)"
        )
        .into());
    }
    let sizes = [LIST_TOKENS, tokens]
        .into_iter()
        .map(|tokens| {
            let dataset = Dataset { users, tokens };
            measure(binary, postgres_url, dataset, pace)
                .map_err(|error| format!("{NAME} with {tokens} tokens: {error}").into())
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Scale { sizes })
}

fn measure(
    binary: &Path,
    postgres_url: Option<&str>,
    dataset: Dataset,
    pace: Pace,
) -> Result<Size> {
    let store = Store::create(&format!("scale_{}", dataset.tokens), postgres_url)?;
    eprintln!(
        "bench: {NAME}: seeding {} users and {} tokens",
        dataset.users, dataset.tokens
    );
    let seeding = Instant::now();
    dataset::seed(&store.database(), dataset)?;
    dataset::seed_cold_credentials(&store.database(), dataset)?;
    let seed_seconds = seeding.elapsed().as_secs_f64();
    let server = Server::start(binary, store)?;
    let rows = MEASURED
        .iter()
        .map(|name| suite::measure(&server, scenarios::named(name)?, pace))
        .collect::<Result<Vec<_>>>()?;
    Ok(Size {
        dataset,
        seed_seconds,
        rows,
        peak_mib: server.peak_mib(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn size(tokens: u64, requests_per_sec: f64, baseline_rps: f64) -> Size {
        Size {
            dataset: Dataset { users: 2, tokens },
            seed_seconds: 0.0,
            rows: vec![Row {
                scenario: "token_list",
                requests: 1,
                requests_per_sec,
                p50_ms: 1.0,
                p99_ms: 1.0,
                errors: 0,
                refused: 0,
                baseline_percent: 100.0 * requests_per_sec / baseline_rps,
                baseline_rps: Some(baseline_rps),
                peak_mib: None,
                process_starts: None,
            }],
            peak_mib: None,
        }
    }

    #[test]
    fn the_ratio_is_of_shares_of_the_baseline_beside_each_row() {
        // The machine slowed by a fifth between the two servers; the row kept its share.
        let scale = Scale {
            sizes: vec![
                size(1_000, 1_000.0, 50_000.0),
                size(1_000_000, 800.0, 40_000.0),
            ],
        };
        let ratio = scale.ratio("token_list").expect("measured");
        assert!((ratio - 1.0).abs() < 1e-9, "{ratio}");
        // The same rates beside an unchanged baseline are a fifth lost.
        let scale = Scale {
            sizes: vec![
                size(1_000, 1_000.0, 50_000.0),
                size(1_000_000, 800.0, 50_000.0),
            ],
        };
        let ratio = scale.ratio("token_list").expect("measured");
        assert!((ratio - 0.8).abs() < 1e-9, "{ratio}");
        assert_eq!(scale.ratio("bearer"), None);
    }
}

//! Process-wide request counters for `/api/v2/metrics/`, updated by the header middleware.

use std::sync::atomic::{AtomicU64, Ordering};

/// Responses by status class (1xx … 5xx) and the total time spent producing them.
#[derive(Debug)]
pub struct RequestCounters {
    by_class: [AtomicU64; 5],
    micros: AtomicU64,
}

/// The counters of this process.
pub static REQUESTS: RequestCounters = RequestCounters {
    by_class: [const { AtomicU64::new(0) }; 5],
    micros: AtomicU64::new(0),
};

impl RequestCounters {
    /// Counts one response.
    pub fn record(&self, status: u16, micros: u64) {
        let class = usize::from(status / 100).clamp(1, 5) - 1;
        self.by_class[class].fetch_add(1, Ordering::Relaxed);
        self.micros.fetch_add(micros, Ordering::Relaxed);
    }

    /// `(class label, count)` for each status class.
    pub fn by_class(&self) -> [(&'static str, u64); 5] {
        let labels = ["1xx", "2xx", "3xx", "4xx", "5xx"];
        std::array::from_fn(|i| (labels[i], self.by_class[i].load(Ordering::Relaxed)))
    }

    /// Seconds spent producing responses, summed.
    pub fn seconds(&self) -> f64 {
        self.micros.load(Ordering::Relaxed) as f64 / 1e6
    }
}

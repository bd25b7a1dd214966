//! How many runs execute at once on this node: at most `ACS_MAX_CONCURRENT_RUNS`, each on a
//! thread of its own. The others wait here in launch order, `pending`, holding nothing but
//! their id, so a flood of launches costs neither threads nor memory. A thread that ends a run
//! takes the next waiting one; with none waiting, it ends.

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};

/// The runs of this node: those executing and those waiting for a thread.
#[derive(Debug)]
pub struct RunQueue {
    limit: usize,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    waiting: VecDeque<i64>,
    executing: usize,
}

impl RunQueue {
    /// A queue executing at most `limit` runs at once (at least one).
    pub fn new(limit: usize) -> Self {
        RunQueue {
            limit: limit.max(1),
            inner: Mutex::default(),
        }
    }

    /// Takes a new run: true if a thread must be started for it now, false if it waits.
    pub(super) fn admit(&self, run_id: i64) -> bool {
        let mut inner = self.lock();
        if inner.executing < self.limit {
            inner.executing += 1;
            true
        } else {
            inner.waiting.push_back(run_id);
            false
        }
    }

    /// Called by a thread whose run ended: the run it executes next, or `None`, and then the
    /// thread ends and its place is free.
    pub(super) fn next(&self) -> Option<i64> {
        let mut inner = self.lock();
        let next = inner.waiting.pop_front();
        if next.is_none() {
            inner.executing = inner.executing.saturating_sub(1);
        }
        next
    }

    /// How many runs execute and how many wait, for monitoring.
    pub fn load(&self) -> (usize, usize) {
        let inner = self.lock();
        (inner.executing, inner.waiting.len())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::RunQueue;

    #[test]
    fn runs_beyond_the_limit_wait_in_launch_order() {
        let queue = RunQueue::new(2);
        assert!(queue.admit(1));
        assert!(queue.admit(2));
        assert!(!queue.admit(3));
        assert!(!queue.admit(4));
        assert_eq!(queue.load(), (2, 2));
        assert_eq!(queue.next(), Some(3));
        assert_eq!(queue.next(), Some(4));
        assert_eq!(queue.load(), (2, 0));
        assert_eq!(queue.next(), None);
        assert_eq!(queue.load(), (1, 0));
        assert!(queue.admit(5), "a freed place is taken at once");
        assert_eq!(queue.next(), None);
        assert_eq!(queue.next(), None);
        assert_eq!(queue.load(), (0, 0));
    }

    #[test]
    fn a_limit_of_zero_still_runs_one() {
        let queue = RunQueue::new(0);
        assert!(queue.admit(1));
        assert!(!queue.admit(2));
    }
}

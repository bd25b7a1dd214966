//! How many runs execute at once on this node: at most `ACS_MAX_CONCURRENT_RUNS`, each on a
//! thread of its own. The others wait here in launch order, `pending`, holding nothing but
//! their id, so a flood of launches costs neither threads nor memory. A thread that ends a run
//! takes the next waiting one; with none waiting, it ends.
//!
//! At most `ACS_MAX_WAITING_RUNS` runs wait. A launch takes its [`Place`] before its run is
//! written, so a launch beyond the bound is refused with nothing written, rather than
//! accepted into a queue that would start it minutes later.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// The runs of this node: those executing and those waiting for a thread.
#[derive(Debug)]
pub struct RunQueue {
    limit: usize,
    waiting_limit: usize,
    inner: Arc<Mutex<Inner>>,
}

#[derive(Debug, Default)]
struct Inner {
    waiting: VecDeque<i64>,
    executing: usize,
    /// Places taken by launches whose run is not yet written or started.
    reserved: usize,
}

/// A run's place in the queue, taken before its row is written and spent by
/// [`start`](crate::start); dropped unspent (the launch failed), it is given back.
#[derive(Debug)]
pub struct Place {
    inner: Arc<Mutex<Inner>>,
    spent: bool,
}

/// Why a launch got no place: as many runs wait as the node lets wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "{waiting} runs are waiting for this node's {executing} running ones to end, as many as \
     it lets wait (ACS_MAX_WAITING_RUNS)"
)]
pub struct QueueFull {
    /// Runs waiting, and places taken by launches being written.
    pub waiting: usize,
    /// Runs executing.
    pub executing: usize,
}

impl RunQueue {
    /// A queue executing at most `limit` runs at once (at least one), with at most
    /// `waiting_limit` more waiting.
    pub fn new(limit: usize, waiting_limit: usize) -> Self {
        RunQueue {
            limit: limit.max(1),
            waiting_limit,
            inner: Arc::default(),
        }
    }

    /// A place for one more run, unless as many wait as may.
    pub fn reserve(&self) -> Result<Place, QueueFull> {
        let mut inner = lock(&self.inner);
        let free = self.limit.saturating_sub(inner.executing);
        let taken = inner.waiting.len() + inner.reserved;
        if taken >= free + self.waiting_limit {
            return Err(QueueFull {
                waiting: taken,
                executing: inner.executing,
            });
        }
        inner.reserved += 1;
        Ok(Place {
            inner: Arc::clone(&self.inner),
            spent: false,
        })
    }

    /// Takes a new run into its `place`: true if a thread must be started for it now, false
    /// if it waits.
    pub(super) fn admit(&self, run_id: i64, mut place: Place) -> bool {
        debug_assert!(
            Arc::ptr_eq(&place.inner, &self.inner),
            "a place of this queue"
        );
        let mut inner = lock(&self.inner);
        place.spent = true;
        inner.reserved = inner.reserved.saturating_sub(1);
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
        let mut inner = lock(&self.inner);
        let next = inner.waiting.pop_front();
        if next.is_none() {
            inner.executing = inner.executing.saturating_sub(1);
        }
        next
    }

    /// How many runs execute and how many wait, for monitoring.
    pub fn load(&self) -> (usize, usize) {
        let inner = lock(&self.inner);
        (inner.executing, inner.waiting.len())
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        if !self.spent {
            let mut inner = lock(&self.inner);
            inner.reserved = inner.reserved.saturating_sub(1);
        }
    }
}

fn lock(inner: &Mutex<Inner>) -> MutexGuard<'_, Inner> {
    inner.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::{QueueFull, RunQueue};

    #[test]
    fn runs_beyond_the_limit_wait_in_launch_order() {
        let queue = RunQueue::new(2, 10);
        let admit = |run| queue.admit(run, queue.reserve().expect("a place"));
        assert!(admit(1));
        assert!(admit(2));
        assert!(!admit(3));
        assert!(!admit(4));
        assert_eq!(queue.load(), (2, 2));
        assert_eq!(queue.next(), Some(3));
        assert_eq!(queue.next(), Some(4));
        assert_eq!(queue.load(), (2, 0));
        assert_eq!(queue.next(), None);
        assert_eq!(queue.load(), (1, 0));
        assert!(admit(5), "a freed place is taken at once");
        assert_eq!(queue.next(), None);
        assert_eq!(queue.next(), None);
        assert_eq!(queue.load(), (0, 0));
    }

    #[test]
    fn a_limit_of_zero_still_runs_one() {
        let queue = RunQueue::new(0, 1);
        assert!(queue.admit(1, queue.reserve().expect("a place")));
        assert!(!queue.admit(2, queue.reserve().expect("a place")));
    }

    #[test]
    fn beyond_the_waiting_limit_a_launch_gets_no_place_until_a_run_ends() {
        let queue = RunQueue::new(1, 2);
        assert!(queue.admit(1, queue.reserve().expect("the running place")));
        assert!(!queue.admit(2, queue.reserve().expect("a waiting place")));
        // Taken but not yet spent, a place counts: a burst cannot overshoot the bound.
        let held = queue.reserve().expect("the last waiting place");
        assert_eq!(
            queue.reserve().map(drop),
            Err(QueueFull {
                waiting: 2,
                executing: 1
            })
        );
        drop(held);
        let held = queue.reserve().expect("a place given back is free again");
        assert!(!queue.admit(3, held));
        assert!(queue.reserve().is_err());
        assert_eq!(queue.next(), Some(2), "run 1 ended");
        assert!(!queue.admit(4, queue.reserve().expect("run 2 left the queue")));
        assert_eq!(queue.load(), (1, 2));
    }

    #[test]
    fn with_no_waiting_allowed_only_free_places_are_given() {
        let queue = RunQueue::new(2, 0);
        let first = queue.reserve().expect("a free place");
        let second = queue.reserve().expect("a free place");
        assert!(queue.reserve().is_err());
        assert!(queue.admit(1, first));
        assert!(queue.admit(2, second));
        assert!(queue.reserve().is_err());
        assert_eq!(queue.next(), None);
        assert!(queue.admit(3, queue.reserve().expect("a place freed")));
    }
}

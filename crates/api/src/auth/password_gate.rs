//! How many password hashes (PBKDF2 at the configured cost, about 300 ms of a core each) are
//! computed at once: at most `ACS_PASSWORD_VERIFIERS` (default half the CPUs, at least one),
//! so that a burst of first-time logins takes those cores and leaves the others to the rest
//! of the API. At most `ACS_PASSWORD_QUEUE` more checks wait for their turn, each no longer
//! than the request's database budget; past either, a check is refused at once (503 with
//! `Retry-After`), before anything is counted against the login.

use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Instant;

/// The turns to hash passwords of one server process.
#[derive(Debug)]
pub struct PasswordGate {
    verifiers: usize,
    queue: usize,
    taken: Mutex<Taken>,
    freed: Condvar,
}

#[derive(Debug, Default)]
struct Taken {
    hashing: usize,
    waiting: usize,
}

/// Why a check got no turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoTurn {
    /// As many checks wait as the queue holds.
    QueueFull,
    /// The request's time ran out while it waited.
    TimedOut,
}

/// A turn to hash, held until dropped.
#[derive(Debug)]
pub struct Turn<'a>(&'a PasswordGate);

impl PasswordGate {
    /// A gate of `verifiers` turns (at least one) and `queue` places to wait for one.
    pub fn new(verifiers: usize, queue: usize) -> Self {
        PasswordGate {
            verifiers: verifiers.max(1),
            queue,
            taken: Mutex::default(),
            freed: Condvar::new(),
        }
    }

    /// A turn, at once or after waiting until `deadline` behind at most the queue's length.
    pub fn enter(&self, deadline: Instant) -> Result<Turn<'_>, NoTurn> {
        let mut taken = self.taken.lock().unwrap_or_else(PoisonError::into_inner);
        if taken.hashing < self.verifiers {
            taken.hashing += 1;
            return Ok(Turn(self));
        }
        if taken.waiting >= self.queue {
            return Err(NoTurn::QueueFull);
        }
        taken.waiting += 1;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                taken.waiting -= 1;
                return Err(NoTurn::TimedOut);
            }
            taken = self
                .freed
                .wait_timeout(taken, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
            if taken.hashing < self.verifiers {
                taken.waiting -= 1;
                taken.hashing += 1;
                return Ok(Turn(self));
            }
        }
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        let mut taken = self.0.taken.lock().unwrap_or_else(PoisonError::into_inner);
        taken.hashing -= 1;
        self.0.freed.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn turns_beyond_the_verifiers_wait_in_a_bounded_queue() {
        let gate = PasswordGate::new(1, 1);
        let soon = || Instant::now() + Duration::from_secs(5);
        let first = gate.enter(soon()).expect("a free turn");
        std::thread::scope(|scope| {
            let waiter = scope.spawn(|| gate.enter(soon()).map(drop));
            // The waiter holds the queue's one place: the next is refused at once.
            let started = Instant::now();
            while gate.taken.lock().expect("lock").waiting == 0 {
                assert!(started.elapsed() < Duration::from_secs(5), "never waited");
                std::thread::yield_now();
            }
            assert_eq!(gate.enter(soon()).map(drop), Err(NoTurn::QueueFull));
            drop(first);
            assert_eq!(waiter.join().expect("the waiter"), Ok(()));
        });
        // Its time spent, a waiter gives up.
        let held = gate.enter(soon()).expect("free again");
        let short = Instant::now() + Duration::from_millis(50);
        assert_eq!(gate.enter(short).map(drop), Err(NoTurn::TimedOut));
        assert_eq!(gate.taken.lock().expect("lock").waiting, 0);
        drop(held);
        assert!(gate.enter(soon()).is_ok());
    }
}

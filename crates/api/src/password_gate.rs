//! Where password hashes (PBKDF2 at the configured cost, about 300 ms of a core each) are
//! computed: on `ACS_PASSWORD_VERIFIERS` threads of their own (default half the CPUs, at
//! least one), at a lower scheduling priority than the HTTP workers (`nice` +10), so that a
//! burst of first-time logins takes what the rest of the API leaves and never starves it. At
//! most `ACS_PASSWORD_QUEUE` more checks wait for a thread, each no longer than the request's
//! database budget; past either, a check is refused at once (503 with `Retry-After`), before
//! anything is counted against the login.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use acs_oauth2::PasswordError;

/// How much lower than the server's own the hashing threads' priority is (a `nice`
/// increment: at +10 the kernel gives a busy hashing thread about a tenth of what a busy HTTP
/// worker gets, and all of what the workers leave).
const NICER_BY: i32 = 10;

/// The hashing threads of one server process, and the queue in front of them.
#[derive(Debug)]
pub struct PasswordGate {
    jobs: Sender<Job>,
    /// Checks being hashed or waiting, against `limit` (the threads and the queue's places).
    admitted: Arc<AtomicUsize>,
    limit: usize,
}

/// One password to check against one stored hash.
struct Job {
    password: String,
    encoded: String,
    /// Past it nobody waits for the answer: the job is dropped unhashed.
    deadline: Instant,
    answer: mpsc::Sender<Result<bool, PasswordError>>,
}

/// Why a check got no thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoTurn {
    /// As many checks wait as the queue holds.
    QueueFull,
    /// The request's time ran out while it waited.
    TimedOut,
}

impl PasswordGate {
    /// Starts `verifiers` hashing threads (at least one) behind a queue of `queue` places.
    pub fn start(verifiers: usize, queue: usize) -> std::io::Result<Self> {
        let (jobs, waiting) = mpsc::channel::<Job>();
        let waiting = Arc::new(Mutex::new(waiting));
        let admitted = Arc::new(AtomicUsize::new(0));
        let verifiers = verifiers.max(1);
        for _ in 0..verifiers {
            let (waiting, admitted) = (Arc::clone(&waiting), Arc::clone(&admitted));
            std::thread::Builder::new()
                .name("password-hash".into())
                .spawn(move || hash_until_closed(&waiting, &admitted))?;
        }
        Ok(PasswordGate {
            jobs,
            admitted,
            limit: verifiers + queue,
        })
    }

    /// Whether `password` matches the stored hash `encoded`, computed on a hashing thread;
    /// refused when the queue is full or no answer came by `deadline`.
    pub fn verify(
        &self,
        password: &str,
        encoded: &str,
        deadline: Instant,
    ) -> Result<Result<bool, PasswordError>, NoTurn> {
        if self.admitted.fetch_add(1, Ordering::AcqRel) >= self.limit {
            self.admitted.fetch_sub(1, Ordering::AcqRel);
            return Err(NoTurn::QueueFull);
        }
        let (answer, answered) = mpsc::channel();
        let job = Job {
            password: password.to_owned(),
            encoded: encoded.to_owned(),
            deadline,
            answer,
        };
        if self.jobs.send(job).is_err() {
            self.admitted.fetch_sub(1, Ordering::AcqRel);
            return Err(NoTurn::QueueFull);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        answered.recv_timeout(left).map_err(|_| NoTurn::TimedOut)
    }
}

/// A hashing thread: lowers its own priority, then checks the jobs it takes until the gate
/// is dropped.
fn hash_until_closed(waiting: &Mutex<Receiver<Job>>, admitted: &AtomicUsize) {
    // `setpriority` on the calling thread (Linux's nice values are per thread). Raising
    // one's own nice value needs no privilege; if it fails the thread hashes at the normal
    // priority, which the verifier count still bounds.
    if let Err(error) = rustix::process::setpriority_process(None, NICER_BY) {
        tracing::warn!(%error, "a password-hashing thread keeps the normal priority");
    }
    loop {
        let job = waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .recv();
        let Ok(job) = job else {
            return;
        };
        // The place is given back before the answer: a caller who sends its next check as
        // soon as it hears must find it free.
        let verified = (Instant::now() < job.deadline)
            .then(|| acs_oauth2::verify_password(&job.password, &job.encoded));
        admitted.fetch_sub(1, Ordering::AcqRel);
        if let Some(verified) = verified {
            let _ = job.answer.send(verified);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn hashes_are_checked_on_their_threads_and_beyond_the_queue_refused() {
        let rng = ring::rand::SystemRandom::new();
        let quick = acs_oauth2::hash_password("right", 1_000, &rng).expect("a hash");
        let gate = PasswordGate::start(1, 0).expect("started");
        let soon = || Instant::now() + Duration::from_secs(30);
        assert_eq!(gate.verify("right", &quick, soon()), Ok(Ok(true)));
        assert_eq!(gate.verify("wrong", &quick, soon()), Ok(Ok(false)));
        assert_eq!(
            gate.verify("right", "not a hash", soon()),
            Ok(Err(PasswordError::Malformed))
        );
        // One slow check holds the only thread: with no queue, the next is refused at once.
        let slow = acs_oauth2::hash_password("slow", 2_000_000, &rng).expect("a hash");
        std::thread::scope(|scope| {
            let holder = scope.spawn(|| gate.verify("slow", &slow, soon()));
            let started = Instant::now();
            while gate.admitted.load(Ordering::Acquire) == 0 {
                assert!(
                    started.elapsed() < Duration::from_secs(10),
                    "never admitted"
                );
                std::thread::yield_now();
            }
            assert_eq!(gate.verify("right", &quick, soon()), Err(NoTurn::QueueFull));
            assert_eq!(holder.join().expect("the holder"), Ok(Ok(true)));
        });
        // A check whose time runs out while it waits gives up. It is a slow one too: the
        // holder is counted before its job reaches the channel, so this check may be hashed
        // first, and even then it cannot answer within its 20 ms.
        let queued = PasswordGate::start(1, 1).expect("started");
        std::thread::scope(|scope| {
            let holder = scope.spawn(|| queued.verify("slow", &slow, soon()));
            let started = Instant::now();
            while queued.admitted.load(Ordering::Acquire) == 0 {
                assert!(
                    started.elapsed() < Duration::from_secs(10),
                    "never admitted"
                );
                std::thread::yield_now();
            }
            let short = Instant::now() + Duration::from_millis(20);
            assert_eq!(queued.verify("slow", &slow, short), Err(NoTurn::TimedOut));
            assert_eq!(holder.join().expect("the holder"), Ok(Ok(true)));
        });
    }
}

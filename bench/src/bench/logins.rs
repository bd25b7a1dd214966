//! First-time HTTP Basic logins of distinct users, four at a time, sent beside a row's load
//! (`bearer_under_logins`): each costs a whole password verification (PBKDF2 at the
//! reference's cost), which the server computes at most `ACS_PASSWORD_VERIFIERS` at once, so
//! the row shows what such a burst leaves the rest of the API.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;

use base64::Engine;
use base64::prelude::BASE64_STANDARD;

use super::dataset::{FIRST_LOGIN_USER_ID, LOGIN_PASSWORD, LOGIN_USERS};
use super::load;
use crate::Result;

/// Logins in flight at once.
const AT_ONCE: usize = 4;

/// The users not logged in yet: each row's logins take the next ones.
static NEXT_USER: AtomicU64 = AtomicU64::new(0);

/// Logins being sent; stopped, and counted, by [`Logins::stop`].
pub struct Logins {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<(u64, u64)>>,
}

/// What the logins of one window did.
#[derive(Debug, Default, Clone, Copy)]
pub struct LoginCount {
    /// Answered 200.
    pub succeeded: u64,
    /// Answered anything else (503 when no turn to hash came).
    pub refused: u64,
}

/// Starts sending first-time logins to the server at `addr`.
pub fn start(addr: SocketAddr) -> Result<Logins> {
    let stop = Arc::new(AtomicBool::new(false));
    let threads = (0..AT_ONCE)
        .map(|_| {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                let (mut succeeded, mut refused) = (0, 0);
                while !stop.load(Ordering::Relaxed) {
                    let n = NEXT_USER.fetch_add(1, Ordering::Relaxed);
                    if n >= LOGIN_USERS {
                        break;
                    }
                    let id = FIRST_LOGIN_USER_ID + n;
                    let credentials = BASE64_STANDARD.encode(format!("login{id}:{LOGIN_PASSWORD}"));
                    let authorization = format!("Basic {credentials}");
                    let request = load::request(
                        "GET",
                        addr,
                        super::ME_PATH,
                        &[("Authorization", authorization.as_str())],
                        b"",
                    );
                    match load::fetch(addr, &request) {
                        Ok(reply) if reply.status == 200 => succeeded += 1,
                        _ => refused += 1,
                    }
                }
                (succeeded, refused)
            })
        })
        .collect();
    Ok(Logins { stop, threads })
}

impl Logins {
    /// Stops sending, once the logins in flight are answered; how they went.
    pub fn stop(self) -> LoginCount {
        self.stop.store(true, Ordering::Relaxed);
        let mut count = LoginCount::default();
        for thread in self.threads {
            if let Ok((succeeded, refused)) = thread.join() {
                count.succeeded += succeeded;
                count.refused += refused;
            }
        }
        count
    }
}

//! The server's own clean-up of expired tokens and sessions, every
//! `CLEANUP_TOKENS_INTERVAL_SECONDS` (default an hour; 0 turns it off), so nobody has to
//! remember a cron job for `cleanup_tokens`.
//!
//! Each server runs it on its own. That is harmless: the work is idempotent deletes in short
//! batches, and a server that finds nothing left to delete writes no activity entry. The
//! setting is re-read at least every minute, so a change applies without a restart. Errors
//! are logged and the next run comes an interval later; they never stop the server.

use std::time::Duration;

use actix_web::web;
use tokio::time::Instant;

use crate::state::AppState;
use acs_app::housekeeping::{Batching, Cleanup, CleanupCounts, Writes, cleanup};

/// How often the setting is looked at while waiting (and while the clean-up is off).
const RECHECK: Duration = Duration::from_secs(60);

/// Starts the schedule on the current actix system; it ends with the system.
pub fn spawn(state: web::Data<AppState>) {
    actix_rt::spawn(run(state));
}

async fn run(state: web::Data<AppState>) {
    // The first run comes an interval after the start; the first look at the setting at once.
    let mut last_run = Instant::now();
    let mut interval = None;
    loop {
        match tick(&state, last_run.elapsed()).await {
            Ok(Tick::Waiting(current)) => interval = current,
            Ok(Tick::Ran(current, counts)) => {
                interval = current;
                last_run = Instant::now();
                if counts.total() > 0 {
                    tracing::info!(
                        access_tokens = counts.access_tokens,
                        refresh_tokens = counts.refresh_tokens,
                        authorization_codes = counts.authorization_codes,
                        sessions = counts.sessions,
                        "expired tokens and sessions deleted"
                    );
                }
            }
            Err(error) => {
                // Try again an interval later rather than at every look.
                last_run = Instant::now();
                tracing::warn!(%error, "scheduled token clean-up failed");
            }
        }
        tokio::time::sleep(wait(interval, last_run, Instant::now())).await;
    }
}

/// How long to sleep before the next look: until the run is due, at most [`RECHECK`].
fn wait(interval: Option<Duration>, last_run: Instant, now: Instant) -> Duration {
    match interval {
        Some(interval) => (last_run + interval)
            .saturating_duration_since(now)
            .min(RECHECK),
        None => RECHECK,
    }
}

/// What one look did.
#[derive(Debug)]
enum Tick {
    /// Not due (or off); the interval in force.
    Waiting(Option<Duration>),
    /// Ran; the interval in force and what was deleted.
    Ran(Option<Duration>, CleanupCounts),
}

/// Reads the setting and, if a run is due `since_last_run` after the previous one, runs the
/// clean-up on a pooled connection on the blocking pool.
async fn tick(state: &web::Data<AppState>, since_last_run: Duration) -> Result<Tick, String> {
    // A blocking slot, as a request takes one, so the clean-up never leaves a request without
    // a connection.
    let _slot = state
        .blocking_slots
        .acquire()
        .await
        .map_err(|_| "the server is shutting down".to_owned())?;
    let state = state.clone().into_inner();
    web::block(move || {
        let mut conn = state.pool.get().map_err(|error| error.to_string())?;
        let revisions =
            acs_storage::revisions::current(&mut conn).map_err(|error| error.to_string())?;
        let settings = state
            .settings
            .current(&mut conn, revisions.settings)
            .map_err(|error| error.to_string())?;
        let interval = settings.cleanup_tokens_interval();
        if interval.is_none_or(|interval| since_last_run < interval) {
            return Ok(Tick::Waiting(interval));
        }
        let counts = cleanup(
            &mut conn,
            Writes::Pool(&state.pool),
            Cleanup {
                now: chrono::Utc::now().naive_utc(),
                lifetimes: settings.oauth2_provider(),
                batching: Batching::for_server(),
                scheduled: true,
            },
            &mut |_, _| {},
        )
        .map_err(|interrupted| {
            format!(
                "{} (deleted before it: {} access tokens, {} refresh tokens, {} authorization \
                 codes, {} sessions)",
                interrupted.error,
                interrupted.done.access_tokens,
                interrupted.done.refresh_tokens,
                interrupted.done.authorization_codes,
                interrupted.done.sessions
            )
        })?;
        Ok(Tick::Ran(interval, counts))
    })
    .await
    .map_err(|error| error.to_string())?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_until_due_but_looks_again_within_a_minute() {
        let start = Instant::now();
        let hour = Some(Duration::from_secs(3600));
        assert_eq!(wait(hour, start, start), RECHECK);
        let second = Some(Duration::from_secs(1));
        assert_eq!(wait(second, start, start), Duration::from_secs(1));
        assert_eq!(
            wait(second, start, start + Duration::from_secs(5)),
            Duration::ZERO
        );
        assert_eq!(wait(None, start, start), RECHECK);
    }
}

//! Login throttling: after [`MAX_FAILURES`] failed password checks within [`WINDOW_SECONDS`]
//! for one username or one client address, further checks answer 429 until the window ends.
//! The counters live in the database so every server counts the same attempts.

use chrono::Duration;

use crate::error::{ApiError, ApiResult};
use crate::http::request::RequestInfo;
use crate::store::Store;

/// Failures tolerated within one window.
pub const MAX_FAILURES: i32 = 10;
/// Length of a window.
pub const WINDOW_SECONDS: i64 = 300;

/// The counter keys of one attempt: the username and the client address.
pub fn keys(
    store: &mut Store<'_>,
    request: &RequestInfo,
    username: &str,
) -> ApiResult<Vec<String>> {
    let settings = store.settings()?;
    // NUL cannot be stored in PostgreSQL text; such a username still counts, under a stand-in.
    let mut keys = vec![format!("user:{}", username.replace('\0', "\u{fffd}"))];
    if let Some(ip) = request.client_ip(settings.trusted_proxies()) {
        keys.push(format!("ip:{ip}"));
    }
    Ok(keys)
}

fn window_start(store: &Store<'_>) -> chrono::NaiveDateTime {
    store.now - Duration::seconds(WINDOW_SECONDS)
}

/// Refuses the attempt with 429 while any key is over the limit; returns whether any key has
/// failures on record (so a success knows whether there is something to clear).
pub fn check(store: &mut Store<'_>, keys: &[String]) -> ApiResult<bool> {
    let since = window_start(store);
    // Without a client address, the username key stands in for both.
    let user_key = keys.first().map_or("", String::as_str);
    let pair = [user_key, keys.get(1).map_or(user_key, String::as_str)];
    let worst = acs_storage::throttle::failures(store.conn()?, pair, since)?;
    match worst {
        Some((failures, started)) if failures >= MAX_FAILURES => {
            let lifts = started + Duration::seconds(WINDOW_SECONDS);
            let retry_after = (lifts - store.now).num_seconds().max(1);
            Err(ApiError::Throttled { retry_after })
        }
        Some(_) => Ok(true),
        None => Ok(false),
    }
}

/// Counts one failed attempt against every key.
pub fn record_failure(store: &mut Store<'_>, keys: &[String]) -> ApiResult<()> {
    let (now, since) = (store.now, window_start(store));
    store.write(|conn| {
        for key in keys {
            acs_storage::throttle::record_failure(conn, key, now, since)?;
        }
        Ok(())
    })
}

/// Forgets the username's failures after a success. The address keeps its count: one valid
/// account must not reset the throttle for guesses at others.
pub fn record_success(store: &mut Store<'_>, keys: &[String]) -> ApiResult<()> {
    if let Some(user_key) = keys.first() {
        store.write(|conn| Ok(acs_storage::throttle::clear(conn, user_key)?))?;
    }
    Ok(())
}

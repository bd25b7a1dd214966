//! How every record writes a point in time.

/// ISO 8601 UTC with microseconds and `Z`, as the reference system writes timestamps.
pub fn timestamp(t: &chrono::NaiveDateTime) -> String {
    use chrono::{Datelike, Timelike};
    // Written by hand: chrono's strftime parses its format string on every call, and every
    // record renders two or three timestamps.
    let micros = t.and_utc().timestamp_subsec_micros();
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z",
        t.year(),
        t.month(),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        micros.min(999_999)
    )
}

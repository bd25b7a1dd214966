//! Expiry times of tokens and authorization codes, from AWX's `OAUTH2_PROVIDER`
//! settings.
//!
//! Settings may hold huge values (AWX's own default for access tokens was
//! 31 536 000 000 s, a thousand years) and whatever is computed must fit a
//! `timestamp` column in both SQLite and PostgreSQL, so every addition
//! saturates into years 1..=9999 instead of overflowing or panicking. Zero and
//! negative lifetimes are applied as given (the result is at or before the
//! start); rejecting them is the settings layer's job.

use chrono::{NaiveDate, NaiveDateTime, NaiveTime, TimeDelta};

/// Latest expiry ever computed: 9999-12-31T23:59:59, the end of the last
/// four-digit year, which both SQLite (text timestamps) and PostgreSQL
/// (`timestamp`, up to 294276 AD) store and sort correctly.
pub const LATEST_EXPIRY: NaiveDateTime = date_time(9999, 12, 31, 23, 59, 59);

/// Earliest time ever computed (0001-01-01T00:00:00), the floor for very
/// negative lifetimes: the first four-digit year, again storable everywhere.
const EARLIEST_EXPIRY: NaiveDateTime = date_time(1, 1, 1, 0, 0, 0);

/// [`LATEST_EXPIRY`], as a function for callers that prefer one.
pub const fn latest_expiry() -> NaiveDateTime {
    LATEST_EXPIRY
}

/// Builds a constant date-time; invalid input fails the build, not a run.
const fn date_time(year: i32, month: u32, day: u32, h: u32, m: u32, s: u32) -> NaiveDateTime {
    let (Some(date), Some(time)) = (
        NaiveDate::from_ymd_opt(year, month, day),
        NaiveTime::from_hms_opt(h, m, s),
    ) else {
        panic!("invalid constant date-time");
    };
    NaiveDateTime::new(date, time)
}

/// Lifetimes in seconds, as configured in AWX's `OAUTH2_PROVIDER` setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lifetimes {
    /// `ACCESS_TOKEN_EXPIRE_SECONDS`: tokens issued to an application.
    pub access_token_seconds: i64,
    /// Lifetime of personal access tokens (created without an application).
    pub personal_access_token_seconds: i64,
    /// `REFRESH_TOKEN_EXPIRE_SECONDS`, counted from the refresh token's
    /// creation.
    pub refresh_token_seconds: i64,
    /// `AUTHORIZATION_CODE_EXPIRE_SECONDS`.
    pub authorization_code_seconds: i64,
    /// How long a just-used refresh token may be presented again (a client
    /// retrying after a lost response).
    pub refresh_token_reuse_grace_seconds: i64,
}

impl Default for Lifetimes {
    /// One year for access and personal tokens (AWX defaulted to a thousand
    /// years, 31 536 000 000 s), AWX's month (2 628 000 s) for refresh
    /// tokens and ten minutes for authorization codes, and five seconds of
    /// refresh-token reuse.
    fn default() -> Self {
        Self {
            access_token_seconds: 31_536_000,
            personal_access_token_seconds: 31_536_000,
            refresh_token_seconds: 2_628_000,
            authorization_code_seconds: 600,
            refresh_token_reuse_grace_seconds: 5,
        }
    }
}

impl Lifetimes {
    /// Expiry of a new access token created at `now`; `personal` tokens (no
    /// application) use [`personal_access_token_seconds`](Self::personal_access_token_seconds).
    pub fn access_token_expires(&self, now: NaiveDateTime, personal: bool) -> NaiveDateTime {
        let seconds = if personal {
            self.personal_access_token_seconds
        } else {
            self.access_token_seconds
        };
        saturating_add_seconds(now, seconds)
    }

    /// Expiry of a refresh token created at `created`.
    pub fn refresh_token_expires(&self, created: NaiveDateTime) -> NaiveDateTime {
        saturating_add_seconds(created, self.refresh_token_seconds)
    }

    /// Expiry of an authorization code issued at `now`.
    pub fn authorization_code_expires(&self, now: NaiveDateTime) -> NaiveDateTime {
        saturating_add_seconds(now, self.authorization_code_seconds)
    }

    /// End of the reuse grace period of a refresh token revoked (used) at
    /// `revoked`: presenting it again until then (inclusive) is refused
    /// without revoking the tokens issued from it; later, those are revoked
    /// too (contract §4, see [`crate::refresh::decide_refresh`]).
    pub fn refresh_token_grace_ends(&self, revoked: NaiveDateTime) -> NaiveDateTime {
        saturating_add_seconds(revoked, self.refresh_token_reuse_grace_seconds)
    }
}

/// `start + seconds`, clamped to 0001-01-01T00:00:00..=[`LATEST_EXPIRY`];
/// never panics, whatever the inputs.
///
/// Sub-second precision of `start` is kept unless the result is clamped.
pub fn saturating_add_seconds(start: NaiveDateTime, seconds: i64) -> NaiveDateTime {
    TimeDelta::try_seconds(seconds)
        .and_then(|delta| start.checked_add_signed(delta))
        .unwrap_or(if seconds > 0 {
            LATEST_EXPIRY
        } else {
            EARLIEST_EXPIRY
        })
        .clamp(EARLIEST_EXPIRY, LATEST_EXPIRY)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f").unwrap()
    }

    const NOW: &str = "2024-06-01T12:00:00";

    #[test]
    fn latest_expiry_is_end_of_year_9999() {
        assert_eq!(latest_expiry(), at("9999-12-31T23:59:59"));
        assert_eq!(LATEST_EXPIRY, latest_expiry());
        assert_eq!(EARLIEST_EXPIRY, at("0001-01-01T00:00:00"));
    }

    #[test]
    fn defaults() {
        let l = Lifetimes::default();
        assert_eq!(
            l,
            Lifetimes {
                access_token_seconds: 31_536_000,
                personal_access_token_seconds: 31_536_000,
                refresh_token_seconds: 2_628_000,
                authorization_code_seconds: 600,
                refresh_token_reuse_grace_seconds: 5,
            }
        );
        let now = at(NOW);
        assert_eq!(
            l.access_token_expires(now, false),
            at("2025-06-01T12:00:00")
        );
        assert_eq!(l.access_token_expires(now, true), at("2025-06-01T12:00:00"));
        assert_eq!(l.refresh_token_expires(now), at("2024-07-01T22:00:00"));
        assert_eq!(l.authorization_code_expires(now), at("2024-06-01T12:10:00"));
        assert_eq!(l.refresh_token_grace_ends(now), at("2024-06-01T12:00:05"));
    }

    #[test]
    fn saturating_add_seconds_cases() {
        // (name, start, seconds, expected)
        let cases: &[(&str, &str, i64, &str)] = &[
            ("ten minutes", NOW, 600, "2024-06-01T12:10:00"),
            ("zero expires at start", NOW, 0, NOW),
            (
                "negative expires before start",
                NOW,
                -60,
                "2024-06-01T11:59:00",
            ),
            (
                "AWX's old thousand-year default",
                NOW,
                31_536_000_000,
                "3023-10-03T12:00:00",
            ),
            (
                "past year 9999 saturates",
                NOW,
                300_000_000_000,
                "9999-12-31T23:59:59",
            ),
            (
                "beyond chrono's range saturates",
                NOW,
                9_000_000_000_000_000,
                "9999-12-31T23:59:59",
            ),
            ("i64::MAX saturates", NOW, i64::MAX, "9999-12-31T23:59:59"),
            (
                "exactly reaching the latest",
                "9999-12-31T23:59:00",
                59,
                "9999-12-31T23:59:59",
            ),
            (
                "one past the latest",
                "9999-12-31T23:59:00",
                60,
                "9999-12-31T23:59:59",
            ),
            (
                "sub-seconds kept",
                "2024-06-01T12:00:00.250",
                1,
                "2024-06-01T12:00:01.250",
            ),
            (
                "sub-seconds dropped when clamped",
                "9999-12-31T23:59:58.500",
                5,
                "9999-12-31T23:59:59",
            ),
            (
                "very negative floors at year 1",
                NOW,
                -100_000_000_000,
                "0001-01-01T00:00:00",
            ),
            (
                "i64::MIN floors at year 1",
                NOW,
                i64::MIN,
                "0001-01-01T00:00:00",
            ),
        ];
        for (name, start, seconds, expected) in cases {
            assert_eq!(
                saturating_add_seconds(at(start), *seconds),
                at(expected),
                "{name}"
            );
        }
    }

    #[test]
    fn extreme_starts_do_not_panic() {
        let cases = [
            (
                "min start, max seconds",
                NaiveDateTime::MIN,
                i64::MAX,
                LATEST_EXPIRY,
            ),
            ("min start, zero", NaiveDateTime::MIN, 0, EARLIEST_EXPIRY),
            ("max start, zero", NaiveDateTime::MAX, 0, LATEST_EXPIRY),
            (
                "max start, min seconds",
                NaiveDateTime::MAX,
                i64::MIN,
                EARLIEST_EXPIRY,
            ),
            ("max start, positive", NaiveDateTime::MAX, 1, LATEST_EXPIRY),
        ];
        for (name, start, seconds, expected) in cases {
            assert_eq!(saturating_add_seconds(start, seconds), expected, "{name}");
        }
    }

    #[test]
    fn each_expiry_uses_its_own_setting() {
        let l = Lifetimes {
            access_token_seconds: 1,
            personal_access_token_seconds: 2,
            refresh_token_seconds: 3,
            authorization_code_seconds: 4,
            refresh_token_reuse_grace_seconds: 5,
        };
        let now = at(NOW);
        let cases = [
            ("application token", l.access_token_expires(now, false), 1),
            ("personal token", l.access_token_expires(now, true), 2),
            ("refresh token", l.refresh_token_expires(now), 3),
            ("authorization code", l.authorization_code_expires(now), 4),
            ("refresh grace", l.refresh_token_grace_ends(now), 5),
        ];
        for (name, got, seconds) in cases {
            assert_eq!(got, now + TimeDelta::seconds(seconds), "{name}");
        }
    }

    #[test]
    fn huge_settings_saturate_in_every_expiry() {
        let l = Lifetimes {
            access_token_seconds: i64::MAX,
            personal_access_token_seconds: i64::MAX,
            refresh_token_seconds: i64::MAX,
            authorization_code_seconds: i64::MAX,
            refresh_token_reuse_grace_seconds: i64::MAX,
        };
        let now = at(NOW);
        assert_eq!(l.access_token_expires(now, false), LATEST_EXPIRY);
        assert_eq!(l.access_token_expires(now, true), LATEST_EXPIRY);
        assert_eq!(l.refresh_token_expires(now), LATEST_EXPIRY);
        assert_eq!(l.authorization_code_expires(now), LATEST_EXPIRY);
        assert_eq!(l.refresh_token_grace_ends(now), LATEST_EXPIRY);
    }
}

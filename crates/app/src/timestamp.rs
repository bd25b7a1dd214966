//! How every record writes a point in time.

use chrono::{Datelike, Timelike};

/// ISO 8601 UTC with microseconds and `Z`, as the reference system writes timestamps.
pub fn timestamp(t: &chrono::NaiveDateTime) -> String {
    // Digits written into a fixed buffer: chrono's strftime parses its format string on every
    // call, and `format!` with seven padded integers cost 3 000 instructions a timestamp
    // (callgrind); every record renders two or three.
    let micros = t.and_utc().timestamp_subsec_micros().min(999_999);
    let Ok(year) = u32::try_from(t.year()) else {
        return padded(t, micros);
    };
    if year > 9999 {
        return padded(t, micros);
    }
    let mut text = *b"0000-00-00T00:00:00.000000Z";
    for (range, value) in [
        (0..4, year),
        (5..7, t.month()),
        (8..10, t.day()),
        (11..13, t.hour()),
        (14..16, t.minute()),
        (17..19, t.second()),
        (20..26, micros),
    ] {
        write_digits(&mut text[range], value);
    }
    match std::str::from_utf8(&text) {
        Ok(text) => text.to_owned(),
        Err(_) => padded(t, micros),
    }
}

/// `value`'s last `digits.len()` decimal digits, zero-padded, into `digits` (ASCII).
pub fn write_digits(digits: &mut [u8], mut value: u32) {
    for digit in digits.iter_mut().rev() {
        *digit = b'0' + (value % 10) as u8;
        value /= 10;
    }
}

/// The same text through `format!`, for the years outside 0 to 9999 (signed or wider).
fn padded(t: &chrono::NaiveDateTime, micros: u32) -> String {
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z",
        t.year(),
        t.month(),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        micros
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> chrono::NaiveDateTime {
        chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S%.f").expect(text)
    }

    #[test]
    fn timestamps_have_microseconds_and_z() {
        assert_eq!(
            timestamp(&at("2026-11-28 16:34:41.085752")),
            "2026-11-28T16:34:41.085752Z"
        );
        assert_eq!(
            timestamp(&at("0007-01-02 03:04:05")),
            "0007-01-02T03:04:05.000000Z"
        );
        assert_eq!(
            timestamp(&at("9999-12-31 23:59:59.999999999")),
            "9999-12-31T23:59:59.999999Z"
        );
    }

    #[test]
    fn a_leap_second_keeps_six_digits() {
        let leap = chrono::NaiveDate::from_ymd_opt(2016, 12, 31)
            .and_then(|day| day.and_hms_micro_opt(23, 59, 59, 1_500_000))
            .expect("a leap second");
        assert_eq!(timestamp(&leap), "2016-12-31T23:59:59.999999Z");
    }

    #[test]
    fn years_outside_four_digits_are_written_as_format_writes_them() {
        for year in [-1, 10_000] {
            let t = chrono::NaiveDate::from_ymd_opt(year, 1, 1)
                .and_then(|day| day.and_hms_opt(0, 0, 0))
                .expect("a date");
            assert_eq!(timestamp(&t), padded(&t, 0));
        }
        let t = chrono::NaiveDate::from_ymd_opt(-1, 1, 1)
            .and_then(|day| day.and_hms_opt(0, 0, 0))
            .expect("a date");
        assert_eq!(timestamp(&t), "-001-01-01T00:00:00.000000Z");
    }
}

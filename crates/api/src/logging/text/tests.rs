//! The fast text format against tracing-subscriber's `Full`: the same events give the same
//! lines, timestamps aside.

use std::sync::{Arc, Mutex};

use tracing_subscriber::fmt::MakeWriter;

use super::*;

/// A writer into a buffer the test reads back.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("buffer").extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for Captured {
    type Writer = Captured;

    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

impl Captured {
    /// The lines written, each without its timestamp.
    fn lines(&self) -> Vec<String> {
        let text = String::from_utf8(self.0.lock().expect("buffer").clone()).expect("UTF-8");
        text.lines()
            .map(|line| line.split_once(' ').expect("a timestamp").1.to_owned())
            .collect()
    }
}

#[derive(Debug)]
struct Outer(Inner);

#[derive(Debug)]
struct Inner;

impl fmt::Display for Outer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("outer \x1b[31mfailed")
    }
}

impl fmt::Display for Inner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("inner \u{9b}cause")
    }
}

impl std::error::Error for Outer {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

impl std::error::Error for Inner {}

/// Every kind of field ACS and its dependencies log, with hostile text where it can be.
fn emit_events() {
    let path = "/api/v2/me/".to_owned();
    tracing::info!(
        target: "acs::access",
        method = %"GET",
        path,
        status = 200_u16,
        micros = 42_u64,
        request_id = "0123456789abcdef",
        "request"
    );
    tracing::warn!(
        delta = -3_i64,
        ok = true,
        ratio = 0.5_f64,
        "a \x1b[2J warning: {}",
        7
    );
    tracing::error!(
        r#type = "quoted \"text\" and \\ and\ttab and é and \u{9b}",
        "control \u{7} \u{8} \u{c} \u{7f} \u{85} characters"
    );
    let error = Outer(Inner);
    tracing::error!(
        error = &error as &(dyn std::error::Error + 'static),
        "chained"
    );
    let single = Inner;
    tracing::info!(error = &single as &(dyn std::error::Error + 'static));
    tracing::debug!(list = ?vec![1, 2], "no fields after the message");
    tracing::info!(big = u128::MAX, small = i128::MIN);
    let span = tracing::info_span!("work", id = 3);
    let _entered = span.enter();
    tracing::info!(inside = "a span", "with a scope");
}

#[test]
fn lines_are_those_of_the_full_format() {
    let expected = Captured::default();
    let fast = Captured::default();
    let full = tracing_subscriber::fmt()
        .with_max_level(Level::TRACE)
        .with_ansi(false)
        .with_writer(expected.clone())
        .finish();
    tracing::subscriber::with_default(full, emit_events);
    let ours = tracing_subscriber::fmt()
        .with_max_level(Level::TRACE)
        .with_ansi(false)
        .event_format(TextFormat::default())
        .with_writer(fast.clone())
        .finish();
    tracing::subscriber::with_default(ours, emit_events);
    let expected = expected.lines();
    assert_eq!(expected.len(), 8, "{expected:#?}");
    assert_eq!(fast.lines(), expected);
}

#[test]
fn the_timestamp_is_utc_with_microseconds() {
    let at = UNIX_EPOCH + std::time::Duration::from_micros(1_795_883_681_085_752);
    let mut line = String::new();
    write_timestamp(&mut line, at).expect("written");
    // The same second again comes from the thread's cache.
    write_timestamp(&mut line, at + std::time::Duration::from_micros(7)).expect("written");
    assert_eq!(
        line,
        "2026-11-28T16:34:41.085752Z 2026-11-28T16:34:41.085759Z "
    );
}

#[test]
fn only_plain_ascii_is_copied_between_quotes() {
    for value in [
        "",
        "plain /path/",
        "quote\"",
        "back\\slash",
        "tab\t",
        "é",
        "\u{1b}",
    ] {
        let mut ours = String::new();
        write_debug_str(&mut ours, value).expect("written");
        assert_eq!(ours, format!("{value:?}"));
    }
}

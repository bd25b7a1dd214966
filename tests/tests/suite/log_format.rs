//! What the real `acs-server` binary writes to its log when stderr is a file, as a log
//! shipper, journald or `acs-server 2>server.log` sees it: plain text without terminal
//! escape codes by default, one JSON object per line with `ACS_LOG_FORMAT=json`, and a clear
//! refusal of an unknown format. A server on a pseudo-terminal (`script`) still gets colour,
//! which shows the plain-text check looks where the colour would be.

use std::process::Command;

use acs_tests::process::{ServerProcess, server_binary};
use acs_tests::{Backend, backend_tests};
use serde_json::Value;

backend_tests!(
    a_log_written_to_a_file_holds_no_escape_codes,
    a_json_log_is_one_object_per_line_with_the_events_fields
);

const ESCAPE: char = '\u{1b}';

/// A failed Basic login: an event with a field (`username`) beside its message.
fn log_a_failed_login(server: &ServerProcess) {
    let reply = server
        .anonymous()
        .with_basic("mallory", "not-the-password")
        .get("/api/v2/me/")
        .send()
        .expect("the server answers");
    assert_eq!(reply.status().as_u16(), 401);
}

fn a_log_written_to_a_file_holds_no_escape_codes(backend: Backend) {
    let mut server = ServerProcess::start(backend, &[("RUST_LOG", "info")]);
    log_a_failed_login(&server);
    assert!(server.stop(), "the server stops on SIGTERM");
    let log = server.log();
    assert!(
        log.contains("failed password check") && log.contains(r#"username="mallory""#),
        "the failed login is logged as text with its field:\n{log}"
    );
    assert!(log.contains(" INFO "), "levels are written plainly:\n{log}");
    assert!(
        !log.contains(ESCAPE),
        "the log file holds terminal escape codes:\n{log:?}"
    );
}

fn a_json_log_is_one_object_per_line_with_the_events_fields(backend: Backend) {
    let mut server =
        ServerProcess::start(backend, &[("RUST_LOG", "info"), ("ACS_LOG_FORMAT", "json")]);
    log_a_failed_login(&server);
    assert!(server.stop(), "the server stops on SIGTERM");
    let log = server.log();
    assert!(
        !log.contains(ESCAPE),
        "escape codes in a JSON log:\n{log:?}"
    );
    let events: Vec<Value> = log
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|error| panic!("not a JSON line ({error}): {line:?}"))
        })
        .collect();
    for event in &events {
        for field in ["timestamp", "level", "target"] {
            assert!(
                event[field].is_string(),
                "an event without {field}: {event}"
            );
        }
        assert!(
            event["fields"]["message"].is_string(),
            "an event without a message: {event}"
        );
        assert!(
            chrono::DateTime::parse_from_rfc3339(event["timestamp"].as_str().unwrap_or("")).is_ok(),
            "the timestamp is RFC 3339: {event}"
        );
    }
    let message_is = |text: &str| {
        events
            .iter()
            .find(|event| event["fields"]["message"] == text)
            .unwrap_or_else(|| panic!("no {text:?} event in:\n{log}"))
    };
    let listening = message_is("listening");
    assert_eq!(listening["level"], "INFO");
    assert!(
        listening["fields"]["bind"]
            .as_str()
            .is_some_and(|bind| bind.starts_with("127.0.0.1:")),
        "the bind address is a field of its own: {listening}"
    );
    let failed = message_is("failed password check");
    assert_eq!(failed["fields"]["username"], "mallory", "{failed}");
    assert!(
        events
            .iter()
            .any(|event| event["fields"]["message"] == "stopped"),
        "the stop is logged:\n{log}"
    );
}

#[test]
fn an_unknown_log_format_is_refused_before_anything_starts() {
    let data_dir = tempfile::tempdir().expect("a temporary directory");
    let output = Command::new(server_binary())
        .env("ACS_LOG_FORMAT", "xml")
        .env("ACS_DATA_DIR", data_dir.path())
        .env("ACS_BIND", "127.0.0.1:1")
        .output()
        .expect("acs-server runs");
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("ACS_LOG_FORMAT must be \"text\" or \"json\", not \"xml\""),
        "{stderr}"
    );
    assert!(
        std::fs::read_dir(data_dir.path())
            .expect("the data directory")
            .next()
            .is_none(),
        "the server created files before refusing its configuration"
    );
}

/// The other side of the plain-text check: on a terminal the same binary colours its levels,
/// so the absence of escape codes in a file is the server's choice, not the harness's.
#[test]
fn a_log_on_a_terminal_is_coloured() {
    let data_dir = tempfile::tempdir().expect("a temporary directory");
    // An address it cannot listen on: the server starts, logs, and stops with an error.
    let command = format!("{} 2>&1", server_binary().display());
    let output = Command::new("script")
        .args(["--quiet", "--return", "--command", &command, "/dev/null"])
        .env_remove("NO_COLOR")
        .env_remove("RUST_LOG")
        .env_remove("ACS_LOG_FORMAT")
        .env_remove("ACS_DATABASE_URL")
        .env("ACS_DATA_DIR", data_dir.path())
        .env("ACS_ADMIN_PASSWORD", "Terminal-test-1")
        .env("ACS_PASSWORD_HASH_ITERATIONS", "1000")
        .env("ACS_BIND", "256.0.0.1:8013")
        .output()
        .expect("script (util-linux) runs the server on a pseudo-terminal");
    let terminal = String::from_utf8_lossy(&output.stdout);
    assert!(
        terminal.contains("cannot listen on 256.0.0.1:8013"),
        "the server did not run on the terminal: {output:?}"
    );
    assert!(
        terminal.contains(ESCAPE),
        "no colour on a terminal:\n{terminal:?}"
    );
}

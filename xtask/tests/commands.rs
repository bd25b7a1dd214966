//! The management binaries as an operator runs them, before any database is involved: a
//! usage error exits 2 and says how to call the command; a data directory without a database
//! is refused with exit 1 and left as it was (a command never creates a database).
//!
//! Being an integration test of this package, this target also makes `cargo test` and
//! `cargo nextest run` build the binaries themselves, with the features of the test build,
//! before any test runs: the HTTP tests of `acs-tests` start them from the same directory
//! (`acs_tests::management_binary`) and never build anything.

use std::path::PathBuf;
use std::process::{Command, Output};

const COMMANDS: [(&str, &str); 3] = [
    (
        "revoke_oauth2_tokens",
        env!("CARGO_BIN_EXE_revoke_oauth2_tokens"),
    ),
    (
        "create_oauth2_token",
        env!("CARGO_BIN_EXE_create_oauth2_token"),
    ),
    ("cleanup_tokens", env!("CARGO_BIN_EXE_cleanup_tokens")),
];

/// An empty data directory of this test's own; removed when dropped.
struct EmptyDataDir(PathBuf);

impl EmptyDataDir {
    fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("acs-xtask-commands-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temporary directory");
        EmptyDataDir(dir)
    }
}

impl Drop for EmptyDataDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run(binary: &str, args: &[&str], data_dir: &EmptyDataDir) -> Output {
    Command::new(binary)
        .args(args)
        .env_clear()
        .env("ACS_DATA_DIR", &data_dir.0)
        .output()
        .unwrap_or_else(|error| panic!("{binary} does not run: {error}"))
}

#[test]
fn an_unknown_option_is_a_usage_error() {
    for (name, binary) in COMMANDS {
        let data_dir = EmptyDataDir::new(name);
        let output = run(binary, &["--no-such-option"], &data_dir);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{name}: {stderr}");
        assert!(stderr.contains("--no-such-option"), "{name}: {stderr}");
        assert!(
            stderr.contains(&format!("Usage: {name}")),
            "{name}: {stderr}"
        );
    }
}

#[test]
fn a_data_directory_without_a_database_is_refused_and_left_empty() {
    let calls: [(&str, &[&str]); 3] = [
        ("revoke_oauth2_tokens", &["--all"]),
        ("create_oauth2_token", &["--user", "admin"]),
        ("cleanup_tokens", &[]),
    ];
    for ((name, binary), (call, args)) in COMMANDS.into_iter().zip(calls) {
        assert_eq!(name, call);
        let data_dir = EmptyDataDir::new(name);
        let output = run(binary, args, &data_dir);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{name}: {stderr}");
        assert!(stderr.contains("no database at"), "{name}: {stderr}");
        assert!(output.stdout.is_empty(), "{name} printed on stdout");
        let left: Vec<_> = std::fs::read_dir(&data_dir.0)
            .expect("the data directory is still there")
            .collect();
        assert!(
            left.is_empty(),
            "{name} wrote into the data directory: {left:?}"
        );
    }
}

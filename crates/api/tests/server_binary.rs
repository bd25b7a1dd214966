//! The `acs-server` binary itself: first start on an empty data directory, the secret key file,
//! the generated admin password, and a graceful stop on SIGTERM.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port")
}

fn get(port: u16, path: &str, auth: Option<&str>) -> Option<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let auth = auth
        .map(|a| format!("Authorization: Basic {a}\r\n"))
        .unwrap_or_default();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}Connection: close\r\n\r\n"
    )
    .ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    Some(response)
}

fn wait_until_serving(child: &mut Child, port: u16) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if get(port, "/api/v2/ping/", None).is_some_and(|r| r.starts_with("HTTP/1.1 200")) {
            return;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("acs-server exited early: {status}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("acs-server did not answer /api/v2/ping/ within 30 s");
}

fn base64(text: &str) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let bytes = text.as_bytes();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Starts `acs-server` on `data` with a fast password hash and stderr piped.
fn spawn_server(data: &std::path::Path, port: u16) -> Child {
    Command::new(env!("CARGO_BIN_EXE_acs-server"))
        .env_clear()
        .env("ACS_DATA_DIR", data)
        .env("ACS_BIND", format!("127.0.0.1:{port}"))
        .env("ACS_PASSWORD_HASH_ITERATIONS", "1000")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn acs-server")
}

#[test]
fn first_start_creates_key_and_admin_then_stops_on_sigterm() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let port = free_port();
    let mut child = spawn_server(&data, port);

    // The generated password is printed once on stderr.
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    wait_until_serving(&mut child, port);
    let password = rx
        .iter()
        .find_map(|line| line.split("generated password: ").nth(1).map(str::to_owned))
        .expect("generated password on stderr");

    assert!(
        data.join("acs.sqlite3").exists(),
        "embedded database created"
    );
    let mode = std::fs::metadata(data.join("secret_key"))
        .expect("secret key")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "secret key readable by its owner only");
    assert_eq!(
        std::fs::read(data.join("secret_key")).expect("key").len(),
        32
    );

    let me = get(
        port,
        "/api/v2/me/",
        Some(&base64(&format!("admin:{password}"))),
    )
    .expect("response");
    assert!(me.starts_with("HTTP/1.1 200"), "{me}");
    assert!(me.contains("\"username\":\"admin\""));

    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(15);
    let exit = loop {
        if let Some(exit) = child.try_wait().expect("wait") {
            break exit;
        }
        assert!(
            Instant::now() < deadline,
            "acs-server did not stop within 15 s of SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(exit.success(), "graceful stop exits 0, got {exit}");
    // Nothing answers any more.
    assert!(get(port, "/api/v2/ping/", None).is_none());
}

#[test]
fn second_start_keeps_key_and_prints_no_password() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let run = |expect_password: bool| {
        let port = free_port();
        let mut child = spawn_server(&data, port);
        wait_until_serving(&mut child, port);
        Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .expect("kill");
        let output = child.wait_with_output().expect("wait");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            stderr.contains("generated password"),
            expect_password,
            "{stderr}"
        );
        std::fs::read(data.join("secret_key")).expect("key")
    };
    let first = run(true);
    let second = run(false);
    assert_eq!(first, second, "the secret key survives restarts");
}

#[test]
fn invalid_setting_in_environment_stops_the_start() {
    let dir = tempfile::tempdir().expect("tempdir");
    let output = Command::new(env!("CARGO_BIN_EXE_acs-server"))
        .env_clear()
        .env("ACS_DATA_DIR", dir.path())
        .env("ACS_BIND", format!("127.0.0.1:{}", free_port()))
        .env("ACS_SESSION_COOKIE_AGE", "5")
        .env("ACS_PASSWORD_HASH_ITERATIONS", "1000")
        .output()
        .expect("run");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("ACS_SESSION_COOKIE_AGE"), "{stderr}");
}

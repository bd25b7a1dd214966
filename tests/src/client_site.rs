//! A stand-in for an OAuth client's web site, on its own origin: a plain HTTP listener on
//! another loopback port that answers every `GET` with a small page and records the request
//! targets it was sent. Browser tests point an application's redirect URI at it, as every real
//! client's is: on another origin than the server's, where the browser applies the
//! cross-origin rules (Content-Security-Policy `form-action` on redirects, among others) that a
//! same-origin callback never meets.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// The page every request gets: a title the tests can wait for.
const PAGE: &str = "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Client callback</title></head><body><h1>Client callback</h1></body></html>";

/// How long one connection may take to send its request head.
const READ_TIMEOUT: Duration = Duration::from_secs(5);

/// The listener and the requests it has answered; stopped when dropped.
#[derive(Debug)]
pub struct ClientSite {
    /// `http://localhost:<port>`: another host name and port than the server's
    /// `http://127.0.0.1:<port>`, so another origin on both counts.
    pub base: String,
    port: u16,
    targets: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl ClientSite {
    /// Listens on a free loopback port.
    pub fn start() -> ClientSite {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free loopback port");
        let port = listener
            .local_addr()
            .expect("the listener's address")
            .port();
        let targets = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let targets = Arc::clone(&targets);
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    if let Ok(stream) = stream
                        && let Some(target) = answer(stream)
                    {
                        targets.lock().expect("targets").push(target);
                    }
                }
            })
        };
        ClientSite {
            base: format!("http://localhost:{port}"),
            port,
            targets,
            stop,
            thread: Some(thread),
        }
    }

    /// The request targets (path and query) received so far, in order.
    pub fn targets(&self) -> Vec<String> {
        self.targets.lock().expect("targets").clone()
    }
}

impl Drop for ClientSite {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop so that it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Reads one request head and answers it with [`PAGE`]; returns the request target.
fn answer(stream: TcpStream) -> Option<String> {
    stream.set_read_timeout(Some(READ_TIMEOUT)).ok()?;
    let mut reader = BufReader::new(stream);
    let mut request_line = String::new();
    reader.read_line(&mut request_line).ok()?;
    let target = request_line.split_whitespace().nth(1)?.to_owned();
    let mut line = String::new();
    while reader.read_line(&mut line).ok()? > 2 {
        line.clear();
    }
    let mut stream = reader.into_inner();
    let response = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{PAGE}",
        PAGE.len()
    );
    stream.write_all(response.as_bytes()).ok()?;
    Some(target)
}

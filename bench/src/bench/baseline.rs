//! The machine baseline: a bare actix-web server answering the benchmarked path with a fixed
//! body. What the real server reaches relative to it tells the cost of ACS itself (routing,
//! authentication, database), independently of how fast the machine running the bench is.

use std::io;
use std::net::SocketAddr;
use std::sync::mpsc;
use std::thread::JoinHandle;

use actix_web::dev::ServerHandle;
use actix_web::{App, HttpResponse, HttpServer, web};

/// A small JSON list: the bare handler's answer is smaller than `/api/v2/me/`'s (which
/// carries the user's whole record), so the baseline is if anything faster than a handler
/// writing the same bytes, and a ratio against it is not flattered.
const BODY: &str = r#"{"count":1,"results":[{"id":1,"username":"admin"}]}"#;

/// The running baseline server; stopped when dropped.
#[derive(Debug)]
pub struct Baseline {
    pub addr: SocketAddr,
    handle: ServerHandle,
    thread: Option<JoinHandle<()>>,
}

/// The HTTP worker threads of both the baseline and the server (`ACS_WORKERS`), set
/// explicitly on both sides so that their ratio compares handlers, not thread counts: one
/// per CPU, the server's own default.
pub fn workers() -> usize {
    std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get)
}

/// Starts the baseline on a free port, in a thread with its own actix system.
pub fn start() -> io::Result<Baseline> {
    let (started, bound) = mpsc::channel();
    let thread = std::thread::spawn(move || {
        actix_rt::System::new().block_on(async move {
            let server = HttpServer::new(|| {
                App::new().route(
                    "/api/v2/me/",
                    web::get().to(|| async {
                        HttpResponse::Ok()
                            .content_type("application/json")
                            .body(BODY)
                    }),
                )
            })
            .workers(workers())
            .bind(("127.0.0.1", 0));
            match server {
                Ok(server) => {
                    let addr = server.addrs()[0];
                    let server = server.run();
                    let _ = started.send(Ok((addr, server.handle())));
                    // Once running, the only way out is the stop sent on drop.
                    let _ = server.await;
                }
                Err(error) => {
                    let _ = started.send(Err(error));
                }
            }
        });
    });
    let (addr, handle) = bound
        .recv()
        .map_err(|_| io::Error::other("the baseline server thread died while starting"))??;
    Ok(Baseline {
        addr,
        handle,
        thread: Some(thread),
    })
}

impl Drop for Baseline {
    fn drop(&mut self) {
        // `stop` sends the command at once; the thread ends when the server has stopped, so
        // joining it is the wait (the returned future would only wait for the same thing).
        drop(self.handle.stop(false));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

//! The server's listening socket.

use std::io;
use std::net::{SocketAddr, TcpListener, ToSocketAddrs};

use socket2::{Domain, Socket, Type};

/// Connections the kernel queues for the server before it accepts them: actix-web's own
/// default (Linux caps it at `net.core.somaxconn`). `TcpListener::bind` asks for 128, and a
/// burst of new connections beyond that (clients reconnecting after a restart, a load
/// generator opening its connections) had their SYNs dropped: each such client waited a
/// second for its SYN to go again, which put bearer's p99 at half load at 250 ms and more.
pub const BACKLOG: i32 = 1024;

/// Listens on the first of `bind`'s addresses that can be bound (as `TcpListener::bind`
/// does: a host name may resolve to several), with room for [`BACKLOG`] pending connections.
pub fn listen(bind: &str) -> io::Result<TcpListener> {
    let mut failure = None;
    for addr in bind.to_socket_addrs()? {
        match listen_on(addr) {
            Ok(listener) => return Ok(listener),
            Err(error) => failure = Some(error),
        }
    }
    Err(failure
        .unwrap_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no address to listen on")))
}

fn listen_on(addr: SocketAddr) -> io::Result<TcpListener> {
    // socket2 opens it close-on-exec, so that jobs' processes do not inherit it.
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, None)?;
    // As `TcpListener::bind` does: a restarted server may bind while the connections of the
    // one before linger in TIME_WAIT.
    socket.set_reuse_address(true)?;
    socket.bind(&addr.into())?;
    socket.listen(BACKLOG)?;
    Ok(socket.into())
}

#[cfg(test)]
mod tests {
    use std::net::TcpStream;
    use std::time::Duration;

    use super::*;

    /// Past the standard library's backlog of 128, far under ours.
    const BURST: usize = 300;

    #[test]
    fn a_burst_of_connections_is_queued_without_an_accept() {
        let listener = listen("127.0.0.1:0").expect("a listener");
        let addr = listener.local_addr().expect("its address");
        // Nothing accepts: every connection waits in the kernel's queue. One whose SYN were
        // dropped would wait a second for it to be sent again, past the timeout.
        let connections: Vec<TcpStream> = (0..BURST)
            .map(|n| {
                TcpStream::connect_timeout(&addr, Duration::from_millis(500))
                    .unwrap_or_else(|error| panic!("connection {n} not queued: {error}"))
            })
            .collect();
        assert_eq!(connections.len(), BURST);
    }

    #[test]
    fn a_name_resolves_and_a_bad_address_is_refused() {
        let listener = listen("localhost:0").expect("a listener");
        assert!(
            listener
                .local_addr()
                .expect("its address")
                .ip()
                .is_loopback()
        );
        assert!(listen("127.0.0.1:not-a-port").is_err());
    }
}

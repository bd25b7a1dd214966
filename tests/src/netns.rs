//! Listeners a run may or may not reach: one on the host itself, and one on a test host of
//! its own, a network namespace joined to the host by a veth pair (iproute2's `ip`, as root),
//! standing for a machine a job manages. Each counts the connections it accepted, so a test
//! checks from the outside what a run reached; each answers a connection with its name.

use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

/// A listener on a thread of the test, counting connections.
#[derive(Debug)]
pub struct Listener {
    /// Where it listens.
    pub address: SocketAddr,
    accepted: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
}

impl Listener {
    /// Listens on `0.0.0.0` of the host (every host address, loopback included) on a free
    /// port.
    pub fn on_host(greeting: &'static str) -> Self {
        let listener = TcpListener::bind("0.0.0.0:0").expect("a listener on the host");
        Self::serve(listener, greeting)
    }

    fn serve(listener: TcpListener, greeting: &'static str) -> Self {
        let address = listener.local_addr().expect("the listener's address");
        listener.set_nonblocking(true).expect("non-blocking");
        let accepted = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (count, stopped) = (accepted.clone(), stop.clone());
        std::thread::spawn(move || {
            while !stopped.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((mut stream, _)) => {
                        count.fetch_add(1, Ordering::SeqCst);
                        let _ = stream.set_nonblocking(false);
                        let _ = stream.write_all(format!("{greeting}\n").as_bytes());
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(20)),
                }
            }
        });
        Listener {
            address,
            accepted,
            stop,
        }
    }

    /// How many connections it accepted so far.
    pub fn accepted(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// A test host: a network namespace with an address of its own, routed from the host over a
/// veth pair. Removed (namespace and pair) on drop.
#[derive(Debug)]
pub struct TestHost {
    /// The host's end of the pair, an address of the host.
    pub host_side: Ipv4Addr,
    /// The test host's own address.
    pub address: Ipv4Addr,
    namespace: Namespace,
}

/// A network namespace held open by a process of its own (`unshare --net`), and the host's
/// end of the veth pair into it; both go on drop. (Not `ip netns add`: its namespace files
/// under /run/netns race with each other when several test processes make their first at
/// once.)
#[derive(Debug)]
struct Namespace {
    holder: std::process::Child,
    outer: String,
}

impl Namespace {
    /// Its file, for `nsenter` and `setns`.
    fn path(&self) -> String {
        format!("/proc/{}/ns/net", self.holder.id())
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        let _ = Command::new("ip")
            .args(["link", "del", &self.outer])
            .stderr(std::process::Stdio::null())
            .status();
        let _ = self.holder.kill();
        let _ = self.holder.wait();
    }
}

impl TestHost {
    /// Makes one, its names and addresses chosen by this process's id so concurrent tests
    /// do not meet (one per test process).
    pub fn start() -> Self {
        use std::io::BufRead;
        let pid = std::process::id();
        // A /30 of 10.213.0.0/16 chosen by the process id: its two usable addresses.
        let base = 4 * (pid % 16_384);
        let address = |offset: u32| {
            let value = (10 << 24) | (213 << 16) | (base + offset);
            Ipv4Addr::from(value)
        };
        let (host_side, inside) = (address(1), address(2));
        let (outer, inner) = (format!("acsv{pid}h"), format!("acsv{pid}n"));
        let mut holder = Command::new("unshare")
            .args(["--net", "--", "sh", "-c", "echo ready; exec sleep 100000"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("unshare (util-linux) starts");
        // The namespace exists once the shell runs in it.
        let mut ready = String::new();
        std::io::BufReader::new(holder.stdout.take().expect("its stdout"))
            .read_line(&mut ready)
            .expect("the holder's first line");
        assert_eq!(
            ready, "ready\n",
            "unshare --net failed (the tests run as root)"
        );
        let namespace = Namespace {
            holder,
            outer: outer.clone(),
        };
        let run = |program: &str, args: &[&str]| {
            let status = Command::new(program)
                .args(args)
                .status()
                .unwrap_or_else(|error| panic!("{program} {args:?} cannot run: {error}"));
            assert!(
                status.success(),
                "{program} {args:?} failed (the tests run as root)"
            );
        };
        let holder_pid = namespace.holder.id().to_string();
        run(
            "ip",
            &[
                "link",
                "add",
                &outer,
                "type",
                "veth",
                "peer",
                "name",
                &inner,
                "netns",
                &holder_pid,
            ],
        );
        run(
            "ip",
            &["addr", "add", &format!("{host_side}/30"), "dev", &outer],
        );
        run("ip", &["link", "set", &outer, "up"]);
        let net = format!("--net={}", namespace.path());
        let inside_ip = |args: &[&str]| {
            let mut all = vec![net.as_str(), "ip"];
            all.extend_from_slice(args);
            run("nsenter", &all);
        };
        inside_ip(&["addr", "add", &format!("{inside}/30"), "dev", &inner]);
        inside_ip(&["link", "set", &inner, "up"]);
        inside_ip(&["link", "set", "lo", "up"]);
        inside_ip(&["route", "add", "default", "via", &host_side.to_string()]);
        TestHost {
            host_side,
            address: inside,
            namespace,
        }
    }

    /// A socket listening on the test host's address, on a free port: a thread moves into
    /// the namespace, binds, and comes back with it (a socket stays in the namespace it was
    /// made in).
    pub fn bind(&self) -> TcpListener {
        let path = self.namespace.path();
        let address = self.address;
        std::thread::spawn(move || {
            let namespace = std::fs::File::open(&path).expect("the test host's namespace");
            rustix::thread::move_into_link_name_space(
                std::os::fd::AsFd::as_fd(&namespace),
                Some(rustix::thread::LinkNameSpaceType::Network),
            )
            .expect("entering the test host's namespace");
            TcpListener::bind((address, 0)).expect("a listener on the test host")
        })
        .join()
        .expect("the namespace thread")
    }

    /// Starts `program` with `args` inside the test host's network namespace (a server a run
    /// should reach, such as `git daemon`); the caller stops it.
    pub fn spawn(&self, program: &str, args: &[&str]) -> std::process::Child {
        Command::new("nsenter")
            .arg(format!("--net={}", self.namespace.path()))
            .arg(program)
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap_or_else(|error| panic!("nsenter {program} cannot run: {error}"))
    }

    /// A counting listener on the test host.
    pub fn listen(&self, greeting: &'static str) -> Listener {
        Listener::serve(self.bind(), greeting)
    }
}

/// The host's IPv4 addresses other than loopback, as `ip` lists them.
pub fn host_addresses() -> Vec<Ipv4Addr> {
    let output = Command::new("ip")
        .args(["-4", "-o", "addr", "show"])
        .output()
        .expect("ip addr (iproute2)");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            words.find(|word| *word == "inet")?;
            words.next()?.split('/').next()?.parse::<Ipv4Addr>().ok()
        })
        .filter(|address| !address.is_loopback())
        .collect()
}

//! The network a sandboxed run gets (`JOB_ISOLATION_NETWORK`). By default each run has a
//! network namespace of its own, where `127.0.0.1` is the run's own loopback, with egress
//! through `slirp4netns`, a user-mode network stack (as rootless containers have it): the
//! run reaches the machines it manages, never the host itself. slirp4netns's gateway does not
//! lead to the host's loopback (`--disable-host-loopback`), and every address of the host's
//! own interfaces is an unreachable route in the namespace, so a service listening on the
//! host (PostgreSQL on `127.0.0.1` or on the host's public address) is out of reach. A new
//! network namespace also leaves the host's abstract unix sockets behind.
//!
//! The namespace is made by `unshare --net`, which then becomes bwrap (so bwrap, which would
//! set up the loopback itself, does not race slirp4netns doing the same); during the
//! hand-over (`hand_over`), before the run's program starts, [`attach`] connects the namespace
//! and closes the host's addresses. The run's program never sees a moment without them.

use std::io::Read;
use std::net::IpAddr;
use std::process::{Child, Command, Stdio};

use command_fds::{CommandFdExt, FdMapping};
use rustix::fd::OwnedFd;

/// The setting's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetworkMode {
    /// A namespace of its own with egress through slirp4netns (the default).
    Isolated,
    /// A namespace of its own with only its own loopback: no network at all.
    None,
    /// The host's network, an operator's explicit choice (logged at every run).
    Host,
}

impl NetworkMode {
    /// Reads `JOB_ISOLATION_NETWORK`; the setting's validation keeps other values out.
    pub fn from_setting(value: &str) -> Self {
        match value {
            "none" => NetworkMode::None,
            "host" => NetworkMode::Host,
            _ => NetworkMode::Isolated,
        }
    }
}

/// How a run's namespace is connected to the outside (the `isolated` mode).
#[derive(Debug, Clone)]
pub struct UserModeNetwork {
    /// The `slirp4netns` executable.
    pub slirp4netns: String,
    /// The `unshare` executable, which makes the namespace and becomes bwrap.
    pub unshare: String,
    /// The `nsenter` executable, which runs `ip` in the run's namespace.
    pub nsenter: String,
    /// The `ip` executable.
    pub ip: String,
    /// The host's own IPv4 addresses, made unreachable in the namespace (slirp4netns would
    /// otherwise connect to them from the host, where a service bound to all addresses
    /// answers).
    pub host_addresses: Vec<IpAddr>,
    /// The server is not root: bwrap made a user namespace, which owns the network one.
    pub rootless: bool,
}

/// slirp4netns's fixed addresses in the namespace: its DNS forwarder.
pub const SLIRP_DNS: &str = "10.0.2.3";

/// A run's namespace connected: slirp4netns runs until this is dropped.
pub struct Attached {
    slirp: Child,
    /// Closed on drop: slirp4netns ends when it reads the end of this pipe (also when the
    /// server itself dies).
    _exit: OwnedFd,
}

impl Drop for Attached {
    fn drop(&mut self) {
        let _ = self.slirp.kill();
        let _ = self.slirp.wait();
    }
}

/// Connects the network namespace of process `pid` through slirp4netns, and makes the host's
/// own addresses unreachable in it.
pub fn attach(network: &UserModeNetwork, pid: u32) -> Result<Attached, String> {
    use rustix::pipe::{PipeFlags, pipe_with};
    let io = |error: std::io::Error| format!("slirp4netns could not be started: {error}");
    let (ready, ready_child) = pipe_with(PipeFlags::CLOEXEC).map_err(|e| io(e.into()))?;
    let (exit_child, exit) = pipe_with(PipeFlags::CLOEXEC).map_err(|e| io(e.into()))?;
    let mut command = Command::new(&network.slirp4netns);
    command.args([
        "--configure",
        "--mtu=65520",
        "--disable-host-loopback",
        "--enable-sandbox",
        "--enable-seccomp",
        "--ready-fd=3",
        "--exit-fd=4",
    ]);
    if network.rootless {
        command.arg(format!("--userns-path=/proc/{pid}/ns/user"));
    }
    command
        .args([pid.to_string(), "tap0".to_owned()])
        .env_clear()
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .fd_mappings(vec![
            FdMapping {
                parent_fd: ready_child,
                child_fd: 3,
            },
            FdMapping {
                parent_fd: exit_child,
                child_fd: 4,
            },
        ])
        .map_err(|error| io(std::io::Error::other(error)))?;
    let slirp = command.spawn().map_err(|error| {
        format!(
            "{} cannot be run: {error} (JOB_ISOLATION_NETWORK \"isolated\" needs slirp4netns)",
            network.slirp4netns
        )
    })?;
    drop(command);
    let mut byte = [0u8; 1];
    let said_ready = std::fs::File::from(ready).read(&mut byte).unwrap_or(0) == 1;
    let mut attached = Attached { slirp, _exit: exit };
    if !said_ready {
        let _ = attached.slirp.wait();
        let mut complaint = String::new();
        if let Some(stderr) = attached.slirp.stderr.as_mut() {
            let _ = stderr.take(2048).read_to_string(&mut complaint);
        }
        return Err(format!(
            "slirp4netns could not connect the run's network: {}",
            complaint.trim()
        ));
    }
    // Nothing reads slirp4netns's stderr from here on: it must not block on a full pipe.
    drop(attached.slirp.stderr.take());
    close_host_addresses(network, pid)?;
    Ok(attached)
}

/// `ip route add prohibit <address>` for each of the host's addresses, in the namespace.
fn close_host_addresses(network: &UserModeNetwork, pid: u32) -> Result<(), String> {
    let routes = prohibit_routes(&network.host_addresses);
    if routes.is_empty() {
        return Ok(());
    }
    let mut command = Command::new(&network.nsenter);
    if network.rootless {
        // Joining the user namespace gives the capabilities over its network namespace;
        // the groups stay (an unprivileged process may not drop them).
        command.args([
            format!("--user=/proc/{pid}/ns/user"),
            "--preserve-credentials".to_owned(),
        ]);
    }
    command
        .arg(format!("--net=/proc/{pid}/ns/net"))
        .args([network.ip.as_str(), "-batch", "-"])
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = command
        .spawn()
        .map_err(|error| format!("{} cannot be run: {error}", network.nsenter))?;
    if let Some(mut stdin) = child.stdin.take() {
        use std::io::Write;
        stdin
            .write_all(routes.as_bytes())
            .map_err(|error| format!("the host's addresses could not be closed: {error}"))?;
    }
    let output = child
        .wait_with_output()
        .map_err(|error| format!("the host's addresses could not be closed: {error}"))?;
    if !output.status.success() {
        return Err(format!(
            "the host's addresses could not be closed in the run's network: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(())
}

/// The `ip -batch` lines that make `addresses` unreachable; loopback addresses are the
/// namespace's own and stay.
fn prohibit_routes(addresses: &[IpAddr]) -> String {
    let mut lines = String::new();
    for address in addresses.iter().filter(|address| !address.is_loopback()) {
        let prefix = if address.is_ipv4() { 32 } else { 128 };
        lines.push_str(&format!("route add prohibit {address}/{prefix}\n"));
    }
    lines
}

/// The host's interface addresses, read at each run (they may change).
pub fn host_addresses() -> Vec<IpAddr> {
    let mut addresses: Vec<IpAddr> = if_addrs::get_if_addrs()
        .map(|interfaces| interfaces.into_iter().map(|i| i.ip()).collect())
        .unwrap_or_default();
    // slirp4netns gives the namespace IPv4 only: an IPv6 destination has no route anyway.
    addresses.retain(IpAddr::is_ipv4);
    addresses.sort();
    addresses.dedup();
    addresses
}

/// What `/etc/resolv.conf` must say in a run, when the host's cannot serve it: a nameserver
/// on the host's loopback (a local stub resolver) is not reachable from the run's namespace,
/// so slirp4netns's own forwarder takes its place. `None`: the host's file serves as it is.
pub fn resolv_conf_for_run(host: &str) -> Option<String> {
    let loopback_nameserver = |line: &str| {
        let mut words = line.split_whitespace();
        words.next() == Some("nameserver")
            && words
                .next()
                .and_then(|address| address.parse::<IpAddr>().ok())
                .is_some_and(|address| address.is_loopback())
    };
    if !host.lines().any(loopback_nameserver) {
        return None;
    }
    let mut text = String::new();
    let mut forwarder_added = false;
    for line in host.lines() {
        if loopback_nameserver(line) {
            if !forwarder_added {
                text.push_str(&format!("nameserver {SLIRP_DNS}\n"));
                forwarder_added = true;
            }
        } else {
            text.push_str(line);
            text.push('\n');
        }
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_setting_names_three_modes() {
        assert_eq!(NetworkMode::from_setting("isolated"), NetworkMode::Isolated);
        assert_eq!(NetworkMode::from_setting("none"), NetworkMode::None);
        assert_eq!(NetworkMode::from_setting("host"), NetworkMode::Host);
    }

    #[test]
    fn every_host_address_but_loopback_is_prohibited() {
        let addresses: Vec<IpAddr> = ["127.0.0.1", "192.0.2.2", "172.17.0.1", "::1", "fd00::2"]
            .map(|text| text.parse().expect("address"))
            .to_vec();
        assert_eq!(
            prohibit_routes(&addresses),
            "route add prohibit 192.0.2.2/32\nroute add prohibit 172.17.0.1/32\nroute add prohibit fd00::2/128\n"
        );
        assert_eq!(prohibit_routes(&[]), "");
    }

    #[test]
    fn a_local_stub_resolver_becomes_slirp4netns_s_forwarder() {
        assert_eq!(resolv_conf_for_run("nameserver 10.255.255.53\n"), None);
        assert_eq!(
            resolv_conf_for_run(
                "# stub\nnameserver 127.0.0.53\nnameserver ::1\noptions edns0\nsearch example.org\n"
            ),
            Some("# stub\nnameserver 10.0.2.3\noptions edns0\nsearch example.org\n".to_owned())
        );
    }
}

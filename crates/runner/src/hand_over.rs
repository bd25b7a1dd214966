//! What the server does to a sandbox between the moment bwrap runs and the moment the run's
//! program starts: bwrap writes its sandbox's process id on an info pipe and waits on a
//! block pipe; in between, the server moves bwrap and that process into the run's process
//! cgroup (`cgroup`) and connects its network (`network`). Nothing of the run has started
//! before both are done.

use std::io::Read;
use std::path::PathBuf;
use std::process::Command;

use command_fds::{CommandFdExt, FdMapping};
use rustix::fd::OwnedFd;

use super::cgroup::RunCgroup;
use super::network::{self, UserModeNetwork};

/// The file descriptors bwrap is given in the sandbox for the hand-over (`--info-fd`,
/// `--block-fd`).
pub const INFO_FD: i32 = 3;
/// See [`INFO_FD`].
pub const BLOCK_FD: i32 = 4;

/// What the hand-over of one run's sandbox does.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The run (its cgroup's name).
    pub run: i64,
    /// The network to connect (`JOB_ISOLATION_NETWORK` "isolated").
    pub network: Option<UserModeNetwork>,
    /// Where the run's process cgroup goes, and its `pids.max`.
    pub processes: Option<(PathBuf, u64)>,
}

/// The pipes between the server and one bwrap, made before it starts.
pub struct HandOver {
    info: OwnedFd,
    block: OwnedFd,
}

/// A sandbox handed over: what it holds lives until the run ends.
pub struct Held {
    _network: Option<network::Attached>,
    _processes: Option<RunCgroup>,
}

impl HandOver {
    /// Makes the two pipes and gives their sandbox ends to `command` as [`INFO_FD`] and
    /// [`BLOCK_FD`] (only in that child: the pipes are close-on-exec in the server, so no
    /// other run inherits them).
    pub fn give_to(command: &mut Command) -> std::io::Result<Self> {
        use rustix::pipe::{PipeFlags, pipe_with};
        let (info, info_child) = pipe_with(PipeFlags::CLOEXEC)?;
        let (block_child, block) = pipe_with(PipeFlags::CLOEXEC)?;
        command
            .fd_mappings(vec![
                FdMapping {
                    parent_fd: info_child,
                    child_fd: INFO_FD,
                },
                FdMapping {
                    parent_fd: block_child,
                    child_fd: BLOCK_FD,
                },
            ])
            .map_err(std::io::Error::other)?;
        Ok(HandOver { info, block })
    }

    /// Waits until bwrap (process `bwrap`, perhaps started by `unshare`) runs, does `plan`,
    /// and lets the run's program start. `Ok(None)`: bwrap ended before it made the sandbox
    /// (its own complaint, on the run's output, says why).
    pub fn complete(self, plan: &Plan, bwrap: u32) -> Result<Option<Held>, String> {
        let Some(sandbox) = sandbox_pid(std::fs::File::from(self.info)) else {
            return Ok(None);
        };
        let processes = match &plan.processes {
            Some((parent, limit)) => {
                let cgroup = RunCgroup::create(parent, plan.run, bwrap, *limit)
                    .and_then(|cgroup| {
                        cgroup.add(bwrap)?;
                        cgroup.add(sandbox)?;
                        Ok(cgroup)
                    })
                    .map_err(|error| {
                        format!(
                            "the run's process cgroup could not be made under {}: {error}",
                            parent.display()
                        )
                    })?;
                Some(cgroup)
            }
            None => None,
        };
        // bwrap's own process holds the namespaces `unshare` made (the sandbox's process may
        // sit in a user namespace nested below them).
        let network = match &plan.network {
            Some(network) => Some(network::attach(network, bwrap)?),
            None => None,
        };
        rustix::io::write(&self.block, b"1")
            .map_err(|error| format!("the sandbox could not be started: {error}"))?;
        Ok(Some(Held {
            _network: network,
            _processes: processes,
        }))
    }
}

/// The process id bwrap reports on its info pipe (`{"child-pid": N, …}`), read until the
/// document is whole (bwrap closes the pipe after it, but the sandbox's end may linger);
/// `None` when bwrap closed it without one.
fn sandbox_pid(mut info: std::fs::File) -> Option<u32> {
    let mut text = Vec::new();
    let mut chunk = [0u8; 512];
    loop {
        let read = info.read(&mut chunk).ok()?;
        if read == 0 {
            return None;
        }
        text.extend_from_slice(&chunk[..read]);
        if let Ok(parsed) = serde_json::from_slice::<serde_json::Value>(&text) {
            return parsed["child-pid"]
                .as_u64()
                .and_then(|pid| u32::try_from(pid).ok());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sandbox_pid_comes_from_bwrap_s_info() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("info");
        std::fs::write(&path, "{\n    \"child-pid\": 4242\n}\n").expect("write");
        assert_eq!(
            sandbox_pid(std::fs::File::open(&path).expect("open")),
            Some(4242)
        );
        std::fs::write(&path, "").expect("write");
        assert_eq!(sandbox_pid(std::fs::File::open(&path).expect("open")), None);
    }
}

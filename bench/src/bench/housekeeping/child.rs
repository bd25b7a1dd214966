//! Running a management command as a child process and measuring it: wall time, and peak
//! resident memory read from `/proc/<pid>/status` (`VmHWM`, the kernel's high-water mark)
//! while it runs.

use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::Result;
use crate::bench::memory;

/// How often the child's memory high-water mark is read. The mark only grows, so a missed
/// read loses at most what the child added in its last few milliseconds.
const POLL: Duration = Duration::from_millis(5);

/// What a measured run gave.
#[derive(Debug)]
pub struct Measured {
    pub status: ExitStatus,
    pub elapsed: Duration,
    /// Peak resident set in KiB; `None` where `/proc` cannot tell (not Linux).
    pub peak_rss_kib: Option<u64>,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `command` to its end, polling its memory high-water mark.
pub fn run(mut command: Command) -> Result<Measured> {
    let start = Instant::now();
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| format!("cannot start {command:?}: {error}"))?;
    let pid = child.id();
    let mut peak = None;
    let status = loop {
        // Read before checking for the exit: once exited, the status no longer has the line.
        if let Some(kib) = memory::peak_kib(pid) {
            peak = Some(peak.map_or(kib, |seen: u64| seen.max(kib)));
        }
        if let Some(status) = child.try_wait()? {
            break status;
        }
        std::thread::sleep(POLL);
    };
    let elapsed = start.elapsed();
    let output = child.wait_with_output()?;
    Ok(Measured {
        status,
        elapsed,
        peak_rss_kib: peak,
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    })
}

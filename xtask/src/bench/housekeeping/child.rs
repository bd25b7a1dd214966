//! Running a management command as a child process and measuring it: wall time, and peak
//! resident memory read from `/proc/<pid>/status` (`VmHWM`, the kernel's high-water mark)
//! while it runs.

use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::Result;

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
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = None;
    let status = loop {
        // Read before checking for the exit: once exited, the status no longer has the line.
        if let Some(kib) = high_water_mark(&status_file) {
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

/// `VmHWM` of a `/proc/<pid>/status` file, in KiB.
fn high_water_mark(path: &str) -> Option<u64> {
    let status = std::fs::read_to_string(path).ok()?;
    parse_high_water_mark(&status)
}

fn parse_high_water_mark(status: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.trim().strip_suffix("kB"))
        .and_then(|kib| kib.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::parse_high_water_mark;

    #[test]
    fn reads_the_high_water_mark() {
        let status = "Name:\tx\nVmPeak:\t  9000 kB\nVmHWM:\t    5120 kB\nVmRSS:\t 4000 kB\n";
        assert_eq!(parse_high_water_mark(status), Some(5120));
        assert_eq!(
            parse_high_water_mark("Name:\tx\nState:\tZ (zombie)\n"),
            None
        );
    }
}

//! Peak memory of a process: `VmHWM` in `/proc/<pid>/status`, the kernel's high-water mark of
//! its resident set. It only grows, so reading it late still tells the peak so far.

/// The peak resident set of process `pid` in KiB; `None` where `/proc` cannot tell (not Linux,
/// or the process has exited).
pub fn peak_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    parse_high_water_mark(&status)
}

/// KiB as MiB, for reports.
pub fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
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
    use super::{parse_high_water_mark, peak_kib};

    #[test]
    fn reads_the_high_water_mark() {
        let status = "Name:\tx\nVmPeak:\t  9000 kB\nVmHWM:\t    5120 kB\nVmRSS:\t 4000 kB\n";
        assert_eq!(parse_high_water_mark(status), Some(5120));
        assert_eq!(
            parse_high_water_mark("Name:\tx\nState:\tZ (zombie)\n"),
            None
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_has_a_peak() {
        assert!(peak_kib(std::process::id()).is_some_and(|kib| kib > 0));
    }
}

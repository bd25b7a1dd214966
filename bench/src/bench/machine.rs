//! What the report says about where and when it was measured: the machine (CPUs, their
//! model, the kernel, how busy it was at the start), the date and the commit measured.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

#[derive(Debug)]
pub struct Machine {
    pub cpus: usize,
    pub cpu_model: Option<String>,
    pub kernel: Option<String>,
    /// `/proc/loadavg`'s 1, 5 and 15 minute averages when the run started: another load on
    /// the machine shows up in every figure.
    pub load_average: Option<String>,
    /// UTC, when the run started.
    pub date: String,
    pub commit: Option<String>,
    /// Tracked files differed from the commit.
    pub uncommitted_changes: bool,
}

impl Machine {
    /// This machine, now, measuring the workspace at `workspace`.
    pub fn describe(workspace: &Path) -> Machine {
        let read = |path: &str| std::fs::read_to_string(path).ok();
        Machine {
            cpus: std::thread::available_parallelism().map_or(1, usize::from),
            cpu_model: read("/proc/cpuinfo").and_then(|info| cpu_model(&info)),
            kernel: read("/proc/sys/kernel/osrelease").map(|text| text.trim().to_owned()),
            load_average: read("/proc/loadavg").map(|text| {
                text.split_whitespace()
                    .take(3)
                    .collect::<Vec<_>>()
                    .join(" ")
            }),
            date: chrono::Utc::now().format("%Y-%m-%d %H:%M UTC").to_string(),
            commit: git(workspace, &["rev-parse", "HEAD"]),
            uncommitted_changes: git(
                workspace,
                &["status", "--porcelain", "--untracked-files=no"],
            )
            .is_some_and(|changes| !changes.is_empty()),
        }
    }

    pub fn json(&self) -> Value {
        json!({
            "cpus": self.cpus,
            "cpu_model": self.cpu_model,
            "kernel": self.kernel,
            "load_average_at_start": self.load_average,
            "date": self.date,
            "commit": self.commit,
            "uncommitted_changes": self.uncommitted_changes,
        })
    }
}

/// The first `model name` of `/proc/cpuinfo`.
fn cpu_model(cpuinfo: &str) -> Option<String> {
    cpuinfo
        .lines()
        .find_map(|line| line.strip_prefix("model name"))
        .and_then(|rest| rest.split_once(':'))
        .map(|(_, model)| model.trim().to_owned())
}

/// `git args` in `workspace`, trimmed; `None` if git is missing or fails (not a checkout).
fn git(workspace: &Path, args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(workspace)
        .args(args)
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::cpu_model;

    #[test]
    fn reads_the_first_cpu_model() {
        let info = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\n\
                    processor\t: 1\nmodel name\t: AMD EPYC 7B13\n";
        assert_eq!(cpu_model(info).as_deref(), Some("AMD EPYC 7B13"));
        assert_eq!(cpu_model("processor\t: 0\n"), None);
    }
}

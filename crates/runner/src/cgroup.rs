//! A process cgroup per run (`JOB_ISOLATION_MAX_PROCESSES`), where the host gives the server
//! one: `pids.max` bounds the run's own processes and threads, whoever else runs as the same
//! user. Without one the limit falls back to `RLIMIT_NPROC`, which counts every process of the
//! run user (all runs at once when they share it).
//!
//! Found from the server's own place: cgroup v1's `pids` hierarchy (the server's cgroup in it,
//! from `/proc/self/cgroup`), or cgroup v2 where the server's cgroup delegates `pids` to its
//! children (`cgroup.subtree_control`). The run's cgroup is `acs-runs/run_<id>_<pid>` below
//! it; bwrap and the sandbox's first process join it before the run's program starts (bwrap
//! waits on its block pipe), so every process of the run is in it.

use std::path::{Path, PathBuf};

/// Where runs' process cgroups go: `<server's pids cgroup>/acs-runs`.
pub fn runs_parent() -> Option<PathBuf> {
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let place = pids_place(&mountinfo, &own)?;
    (place.join("cgroup.procs").exists()).then(|| place.join("acs-runs"))
}

/// The server's cgroup directory in a hierarchy that has the `pids` controller, from the text
/// of `/proc/self/mountinfo` and `/proc/self/cgroup`.
fn pids_place(mountinfo: &str, own: &str) -> Option<PathBuf> {
    for line in mountinfo.lines() {
        // `… <mount point> <options> … - <fstype> <source> <super options>`
        let Some((before, after)) = line.split_once(" - ") else {
            continue;
        };
        let mount_point = before.split_whitespace().nth(4)?;
        let mut after = after.split_whitespace();
        let (fstype, super_options) = (after.next()?, after.nth(1).unwrap_or_default());
        if fstype == "cgroup" && super_options.split(',').any(|option| option == "pids") {
            let path = own.lines().find_map(|entry| {
                let mut fields = entry.splitn(3, ':');
                let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
                controllers
                    .split(',')
                    .any(|controller| controller == "pids")
                    .then_some(path)
            })?;
            return Some(join(mount_point, path));
        }
        if fstype == "cgroup2" {
            let path = own.lines().find_map(|entry| entry.strip_prefix("0::"))?;
            let place = join(mount_point, path);
            let delegated = std::fs::read_to_string(place.join("cgroup.subtree_control"))
                .is_ok_and(|text| text.split_whitespace().any(|c| c == "pids"));
            if delegated {
                return Some(place);
            }
        }
    }
    None
}

fn join(mount_point: &str, path: &str) -> PathBuf {
    Path::new(mount_point).join(path.trim_start_matches('/'))
}

/// One run's process cgroup, removed on drop (once its processes are gone).
#[derive(Debug)]
pub struct RunCgroup {
    path: PathBuf,
}

impl RunCgroup {
    /// Makes `<parent>/run_<run>_<bwrap>` with `pids.max` = `limit`.
    pub fn create(parent: &Path, run: i64, bwrap: u32, limit: u64) -> std::io::Result<Self> {
        std::fs::create_dir_all(parent)?;
        let path = parent.join(format!("run_{run}_{bwrap}"));
        std::fs::create_dir(&path)?;
        let cgroup = RunCgroup { path };
        std::fs::write(cgroup.path.join("pids.max"), limit.to_string())?;
        Ok(cgroup)
    }

    /// Moves process `pid` into it.
    pub fn add(&self, pid: u32) -> std::io::Result<()> {
        std::fs::write(self.path.join("cgroup.procs"), pid.to_string())
    }
}

impl Drop for RunCgroup {
    fn drop(&mut self) {
        // The sandbox's PID namespace ends with its first process; the kernel lets go of the
        // cgroup a moment after the last process is reaped.
        for _ in 0..50 {
            if std::fs::remove_dir(&self.path).is_ok() || !self.path.exists() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        tracing::warn!(cgroup = %self.path.display(), "a run's process cgroup could not be removed");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pids_hierarchy_of_cgroup_v1_is_found_with_the_server_s_place_in_it() {
        let mountinfo = "\
35 25 0:30 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
36 35 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
37 35 0:32 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
";
        let own = "4:memory:/process_api/x\n8:pids:/services/acs\n0::/\n";
        assert_eq!(
            pids_place(mountinfo, own),
            Some(PathBuf::from("/sys/fs/cgroup/pids/services/acs"))
        );
        assert_eq!(pids_place("", own), None);
        let no_pids = "36 35 0:31 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n";
        assert_eq!(pids_place(no_pids, own), None);
    }
}

//! Running one child process for a run: a clean environment, its own process group (so a
//! cancel or a timeout stops everything it started), output captured to a file, and a poll
//! loop that watches for the end, a cancel request and the deadline.

use std::fs::OpenOptions;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rustix::process::Signal;

use super::hand_over::{HandOver, Plan};

/// What to run.
#[derive(Debug)]
pub struct Invocation {
    /// The executable (a path, or a name looked up on `PATH`).
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Its working directory.
    pub cwd: PathBuf,
    /// Its whole environment (nothing is inherited from the server).
    pub env: Vec<(String, String)>,
    /// What the server does to the sandbox bwrap makes, once bwrap runs and before the
    /// program starts: its process cgroup, its network.
    pub hand_over: Option<Plan>,
}

/// How the process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// It exited with this code (or was killed by a signal: `None`).
    Exited(Option<i32>),
    /// A cancel was asked for and the process group was stopped.
    Canceled,
    /// The deadline passed and the process group was stopped.
    TimedOut,
}

/// Why the process could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartFailure {
    /// The executable does not exist or cannot be run.
    #[error("{program} cannot be run: {error}")]
    Executable {
        /// The program.
        program: String,
        /// What the system said.
        error: std::io::Error,
    },
    /// The sandbox's network or process cgroup could not be set up; nothing of the run ran.
    #[error("{0}")]
    HandOver(String),
    /// Another I/O problem (output file, working directory).
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// How often the loop looks at the process and the cancel flag.
const POLL: Duration = Duration::from_millis(100);
/// How long a stopped process group gets between SIGTERM and SIGKILL.
const GRACE: Duration = Duration::from_secs(5);

/// Runs `invocation` with stdout and stderr appended to `output` (or stdout alone there and
/// stderr to `errors`, when given). `watch` is called about every `watch_every` while it runs
/// and answers whether a cancel was asked for.
pub fn run(
    invocation: &Invocation,
    output: &Path,
    errors: Option<&Path>,
    timeout: Option<Duration>,
    watch_every: Duration,
    mut watch: impl FnMut() -> bool,
) -> Result<Ending, StartFailure> {
    let append = |path: &Path| OpenOptions::new().create(true).append(true).open(path);
    let stdout = append(output)?;
    let stderr = match errors {
        Some(path) => append(path)?,
        None => stdout.try_clone()?,
    };
    let mut command = Command::new(&invocation.program);
    command
        .args(&invocation.args)
        .current_dir(&invocation.cwd)
        .env_clear()
        .envs(invocation.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .process_group(0);
    let hand_over = match invocation.hand_over {
        Some(_) => Some(HandOver::give_to(&mut command)?),
        None => None,
    };
    let mut child = command.spawn().map_err(|error| StartFailure::Executable {
        program: invocation.program.clone(),
        error,
    })?;
    // The sandbox's ends of the pipes are the command's: closed here, so that bwrap's end
    // is the last one and its close is seen.
    drop(command);
    // Held until the run ends: its network and process cgroup live as long.
    let _held = match (hand_over, &invocation.hand_over) {
        (Some(hand_over), Some(plan)) => match hand_over.complete(plan, child.id()) {
            Ok(attached) => attached,
            Err(reason) => {
                // bwrap that could not build the view ends by itself before the program
                // would start: its own complaint, on the output, is the better reason.
                if let Some(status) = wait_briefly(&mut child, BWRAP_GIVES_UP)? {
                    return Ok(Ending::Exited(status.code()));
                }
                stop(&mut child);
                return Err(StartFailure::HandOver(reason));
            }
        },
        _ => None,
    };
    let started = Instant::now();
    let mut last_watch = Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Ending::Exited(status.code()));
        }
        if timeout.is_some_and(|limit| started.elapsed() >= limit) {
            stop(&mut child);
            return Ok(Ending::TimedOut);
        }
        if last_watch.elapsed() >= watch_every {
            last_watch = Instant::now();
            if watch() {
                stop(&mut child);
                return Ok(Ending::Canceled);
            }
        }
        std::thread::sleep(POLL);
    }
}

/// How long a sandbox whose network could not be connected gets to end by itself.
const BWRAP_GIVES_UP: Duration = Duration::from_secs(1);

/// The child's exit status, if it ends within `limit`.
fn wait_briefly(
    child: &mut Child,
    limit: Duration,
) -> std::io::Result<Option<std::process::ExitStatus>> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if Instant::now() >= deadline {
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Stops the child's process group: SIGTERM, then SIGKILL after [`GRACE`].
fn stop(child: &mut Child) {
    let group = i32::try_from(child.id())
        .ok()
        .and_then(rustix::process::Pid::from_raw);
    let Some(group) = group else {
        let _ = child.kill();
        return;
    };
    signal_group(group, Signal::TERM);
    let deadline = Instant::now() + GRACE;
    while Instant::now() < deadline {
        if matches!(child.try_wait(), Ok(Some(_))) {
            // The leader is gone; make sure nothing it started lingers.
            signal_group(group, Signal::KILL);
            return;
        }
        std::thread::sleep(POLL);
    }
    signal_group(group, Signal::KILL);
    let _ = child.wait();
}

/// Signals the process group the child leads (made by `process_group(0)`); a group that is
/// already gone is not an error.
fn signal_group(group: rustix::process::Pid, signal: Signal) {
    let _ = rustix::process::kill_process_group(group, signal);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shell(script: &str, dir: &Path) -> Invocation {
        Invocation {
            program: "/bin/sh".into(),
            args: vec!["-c".into(), script.into()],
            cwd: dir.to_owned(),
            env: vec![("GREETING".into(), "hello".into())],
            hand_over: None,
        }
    }

    #[test]
    fn captures_output_and_exit_code_with_a_clean_environment() {
        let dir = tempfile::tempdir().expect("dir");
        let out = dir.path().join("out");
        let script = "echo $GREETING; echo ${HOME:-no-home} >&2; exit 3";
        let ending =
            run(&shell(script, dir.path()), &out, None, None, POLL, || false).expect("ran");
        assert_eq!(ending, Ending::Exited(Some(3)));
        assert_eq!(
            std::fs::read_to_string(&out).expect("output"),
            "hello\nno-home\n"
        );
    }

    #[test]
    fn a_missing_executable_is_a_start_failure() {
        let dir = tempfile::tempdir().expect("dir");
        let mut invocation = shell("", dir.path());
        invocation.program = "/nonexistent/ansible-playbook".into();
        let failure = run(
            &invocation,
            &dir.path().join("out"),
            None,
            None,
            POLL,
            || false,
        )
        .expect_err("cannot start");
        assert!(
            matches!(failure, StartFailure::Executable { .. }),
            "{failure}"
        );
    }

    #[test]
    fn cancel_and_timeout_stop_the_whole_group() {
        let dir = tempfile::tempdir().expect("dir");
        let marker = dir.path().join("child-alive");
        // The background child would touch the marker after 2 s if it survived.
        let script = format!("(sleep 2; touch {}) & sleep 30", marker.display());
        let out = dir.path().join("out");
        let begun = Instant::now();
        let ending = run(&shell(&script, dir.path()), &out, None, None, POLL, || {
            begun.elapsed() > Duration::from_millis(300)
        })
        .expect("ran");
        assert_eq!(ending, Ending::Canceled);
        let ending = run(
            &shell(&script, dir.path()),
            &out,
            None,
            Some(Duration::from_millis(300)),
            POLL,
            || false,
        )
        .expect("ran");
        assert_eq!(ending, Ending::TimedOut);
        std::thread::sleep(Duration::from_millis(2500));
        assert!(!marker.exists(), "a process of the group outlived the stop");
    }
}

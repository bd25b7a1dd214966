//! The bubblewrap sandbox around every run (contract §6): a run sees the root filesystem
//! read-only and nothing of the server's own: the data directory (secret key, SQLite file,
//! other runs' directories), the projects root but for its own project, home directories, the
//! system logs and the server's temporary directories are empty in its view. Its private
//! directory is writable, its project read-only (writable for its own project update), and it
//! runs in new PID, IPC and UTS namespaces, so `/proc` shows only its own processes.
//!
//! When the server runs as root, bwrap (which needs root's rights to build the view) starts
//! `setpriv` inside the sandbox, which drops to the unprivileged run user before the program
//! starts: no run keeps root's rights over the files it can still see.

use std::path::{Path, PathBuf};

pub use acs_app::settings::ShownPath;

use super::hand_over::{BLOCK_FD, INFO_FD, Plan};
use super::network::UserModeNetwork;
use super::process::Invocation;

/// How bwrap, and `unshare` before it, start what they say when they cannot build a sandbox
/// (they then exit with 1 before anything of the run has started).
const FAILURE_PREFIXES: &[&str] = &["bwrap: ", "unshare: "];

/// bwrap's complaint, when `output` (what a sandboxed step wrote, from its start) begins with
/// one: the sandbox could not be built and nothing of the run ran. Programs inside write only
/// after bwrap has finished, so the step's output cannot begin with bwrap's words otherwise.
pub fn failure_of(output: &str) -> Option<&str> {
    FAILURE_PREFIXES
        .iter()
        .any(|prefix| output.starts_with(prefix))
        .then(|| output.lines().next().unwrap_or_default())
}

/// The unprivileged user a run becomes when the server runs as root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunUser {
    /// User id.
    pub uid: u32,
    /// Group id.
    pub gid: u32,
}

impl RunUser {
    /// Resolves `JOB_ISOLATION_RUN_AS`: a user name of `passwd` (the text of `/etc/passwd`), a
    /// numeric `uid`, or `uid:gid`. Root is refused: the point is to drop its rights.
    pub fn resolve(spec: &str, passwd: &str) -> Result<Self, String> {
        let numeric = |text: &str| text.trim().parse::<u32>().ok();
        let user = if let Some((uid, gid)) = spec.split_once(':') {
            numeric(uid)
                .zip(numeric(gid))
                .map(|(uid, gid)| RunUser { uid, gid })
        } else if let Some(uid) = numeric(spec) {
            Some(RunUser { uid, gid: uid })
        } else {
            passwd.lines().find_map(|line| {
                let fields: Vec<&str> = line.split(':').collect();
                match fields.as_slice() {
                    [name, _, uid, gid, ..] if *name == spec => Some(RunUser {
                        uid: numeric(uid)?,
                        gid: numeric(gid)?,
                    }),
                    _ => None,
                }
            })
        };
        let user = user.ok_or_else(|| format!("The run user '{spec}' does not exist."))?;
        if user.uid == 0 || user.gid == 0 {
            return Err(format!(
                "The run user '{spec}' is root: runs must not keep root's rights."
            ));
        }
        Ok(user)
    }
}

/// How runs are isolated: what every run is shown and what is hidden from it.
#[derive(Debug, Clone)]
pub struct Isolation {
    /// The `bwrap` executable (`JOB_ISOLATION_BWRAP_PATH`).
    pub bwrap: String,
    /// Host directories that each run sees empty, and files it sees as empty files.
    pub hidden: Vec<PathBuf>,
    /// Host temporary directories (`/tmp`, …): hidden too, and in their place each run gets
    /// an empty one of its own that it may write to.
    pub temporary: Vec<PathBuf>,
    /// Host paths shown to every run (the settings' paths and the executables' directories).
    pub shown: Vec<ShownPath>,
    /// Who the run becomes inside the sandbox, when the server runs as root.
    pub run_as: Option<RunUser>,
    /// The network the run has.
    pub network: RunNetwork,
    /// What the run may use.
    pub limits: Limits,
    /// The run (its process cgroup's name).
    pub run: i64,
}

/// What a run may use (the `JOB_ISOLATION_*` limits); `None` is no limit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Limits {
    /// Bytes each of its in-memory directories may hold (bwrap's `--size`).
    pub tmpfs_bytes: Option<u64>,
    /// Processes and threads of the run user (`RLIMIT_NPROC`), when the run has no process
    /// cgroup of its own.
    pub processes: Option<u64>,
    /// The run's own process cgroup: where it goes and its `pids.max`.
    pub process_cgroup: Option<(PathBuf, u64)>,
    /// Data memory of each process, in bytes (`RLIMIT_DATA`).
    pub memory_bytes: Option<u64>,
    /// CPU seconds of each process (`RLIMIT_CPU`).
    pub cpu_seconds: Option<u64>,
    /// The `prlimit` executable (util-linux), which sets the resource limits and becomes
    /// the rest of the command: every process of the run inherits them.
    pub prlimit: String,
}

/// What a hidden directory's empty tmpfs may hold: only the mount points made in it.
const HIDDEN_TMPFS_BYTES: u64 = 1 << 20;

impl Limits {
    /// `prlimit`'s options, hard and soft limits alike; empty when nothing is limited.
    fn prlimit_options(&self) -> Vec<String> {
        [
            ("--nproc", self.processes),
            ("--data", self.memory_bytes),
            ("--cpu", self.cpu_seconds),
        ]
        .into_iter()
        .filter_map(|(option, limit)| limit.map(|limit| format!("{option}={limit}:{limit}")))
        .collect()
    }
}

/// The network a run has (`JOB_ISOLATION_NETWORK`).
#[derive(Debug, Clone)]
pub enum RunNetwork {
    /// The host's own: an operator's explicit opt-out.
    Host,
    /// A namespace of its own with nothing but its own loopback.
    Loopback,
    /// A namespace of its own with egress through the user-mode stack.
    UserMode(UserModeNetwork),
}

/// What one run may touch besides what every run is shown.
#[derive(Debug, Clone, Copy)]
pub struct RunView<'a> {
    /// The run's private directory: writable.
    pub private_dir: &'a Path,
    /// Its project directory, and whether the run may write to it (its own project update).
    pub project: Option<(&'a Path, bool)>,
    /// The user database the run sees as `/etc/passwd` ([`run_user_passwd`]), when it runs
    /// as [`Isolation::run_as`].
    pub passwd: Option<&'a Path>,
    /// A file the run sees as its resolver configuration, and where: the canonical place of
    /// `/etc/resolv.conf` (which may lie in the hidden `/run`).
    pub resolv_conf: Option<(&'a Path, &'a Path)>,
}

impl Isolation {
    /// `step` as it runs inside the sandbox: bwrap with the view of `view`, then (as root)
    /// `setpriv` to the run user, then the step's own program and arguments.
    pub fn wrap(&self, view: &RunView<'_>, step: &Invocation) -> Invocation {
        let mut args = self.bwrap_arguments(view, &step.cwd);
        args.push("--".to_owned());
        if let Some(user) = self.run_as {
            args.extend([
                "setpriv".to_owned(),
                format!("--reuid={}", user.uid),
                format!("--regid={}", user.gid),
                "--clear-groups".to_owned(),
                "--inh-caps=-all".to_owned(),
                "--bounding-set=-all".to_owned(),
                "--".to_owned(),
            ]);
        }
        args.push(step.program.clone());
        args.extend(step.args.iter().cloned());
        let mut program = self.bwrap.clone();
        let limited = self.limits.prlimit_options();
        if let RunNetwork::UserMode(network) = &self.network {
            // The network namespace comes from unshare, which then becomes bwrap.
            let mut unshare: Vec<String> = Vec::new();
            if network.rootless {
                // The server's uid is root in this user namespace, which owns the network
                // one: slirp4netns and `ip` join it to configure the network, and bwrap's
                // own user namespace below it gives the run back the server's uid.
                unshare.extend(["--user".to_owned(), "--map-root-user".to_owned()]);
            }
            unshare.extend(["--net".to_owned(), "--".to_owned(), program]);
            unshare.append(&mut args);
            args = unshare;
            program = network.unshare.clone();
        }
        if !limited.is_empty() {
            // Set before any process of the run exists; bwrap, as root, is not held by them
            // (root's processes are not counted), the run user is.
            let mut prlimit = limited;
            prlimit.extend(["--".to_owned(), program]);
            prlimit.append(&mut args);
            args = prlimit;
            program = self.limits.prlimit.clone();
        }
        Invocation {
            program,
            args,
            cwd: step.cwd.clone(),
            env: step.env.clone(),
            hand_over: self.hand_over(),
        }
    }

    /// What the server does between bwrap's start and the program's, if anything.
    fn hand_over(&self) -> Option<Plan> {
        let network = match &self.network {
            RunNetwork::UserMode(network) => Some(network.clone()),
            RunNetwork::Host | RunNetwork::Loopback => None,
        };
        (network.is_some() || self.limits.process_cgroup.is_some()).then(|| Plan {
            run: self.run,
            network,
            processes: self.limits.process_cgroup.clone(),
        })
    }

    /// bwrap's options: mounts first (later ones cover earlier ones), then namespaces.
    fn bwrap_arguments(&self, view: &RunView<'_>, cwd: &Path) -> Vec<String> {
        // Python's multiprocessing (ansible's workers) needs a writable /dev/shm of its own.
        let writable_size = self.limits.tmpfs_bytes.map(|bytes| bytes.to_string());
        let hidden_size = HIDDEN_TMPFS_BYTES.to_string();
        let mut options = Options(
            ["--ro-bind", "/", "/", "--dev", "/dev"]
                .map(str::to_owned)
                .to_vec(),
        );
        options.add("--perms", &[Path::new("1777")]);
        options.tmpfs(Path::new("/dev/shm"), writable_size.as_deref());
        options.add("--proc", &[Path::new("/proc")]);
        let all_hidden: Vec<PathBuf> = self.hidden.iter().chain(&self.temporary).cloned().collect();
        let hide = |options: &mut Options, hidden: &Path| {
            if self.temporary.iter().any(|dir| dir == hidden) {
                options.add("--perms", &[Path::new("1777")]);
                options.tmpfs(hidden, writable_size.as_deref());
            } else if hidden.is_dir() {
                options.tmpfs(hidden, Some(&hidden_size));
            } else if hidden.exists() {
                options.add("--ro-bind", &[Path::new("/dev/null"), hidden]);
            }
        };
        for hidden in outermost(&all_hidden) {
            hide(&mut options, hidden);
        }
        for shown in &self.shown {
            options.show_at(&shown.path, &shown.path, shown.writable);
        }
        // A shown path is the host's as it is, hidden places within it included (the key's
        // directory under a shown `/etc`, say): hide those again, before the run's own
        // places (its project, its private directory) are shown within them.
        let within_shown: Vec<PathBuf> = all_hidden
            .iter()
            .filter(|hidden| {
                self.shown
                    .iter()
                    .any(|shown| hidden.starts_with(&shown.path) && **hidden != shown.path)
            })
            .cloned()
            .collect();
        for hidden in outermost(&within_shown) {
            hide(&mut options, hidden);
        }
        if let Some((project, writable)) = view.project {
            options.show_at(project, project, writable);
        }
        options.show_at(view.private_dir, view.private_dir, true);
        if let Some((file, place)) = view.resolv_conf {
            options.show_at(file, place, false);
        }
        if let Some(passwd) = view.passwd {
            options.add("--ro-bind", &[passwd, Path::new("/etc/passwd")]);
        }
        options.add("--chdir", &[cwd]);
        let mut args = options.0;
        args.extend(
            [
                "--unshare-pid",
                "--unshare-ipc",
                "--unshare-uts",
                "--die-with-parent",
                "--new-session",
            ]
            .map(str::to_owned),
        );
        match self.network {
            RunNetwork::Loopback => args.push("--unshare-net".to_owned()),
            RunNetwork::UserMode(ref network) if network.rootless => args.extend([
                "--unshare-user".to_owned(),
                "--uid".to_owned(),
                rustix::process::getuid().as_raw().to_string(),
                "--gid".to_owned(),
                rustix::process::getgid().as_raw().to_string(),
            ]),
            RunNetwork::UserMode(_) | RunNetwork::Host => {}
        }
        if self.hand_over().is_some() {
            args.extend([
                "--info-fd".to_owned(),
                INFO_FD.to_string(),
                "--block-fd".to_owned(),
                BLOCK_FD.to_string(),
            ]);
        }
        if self.run_as.is_some() {
            // bwrap drops every capability of a root sandbox; setpriv needs these two to
            // become the run user, and drops them (and every other) itself.
            args.extend(["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"].map(str::to_owned));
        }
        args
    }
}

/// bwrap's options, in order (a later mount covers an earlier one).
struct Options(Vec<String>);

impl Options {
    fn add(&mut self, option: &str, paths: &[&Path]) {
        self.0.push(option.to_owned());
        self.0
            .extend(paths.iter().map(|path| path.display().to_string()));
    }

    /// A tmpfs at `path`, capped at `size` bytes when given (bwrap's `--size` applies to the
    /// next `--tmpfs`).
    fn tmpfs(&mut self, path: &Path, size: Option<&str>) {
        if let Some(size) = size {
            self.add("--size", &[Path::new(size)]);
        }
        self.add("--tmpfs", &[path]);
    }

    /// The host's `source` at `path`.
    fn show_at(&mut self, source: &Path, path: &Path, writable: bool) {
        // Directories bwrap makes for a mount point inside an empty directory would be 0700
        // root's, closed to the run user: make them 0755 first (a no-op where they exist).
        let mut ancestors: Vec<&Path> = path.ancestors().skip(1).collect();
        ancestors.pop();
        for ancestor in ancestors.into_iter().rev() {
            self.add("--perms", &[Path::new("0755")]);
            self.add("--dir", &[ancestor]);
        }
        self.add(
            if writable { "--bind" } else { "--ro-bind" },
            &[source, path],
        );
    }
}

/// `passwd` (the text of `/etc/passwd`) with the home directory of `user` made `home`, the
/// run's private directory, and an entry for it when it has none: Ansible looks up the home
/// directory of the user it runs as (`~nobody` is `/nonexistent`) for its temporary files.
pub fn run_user_passwd(passwd: &str, user: RunUser, home: &Path) -> String {
    let home = home.display();
    let mut found = false;
    let mut text = String::with_capacity(passwd.len() + 64);
    for line in passwd.lines() {
        let mut fields: Vec<&str> = line.split(':').collect();
        let own = fields.len() == 7 && fields[2].parse() == Ok(user.uid);
        let home_field = home.to_string();
        if own && !found {
            found = true;
            fields[5] = &home_field;
            text.push_str(&fields.join(":"));
        } else {
            text.push_str(line);
        }
        text.push('\n');
    }
    if !found {
        text.push_str(&format!(
            "acs-run:x:{}:{}::{home}:/bin/sh\n",
            user.uid, user.gid
        ));
    }
    text
}

/// The paths of `paths` not inside another of them, outermost first: hiding a directory
/// hides everything under it, and a mount inside a hidden directory would be covered.
fn outermost(paths: &[PathBuf]) -> Vec<&Path> {
    let mut sorted: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    sorted.sort();
    sorted.dedup();
    let mut kept: Vec<&Path> = Vec::new();
    for path in sorted {
        if !kept.iter().any(|outer| path.starts_with(outer)) {
            kept.push(path);
        }
    }
    kept
}

/// The directory that holds `program` (a path, or a name looked up on `search_path`), so the
/// sandbox can show it even where it sits in a hidden directory.
pub fn program_directory(program: &str, search_path: &str) -> Option<PathBuf> {
    if program.contains('/') {
        return Path::new(program).parent().map(Path::to_owned);
    }
    std::env::split_paths(search_path)
        .find(|dir| dir.join(program).is_file())
        .map(|dir| std::fs::canonicalize(&dir).unwrap_or(dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// bwrap (installed by `scripts/setup-test-env.sh`) runs a shell whose background child
    /// would touch a marker after 2 s; a timeout must stop everything in the sandbox.
    #[test]
    fn a_timeout_stops_everything_in_the_sandbox() {
        let dir = tempfile::tempdir().expect("dir");
        let marker = dir.path().join("child-alive");
        let isolation = Isolation {
            bwrap: "bwrap".into(),
            hidden: vec![],
            temporary: vec![],
            shown: vec![],
            run_as: None,
            network: RunNetwork::Loopback,
            limits: Limits::default(),
            run: 1,
        };
        let view = RunView {
            private_dir: dir.path(),
            project: None,
            passwd: None,
            resolv_conf: None,
        };
        let script = format!(
            "(sleep 2; touch {}) & echo started; sleep 30",
            marker.display()
        );
        let step = Invocation {
            program: "/bin/sh".into(),
            args: vec!["-c".into(), script],
            cwd: dir.path().to_owned(),
            env: vec![("PATH".into(), "/usr/bin:/bin".into())],
            hand_over: None,
        };
        let output = dir.path().join("out");
        let ending = super::super::process::run(
            &isolation.wrap(&view, &step),
            &output,
            None,
            Some(std::time::Duration::from_millis(800)),
            std::time::Duration::from_millis(100),
            || false,
        )
        .expect("bwrap starts (is bubblewrap installed?)");
        assert_eq!(ending, super::super::process::Ending::TimedOut);
        assert_eq!(
            std::fs::read_to_string(&output).expect("output"),
            "started\n"
        );
        std::thread::sleep(std::time::Duration::from_millis(2500));
        assert!(
            !marker.exists(),
            "a process of the sandbox outlived the stop"
        );
    }

    #[test]
    fn an_isolated_network_comes_from_unshare_and_waits_for_the_server() {
        let dir = tempfile::tempdir().expect("dir");
        let network = |rootless| UserModeNetwork {
            slirp4netns: "/usr/bin/slirp4netns".into(),
            unshare: "/usr/bin/unshare".into(),
            nsenter: "/usr/bin/nsenter".into(),
            ip: "/usr/sbin/ip".into(),
            host_addresses: vec![],
            rootless,
        };
        let step = Invocation {
            program: "/bin/true".into(),
            args: vec![],
            cwd: dir.path().to_owned(),
            env: vec![],
            hand_over: None,
        };
        let view = RunView {
            private_dir: dir.path(),
            project: None,
            passwd: None,
            resolv_conf: None,
        };
        for rootless in [false, true] {
            let isolation = Isolation {
                bwrap: "/usr/bin/bwrap".into(),
                hidden: vec![],
                temporary: vec![],
                shown: vec![],
                run_as: None,
                network: RunNetwork::UserMode(network(rootless)),
                limits: Limits::default(),
                run: 1,
            };
            let wrapped = isolation.wrap(&view, &step);
            assert_eq!(wrapped.program, "/usr/bin/unshare");
            assert!(wrapped.hand_over.is_some());
            let args = wrapped.args.join(" ");
            let user = if rootless {
                "--user --map-root-user "
            } else {
                ""
            };
            assert!(
                args.starts_with(&format!("{user}--net -- /usr/bin/bwrap --ro-bind / /")),
                "{args}"
            );
            assert!(args.contains("--info-fd 3 --block-fd 4"), "{args}");
            assert!(!args.contains("--unshare-net"), "{args}");
            assert_eq!(args.contains("--unshare-user --uid "), rootless, "{args}");
        }
    }

    #[test]
    fn bwrap_s_own_complaint_is_told_from_the_run_s_output() {
        let said = "bwrap: Can't find source path /opt/venv: No such file or directory\n";
        assert_eq!(
            failure_of(said),
            Some("bwrap: Can't find source path /opt/venv: No such file or directory")
        );
        assert_eq!(failure_of("PLAY [all] ***\nbwrap: later\n"), None);
        assert_eq!(
            failure_of("unshare: unshare failed: Operation not permitted\n"),
            Some("unshare: unshare failed: Operation not permitted")
        );
        assert_eq!(failure_of(""), None);
    }

    /// An operator who shows a parent of a hidden place (`/srv` over the data directory and
    /// the key's directory) does not show what is hidden: it is hidden again after the shown
    /// mount, and the run's own private directory is shown after that.
    #[test]
    fn a_shown_parent_does_not_show_what_is_hidden_within_it() {
        let dir = tempfile::tempdir().expect("dir");
        let data = dir.path().join("srv/acs/data");
        let keys = dir.path().join("srv/acs/keys");
        let private = data.join("runs/run_1");
        std::fs::create_dir_all(&private).expect("private");
        std::fs::create_dir_all(&keys).expect("keys");
        let shown = dir.path().join("srv");
        let isolation = Isolation {
            bwrap: "bwrap".into(),
            hidden: vec![data.clone(), keys.clone()],
            temporary: vec![],
            shown: vec![ShownPath::parse(&shown.display().to_string()).expect("shown")],
            run_as: None,
            network: RunNetwork::Loopback,
            limits: Limits::default(),
            run: 1,
        };
        let view = RunView {
            private_dir: &private,
            project: None,
            passwd: None,
            resolv_conf: None,
        };
        let args = isolation.bwrap_arguments(&view, &private).join(" ");
        let last = |needle: &str| {
            args.rfind(needle)
                .unwrap_or_else(|| panic!("{needle} missing from {args}"))
        };
        let shown_mount = last(&format!("--ro-bind {0} {0}", shown.display()));
        for hidden in [&data, &keys] {
            assert!(
                last(&format!("--tmpfs {}", hidden.display())) > shown_mount,
                "{} hidden again after the shown parent: {args}",
                hidden.display()
            );
        }
        assert!(last(&format!("--bind {0} {0}", private.display())) > last("--tmpfs"));
    }

    #[test]
    fn shown_paths_parse_like_the_reference() {
        let shown = |entry| ShownPath::parse(entry);
        assert_eq!(
            shown("/etc/ssh"),
            Ok(ShownPath {
                path: "/etc/ssh".into(),
                writable: false
            })
        );
        assert_eq!(shown("/srv/cache:rw").map(|s| s.writable), Ok(true));
        assert_eq!(shown("/srv/cache:ro").map(|s| s.writable), Ok(false));
        for bad in ["relative", "", "/a:b:rw", "/a:x"] {
            assert!(shown(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn run_users_come_from_passwd_or_numbers_and_never_root() {
        let passwd = "root:x:0:0::/root:/bin/sh\nnobody:x:65534:65534::/nonexistent:/bin/false\n";
        let run = |spec| RunUser::resolve(spec, passwd);
        let nobody = RunUser {
            uid: 65534,
            gid: 65534,
        };
        assert_eq!(run("nobody"), Ok(nobody));
        assert_eq!(run("65534"), Ok(nobody));
        assert_eq!(
            run("1000:100"),
            Ok(RunUser {
                uid: 1000,
                gid: 100
            })
        );
        assert!(run("root").is_err());
        assert!(run("0").is_err());
        assert!(run("ghost").is_err());
    }

    #[test]
    fn the_run_user_lives_in_its_private_directory() {
        let passwd = "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n";
        let nobody = RunUser {
            uid: 65534,
            gid: 65534,
        };
        let home = Path::new("/data/runs/run_1");
        assert_eq!(
            run_user_passwd(passwd, nobody, home),
            "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/data/runs/run_1:/usr/sbin/nologin\n"
        );
        let stranger = RunUser {
            uid: 4242,
            gid: 4242,
        };
        assert!(
            run_user_passwd(passwd, stranger, home)
                .ends_with("\nacs-run:x:4242:4242::/data/runs/run_1:/bin/sh\n")
        );
    }

    #[test]
    fn hidden_directories_are_covered_outermost_first() {
        let paths: Vec<PathBuf> = ["/tmp/x/data", "/tmp", "/home", "/tmp/x", "/home"]
            .map(PathBuf::from)
            .to_vec();
        assert_eq!(
            outermost(&paths),
            vec![Path::new("/home"), Path::new("/tmp")]
        );
    }

    #[test]
    fn the_run_is_mounted_after_what_hides_it() {
        let dir = tempfile::tempdir().expect("dir");
        let private = dir.path().join("data/runs/run_1");
        let project = dir.path().join("projects/mine");
        std::fs::create_dir_all(&private).expect("private");
        std::fs::create_dir_all(&project).expect("project");
        let isolation = Isolation {
            bwrap: "bwrap".into(),
            hidden: vec![dir.path().join("data"), dir.path().join("projects")],
            temporary: vec!["/var/tmp".into()],
            shown: vec![ShownPath::parse("/opt/venv").expect("shown")],
            run_as: Some(RunUser {
                uid: 65534,
                gid: 65534,
            }),
            network: RunNetwork::Loopback,
            limits: Limits {
                tmpfs_bytes: Some(1 << 30),
                processes: Some(4096),
                process_cgroup: None,
                memory_bytes: None,
                cpu_seconds: Some(60),
                prlimit: "/usr/bin/prlimit".into(),
            },
            run: 1,
        };
        let passwd = private.join("passwd");
        let resolv_conf = private.join("resolv.conf");
        let view = RunView {
            private_dir: &private,
            project: Some((&project, false)),
            passwd: Some(&passwd),
            resolv_conf: Some((
                &resolv_conf,
                Path::new("/run/systemd/resolve/stub-resolv.conf"),
            )),
        };
        let step = Invocation {
            program: "ansible-playbook".into(),
            args: vec!["site.yml".into()],
            cwd: project.clone(),
            env: vec![],
            hand_over: None,
        };
        let wrapped = isolation.wrap(&view, &step);
        assert_eq!(wrapped.program, "/usr/bin/prlimit");
        let args = wrapped.args.join(" ");
        assert!(
            args.starts_with("--nproc=4096:4096 --cpu=60:60 -- bwrap --ro-bind / /"),
            "{args}"
        );
        let size = 1u64 << 30;
        assert!(
            args.contains(&format!("--perms 1777 --size {size} --tmpfs /var/tmp")),
            "{args}"
        );
        assert!(
            args.contains(&format!("--perms 1777 --size {size} --tmpfs /dev/shm")),
            "{args}"
        );
        assert!(
            args.contains(&format!(
                "--size {HIDDEN_TMPFS_BYTES} --tmpfs {}",
                dir.path().join("data").display()
            )),
            "{args}"
        );
        let position = |needle: &str| {
            args.find(needle)
                .unwrap_or_else(|| panic!("{needle} missing from {args}"))
        };
        let data = format!("--tmpfs {}", dir.path().join("data").display());
        let mine = format!("--ro-bind {0} {0}", project.display());
        let run = format!("--bind {0} {0}", private.display());
        assert!(position(&data) < position(&run));
        assert!(position("--tmpfs") < position(&mine));
        assert!(position("--ro-bind /opt/venv /opt/venv") < position(&run));
        assert!(
            args.ends_with("-- setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all -- ansible-playbook site.yml"),
            "{args}"
        );
        for option in [
            "--unshare-pid",
            "--unshare-net",
            "--die-with-parent",
            "--new-session",
        ] {
            position(option);
        }
        let resolver = format!(
            "--ro-bind {} /run/systemd/resolve/stub-resolv.conf",
            resolv_conf.display()
        );
        assert!(position("--dir /run/systemd/resolve") < position(&resolver));
    }
}

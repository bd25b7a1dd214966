//! Putting a prepared run in its sandbox: the `jobs` settings and the server's configuration
//! decide what the run must not see ([`sandbox::Isolation`]), and `execute_steps` tells
//! bwrap's own failure from the run's (`sandbox::failure_of`).
//! Isolation on and the sandbox unusable ends the run as `error`: a run never starts
//! unsandboxed unless a superuser turned isolation off.

use std::path::{Path, PathBuf};

use acs_app::secret_key::KeyFiles;
use acs_storage::Database;
use acs_storage::unified_jobs::UnifiedJob;

use super::cgroup;
use super::network::{self, NetworkMode, UserModeNetwork};
use super::private_dir::PrivateDir;
use super::process::Invocation;
use super::sandbox::{
    Isolation, Limits, RunNetwork, RunUser, RunView, ShownPath, program_directory, run_user_passwd,
};
use super::{Explained, Prepared, ProjectAccess};
use crate::Host;
use acs_app::settings::Settings;

/// The host directories every run sees empty besides the server's own files: home
/// directories, system logs, and the runtime directories, which hold the host's unix
/// sockets (PostgreSQL's, D-Bus, a user's systemd manager; `/var/run` is `/run` resolved).
const ALWAYS_HIDDEN: &[&str] = &["/home", "/root", "/var/log", "/run", "/var/run"];
/// The resolver configuration, often a link into `/run`.
const RESOLV_CONF: &str = "/etc/resolv.conf";
/// The shared temporary directories: each run has empty ones of its own instead.
const TEMPORARY: &[&str] = &["/tmp", "/var/tmp"];

/// `prepared` with every step wrapped in the sandbox (or as it is, isolation being off).
pub fn apply(
    host: &dyn Host,
    settings: &Settings,
    row: &UnifiedJob,
    dir: &PrivateDir,
    mut prepared: Prepared,
) -> Result<Prepared, Explained> {
    let search_path = std::env::var("PATH").unwrap_or_default();
    for step in &prepared.steps {
        if !runnable(&step.program, &search_path) {
            return Err(Explained::new(format!(
                "{} cannot be run: no such executable file{}.",
                step.program,
                if step.program.contains('/') {
                    ""
                } else {
                    " on the server's PATH"
                }
            )));
        }
    }
    if settings.value("JOB_ISOLATION_ENABLED").as_bool() == Some(false) {
        tracing::warn!(
            run = row.id,
            "JOB_ISOLATION_ENABLED is off: this run is not sandboxed and sees everything the server sees"
        );
        return Ok(prepared);
    }
    let isolation = isolation(host, settings, row, &prepared.steps, &search_path)?;
    if matches!(isolation.network, RunNetwork::Host) {
        tracing::warn!(
            run = row.id,
            "JOB_ISOLATION_NETWORK is \"host\": this run shares the server's network and reaches every service listening on the host"
        );
    }
    let resolv_conf = run_resolv_conf(&isolation, dir)?;
    let passwd = dir.path().join("passwd");
    if let Some(user) = isolation.run_as {
        let host_passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
        dir.write_file(&passwd, &run_user_passwd(&host_passwd, user, dir.path()))?;
        hand_over(dir.path(), user)?;
        match &prepared.project {
            Some((project, ProjectAccess::Requirements)) => {
                // A local project's update installs into these two; the rest of the project
                // stays the owner's.
                for target in ["collections", "roles"] {
                    let path = project.join(target);
                    std::fs::create_dir_all(&path)?;
                    hand_over(&path, user)?;
                }
            }
            // A git project's directory is ACS's, filled from the repository by its updates.
            Some((project, ProjectAccess::Checkout)) => hand_over(project, user)?,
            _ => {}
        }
    }
    let view = RunView {
        private_dir: dir.path(),
        project: prepared
            .project
            .as_ref()
            .map(|(path, access)| (path.as_path(), access.writable())),
        passwd: isolation.run_as.map(|_| passwd.as_path()),
        resolv_conf: resolv_conf
            .as_ref()
            .map(|(file, place)| (file.as_path(), place.as_path())),
    };
    prepared.steps = prepared
        .steps
        .iter()
        .map(|step| isolation.wrap(&view, step))
        .collect();
    prepared.sandboxed = true;
    Ok(prepared)
}

/// Whether `program` names an executable file, as a path or on `search_path`.
fn runnable(program: &str, search_path: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let executable = |path: &Path| {
        std::fs::metadata(path)
            .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        return executable(Path::new(program));
    }
    std::env::split_paths(search_path).any(|dir| executable(&dir.join(program)))
}

/// The isolation of runs under the current settings.
fn isolation(
    host: &dyn Host,
    settings: &Settings,
    row: &UnifiedJob,
    steps: &[Invocation],
    search_path: &str,
) -> Result<Isolation, Explained> {
    let mut hidden: Vec<PathBuf> = vec![
        host.data_dir().to_owned(),
        PathBuf::from(settings.text("PROJECTS_ROOT")),
    ];
    // The key files that exist now, and their directory when it is one of its own (two levels
    // deep at least: `/etc/acs`, never `/etc`), so that a next key written there while the run
    // goes on (a rotation) stays hidden too; the default place, the data directory, is hidden
    // whole anyway.
    hidden.extend(KeyFiles::new(host.secret_key_file()).every_path());
    if let Some(key_dir) = key_directory(host.secret_key_file()) {
        hidden.push(key_dir);
    }
    if let Database::Sqlite(file) = host.database() {
        // Its side files hold recent pages (password hashes among them). They exist while
        // the server holds the database open in WAL mode; a rollback journal exists only
        // during a write, and is hidden when a run starts during one.
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let mut side = file.clone().into_os_string();
            side.push(suffix);
            hidden.push(side.into());
        }
    }
    for own in ["HOME", "XDG_RUNTIME_DIR"] {
        if let Some(dir) = std::env::var_os(own) {
            hidden.push(dir.into());
        }
    }
    hidden.extend(ALWAYS_HIDDEN.iter().map(PathBuf::from));
    let mut temporary: Vec<PathBuf> = TEMPORARY.iter().map(PathBuf::from).collect();
    temporary.push(std::env::temp_dir());
    // Resolved, so a symbolic link cannot keep a hidden place visible; never `/` itself.
    let resolved = |paths: Vec<PathBuf>| -> Vec<PathBuf> {
        paths
            .iter()
            .filter_map(|path| std::fs::canonicalize(path).ok())
            .filter(|path| path != Path::new("/"))
            .collect()
    };
    let (hidden, temporary) = (resolved(hidden), resolved(temporary));
    let mut shown = Vec::new();
    if let Some(entries) = settings.value("JOB_ISOLATION_SHOW_PATHS").as_array() {
        for entry in entries.iter().filter_map(|entry| entry.as_str()) {
            shown.push(ShownPath::parse(entry).map_err(Explained::new)?);
        }
    }
    for step in steps {
        if let Some(path) = program_directory(&step.program, search_path) {
            shown.push(ShownPath {
                path,
                writable: false,
            });
        }
    }
    let run_as = if rustix::process::geteuid().is_root() {
        let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
        let spec = settings.text("JOB_ISOLATION_RUN_AS");
        Some(RunUser::resolve(&spec, &passwd).map_err(Explained::new)?)
    } else {
        None
    };
    let bwrap = settings.text("JOB_ISOLATION_BWRAP_PATH");
    // Checked here: started through `unshare`, a missing bwrap would look like a run that
    // failed.
    if !runnable(&bwrap, search_path) {
        return Err(Explained::new(format!(
            "The run's sandbox could not start, and JOB_ISOLATION_ENABLED forbids running without it: {bwrap} cannot be run (no such executable file)."
        )));
    }
    Ok(Isolation {
        bwrap: absolute(&bwrap, search_path),
        hidden,
        temporary,
        shown,
        run_as,
        network: run_network(settings, search_path)?,
        limits: limits(settings, search_path)?,
        run: row.id,
    })
}

/// What a run's output says when it met a sandbox limit, and the setting that sets it.
const LIMIT_SIGNS: &[(&str, &[&str], &str)] = &[
    (
        "JOB_ISOLATION_TMPFS_MB",
        &["No space left on device"],
        "an in-memory directory (/tmp, /var/tmp, /dev/shm) was full: each may hold {} MiB",
    ),
    (
        "JOB_ISOLATION_MAX_PROCESSES",
        &[
            "Resource temporarily unavailable",
            "Cannot fork",
            "can't fork",
        ],
        "no more processes could start: the run may have {} processes and threads",
    ),
    (
        "JOB_ISOLATION_MEMORY_MB",
        &["Cannot allocate memory", "MemoryError", "out of memory"],
        "an allocation failed: each process may use {} MiB of data memory",
    ),
    (
        "JOB_ISOLATION_CPU_SECONDS",
        &["CPU time limit exceeded"],
        "a process used all its CPU time: {} seconds",
    ),
];

/// The explanation of a failed sandboxed run whose output (`said`: stdout, stderr) shows a
/// sandbox limit met, naming the limit and its setting: the run's own words say what failed,
/// this says why.
pub(crate) fn limit_reached<'a>(
    settings: &Settings,
    said: impl Iterator<Item = &'a str> + Clone,
) -> Option<String> {
    LIMIT_SIGNS.iter().find_map(|(setting, signs, what)| {
        let limit = settings
            .value(setting)
            .as_i64()
            .filter(|limit| *limit > 0)?;
        said.clone()
            .any(|text| signs.iter().any(|sign| text.contains(sign)))
            .then(|| {
                format!(
                    "The run reached a limit of its sandbox: {} ({setting}).",
                    what.replace("{}", &limit.to_string())
                )
            })
    })
}

/// The resource limits of runs under the current settings (0: none).
fn limits(settings: &Settings, search_path: &str) -> Result<Limits, Explained> {
    const MIB: u64 = 1 << 20;
    let positive = |name: &str| {
        u64::try_from(settings.value(name).as_i64().unwrap_or(0))
            .ok()
            .filter(|value| *value > 0)
    };
    let processes = positive("JOB_ISOLATION_MAX_PROCESSES");
    // A cgroup of the run's own where the host gives one; else the run user's RLIMIT_NPROC.
    let process_cgroup = processes.and_then(|limit| Some((cgroup::runs_parent()?, limit)));
    let limits = Limits {
        tmpfs_bytes: positive("JOB_ISOLATION_TMPFS_MB").map(|mib| mib * MIB),
        processes: processes.filter(|_| process_cgroup.is_none()),
        process_cgroup,
        memory_bytes: positive("JOB_ISOLATION_MEMORY_MB").map(|mib| mib * MIB),
        cpu_seconds: positive("JOB_ISOLATION_CPU_SECONDS"),
        prlimit: absolute("prlimit", search_path),
    };
    let limited =
        limits.processes.is_some() || limits.memory_bytes.is_some() || limits.cpu_seconds.is_some();
    if limited && !runnable("prlimit", search_path) {
        return Err(Explained::new(
            "The run's sandbox could not start, and JOB_ISOLATION_ENABLED forbids running without it: prlimit (util-linux), which sets the JOB_ISOLATION_MAX_PROCESSES, JOB_ISOLATION_MEMORY_MB and JOB_ISOLATION_CPU_SECONDS limits, cannot be run.",
        ));
    }
    Ok(limits)
}

/// The network of runs under the current settings; the user-mode stack's programs must be
/// there, or the run ends before it starts (never on the host's network instead).
fn run_network(settings: &Settings, search_path: &str) -> Result<RunNetwork, Explained> {
    Ok(
        match NetworkMode::from_setting(&settings.text("JOB_ISOLATION_NETWORK")) {
            NetworkMode::Host => RunNetwork::Host,
            NetworkMode::None => RunNetwork::Loopback,
            NetworkMode::Isolated => {
                let slirp4netns = settings.text("JOB_ISOLATION_SLIRP4NETNS_PATH");
                for program in [slirp4netns.as_str(), "unshare", "nsenter", "ip"] {
                    if !runnable(program, search_path) {
                        return Err(Explained::new(format!(
                            "The run's network could not be made: {program} cannot be run (no such executable file). JOB_ISOLATION_NETWORK \"isolated\" needs slirp4netns (Debian package slirp4netns), unshare and nsenter (util-linux) and ip (iproute2); \"none\" runs without a network."
                        )));
                    }
                }
                RunNetwork::UserMode(UserModeNetwork {
                    slirp4netns: absolute(&slirp4netns, search_path),
                    unshare: absolute("unshare", search_path),
                    nsenter: absolute("nsenter", search_path),
                    ip: absolute("ip", search_path),
                    host_addresses: network::host_addresses(),
                    rootless: !rustix::process::geteuid().is_root(),
                })
            }
        },
    )
}

/// The resolver configuration the run sees, written in its private directory, and where it
/// goes: when `/etc/resolv.conf` leads into a hidden directory (`/run/systemd/resolve`), or
/// names a stub resolver on the host's loopback that the run's own network cannot reach.
/// `None`: the host's file serves as it is.
fn run_resolv_conf(
    isolation: &Isolation,
    dir: &PrivateDir,
) -> Result<Option<(PathBuf, PathBuf)>, Explained> {
    let (Ok(text), Ok(place)) = (
        std::fs::read_to_string(RESOLV_CONF),
        std::fs::canonicalize(RESOLV_CONF),
    ) else {
        return Ok(None);
    };
    let replaced = match isolation.network {
        RunNetwork::UserMode(_) => network::resolv_conf_for_run(&text),
        RunNetwork::Host | RunNetwork::Loopback => None,
    };
    let in_hidden = isolation
        .hidden
        .iter()
        .chain(&isolation.temporary)
        .any(|hidden| place.starts_with(hidden));
    if replaced.is_none() && !in_hidden {
        return Ok(None);
    }
    let file = dir.path().join("resolv.conf");
    dir.write_file(&file, replaced.as_deref().unwrap_or(&text))?;
    Ok(Some((file, place)))
}

/// The directory of the key file, resolved, when it is at least two levels below `/`.
fn key_directory(key_file: &Path) -> Option<PathBuf> {
    let dir = std::fs::canonicalize(key_file.parent()?).ok()?;
    (dir.components().count() >= 3).then_some(dir)
}

/// `program` as a path: a bare name found on `search_path` becomes that file's path (else
/// it stays as it is, and starting it fails with the name). Started by path, a process is
/// spawned without copying the server's memory map: given a bare name and its own `PATH`,
/// the standard library forks the whole server (measured: 39% of the machine in the run
/// threads' `fork` during a launch bench).
fn absolute(program: &str, search_path: &str) -> String {
    match program_directory(program, search_path) {
        Some(dir) if !program.contains('/') => dir.join(program).display().to_string(),
        _ => program.to_owned(),
    }
}

/// Gives `path` and everything under it to the run user.
fn hand_over(path: &Path, user: RunUser) -> std::io::Result<()> {
    std::os::unix::fs::lchown(path, Some(user.uid), Some(user.gid))?;
    if std::fs::symlink_metadata(path)?.is_dir() {
        for entry in std::fs::read_dir(path)? {
            hand_over(&entry?.path(), user)?;
        }
    }
    Ok(())
}

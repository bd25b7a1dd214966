//! Git repositories for the git project tests: a bare repository with commits made by the
//! test, served by a real `git daemon` on a test host (a network namespace of its own, where
//! a run reaches it as it would a git server elsewhere).

use std::path::Path;
use std::process::Command;

use crate::netns::TestHost;

/// Runs git in `dir` as the repository's author; returns its standard output.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args([
            "-c",
            "user.name=Author",
            "-c",
            "user.email=author@example.com",
        ])
        .args(["-c", "init.defaultBranch=main", "-c", "safe.directory=*"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(output.status.success(), "git {args:?}: {output:?}");
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// Commits `content` as `file` on the work tree's current branch and pushes it; returns the
/// commit.
pub fn commit(work: &Path, file: &str, content: &str, message: &str) -> String {
    std::fs::write(work.join(file), content).expect("a file");
    git(work, &["add", "."]);
    git(work, &["commit", "--quiet", "-m", message]);
    git(work, &["push", "--quiet", "origin", "HEAD"]);
    git(work, &["rev-parse", "HEAD"])
}

/// A git daemon serving `base` on the test host, stopped on drop.
#[derive(Debug)]
pub struct Daemon(pub std::process::Child);

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Serves the repositories under `base` on the test host's port 9418 (`git://<address>/<name>`),
/// once it listens.
pub fn serve(host: &TestHost, base: &Path) -> Daemon {
    let base = base.display().to_string();
    let listen = format!("--listen={}", host.address);
    let base_path = format!("--base-path={base}");
    let daemon = Daemon(host.spawn(
        "git",
        &[
            "daemon",
            "--reuseaddr",
            "--export-all",
            "--informative-errors",
            &listen,
            &base_path,
            &base,
        ],
    ));
    let started = std::time::Instant::now();
    while std::net::TcpStream::connect((host.address, 9418)).is_err() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "git daemon never listened"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    daemon
}

/// A bare repository `name` under `repositories` holding `site.yml` (`playbook`) on `main`;
/// the work tree it was committed from and the commit.
pub fn repository_with_playbook(
    repositories: &Path,
    name: &str,
    playbook: &str,
) -> (tempfile::TempDir, String) {
    let bare = repositories.join(name);
    std::fs::create_dir(&bare).expect("the bare repository");
    git(&bare, &["init", "--quiet", "--bare"]);
    let work = tempfile::tempdir().expect("a work tree");
    git(
        work.path(),
        &["clone", "--quiet", &bare.display().to_string(), "."],
    );
    let first = commit(work.path(), "site.yml", playbook, "first");
    (work, first)
}

/// A new SSH key pair `name` in `dir` (ed25519, encrypted with `passphrase` unless it is
/// empty): the private key's text and the public key's line.
pub fn key_pair(dir: &Path, name: &str, passphrase: &str) -> (String, String) {
    let private = dir.join(name);
    let made = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-C", name, "-N", passphrase, "-f"])
        .arg(&private)
        .status()
        .expect("ssh-keygen (openssh-client) runs");
    assert!(made.success(), "ssh-keygen made no key");
    let read = |path: &Path| std::fs::read_to_string(path).expect("a key file");
    (read(&private), read(&private.with_extension("pub")))
}

/// A real `sshd` on the test host's port 2222 with a host key of its own in `dir`, letting in
/// whoever holds a key listed in `authorized_keys` (the tests log in as the user they run as,
/// whose shell runs `git-upload-pack`), once it listens; stopped on drop.
pub fn serve_ssh(host: &TestHost, dir: &Path, authorized_keys: &str) -> Daemon {
    let sshd = Path::new("/usr/sbin/sshd");
    assert!(
        sshd.exists(),
        "/usr/sbin/sshd is missing: scripts/setup-test-env.sh installs openssh-server"
    );
    // Where sshd's unprivileged child confines itself; the package makes it at boot.
    std::fs::create_dir_all("/run/sshd").expect("/run/sshd");
    key_pair(dir, "host_key", "");
    let authorized = dir.join("authorized_keys");
    std::fs::write(&authorized, authorized_keys).expect("authorized_keys");
    let config = dir.join("sshd_config");
    std::fs::write(
        &config,
        format!(
            "Port 2222\nListenAddress {}\nHostKey {}\nAuthorizedKeysFile {}\nPidFile none\n\
             UsePAM no\nStrictModes no\nPasswordAuthentication no\n\
             KbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\n",
            host.address,
            dir.join("host_key").display(),
            authorized.display()
        ),
    )
    .expect("sshd_config");
    let config = config.display().to_string();
    let daemon = Daemon(host.spawn("/usr/sbin/sshd", &["-D", "-e", "-f", &config]));
    let started = std::time::Instant::now();
    while std::net::TcpStream::connect((host.address, 2222)).is_err() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "sshd never listened"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    daemon
}

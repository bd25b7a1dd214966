//! A git project's update, before its requirements: fetch the repository into the project's
//! own directory (`_<id>__<name>` under `PROJECTS_ROOT`) and check out what the project
//! names, each step a `git` process inside the run's sandbox and network.
//!
//! The same steps serve the first update and every later one: `git init` (a no-op on a
//! checkout), the remote's URL set, a forced fetch of the branches, the tags, the remote's
//! `HEAD` and the project's refspec, then a detached checkout of `scm_branch` (a branch of the
//! remote, a tag or a commit; empty: the remote's `HEAD`). Local changes never survive an
//! update (`checkout --force`); `scm_clean` also removes the untracked files, and
//! `scm_delete_on_update` starts from an empty directory. Submodules follow, at their
//! recorded commits or, with `scm_track_submodules`, at the head of their branch. Every value reaches git as an
//! argument of its own, never through a shell's parsing, and the API refuses branches and
//! URLs that would read as options.
//!
//! A project's Source Control credential reaches git through the run's private directory
//! (files 0600): an askpass program answers git's username and password prompts and ssh's
//! key passphrase prompt from files beside it, and ssh reads the key from there
//! (`GIT_SSH_COMMAND`). A secret is never in the URL, the command line, the environment or
//! the project.

use std::path::{Path, PathBuf};

use acs_storage::projects::Project;

use super::Explained;
use super::credentials::OpenedCredential;
use super::private_dir::PrivateDir;
use super::process::Invocation;

/// What an update fetches besides the project's refspec: every branch, every tag (`--tags`)
/// and the remote's default branch.
const FETCHED: [&str; 2] = [
    "+refs/heads/*:refs/remotes/origin/*",
    "+HEAD:refs/remotes/origin/HEAD",
];

/// Checks out `$1`: the remote's branch of that name if there is one, else `$1` itself (a
/// tag or a commit), else the remote's `HEAD` when `$1` is empty. `$1` is data to the shell,
/// never code.
const CHECKOUT: &str = r#"set -e
target="${1:-refs/remotes/origin/HEAD}"
if [ -n "$1" ] && git rev-parse --quiet --verify "refs/remotes/origin/$1^{commit}" >/dev/null; then
  target="refs/remotes/origin/$1"
fi
git checkout --quiet --force --detach "$target"
"#;

/// The project's directory, made ready for the steps: emptied first when the project says
/// so, made when missing.
pub fn directory(project: &Project, projects_root: &Path) -> Result<PathBuf, Explained> {
    if project.local_path.is_empty() {
        return Err(Explained::new("The git project has no directory."));
    }
    let dir = projects_root.join(&project.local_path);
    if project.scm_delete_on_update && dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|error| {
            Explained::new(format!(
                "The project directory {} could not be emptied: {error}",
                dir.display()
            ))
        })?;
    }
    std::fs::create_dir_all(&dir).map_err(|error| {
        Explained::new(format!(
            "The project directory {} could not be made: {error}",
            dir.display()
        ))
    })?;
    Ok(dir)
}

/// The environment git runs with, besides the run's own: no prompt for a password (an update
/// has no terminal), no system-wide configuration, the checkout trusted whoever owns it (the
/// run user does, once the sandbox handed it over), and ssh confined to what the project's
/// credential gives it ([`ssh_command`]).
pub fn environment() -> Vec<(String, String)> {
    [
        ("GIT_TERMINAL_PROMPT", "0"),
        ("GIT_CONFIG_NOSYSTEM", "1"),
        ("GIT_CONFIG_COUNT", "1"),
        ("GIT_CONFIG_KEY_0", "safe.directory"),
        ("GIT_CONFIG_VALUE_0", "*"),
    ]
    .map(|(name, value)| (name.to_owned(), value.to_owned()))
    .into_iter()
    .chain([("GIT_SSH_COMMAND".to_owned(), ssh_command(None, None))])
    .collect()
}

/// Quotes `text` as one word for the shell git runs `GIT_SSH_COMMAND` with.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The ssh command git runs for `ssh://` and `user@host:path` URLs: no configuration file,
/// agent or default key of the run user's, no password or keyboard prompt (only a key
/// passphrase, from the askpass program), and the server's host key accepted without a
/// `known_hosts` (as the reference's updates do: its credentials carry no host key). With a
/// credential, its key and its username (which, as in the reference, replaces the URL's).
fn ssh_command(key: Option<&Path>, username: Option<&str>) -> String {
    let mut command = "ssh -F /dev/null -o IdentityAgent=none -o StrictHostKeyChecking=no \
         -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o PasswordAuthentication=no \
         -o KbdInteractiveAuthentication=no -o NumberOfPasswordPrompts=1"
        .to_owned();
    match key {
        Some(key) => {
            command.push_str(" -o IdentitiesOnly=yes -i ");
            command.push_str(&quoted(&key.display().to_string()));
        }
        None => command.push_str(" -o PubkeyAuthentication=no"),
    }
    if let Some(username) = username {
        command.push_str(" -l ");
        command.push_str(&quoted(username));
    }
    command
}

/// Writes what lets git authenticate with `credential` into `env_dir` of `dir`: an askpass
/// program answering git's username and password prompts (HTTPS) and ssh's passphrase prompt
/// from files beside it, and the credential's SSH key; returns the environment that points
/// git and ssh at them.
pub fn authentication(
    dir: &PrivateDir,
    env_dir: &Path,
    credential: &OpenedCredential,
) -> Result<Vec<(String, String)>, Explained> {
    let write = |name: &str, value: &str| -> Result<PathBuf, Explained> {
        let path = env_dir.join(name);
        dir.write_file(&path, value)?;
        Ok(path)
    };
    let username = write(
        "git_username",
        credential.text("username").unwrap_or_default(),
    )?;
    let password = write(
        "git_password",
        credential.text("password").unwrap_or_default(),
    )?;
    let passphrase = write(
        "ssh_key_passphrase",
        credential.text("ssh_key_unlock").unwrap_or_default(),
    )?;
    let file = |path: &Path| quoted(&path.display().to_string());
    let script = format!(
        "#!/bin/sh\ncase \"$1\" in\n  Username*) exec cat {} ;;\n  *passphrase*) exec cat {} ;;\n  *) exec cat {} ;;\nesac\n",
        file(&username),
        file(&passphrase),
        file(&password)
    );
    let askpass = write("git_askpass", &script)?;
    std::fs::set_permissions(
        &askpass,
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )?;
    let key = match credential.text("ssh_key_data") {
        // ssh refuses a key whose last line has no end.
        Some(key) if key.ends_with('\n') => Some(write("ssh_key", key)?),
        Some(key) => Some(write("ssh_key", &format!("{key}\n"))?),
        None => None,
    };
    let askpass = askpass.display().to_string();
    Ok(vec![
        ("GIT_ASKPASS".to_owned(), askpass.clone()),
        ("SSH_ASKPASS".to_owned(), askpass),
        ("SSH_ASKPASS_REQUIRE".to_owned(), "force".to_owned()),
        (
            "GIT_SSH_COMMAND".to_owned(),
            ssh_command(key.as_deref(), credential.text("username")),
        ),
    ])
}

/// The steps that bring `dir` to the commit `project` names, with `env` as their environment.
pub fn steps(project: &Project, dir: &Path, env: &[(String, String)]) -> Vec<Invocation> {
    let git = |args: &[&str]| Invocation {
        program: "git".to_owned(),
        args: args.iter().map(|arg| (*arg).to_owned()).collect(),
        cwd: dir.to_path_buf(),
        env: env.to_vec(),
        hand_over: None,
    };
    let mut fetch = vec!["fetch", "--force", "--prune", "--tags", "origin"];
    fetch.extend(FETCHED);
    if !project.scm_refspec.is_empty() {
        fetch.push(&project.scm_refspec);
    }
    let mut steps = vec![
        git(&["init", "--quiet", "."]),
        git(&["config", "remote.origin.url", &project.scm_url]),
        git(&fetch),
        checkout(dir, &project.scm_branch, env),
    ];
    if project.scm_clean {
        steps.push(git(&["clean", "--force", "--force", "-d", "--quiet"]));
    }
    // Submodules come with the checkout, as with the reference's `git` module (`recursive`):
    // at the commit the repository records, or the head of their branch when tracked. Their
    // URLs follow `.gitmodules` as this commit has it; git's own rule keeps them off `file:`.
    steps.push(git(&["submodule", "sync", "--recursive", "--quiet"]));
    let mut submodules = vec!["submodule", "update", "--init", "--recursive", "--force"];
    if project.scm_track_submodules {
        submodules.push("--remote");
    }
    submodules.push("--quiet");
    steps.push(git(&submodules));
    steps.push(git(&[
        "--no-pager",
        "log",
        "-1",
        "--format=Checked out %H: %s",
    ]));
    steps
}

/// The step that checks `branch` (a branch of the remote, a tag or a commit; empty: the
/// remote's `HEAD`) out in the checkout `dir`, from what was fetched: an update's, or a job's
/// copy of its project when its template or launch runs another branch (`allow_override`).
pub fn checkout(dir: &Path, branch: &str, env: &[(String, String)]) -> Invocation {
    Invocation {
        program: "sh".to_owned(),
        args: vec![
            "-c".to_owned(),
            CHECKOUT.to_owned(),
            "checkout".to_owned(),
            branch.to_owned(),
        ],
        cwd: dir.to_path_buf(),
        env: env.to_vec(),
        hand_over: None,
    }
}

/// The commit checked out in `dir` (the steps leave `HEAD` detached, so `.git/HEAD` holds
/// it), if it is one.
pub fn revision(dir: &Path) -> Option<String> {
    let head = std::fs::read_to_string(dir.join(".git").join("HEAD")).ok()?;
    let head = head.trim();
    let commit = matches!(head.len(), 40 | 64) && head.bytes().all(|b| b.is_ascii_hexdigit());
    commit.then(|| head.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(branch: &str, refspec: &str, clean: bool) -> Project {
        Project {
            scm_type: "git".into(),
            scm_url: "git://10.0.0.2/site".into(),
            scm_branch: branch.into(),
            scm_refspec: refspec.into(),
            scm_clean: clean,
            local_path: "_7__site".into(),
            ..Project::default()
        }
    }

    #[test]
    fn the_branch_and_refspec_are_arguments_of_their_own() {
        let steps = steps(
            &project("release", "+refs/pull/*:refs/remotes/origin/pull/*", true),
            Path::new("/projects/_7__site"),
            &[],
        );
        let programs: Vec<(&str, &str)> = steps
            .iter()
            .map(|step| (step.program.as_str(), step.args[0].as_str()))
            .collect();
        assert_eq!(
            programs,
            [
                ("git", "init"),
                ("git", "config"),
                ("git", "fetch"),
                ("sh", "-c"),
                ("git", "clean"),
                ("git", "submodule"),
                ("git", "submodule"),
                ("git", "--no-pager")
            ]
        );
        assert!(!steps[6].args.contains(&"--remote".to_owned()));
        assert_eq!(steps[1].args[2], "git://10.0.0.2/site");
        assert_eq!(
            steps[2].args.last().map(String::as_str),
            Some("+refs/pull/*:refs/remotes/origin/pull/*")
        );
        assert_eq!(steps[3].args[2..], ["checkout", "release"]);
        let tracked = Project {
            scm_track_submodules: true,
            ..project("", "", false)
        };
        let tracked = super::steps(&tracked, Path::new("/p"), &[]);
        assert!(
            tracked[5].args.contains(&"--remote".to_owned()),
            "{:?}",
            tracked[5].args
        );
        let unclean = super::steps(&project("", "", false), Path::new("/p"), &[]);
        assert!(!unclean.iter().any(|step| step.args[0] == "clean"));
        assert_eq!(
            unclean[2].args.len(),
            7,
            "no refspec: {:?}",
            unclean[2].args
        );
    }

    #[test]
    fn ssh_takes_only_the_credentials_key_and_name_as_words_of_their_own() {
        let bare = ssh_command(None, None);
        assert!(bare.contains("-o PubkeyAuthentication=no"), "{bare}");
        assert!(bare.contains("-F /dev/null") && bare.contains("IdentityAgent=none"));
        let keyed = ssh_command(Some(Path::new("/runs/r'1/env/ssh_key")), Some("git; rm"));
        assert!(
            keyed.ends_with(r" -o IdentitiesOnly=yes -i '/runs/r'\''1/env/ssh_key' -l 'git; rm'"),
            "{keyed}"
        );
        assert!(!keyed.contains("PubkeyAuthentication=no"));
    }

    #[test]
    fn the_revision_is_a_detached_heads_commit() {
        let dir = tempfile::tempdir().expect("a directory");
        std::fs::create_dir(dir.path().join(".git")).expect(".git");
        let head = dir.path().join(".git/HEAD");
        let commit = "0123456789abcdef0123456789abcdef01234567";
        std::fs::write(&head, format!("{commit}\n")).expect("HEAD");
        assert_eq!(revision(dir.path()).as_deref(), Some(commit));
        std::fs::write(&head, "ref: refs/heads/main\n").expect("HEAD");
        assert_eq!(revision(dir.path()), None);
    }
}

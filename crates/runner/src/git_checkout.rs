//! A git project's update, before its requirements: fetch the repository into the project's
//! own directory (`_<id>__<name>` under `PROJECTS_ROOT`) and check out what the project
//! names, each step a `git` process inside the run's sandbox and network.
//!
//! The same steps serve the first update and every later one: `git init` (a no-op on a
//! checkout), the remote's URL set, a forced fetch of the branches, the tags, the remote's
//! `HEAD` and the project's refspec, then a detached checkout of `scm_branch` (a branch of the
//! remote, a tag or a commit; empty: the remote's `HEAD`). Local changes never survive an
//! update (`checkout --force`); `scm_clean` also removes the untracked files, and
//! `scm_delete_on_update` starts from an empty directory. Every value reaches git as an
//! argument of its own, never through a shell's parsing, and the API refuses branches and
//! URLs that would read as options.
//!
//! A project's Source Control credential reaches git through an askpass program in the run's
//! private directory, which answers git's username and password prompts from two files
//! beside it (0600): never in the URL, the command line, the environment or the project.

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
/// has no terminal), no system-wide configuration, and the checkout trusted whoever owns it
/// (the run user does, once the sandbox handed it over).
pub fn environment() -> [(String, String); 5] {
    [
        ("GIT_TERMINAL_PROMPT", "0"),
        ("GIT_CONFIG_NOSYSTEM", "1"),
        ("GIT_CONFIG_COUNT", "1"),
        ("GIT_CONFIG_KEY_0", "safe.directory"),
        ("GIT_CONFIG_VALUE_0", "*"),
    ]
    .map(|(name, value)| (name.to_owned(), value.to_owned()))
}

/// Writes what lets git authenticate with `credential` (its username, and its password or
/// token) into `env_dir` of `dir`; returns the environment that points git at it.
pub fn authentication(
    dir: &PrivateDir,
    env_dir: &Path,
    credential: &OpenedCredential,
) -> Result<Vec<(String, String)>, Explained> {
    let answer = |name: &str, value: Option<&str>| -> Result<PathBuf, Explained> {
        let path = env_dir.join(name);
        dir.write_file(&path, value.unwrap_or_default())?;
        Ok(path)
    };
    let username = answer("git_username", credential.text("username"))?;
    let password = answer("git_password", credential.text("password"))?;
    let quoted = |path: &Path| format!("'{}'", path.display().to_string().replace('\'', r"'\''"));
    let script = format!(
        "#!/bin/sh\ncase \"$1\" in\n  Username*) exec cat {} ;;\n  *) exec cat {} ;;\nesac\n",
        quoted(&username),
        quoted(&password)
    );
    let askpass = env_dir.join("git_askpass");
    dir.write_file(&askpass, &script)?;
    std::fs::set_permissions(
        &askpass,
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )?;
    Ok(vec![(
        "GIT_ASKPASS".to_owned(),
        askpass.display().to_string(),
    )])
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
        Invocation {
            program: "sh".to_owned(),
            args: vec![
                "-c".to_owned(),
                CHECKOUT.to_owned(),
                "checkout".to_owned(),
                project.scm_branch.clone(),
            ],
            ..git(&[])
        },
    ];
    if project.scm_clean {
        steps.push(git(&["clean", "--force", "--force", "-d", "--quiet"]));
    }
    steps.push(git(&[
        "--no-pager",
        "log",
        "-1",
        "--format=Checked out %H: %s",
    ]));
    steps
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
                ("git", "--no-pager")
            ]
        );
        assert_eq!(steps[1].args[2], "git://10.0.0.2/site");
        assert_eq!(
            steps[2].args.last().map(String::as_str),
            Some("+refs/pull/*:refs/remotes/origin/pull/*")
        );
        assert_eq!(steps[3].args[2..], ["checkout", "release"]);
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

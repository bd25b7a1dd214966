//! A job's own copy of its project, in its private directory, as the reference's jobs run
//! from theirs: an update of the project that starts while the job runs rewrites the
//! project's directory, never the playbooks, roles and templates the job is reading. The
//! copy is made while no update of the project runs on this node ([`ProjectLock::copy`]).

use std::path::{Path, PathBuf};

use super::Explained;
use super::private_dir::PrivateDir;
use super::project_lock::ProjectLock;

/// A project's directory and the job's copy of it.
#[derive(Debug)]
pub struct ProjectCopy {
    /// The project's own directory (named in messages: the copy's path means nothing to
    /// the project's admin).
    pub source: PathBuf,
    /// The copy, `project` in the job's private directory.
    pub copy: PathBuf,
}

/// Copies project `project`'s directory `source` into `dir`, once no update of it runs.
pub fn copy_into(
    source: PathBuf,
    dir: &PrivateDir,
    project: i64,
) -> Result<ProjectCopy, Explained> {
    let _no_update = ProjectLock::copy(project);
    let copy = dir.path().join("project");
    copy_tree(&source, &copy).map_err(|error| {
        Explained::new(format!(
            "The project directory {} could not be copied for the job: {error}",
            source.display()
        ))
    })?;
    Ok(ProjectCopy { source, copy })
}

/// Copies the tree at `from` to the new directory `to`: directories, files (with their
/// modes) and symbolic links as links (never followed: a link out of the project stays a
/// link, which the sandbox resolves in the run's view). Sockets, pipes and devices are no
/// part of a project and are left out.
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir(to)?;
    let mut directories = vec![(from.to_path_buf(), to.to_path_buf())];
    while let Some((from, to)) = directories.pop() {
        for entry in std::fs::read_dir(&from)? {
            let entry = entry?;
            let kind = entry.file_type()?;
            let target = to.join(entry.file_name());
            if kind.is_symlink() {
                std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &target)?;
            } else if kind.is_dir() {
                std::fs::create_dir(&target)?;
                directories.push((entry.path(), target));
            } else if kind.is_file() {
                std::fs::copy(entry.path(), &target)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn files_directories_and_links_are_copied_as_they_are() {
        let base = tempfile::tempdir().expect("a directory");
        let from = base.path().join("project");
        std::fs::create_dir_all(from.join("roles/web/tasks")).expect("directories");
        std::fs::write(from.join("site.yml"), "- hosts: all\n").expect("a playbook");
        std::fs::write(from.join("roles/web/tasks/main.yml"), "[]\n").expect("a task file");
        let script = from.join("run.sh");
        std::fs::write(&script, "#!/bin/sh\n").expect("a script");
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o750)).expect("mode");
        std::os::unix::fs::symlink("/etc/hostname", from.join("outside")).expect("a link");
        std::os::unix::fs::symlink("site.yml", from.join("main.yml")).expect("a link");
        let to = base.path().join("copy");
        copy_tree(&from, &to).expect("copied");
        assert_eq!(
            std::fs::read_to_string(to.join("roles/web/tasks/main.yml")).expect("copied file"),
            "[]\n"
        );
        let mode = std::fs::metadata(to.join("run.sh"))
            .expect("a file")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o750);
        assert_eq!(
            std::fs::read_link(to.join("outside")).expect("a link"),
            Path::new("/etc/hostname")
        );
        assert_eq!(
            std::fs::read_link(to.join("main.yml")).expect("a link"),
            Path::new("site.yml")
        );
        // The copy is the job's: the project changing afterwards does not reach it.
        std::fs::write(from.join("site.yml"), "changed\n").expect("changed");
        assert_eq!(
            std::fs::read_to_string(to.join("site.yml")).expect("the copy"),
            "- hosts: all\n"
        );
        assert!(
            copy_tree(&from, &to).is_err(),
            "the copy's directory must be new"
        );
    }
}

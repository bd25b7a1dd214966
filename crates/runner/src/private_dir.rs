//! The private directory of one run: created 0700 under the data directory, holding the
//! run's files (0600), removed with everything in it when the run ends, whatever the outcome.

use std::fs::{DirBuilder, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use ring::rand::SecureRandom;

/// A directory that only the server's user can enter, removed on drop.
#[derive(Debug)]
pub struct PrivateDir {
    path: PathBuf,
}

impl PrivateDir {
    /// Creates `<base>/run_<id>_<random>` (and `base` itself, 0700, if missing).
    pub fn create(base: &Path, run_id: i64, rng: &dyn SecureRandom) -> std::io::Result<Self> {
        DirBuilder::new().recursive(true).mode(0o700).create(base)?;
        let mut random = [0u8; 8];
        rng.fill(&mut random)
            .map_err(|_| std::io::Error::other("random number generator failed"))?;
        let path = base.join(format!("run_{run_id}_{}", hex::encode(random)));
        // Not recursive: the directory must be new, so nobody else prepared it.
        DirBuilder::new().mode(0o700).create(&path)?;
        Ok(PrivateDir { path })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Creates the subdirectory `name` (0700).
    pub fn subdirectory(&self, name: &str) -> std::io::Result<PathBuf> {
        let path = self.path.join(name);
        DirBuilder::new().mode(0o700).create(&path)?;
        Ok(path)
    }

    /// Writes a new file at `path` (inside this directory) readable only by the server's user.
    pub fn write_file(&self, path: &Path, content: &str) -> std::io::Result<()> {
        if !path.starts_with(&self.path) {
            return Err(std::io::Error::other(
                "a run's file must be inside its directory",
            ));
        }
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)?;
        file.write_all(content.as_bytes())?;
        file.sync_all()
    }
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        if let Err(error) = std::fs::remove_dir_all(&self.path) {
            tracing::error!(path = %self.path.display(), %error, "a run's private directory could not be removed");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use ring::rand::SystemRandom;

    use super::*;

    #[test]
    fn private_files_and_removal() {
        let base = tempfile::tempdir().expect("a temporary directory");
        let rng = SystemRandom::new();
        let dir = PrivateDir::create(&base.path().join("runs"), 7, &rng).expect("created");
        let path = dir.path().to_owned();
        let mode = |p: &Path| std::fs::metadata(p).expect("metadata").permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o700);
        let env = dir.subdirectory("env").expect("subdirectory");
        let file = env.join("secret");
        dir.write_file(&file, "s3cret").expect("written");
        assert_eq!(mode(&file), 0o600);
        assert!(
            dir.write_file(&file, "again").is_err(),
            "files are never overwritten"
        );
        assert!(dir.write_file(&base.path().join("outside"), "x").is_err());
        drop(dir);
        assert!(!path.exists());
    }
}

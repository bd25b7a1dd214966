//! The value type of `JOB_ISOLATION_SHOW_PATHS`, which the settings registry validates and the
//! runner's sandbox applies.

use std::path::PathBuf;

/// A host path shown to every run (`JOB_ISOLATION_SHOW_PATHS`): `"/path"` read-only,
/// `"/path:rw"` writable (`"/path:ro"` is read-only too).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShownPath {
    /// The absolute host path, shown at the same place.
    pub path: PathBuf,
    /// Whether the run may write to it.
    pub writable: bool,
}

impl ShownPath {
    /// Parses one entry, or says why it is not one.
    pub fn parse(entry: &str) -> Result<Self, String> {
        let (path, writable) = match entry.rsplit_once(':') {
            Some((path, "rw")) => (path, true),
            Some((path, "ro")) => (path, false),
            _ => (entry, false),
        };
        if !path.starts_with('/') || path.contains('\0') || path.contains(':') {
            return Err(format!(
                "'{entry}' is not an absolute path, optionally followed by :ro or :rw."
            ));
        }
        Ok(ShownPath {
            path: PathBuf::from(path),
            writable,
        })
    }
}

//! The deployment's secret keys on disk, and the cipher they make.
//!
//! `ACS_SECRET_KEY_FILE` holds the current key (32 bytes, mode 0600, created on first start;
//! every node of a deployment reads the same file). While a rotation runs, the file beside it
//! with `.next` appended holds the key values are moving to: the cipher then seals under the
//! next key and opens under both. When every value is under the next key, the rotation renames
//! the next file over the key file, and the old key is gone.
//!
//! [`Keyring`] follows the files while a server runs: every use looks at their metadata (two
//! `stat` calls) and reads them again when they changed, so new values are sealed under a new
//! key without a restart.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::SystemTime;

use acs_credential_types::InputCipher;
use acs_credential_types::cipher::KeyId;
use ring::rand::SecureRandom;

/// Length of a secret key.
pub const KEY_LEN: usize = 32;

/// Why the key files could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum KeyFileError {
    /// Reading, creating or renaming a file failed.
    #[error("{what} {path}: {source}")]
    Io {
        /// What was being done.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// Why it failed.
        source: std::io::Error,
    },
    /// A file holds fewer than [`KEY_LEN`] bytes.
    #[error("{0} must hold at least {KEY_LEN} bytes")]
    TooShort(PathBuf),
    /// The random source failed.
    #[error("the random number generator failed")]
    Random,
}

/// A secret key's bytes. Debug never shows them.
#[derive(Clone, PartialEq, Eq)]
pub struct SecretKey(pub [u8; KEY_LEN]);

impl std::fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretKey(***)")
    }
}

impl SecretKey {
    /// A new random key.
    pub fn generate(rng: &dyn SecureRandom) -> Result<SecretKey, KeyFileError> {
        let mut key = [0_u8; KEY_LEN];
        rng.fill(&mut key).map_err(|_| KeyFileError::Random)?;
        Ok(SecretKey(key))
    }

    /// The id values sealed under this key carry.
    pub fn id(&self) -> KeyId {
        InputCipher::from_secret_key(&self.0).current_key_id()
    }
}

/// The keys in force: the current one and, during a rotation, the next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretKeys {
    /// `ACS_SECRET_KEY_FILE`.
    pub current: SecretKey,
    /// The `.next` file, while a rotation runs.
    pub next: Option<SecretKey>,
}

impl SecretKeys {
    /// The cipher these keys make: it seals under the next key when there is one.
    pub fn cipher(&self) -> InputCipher {
        match &self.next {
            Some(next) => InputCipher::with_earlier_keys(&next.0, &[&self.current.0]),
            None => InputCipher::from_secret_key(&self.current.0),
        }
    }
}

/// Where the keys live.
#[derive(Debug, Clone)]
pub struct KeyFiles {
    current: PathBuf,
    next: PathBuf,
    previous: PathBuf,
}

/// What a file looked like when last read: `None` when it did not exist.
type Stamp = Option<(SystemTime, u64, u64)>;

impl KeyFiles {
    /// The key file `path` (`ACS_SECRET_KEY_FILE`), its `.next` and its `.previous` beside it.
    pub fn new(path: &Path) -> KeyFiles {
        let beside = |suffix: &str| {
            let mut name = path.as_os_str().to_owned();
            name.push(suffix);
            PathBuf::from(name)
        };
        KeyFiles {
            current: path.to_owned(),
            next: beside(".next"),
            previous: beside(".previous"),
        }
    }

    /// The key file.
    pub fn current_path(&self) -> &Path {
        &self.current
    }

    /// The file of the next key.
    pub fn next_path(&self) -> &Path {
        &self.next
    }

    /// Every file that may hold a key: the key file, the next key's, the retired key's, and
    /// the ones those two are written to before they are renamed into place. Jobs must see
    /// none of them.
    pub fn every_path(&self) -> [PathBuf; 5] {
        [
            self.current.clone(),
            self.next.clone(),
            partial_path(&self.next),
            self.previous.clone(),
            partial_path(&self.previous),
        ]
    }

    /// Reads the keys, creating the key file (a new random key) when there is none.
    pub fn read_or_create(&self, rng: &dyn SecureRandom) -> Result<SecretKeys, KeyFileError> {
        if let Some(keys) = self.read_if_present()? {
            return Ok(keys);
        }
        let key = SecretKey::generate(rng)?;
        match write_new(&self.current, &key) {
            Ok(()) => {
                tracing::info!(path = %self.current.display(), "created the secret key");
                Ok(SecretKeys {
                    current: key,
                    next: None,
                })
            }
            // Another process created it first: use that one.
            Err(KeyFileError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::AlreadyExists =>
            {
                self.read()
            }
            Err(error) => Err(error),
        }
    }

    /// Reads the keys; the key file must exist.
    pub fn read(&self) -> Result<SecretKeys, KeyFileError> {
        self.read_if_present()?.ok_or_else(|| KeyFileError::Io {
            what: "reading",
            path: self.current.clone(),
            source: std::io::ErrorKind::NotFound.into(),
        })
    }

    /// The keys, or `None` when there is no key file. The next file is read first: a rotation
    /// that completes between the two reads renames it over the key file, so reading in this
    /// order never misses the key that values are moving to.
    fn read_if_present(&self) -> Result<Option<SecretKeys>, KeyFileError> {
        let next = read_key(&self.next)?;
        let Some(current) = read_key(&self.current)? else {
            return Ok(None);
        };
        let next = next.filter(|next| *next != current);
        Ok(Some(SecretKeys { current, next }))
    }

    /// Starts a rotation to `next`: writes the next file (mode 0600, atomically: readers see
    /// no file or the whole key).
    pub fn begin_rotation(&self, next: &SecretKey) -> Result<(), KeyFileError> {
        write_atomically(&self.next, next)
    }

    /// Ends a rotation away from `old`: `old` is kept as the previous key (written before the
    /// rename, so that a rotation killed at any point still has it on disk), then the next
    /// key becomes the key. The previous key goes with [`KeyFiles::retire_previous`], once no
    /// value is sealed under it.
    pub fn complete_rotation(&self, old: &SecretKey) -> Result<(), KeyFileError> {
        write_atomically(&self.previous, old)?;
        std::fs::rename(&self.next, &self.current).map_err(|source| KeyFileError::Io {
            what: "renaming",
            path: self.next.clone(),
            source,
        })?;
        sync_parent(&self.current)
    }

    /// The key a rotation retired, while it may still seal values (until the rotation's last
    /// pass has moved them and [`KeyFiles::retire_previous`] removed it).
    pub fn previous(&self) -> Result<Option<SecretKey>, KeyFileError> {
        read_key(&self.previous)
    }

    /// Forgets the previous key: no stored value is sealed under it any more.
    pub fn retire_previous(&self) -> Result<(), KeyFileError> {
        match std::fs::remove_file(&self.previous) {
            Ok(()) => sync_parent(&self.previous),
            Err(source) if source.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(KeyFileError::Io {
                what: "removing",
                path: self.previous.clone(),
                source,
            }),
        }
    }

    fn stamp(&self) -> (Stamp, Stamp) {
        (stamp_of(&self.next), stamp_of(&self.current))
    }
}

fn stamp_of(path: &Path) -> Stamp {
    let meta = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(&meta);
    #[cfg(not(unix))]
    let inode = 0;
    Some((meta.modified().ok()?, meta.len(), inode))
}

fn read_key(path: &Path) -> Result<Option<SecretKey>, KeyFileError> {
    match std::fs::read(path) {
        Ok(bytes) => bytes
            .get(..KEY_LEN)
            .and_then(|b| b.try_into().ok())
            .map(|key| Some(SecretKey(key)))
            .ok_or_else(|| KeyFileError::TooShort(path.to_owned())),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(KeyFileError::Io {
            what: "reading",
            path: path.to_owned(),
            source,
        }),
    }
}

/// Creates `path` with `key`, mode 0600; fails when it exists.
fn write_new(path: &Path, key: &SecretKey) -> Result<(), KeyFileError> {
    let io = |what| {
        move |source| KeyFileError::Io {
            what,
            path: path.to_owned(),
            source,
        }
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io("creating the directory of"))?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path).map_err(io("creating"))?;
    file.write_all(&key.0).map_err(io("writing"))?;
    file.sync_all().map_err(io("writing"))
}

/// Writes `key` to `path` through a temporary file beside it and a rename.
fn write_atomically(path: &Path, key: &SecretKey) -> Result<(), KeyFileError> {
    let temporary = partial_path(path);
    // A partial file left by a killed run holds no key anyone uses.
    let _ = std::fs::remove_file(&temporary);
    write_new(&temporary, key)?;
    std::fs::rename(&temporary, path).map_err(|source| KeyFileError::Io {
        what: "renaming",
        path: temporary.clone(),
        source,
    })?;
    sync_parent(path)
}

/// Where `path` is written before it is renamed into place.
fn partial_path(path: &Path) -> PathBuf {
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    PathBuf::from(partial)
}

/// Makes a rename in `path`'s directory durable.
fn sync_parent(path: &Path) -> Result<(), KeyFileError> {
    let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) else {
        return Ok(());
    };
    std::fs::File::open(parent)
        .and_then(|dir| dir.sync_all())
        .map_err(|source| KeyFileError::Io {
            what: "syncing",
            path: parent.to_owned(),
            source,
        })
}

/// Why a server refused to seal a value: its current key was retired by a rotation it did not
/// follow (the rotation's next key never reached this node), so the value would open under no
/// key the deployment keeps.
#[derive(Debug, thiserror::Error)]
pub enum SealRefused {
    /// The key this server seals under is retired.
    #[error(
        "this server's secret key {0} was retired by a key rotation, and the key now in force \
         never reached it: nothing was saved. Copy the deployment's key files to this node"
    )]
    RetiredKey(KeyId),
    /// The database could not say.
    #[error(transparent)]
    Storage(#[from] acs_storage::StorageError),
}

impl From<diesel::result::Error> for SealRefused {
    fn from(error: diesel::result::Error) -> Self {
        SealRefused::Storage(error.into())
    }
}

/// Refuses a write that sealed values under `key` when a rotation retired that key. Called in
/// the write's transaction, after the write (see [`acs_storage::retired_keys`]): refused, the
/// transaction rolls back; the refusal is logged as the error it is, for the operator.
pub fn refuse_retired(conn: &mut acs_storage::DbConnection, key: KeyId) -> Result<(), SealRefused> {
    if acs_storage::retired_keys::is_retired(conn, &key.to_string())? {
        let refused = SealRefused::RetiredKey(key);
        tracing::error!(key = %key, "{refused}");
        return Err(refused);
    }
    Ok(())
}

/// Logs, as the error it is, a sealed value (`what` names it) this server cannot open. A value
/// under a key the server does not hold gets the operator's remedy: it was sealed by a node
/// that holds a key this one lacks (a rotation's next key that never reached it).
pub fn log_unopened(what: &str, sealed: &str, error: acs_credential_types::CipherError) {
    match (error, acs_credential_types::cipher::sealed_key_id(sealed)) {
        (acs_credential_types::CipherError::UnknownKey, Some(key)) => tracing::error!(
            %key,
            "{what} is sealed under key {key}, which this server does not hold: another node \
             has a key this one lacks. Copy the deployment's key files to this node"
        ),
        _ => tracing::error!(%error, "{what} cannot be opened"),
    }
}

/// The cipher of a running server, following the key files.
#[derive(Debug)]
pub struct Keyring {
    files: KeyFiles,
    loaded: RwLock<Loaded>,
}

#[derive(Debug)]
struct Loaded {
    stamp: (Stamp, Stamp),
    cipher: Arc<InputCipher>,
}

impl Keyring {
    /// Reads the keys (creating the key file on first start).
    pub fn open(files: KeyFiles, rng: &dyn SecureRandom) -> Result<Keyring, KeyFileError> {
        let stamp = files.stamp();
        let keys = files.read_or_create(rng)?;
        let loaded = Loaded {
            stamp,
            cipher: Arc::new(keys.cipher()),
        };
        Ok(Keyring {
            files,
            loaded: RwLock::new(loaded),
        })
    }

    /// The cipher of the keys as the files hold them now. When the files changed but cannot
    /// be read, the last cipher stays (and the problem is logged).
    pub fn cipher(&self) -> Arc<InputCipher> {
        let stamp = self.files.stamp();
        {
            let loaded = self.loaded.read().unwrap_or_else(|e| e.into_inner());
            if loaded.stamp == stamp {
                return loaded.cipher.clone();
            }
        }
        let mut loaded = self.loaded.write().unwrap_or_else(|e| e.into_inner());
        if loaded.stamp != stamp {
            match self.files.read() {
                Ok(keys) => {
                    let cipher = keys.cipher();
                    tracing::info!(key = %cipher.current_key_id(), "secret keys reloaded");
                    *loaded = Loaded {
                        stamp,
                        cipher: Arc::new(cipher),
                    };
                }
                Err(error) => tracing::error!(%error, "the secret key files cannot be read"),
            }
        }
        loaded.cipher.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::rand::SystemRandom;

    #[test]
    fn the_key_file_is_created_once_with_mode_0600() {
        let dir = tempfile::tempdir().expect("dir");
        let files = KeyFiles::new(&dir.path().join("keys/secret_key"));
        let rng = SystemRandom::new();
        let first = files.read_or_create(&rng).expect("created");
        assert_eq!(files.read_or_create(&rng).expect("read"), first);
        assert_eq!(first.next, None);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(files.current_path())
                .expect("meta")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn a_rotation_seals_under_the_next_key_and_ends_with_it_alone() {
        let dir = tempfile::tempdir().expect("dir");
        let files = KeyFiles::new(&dir.path().join("secret_key"));
        let rng = SystemRandom::new();
        let ring = Keyring::open(files.clone(), &rng).expect("opened");
        let before = ring.cipher();
        let old_value = before.seal(&rng, "password", "old").expect("seals");
        let old = files.read().expect("read").current;

        let next = SecretKey::generate(&rng).expect("key");
        files.begin_rotation(&next).expect("begun");
        let during = ring.cipher();
        assert_eq!(
            during.current_key_id(),
            InputCipher::from_secret_key(&next.0).current_key_id()
        );
        assert_eq!(during.open("password", &old_value).as_deref(), Ok("old"));

        files.complete_rotation(&old).expect("completed");
        assert!(!files.next_path().exists());
        assert_eq!(files.previous().expect("read"), Some(old));
        files.retire_previous().expect("retired");
        assert_eq!(files.previous().expect("read"), None);
        let after = ring.cipher();
        assert_eq!(after.current_key_id(), during.current_key_id());
        assert_eq!(after.key_ids().count(), 1);
        assert_eq!(files.read().expect("read").current, next);
    }

    #[test]
    fn a_short_key_file_is_refused_and_a_running_ring_keeps_its_keys() {
        let dir = tempfile::tempdir().expect("dir");
        let files = KeyFiles::new(&dir.path().join("secret_key"));
        let rng = SystemRandom::new();
        let ring = Keyring::open(files.clone(), &rng).expect("opened");
        let id = ring.cipher().current_key_id();
        std::fs::write(files.next_path(), b"short").expect("written");
        assert!(matches!(files.read(), Err(KeyFileError::TooShort(_))));
        assert_eq!(ring.cipher().current_key_id(), id);
        assert!(!format!("{:?}", files.read_or_create(&rng)).contains("short"));
    }
}

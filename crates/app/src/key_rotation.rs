//! Rotating the deployment's secret key while servers run: every sealed value moves to a new
//! key, then the new key replaces the old one in the key file.
//!
//! The steps, each safe to be killed after (running the rotation again finishes it):
//!
//! 1. The next key is written beside the key file ([`KeyFiles::begin_rotation`]); a rotation
//!    that finds one there resumes with it. From their next use of the keys, servers seal new
//!    values under it and open values under either key.
//! 2. Every value not under the next key is sealed again under it, batch by batch.
//! 3. A pause, then a second pass: a request that read the keys just before step 1 may have
//!    written a value under the old key after the first pass went by it.
//! 4. The old key is written as the previous key (`.previous`), then the next key is renamed
//!    over the key file.
//! 5. A last pass, with the old key, takes any value written under it between the second pass
//!    and the rename. The old key is then marked retired in the database, so that a server
//!    still sealing under it (a node the next key never reached) is refused from then on
//!    ([`crate::secret_key::refuse_retired`]); the values still under it are counted by key
//!    id, and only when there are none is the previous key removed. A rotation killed before
//!    that finds the previous key on disk and runs this step alone: no value sealed under the
//!    old key is ever left without it.
//!
//! A value that opens under neither key (sealed under a key the deployment lost, or altered)
//! stops the rotation before step 4: completing it would not make that value any less lost,
//! but the operator must hear of it while the old key still exists.

use std::time::Duration;

use acs_credential_types::cipher::KeyId;
use acs_storage::{DbConnection, StorageError};
use ring::rand::SecureRandom;

use crate::activity::Subject;
use crate::sealed_values::{self, Counts, Kind, Resealed, Unreadable};
use crate::secret_key::{KeyFileError, KeyFiles, SecretKey, SecretKeys};

/// The command's name, as the activity stream shows it.
const COMMAND: &str = "rotate_secret_key";

/// How long a rotation waits, by default, between its first and second pass: longer than a
/// request that seals a value takes, queueing for SQLite's write lock included.
pub const DEFAULT_SETTLE: Duration = Duration::from_secs(5);

/// What a rotation reports as it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The rotation began (or resumed with the next key already on disk).
    Began {
        /// The key values move away from.
        from: KeyId,
        /// The key values move to.
        to: KeyId,
        /// True when the next key was there already (a rotation interrupted earlier).
        resumed: bool,
    },
    /// A pass over every sealed value starts (1, 2, then 3 after the key file changed).
    Pass(u8),
    /// A batch was written: its kind, the rows read, the values sealed again.
    Batch(Kind, usize, usize),
    /// The rotation waits for requests that may still seal under the old key.
    Settling(Duration),
    /// The next key replaced the old one in the key file.
    KeyReplaced,
    /// The old key is marked retired: servers seal nothing under it any more. What is still
    /// under it is counted next, and the key goes when nothing is.
    Retiring,
}

/// A completed rotation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rotated {
    /// The retired key.
    pub from: KeyId,
    /// The key in force now.
    pub to: KeyId,
    /// Values sealed again under the new key, over all passes.
    pub resealed: Counts,
}

/// Why a rotation stopped.
#[derive(Debug, thiserror::Error)]
pub enum RotationError {
    /// The key files could not be read or written.
    #[error(transparent)]
    KeyFile(#[from] KeyFileError),
    /// The database failed; what was committed stays, and running again resumes.
    #[error("database error: {0}")]
    Storage(#[from] StorageError),
    /// The activity-stream entry could not be written (the rotation itself is done).
    #[error("recording the activity stream entry failed: {0}")]
    Activity(String),
    /// Values still sealed under the old key after the last pass: a node that does not hold
    /// the next key keeps sealing under the old one, and retiring it would lose them.
    #[error(
        "{} still sealed under the old key {from} after the last pass, so the old key was kept: \
         a server without the next key is writing under it. Give every node the next key and \
         run the rotation again",
        count_values(*.count)
    )]
    StillUnderOldKey {
        /// How many.
        count: usize,
        /// The old key.
        from: KeyId,
    },
    /// Values that open under no key held: the rotation stopped before retiring the old key.
    #[error(
        "{} cannot be opened under the old key or the new one, so the old key was kept: {}. \
         Enter those secrets again (or delete them) and run the rotation again",
        count_values(.unreadable.len()),
        list(.unreadable)
    )]
    Unreadable {
        /// What was sealed again before stopping.
        resealed: Counts,
        /// The values that do not open.
        unreadable: Vec<Unreadable>,
    },
}

fn count_values(count: usize) -> String {
    crate::housekeeping::counted(count, "sealed value", "sealed values")
}

/// The first few places, and how many more.
fn list(unreadable: &[Unreadable]) -> String {
    const SHOWN: usize = 5;
    let mut shown: Vec<String> = unreadable
        .iter()
        .take(SHOWN)
        .map(|u| u.to_string())
        .collect();
    if unreadable.len() > SHOWN {
        shown.push(format!("and {} more", unreadable.len() - SHOWN));
    }
    shown.join("; ")
}

/// A rotation's inputs.
pub struct Rotation<'a> {
    /// The key files (`ACS_SECRET_KEY_FILE` and its `.next`).
    pub files: &'a KeyFiles,
    /// The random source of the new key and of the nonces.
    pub rng: &'a dyn SecureRandom,
    /// The pause between the first and the second pass.
    pub settle: Duration,
    /// When the rotation runs, for its activity-stream entry.
    pub now: acs_storage::Timestamp,
}

impl std::fmt::Debug for Rotation<'_> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Rotation")
            .field("files", self.files)
            .field("settle", &self.settle)
            .finish_non_exhaustive()
    }
}

/// Step 1 alone: the keys with a next key on disk, written now (a new random key) unless one
/// is there already; true when it was. For deployments whose nodes each hold a copy of the key
/// files: the next key is copied to every node before the rotation goes on.
pub fn prepare(
    files: &KeyFiles,
    rng: &dyn SecureRandom,
) -> Result<(SecretKeys, bool), KeyFileError> {
    let on_disk = files.read()?;
    if on_disk.next.is_some() {
        return Ok((on_disk, true));
    }
    let next = SecretKey::generate(rng)?;
    files.begin_rotation(&next)?;
    Ok((
        SecretKeys {
            current: on_disk.current,
            next: Some(next),
        },
        false,
    ))
}

/// Runs a rotation to its end (see the module's documentation).
pub fn rotate(
    conn: &mut DbConnection,
    rotation: &Rotation<'_>,
    report: &mut dyn FnMut(Event),
) -> Result<Rotated, RotationError> {
    let Rotation {
        files,
        rng,
        settle,
        now,
    } = *rotation;
    let on_disk = files.read()?;
    // Killed after step 4: the retired key is still beside the key file, and no new rotation
    // has begun since.
    let retired = files
        .previous()?
        .filter(|previous| on_disk.next.is_none() && *previous != on_disk.current);
    let finishing = retired.is_some();
    let (keys, resumed) = match retired {
        Some(previous) => (
            SecretKeys {
                current: previous,
                next: Some(on_disk.current),
            },
            true,
        ),
        None => prepare(files, rng)?,
    };
    let from = keys.current.id();
    let cipher = keys.cipher();
    let to = cipher.current_key_id();
    report(Event::Began { from, to, resumed });

    let mut resealed = Counts::default();
    let mut pass = |number: u8, report: &mut dyn FnMut(Event)| {
        report(Event::Pass(number));
        let Resealed {
            resealed: done,
            unreadable,
        } = sealed_values::reseal(conn, &cipher, rng, &mut |kind, rows, values| {
            report(Event::Batch(kind, rows, values));
        })?;
        resealed.add_all(&done);
        if unreadable.is_empty() {
            Ok(())
        } else {
            Err(RotationError::Unreadable {
                resealed,
                unreadable,
            })
        }
    };
    let moved = (|| {
        if !finishing {
            pass(1, report)?;
            report(Event::Settling(settle));
            std::thread::sleep(settle);
            pass(2, report)?;
            files.complete_rotation(&keys.current)?;
            report(Event::KeyReplaced);
        }
        pass(3, report)
    })()
    .and_then(|()| {
        acs_storage::retired_keys::mark(conn, &from.to_string(), now)?;
        report(Event::Retiring);
        // Counted by key id, not trusted to the pass: a value written under the old key after
        // the pass went by it (and before the mark) keeps the old key on disk.
        let left = sealed_values::census(conn, &cipher)?
            .by_key
            .get(&Some(from))
            .map_or(0, Counts::total);
        if left > 0 {
            return Err(RotationError::StillUnderOldKey { count: left, from });
        }
        files.retire_previous().map_err(RotationError::from)
    });
    let rotated = Rotated { from, to, resealed };
    let recorded = record(conn, now, &rotated, moved.is_ok());
    moved?;
    recorded?;
    Ok(rotated)
}

/// The rotation's activity-stream entry (the system acts: no actor): operation `update`,
/// `object1` a credential with id 0 and the command's name, the key ids and counts as changes;
/// `"completed": false` when it stopped. Key ids name keys without revealing them.
fn record(
    conn: &mut DbConnection,
    now: acs_storage::Timestamp,
    rotated: &Rotated,
    completed: bool,
) -> Result<(), RotationError> {
    let counts = rotated.resealed;
    let mut changes = serde_json::json!({
        "command": COMMAND,
        "from_key": rotated.from.to_string(),
        "to_key": rotated.to.to_string(),
        "credential_inputs": counts.of(Kind::CredentialInputs),
        "setting_secrets": counts.of(Kind::Settings),
        "sign_in_secrets": counts.of(Kind::SignIns),
    });
    if !completed {
        changes["completed"] = serde_json::json!(false);
    }
    let subject = Subject::named(acs_storage::activity::CREDENTIAL, 0, COMMAND);
    crate::activity::record(conn, now, None, "update", &subject, None, changes)
        .map_err(|error| RotationError::Activity(error.to_string()))
}

#[cfg(test)]
mod tests {
    use acs_credential_types::InputCipher;
    use acs_storage::Database;
    use diesel::connection::SimpleConnection;
    use ring::rand::SystemRandom;
    use serde_json::json;

    use super::*;
    use crate::sealed_values::{SIGN_IN_NONCE, SIGN_IN_PKCE, census};

    const AT: &str = "'2024-01-01 00:00:00'";

    /// A migrated in-memory database with a credential type whose `token` is secret and
    /// `user` is not.
    fn database() -> DbConnection {
        database_at(&Database::Sqlite(":memory:".into()))
    }

    /// [`database`], at `database`.
    fn database_at(database: &Database) -> DbConnection {
        let mut conn = database.connect().expect("a database");
        acs_storage::run_migrations(&mut conn).expect("migrations");
        let inputs = json!({"fields": [
            {"id": "user", "label": "User"},
            {"id": "token", "label": "Token", "secret": true},
        ]});
        conn.batch_execute(&format!(
            "INSERT INTO credential_types (id, name, description, kind, managed, inputs, \
               injectors, created, modified) \
             VALUES (1, 't', '', 'cloud', false, '{inputs}', '{{}}', {AT}, {AT}); \
             INSERT INTO organizations (id, name, created, modified) VALUES (1, 'o', {AT}, {AT})"
        ))
        .expect("a type and an organization");
        conn
    }

    fn quoted(text: &str) -> String {
        format!("'{}'", text.replace('\'', "''"))
    }

    fn add_credential(conn: &mut DbConnection, id: i64, inputs: &serde_json::Value) {
        conn.batch_execute(&format!(
            "INSERT INTO credentials (id, name, description, credential_type_id, \
               organization_id, inputs, created, modified) \
             VALUES ({id}, 'c{id}', '', 1, 1, {}, {AT}, {AT})",
            quoted(&inputs.to_string())
        ))
        .expect("a credential");
    }

    /// Every kind of sealed value under `cipher`'s key: two credentials (one also holding
    /// sealed-looking text in a plain field), two secret settings, one sign-in.
    fn seal_everything(conn: &mut DbConnection, cipher: &InputCipher, rng: &SystemRandom) {
        let seal = |label: &str, plain: &str| cipher.seal(rng, label, plain).expect("sealed");
        let lookalike = seal("user", "not a secret");
        add_credential(
            conn,
            1,
            &json!({"user": lookalike, "token": seal("token", "t1")}),
        );
        add_credential(conn, 2, &json!({"user": "u", "token": seal("token", "t2")}));
        let bind = json!(seal("setting:AUTH_LDAP_BIND_PASSWORD", "bind-pw"));
        let providers = json!([{"name": "corp", "client_secret":
            seal("setting:OIDC_PROVIDERS:corp", "oidc-secret")}]);
        conn.batch_execute(&format!(
            "INSERT INTO settings (key, value, modified) VALUES \
               ('AUTH_LDAP_BIND_PASSWORD', {}, {AT}), ('OIDC_PROVIDERS', {}, {AT}); \
             INSERT INTO sso_states (id, digest, provider, nonce, pkce_verifier, next, expires) \
               VALUES (1, X'01', 'corp', {}, {}, '/', {AT})",
            quoted(&bind.to_string()),
            quoted(&providers.to_string()),
            quoted(&seal(SIGN_IN_NONCE, "n")),
            quoted(&seal(SIGN_IN_PKCE, "v")),
        ))
        .expect("settings and a sign-in");
    }

    /// A key file with a key, and a database holding every kind of value sealed under it.
    struct Fixture {
        _dir: tempfile::TempDir,
        files: KeyFiles,
        rng: SystemRandom,
        old: SecretKeys,
        conn: DbConnection,
    }

    fn fixture() -> Fixture {
        let dir = tempfile::tempdir().expect("dir");
        let files = KeyFiles::new(&dir.path().join("secret_key"));
        let rng = SystemRandom::new();
        let old = files.read_or_create(&rng).expect("a key");
        let mut conn = database();
        seal_everything(&mut conn, &old.cipher(), &rng);
        Fixture {
            _dir: dir,
            files,
            rng,
            old,
            conn,
        }
    }

    fn inputs_of(conn: &mut DbConnection, id: i64) -> serde_json::Value {
        let rows = acs_storage::sealed::credential_inputs_after(conn, id - 1, 1).expect("read");
        serde_json::from_str(&rows[0].inputs).expect("json")
    }

    fn rotation<'a>(files: &'a KeyFiles, rng: &'a SystemRandom) -> Rotation<'a> {
        Rotation {
            files,
            rng,
            settle: Duration::ZERO,
            now: chrono::Utc::now().naive_utc(),
        }
    }

    #[test]
    fn every_sealed_value_moves_to_the_new_key_and_the_old_key_is_gone() {
        let Fixture {
            _dir,
            files,
            rng,
            old,
            mut conn,
        } = fixture();
        let old_cipher = old.cipher();
        let lookalike = inputs_of(&mut conn, 1)["user"].clone();

        let mut events = Vec::new();
        let rotated =
            rotate(&mut conn, &rotation(&files, &rng), &mut |e| events.push(e)).expect("rotated");

        let new = files.read().expect("the keys");
        assert_eq!(new.next, None);
        assert_ne!(new.current, old.current);
        assert_eq!(
            files.previous().expect("read"),
            None,
            "the old key is retired"
        );
        assert_eq!(
            (rotated.from, rotated.to),
            (old.current.id(), new.current.id())
        );
        assert_eq!(
            rotated.resealed.to_string(),
            "2 credential inputs, 2 setting secrets, 2 sign-in secrets"
        );
        assert!(matches!(events[0], Event::Began { resumed: false, .. }));
        assert!(events.contains(&Event::KeyReplaced));
        // Only the new key seals anything, and it opens everything.
        let after = census(&mut conn, &new.cipher()).expect("census");
        assert_eq!(after.unreadable, []);
        assert_eq!(after.by_key.keys().collect::<Vec<_>>(), [&Some(rotated.to)]);
        assert_eq!(after.by_key[&Some(rotated.to)].total(), 6);
        let opened = new
            .cipher()
            .open("token", inputs_of(&mut conn, 2)["token"].as_str().unwrap());
        assert_eq!(opened.as_deref(), Ok("t2"));
        // A plain field is text, whatever it looks like.
        assert_eq!(inputs_of(&mut conn, 1)["user"], lookalike);
        // The old key opens nothing any more.
        let by_old = census(&mut conn, &old_cipher).expect("census");
        assert_eq!(by_old.unreadable.len(), 6, "{by_old:?}");

        // Nothing is left to move: a second rotation moves everything once more.
        let again = rotate(&mut conn, &rotation(&files, &rng), &mut |_| {}).expect("again");
        assert_eq!(again.resealed.total(), 6);
    }

    #[test]
    fn a_server_still_sealing_under_the_retired_key_is_refused() {
        let Fixture {
            _dir,
            files,
            rng,
            old,
            mut conn,
        } = fixture();
        let old_id = old.current.id();
        crate::secret_key::refuse_retired(&mut conn, old_id).expect("not retired yet");
        let mut events = Vec::new();
        let rotated =
            rotate(&mut conn, &rotation(&files, &rng), &mut |e| events.push(e)).expect("rotated");
        assert_eq!(events.last(), Some(&Event::Retiring), "{events:?}");

        let refused = crate::secret_key::refuse_retired(&mut conn, old_id).expect_err("retired");
        assert!(
            refused.to_string().starts_with(&format!(
                "this server's secret key {old_id} was retired by a key rotation"
            )),
            "{refused}"
        );
        crate::secret_key::refuse_retired(&mut conn, rotated.to).expect("the new key seals");
    }

    #[test]
    fn an_interrupted_rotation_resumes_with_the_next_key_on_disk() {
        let Fixture {
            _dir,
            files,
            rng,
            old: _,
            mut conn,
        } = fixture();
        // Killed after the next key was written and one credential moved.
        let next = SecretKey::generate(&rng).expect("a key");
        files.begin_rotation(&next).expect("begun");
        let during = files.read().expect("keys").cipher();
        let moved = json!({"user": "u", "token": during.seal(&rng, "token", "t2").unwrap()});
        add_credential(&mut conn, 3, &moved);

        let mut events = Vec::new();
        let rotated =
            rotate(&mut conn, &rotation(&files, &rng), &mut |e| events.push(e)).expect("rotated");
        assert!(matches!(events[0], Event::Began { resumed: true, .. }));
        assert_eq!(rotated.to, next.id());
        assert_eq!(files.read().expect("keys").current, next);
        assert_eq!(rotated.resealed.of(Kind::CredentialInputs), 2);
        let after = census(&mut conn, &InputCipher::from_secret_key(&next.0)).expect("census");
        assert_eq!((after.unreadable.len(), after.by_key.len()), (0, 1));
    }

    #[test]
    fn a_rotation_killed_after_the_key_file_changed_finishes_with_the_retired_key() {
        let Fixture {
            _dir,
            files,
            rng,
            old,
            mut conn,
        } = fixture();
        // Killed right after the rename: every value is still under the old key (written
        // between the second pass and the rename, at worst all of them).
        let next = SecretKey::generate(&rng).expect("a key");
        files.begin_rotation(&next).expect("begun");
        files.complete_rotation(&old.current).expect("renamed");
        assert_eq!(files.read().expect("keys").current, next);

        let mut events = Vec::new();
        let rotated =
            rotate(&mut conn, &rotation(&files, &rng), &mut |e| events.push(e)).expect("rotated");
        assert!(matches!(events[0], Event::Began { resumed: true, .. }));
        assert!(!events.contains(&Event::KeyReplaced), "{events:?}");
        assert_eq!((rotated.from, rotated.to), (old.current.id(), next.id()));
        assert_eq!(rotated.resealed.total(), 6);
        assert_eq!(files.previous().expect("read"), None);
        let after = census(&mut conn, &InputCipher::from_secret_key(&next.0)).expect("census");
        assert_eq!((after.unreadable.len(), after.by_key.len()), (0, 1));
        // Done: the next run is a new rotation, from the key now in force.
        let again = rotate(&mut conn, &rotation(&files, &rng), &mut |_| {}).expect("again");
        assert_eq!(again.from, next.id());
    }

    #[test]
    fn a_value_written_under_the_old_key_after_the_last_pass_keeps_the_old_key() {
        let dir = tempfile::tempdir().expect("dir");
        let files = KeyFiles::new(&dir.path().join("secret_key"));
        let rng = SystemRandom::new();
        let old = files.read_or_create(&rng).expect("a key");
        let database = Database::Sqlite(dir.path().join("acs.sqlite3"));
        let mut conn = database_at(&database);
        seal_everything(&mut conn, &old.cipher(), &rng);
        // A node without the next key, sealing under the old one while the last pass runs
        // (after it went by the credentials).
        let mut other_node = database.connect().expect("another connection");
        let old_cipher = old.cipher();
        let mut pass = 0;
        let mut written = false;
        let error = rotate(
            &mut conn,
            &rotation(&files, &rng),
            &mut |event| match event {
                Event::Pass(number) => pass = number,
                Event::Batch(Kind::Settings, ..) if pass == 3 && !written => {
                    let late = json!({"token": old_cipher.seal(&rng, "token", "late").unwrap()});
                    add_credential(&mut other_node, 9, &late);
                    written = true;
                }
                _ => {}
            },
        )
        .expect_err("the old key is kept");
        assert!(written, "the last pass never reached the settings");
        assert!(
            matches!(error, RotationError::StillUnderOldKey { count: 1, from } if from == old.current.id()),
            "{error}"
        );
        assert_eq!(files.previous().expect("read"), Some(old.current.clone()));

        // Once that node has the key, the rerun finishes the rotation it finds.
        let rotated = rotate(&mut conn, &rotation(&files, &rng), &mut |_| {}).expect("finished");
        assert_eq!(rotated.from, old.current.id());
        assert_eq!(rotated.resealed.of(Kind::CredentialInputs), 1);
        assert_eq!(files.previous().expect("read"), None);
    }

    #[test]
    fn a_value_no_key_opens_stops_the_rotation_before_the_old_key_goes() {
        let Fixture {
            _dir,
            files,
            rng,
            old,
            mut conn,
        } = fixture();
        let lost = InputCipher::from_secret_key(&[9; 32]);
        add_credential(
            &mut conn,
            7,
            &json!({"token": lost.seal(&rng, "token", "x").unwrap()}),
        );

        let error = rotate(&mut conn, &rotation(&files, &rng), &mut |_| {}).expect_err("refused");
        let message = error.to_string();
        assert!(
            message.starts_with("1 sealed value cannot be opened under the old key or the new one"),
            "{message}"
        );
        assert!(message.contains("credential 7, input 'token'"), "{message}");
        let keys = files.read().expect("keys");
        assert_eq!(keys.current, old.current, "the old key stays");
        assert!(keys.next.is_some(), "the next key stays, for the next run");
    }
}

//! Every secret sealed in the database: found, counted by the key that sealed it, and sealed
//! again under the current key (what a key rotation does, batch by batch).
//!
//! Sealed values live in three places, each sealed under its own label (the associated data
//! of AES-GCM, so a value opens only where it was sealed for):
//!
//! * credential inputs: the secret fields of each credential's type, labelled by field id;
//! * settings: secret settings and the client secrets of `OIDC_PROVIDERS`
//!   ([`crate::settings::sealed_parts`]);
//! * sign-ins in progress at an OpenID provider: their nonce ([`SIGN_IN_NONCE`]) and PKCE
//!   verifier ([`SIGN_IN_PKCE`]).
//!
//! Rows are read in batches outside a transaction and written back in one transaction per
//! batch, each row only if unchanged since it was read (see [`acs_storage::sealed`]).

use std::collections::{BTreeMap, HashMap, HashSet};

use acs_credential_types::cipher::{CipherError, KeyId, is_sealed, sealed_key_id};
use acs_credential_types::{InputCipher, InputConfiguration};
use acs_storage::sealed::{self, SignInSecrets};
use acs_storage::{DbConnection, StorageError};
use ring::rand::SecureRandom;
use serde_json::Value;

use crate::housekeeping::counted;

/// The label a sign-in's nonce is sealed under.
pub const SIGN_IN_NONCE: &str = "sso:nonce";

/// The label a sign-in's PKCE verifier is sealed under.
pub const SIGN_IN_PKCE: &str = "sso:pkce";

/// Rows read per batch: small enough that a batch's write holds SQLite's write lock for a few
/// milliseconds, so servers' requests barely queue behind it.
pub const BATCH_ROWS: i64 = 500;

/// Where a sealed value lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A secret input of a credential.
    CredentialInputs,
    /// A secret setting, or a client secret inside one.
    Settings,
    /// The nonce or PKCE verifier of a sign-in in progress.
    SignIns,
}

impl Kind {
    /// Every kind, in the order reports list them.
    pub const ALL: [Kind; 3] = [Kind::CredentialInputs, Kind::Settings, Kind::SignIns];

    /// `count` values of this kind in words: `3 credential inputs`.
    pub fn counted(self, count: usize) -> String {
        match self {
            Kind::CredentialInputs => counted(count, "credential input", "credential inputs"),
            Kind::Settings => counted(count, "setting secret", "setting secrets"),
            Kind::SignIns => counted(count, "sign-in secret", "sign-in secrets"),
        }
    }

    fn index(self) -> usize {
        match self {
            Kind::CredentialInputs => 0,
            Kind::Settings => 1,
            Kind::SignIns => 2,
        }
    }
}

/// A count of values per kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts([usize; 3]);

impl Counts {
    /// The count of `kind`.
    pub fn of(&self, kind: Kind) -> usize {
        self.0[kind.index()]
    }

    /// Adds `count` values of `kind`.
    pub fn add(&mut self, kind: Kind, count: usize) {
        self.0[kind.index()] += count;
    }

    /// Adds every count of `other`.
    pub fn add_all(&mut self, other: &Counts) {
        for kind in Kind::ALL {
            self.add(kind, other.of(kind));
        }
    }

    /// All values, whatever their kind.
    pub fn total(&self) -> usize {
        self.0.iter().sum()
    }
}

impl std::fmt::Display for Counts {
    /// `3 credential inputs, 1 setting secret, 0 sign-in secrets`.
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = Kind::ALL
            .iter()
            .map(|kind| kind.counted(self.of(*kind)))
            .collect();
        formatter.write_str(&parts.join(", "))
    }
}

/// A sealed value that opens under no key held: where it is, and why. Its value is never
/// shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    /// Where it lives.
    pub kind: Kind,
    /// Which row and field, in words: `credential 12, input 'password'`.
    pub place: String,
    /// Why it does not open.
    pub reason: String,
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "{} ({})", self.place, self.reason)
    }
}

/// How many values each key seals, and those that open under none held.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Census {
    /// Values per key id; `None` for values sealed before values named their key.
    pub by_key: BTreeMap<Option<KeyId>, Counts>,
    /// Values that do not open under the keys of the cipher.
    pub unreadable: Vec<Unreadable>,
}

/// Counts every sealed value by the key that sealed it, and opens each under `cipher` to find
/// those that no key held opens. Writes nothing.
pub fn census(conn: &mut DbConnection, cipher: &InputCipher) -> Result<Census, StorageError> {
    let mut by_key: BTreeMap<Option<KeyId>, Counts> = BTreeMap::new();
    let mut visit = |kind: Kind, label: &str, value: &str| {
        by_key.entry(sealed_key_id(value)).or_default().add(kind, 1);
        cipher.open(label, value).map(|_| None)
    };
    let mut quiet = |_: Kind, _: usize, _: usize| {};
    let mut walk = Walk::new(conn, &mut visit, &mut quiet);
    walk.everything()?;
    let unreadable = walk.unreadable;
    Ok(Census { by_key, unreadable })
}

/// What a pass of [`reseal`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resealed {
    /// Values sealed again under the current key, and written.
    pub resealed: Counts,
    /// Values that open under no key held: left as they are.
    pub unreadable: Vec<Unreadable>,
}

/// Seals every value not under `cipher`'s current key again under it, one transaction per
/// batch; `progress` hears of each batch: its kind, the rows read, the values written.
pub fn reseal(
    conn: &mut DbConnection,
    cipher: &InputCipher,
    rng: &dyn SecureRandom,
    progress: &mut dyn FnMut(Kind, usize, usize),
) -> Result<Resealed, StorageError> {
    let mut visit = |_: Kind, label: &str, value: &str| cipher.reseal(rng, label, value);
    let mut walk = Walk::new(conn, &mut visit, progress);
    walk.everything()?;
    Ok(Resealed {
        resealed: walk.replaced,
        unreadable: walk.unreadable,
    })
}

/// What to do with a sealed value found, given its kind and label: `Ok(Some(text))` replaces
/// it, an error marks it unreadable.
type Visit<'a> = dyn FnMut(Kind, &str, &str) -> Result<Option<String>, CipherError> + 'a;

/// One walk over every row holding sealed values.
struct Walk<'w, 'v> {
    conn: &'w mut DbConnection,
    visit: &'w mut Visit<'v>,
    progress: &'w mut dyn FnMut(Kind, usize, usize),
    replaced: Counts,
    unreadable: Vec<Unreadable>,
}

/// A row to write back: what was read, what replaces it, and how many values changed.
struct Rewrite<R, N = String> {
    read: R,
    new: N,
    values: usize,
}

impl<'w, 'v> Walk<'w, 'v> {
    fn new(
        conn: &'w mut DbConnection,
        visit: &'w mut Visit<'v>,
        progress: &'w mut dyn FnMut(Kind, usize, usize),
    ) -> Self {
        Walk {
            conn,
            visit,
            progress,
            replaced: Counts::default(),
            unreadable: Vec::new(),
        }
    }

    fn everything(&mut self) -> Result<(), StorageError> {
        self.credentials()?;
        self.settings()?;
        self.sign_ins()
    }

    /// Visits `value` (sealed for `label`), replacing it when the visit says so; true when
    /// it was replaced.
    fn value(
        &mut self,
        kind: Kind,
        label: &str,
        value: &mut String,
        place: impl FnOnce() -> String,
    ) -> bool {
        match (self.visit)(kind, label, value) {
            Ok(Some(new)) => {
                *value = new;
                true
            }
            Ok(None) => false,
            Err(error) => {
                self.unreadable.push(Unreadable {
                    kind,
                    place: place(),
                    reason: error.to_string(),
                });
                false
            }
        }
    }

    /// Writes `rewrites` back in one transaction through `replace` (a compare-and-set per row,
    /// which returns the values of the rows it replaced); reports the batch.
    fn write<R, N>(
        &mut self,
        kind: Kind,
        rows: usize,
        rewrites: &[Rewrite<R, N>],
        replace: impl Fn(&mut DbConnection, &[Rewrite<R, N>]) -> Result<usize, StorageError>,
    ) -> Result<(), StorageError> {
        let written = if rewrites.is_empty() {
            0
        } else {
            sealed::in_write_transaction(self.conn, |conn| replace(conn, rewrites))?
        };
        self.replaced.add(kind, written);
        (self.progress)(kind, rows, written);
        Ok(())
    }

    fn credentials(&mut self) -> Result<(), StorageError> {
        let kind = Kind::CredentialInputs;
        let mut configs: HashMap<i64, Option<InputConfiguration>> = HashMap::new();
        let mut after = 0;
        loop {
            let rows = sealed::credential_inputs_after(self.conn, after, BATCH_ROWS)?;
            let Some(last) = rows.last() else {
                return Ok(());
            };
            after = last.id;
            let mut rewrites = Vec::new();
            for row in &rows {
                let config = match configs.get(&row.credential_type_id) {
                    Some(config) => config,
                    None => {
                        let config = input_configuration(self.conn, row.credential_type_id)?;
                        configs.entry(row.credential_type_id).or_insert(config)
                    }
                };
                let parsed = serde_json::from_str::<Value>(&row.inputs);
                let (Some(config), Ok(Value::Object(mut inputs))) = (config, parsed) else {
                    self.unreadable.push(Unreadable {
                        kind,
                        place: format!("credential {}", row.id),
                        reason: "its inputs or its type's input fields cannot be read".into(),
                    });
                    continue;
                };
                let mut values = 0;
                for (field, value) in inputs.iter_mut() {
                    if let Value::String(text) = value
                        && config.is_secret(field)
                        && is_sealed(text)
                        && self.value(kind, field, text, || {
                            format!("credential {}, input '{field}'", row.id)
                        })
                    {
                        values += 1;
                    }
                }
                if values > 0 {
                    let new = Value::Object(inputs).to_string();
                    rewrites.push(Rewrite {
                        read: row,
                        new,
                        values,
                    });
                }
            }
            self.write(kind, rows.len(), &rewrites, |conn, rewrites| {
                let replacements: Vec<_> = rewrites
                    .iter()
                    .map(|r| (r.read.id, r.read.inputs.as_str(), r.new.as_str()))
                    .collect();
                let replaced: HashSet<i64> =
                    sealed::replace_credential_inputs(conn, &replacements)?
                        .into_iter()
                        .collect();
                Ok(rewrites
                    .iter()
                    .filter(|r| replaced.contains(&r.read.id))
                    .map(|r| r.values)
                    .sum())
            })?;
        }
    }

    fn settings(&mut self) -> Result<(), StorageError> {
        let kind = Kind::Settings;
        let (_, rows) = acs_storage::settings::load_all(self.conn)?;
        let mut rewrites = Vec::new();
        for (name, text) in &rows {
            let Ok(mut value) = serde_json::from_str::<Value>(text) else {
                continue;
            };
            let mut values = 0;
            for (label, sealed) in crate::settings::sealed_parts(name, &mut value) {
                if self.value(kind, &label, sealed, || format!("setting {name}")) {
                    values += 1;
                }
            }
            if values > 0 {
                rewrites.push(Rewrite {
                    read: (name, text),
                    new: value.to_string(),
                    values,
                });
            }
        }
        self.write(kind, rows.len(), &rewrites, |conn, rewrites| {
            each_row(conn, rewrites, |conn, rewrite| {
                let (name, text) = rewrite.read;
                sealed::replace_setting(conn, name, text, &rewrite.new)
            })
        })
    }

    fn sign_ins(&mut self) -> Result<(), StorageError> {
        let kind = Kind::SignIns;
        let mut after = 0;
        loop {
            let rows = sealed::sign_in_secrets_after(self.conn, after, BATCH_ROWS)?;
            let Some(last) = rows.last() else {
                return Ok(());
            };
            after = last.id;
            let mut rewrites = Vec::new();
            for row in &rows {
                let place = || format!("sign-in {}", row.id);
                let mut nonce = row.nonce.clone();
                let mut verifier = row.pkce_verifier.clone();
                let values = usize::from(self.value(kind, SIGN_IN_NONCE, &mut nonce, place))
                    + usize::from(self.value(kind, SIGN_IN_PKCE, &mut verifier, place));
                if values > 0 {
                    rewrites.push(Rewrite {
                        read: row,
                        new: (nonce, verifier),
                        values,
                    });
                }
            }
            self.write(kind, rows.len(), &rewrites, |conn, rewrites| {
                each_row(conn, rewrites, |conn, rewrite| {
                    let read: &SignInSecrets = rewrite.read;
                    let (nonce, verifier) = &rewrite.new;
                    sealed::replace_sign_in_secrets(conn, read, nonce, verifier)
                })
            })?;
        }
    }
}

/// Replaces `rewrites` one row at a time with `replace` (true when the row was replaced);
/// returns the values of the rows replaced.
fn each_row<R, N>(
    conn: &mut DbConnection,
    rewrites: &[Rewrite<R, N>],
    replace: impl Fn(&mut DbConnection, &Rewrite<R, N>) -> Result<bool, StorageError>,
) -> Result<usize, StorageError> {
    let mut written = 0;
    for rewrite in rewrites {
        if replace(conn, rewrite)? {
            written += rewrite.values;
        }
    }
    Ok(written)
}

/// The input fields of credential type `id`: `None` when the type is gone or its stored
/// fields cannot be read (then its credentials' values are reported, never guessed at).
fn input_configuration(
    conn: &mut DbConnection,
    id: i64,
) -> Result<Option<InputConfiguration>, StorageError> {
    let Some((inputs, managed)) = sealed::credential_type_inputs(conn, id)? else {
        return Ok(None);
    };
    Ok(crate::credential_inputs::input_configuration(&inputs, managed).ok())
}

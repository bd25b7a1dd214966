//! Writing credentials: creating, changing, copying and deleting one, each in one
//! transaction with its activity-stream entry. A write checks what the credential refers to,
//! validates its inputs against its type (read under the type's row lock), seals the secret
//! ones ([`crate::credential_inputs`], where they are opened too) and confirms the sealing key
//! was not retired meanwhile.
//!
//! The caller reads the request's fields and renders the record: the activity stream keeps
//! the record as the API shows it, so each write takes the API's rendering (`render`, whose
//! error type is the caller's) and returns the record it rendered (a deletion, the entry's
//! subject).

mod change;
mod create;
mod references;

pub use change::{change, delete};
pub use create::{copy, create};
pub use references::{owner_of, target_of, visible};

use acs_credential_types::InputCipher;
use acs_storage::StorageError;
use acs_storage::credential_types::CredentialType;
use acs_storage::credentials::Credential;
use ring::rand::SecureRandom;
use serde_json::Value;

use crate::AppError;
use crate::activity::Subject;

/// The message for a name taken within the organization and type.
pub const NAME_TAKEN: &str =
    "Credential with this Organization, Name and Credential type already exists.";

/// Credential fields as a request gave them; `None` means "not given" (a `PATCH` changes
/// only what it gives). The owner is set on creation only.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CredentialInput {
    /// Name.
    pub name: Option<String>,
    /// Description.
    pub description: Option<String>,
    /// Credential type id.
    pub credential_type: Option<i64>,
    /// Owning organization (creation only).
    pub organization: Option<i64>,
    /// Owning user (creation only).
    pub user: Option<i64>,
    /// The inputs, as sent: validated against the type inside the write.
    pub inputs: Option<Value>,
}

/// What seals a write's secret inputs: the deployment's cipher under its current key, and
/// the random source of the nonces.
#[derive(Clone, Copy)]
pub struct Sealer<'a> {
    /// Seals secret inputs under the deployment's current key.
    pub cipher: &'a InputCipher,
    /// The sealing's nonces.
    pub rng: &'a dyn SecureRandom,
}

impl std::fmt::Debug for Sealer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sealer").finish_non_exhaustive()
    }
}

/// A credential with its type, as a write stored it: what the caller renders.
#[derive(Debug, Clone, PartialEq)]
pub struct Stored {
    /// The row.
    pub credential: Credential,
    /// Its type.
    pub credential_type: CredentialType,
}

/// The activity stream's name of credential `credential`.
fn subject(credential: &Credential) -> Subject {
    Subject::named(
        acs_storage::activity::CREDENTIAL,
        credential.id,
        &credential.name,
    )
}

/// A uniqueness conflict on write is the name taken; other failures are what they are.
fn name_conflict(error: StorageError) -> AppError {
    match error {
        StorageError::Conflict(_) => AppError::invalid("__all__", NAME_TAKEN),
        other => other.into(),
    }
}

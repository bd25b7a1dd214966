//! The use cases of ACS that the HTTP API and the management commands share: the settings
//! registry and the snapshots servers read, recording activity-stream entries, issuing tokens and the
//! OAuth 2 grants that issue them, writing credentials, token housekeeping (bulk revocation and clean-up), deleting what holds tokens, the secret key files, and the sealed
//! values of the database with the key rotation that moves them to a new key.
//!
//! Beneath `acs-api` and `xtask`, above `acs-storage` and the domain crates. It knows nothing
//! of HTTP: no actix-web, no request or response types. Its errors are [`AppError`]; the API
//! maps them to its error type, the commands to exit codes and messages.

pub mod activity;
pub mod applications;
pub mod automation;
pub mod client_tokens;
pub mod credential_inputs;
pub mod credential_types;
pub mod credentials;
mod error;
pub mod grants;
pub mod housekeeping;
pub mod key_rotation;
pub mod login_mapping;
pub mod organizations;
pub mod role_grants;
pub mod sealed_values;
pub mod secret_key;
pub mod settings;
pub mod source_credentials;
mod timestamp;
pub mod token_holders;
pub mod tokens;
pub mod update_on_launch;
pub mod users;
mod writer;

pub use error::{AppError, AppResult, CallerError};
pub use timestamp::{timestamp, write_digits};
pub use writer::Writer;

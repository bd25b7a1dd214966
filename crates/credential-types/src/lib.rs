//! Credential-type rules of ACS.
//!
//! A credential type declares the inputs its credentials hold (an *input configuration*) and
//! how those inputs reach a job (an *injector configuration*). This crate holds the rules about
//! both and about the credentials themselves, reproducing the reference system's behaviour and
//! messages where the product contract does not change them:
//!
//! * [`document`]: accepting `inputs`/`injectors` given as JSON values or as YAML/JSON text,
//!   with size, depth and alias-expansion limits;
//! * [`injection`]: a stored credential's templates and values for the injection plan of a run
//!   (`acs_injectors::plan`);
//! * [`kind`]: the credential-type kinds and the rule for custom types' kinds;
//! * [`inputs`]: the input configuration model and its validation;
//! * [`managed`]: the registry of managed (built-in) credential types;
//! * [`values`]: validating a credential's inputs against its type, and the display (masked)
//!   form of stored inputs;
//! * [`ssh_key`]: the `ssh_private_key` format check (PEM parsing, encrypted-key detection);
//! * [`attachment`]: which credentials may be attached together to a job template;
//! * [`cipher`]: the encryption of secret inputs at rest (AES-256-GCM), under a ring of keys
//!   named by id so that a deployment can change its secret key.
//!
//! The crate is pure: it performs no I/O, reads no clock and keeps no mutable global state.
//! Randomness is passed in by the caller (a [`ring::rand::SecureRandom`]).

pub mod attachment;
pub mod cipher;
pub mod document;
pub mod injection;
pub mod injectors;
pub mod inputs;
pub mod kind;
pub mod managed;
pub(crate) mod schema_messages;
pub mod ssh_key;
pub mod values;

pub use attachment::{AttachError, AttachedCredential, check_attach};
pub use cipher::{CipherError, InputCipher, KeyId, sealed_key_id};
pub use document::{DocumentError, parse_document};
pub use injection::{credential_injection, injection_fields};
pub use injectors::{InjectorConfiguration, env_name_allowed, validate_injectors};
pub use inputs::{
    FieldType, Format, InputConfiguration, InputField, check_unique_labels, validate_inputs_config,
};
pub use kind::{Kind, check_custom_kind};
pub use managed::{ManagedType, managed_type, managed_types};
pub use ssh_key::{KeyInfo, check_private_key};
pub use values::{
    ENCRYPTED_PLACEHOLDER, InputErrors, encrypted_fields, masked, validate_credential_inputs,
    with_declared_defaults,
};

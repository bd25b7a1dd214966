//! Pure secret-handling rules of ACS, the auth layer compatible with AWX 24.6.1.
//!
//! - [`secret`]: random bearer secrets (tokens, session ids, client secrets),
//!   their stored SHA-256 digests, and constant-time comparison.
//! - [`password`]: Django-compatible PBKDF2-SHA256 password hashes, so users
//!   imported from AWX keep their passwords.
//!
//! The crate does no I/O and reads no clock or global random source: callers
//! pass a [`ring::rand::SecureRandom`] (and, where relevant, the current time),
//! which keeps every rule deterministic to test and free of runtime choices.

pub mod password;
pub mod secret;

pub use password::{
    DEFAULT_ITERATIONS, MAX_ITERATIONS, PasswordError, hash_password, is_usable, iterations_of,
    unusable_password, verify_password,
};
pub use secret::{
    PlainSecret, RandomnessError, SecretDigest, TOKEN_BYTES, constant_time_eq, generate_secret,
};

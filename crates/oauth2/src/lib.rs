//! Pure OAuth 2 and secret-handling rules of ACS, the auth layer compatible
//! with AWX 24.6.1.
//!
//! - [`secret`]: random bearer secrets (tokens, session ids), their stored
//!   SHA-256 digests, constant-time comparison, and reading a bearer token
//!   from an `Authorization` header.
//! - [`password`]: Django-compatible PBKDF2-SHA256 password hashes, so users
//!   imported from AWX keep their passwords.
//! - [`identifiers`]: generated `client_id`s and `client_secret`s of OAuth 2
//!   applications, alphanumeric like AWX's and drawn without bias.
//! - [`scope`]: the `read` and `write` scopes, parsed strictly when a client
//!   sends them and leniently when read back from storage.
//! - [`lifetimes`]: expiry of access tokens, refresh tokens and authorization
//!   codes, saturating so huge settings never overflow or exceed what the
//!   databases store.
//! - [`masking`]: the mask every response after creation shows in place of a
//!   token or client secret.
//! - [`external`]: the `ALLOW_OAUTH2_FOR_EXTERNAL_USERS` rule keeping users of
//!   external providers (LDAP, OIDC) from creating tokens.
//! - [`application`]: validation of an application's client type, grant type
//!   and redirect URIs, and exact matching of a presented redirect URI.
//!
//! The crate does no I/O and reads no clock or global random source: callers
//! pass a [`ring::rand::SecureRandom`] (and, where relevant, the current time),
//! which keeps every rule deterministic to test and free of runtime choices.

pub mod application;
pub mod external;
pub mod identifiers;
pub mod lifetimes;
pub mod masking;
pub mod password;
pub mod scope;
pub mod secret;

pub use application::{
    ClientType, GrantType, GrantTypeError, RedirectUriError, redirect_uri_allowed,
    validate_redirect_uris,
};
pub use external::{ExternalUserDenied, check_token_creation};
pub use identifiers::{
    CLIENT_ID_LENGTH, CLIENT_SECRET_LENGTH, generate_client_id, generate_client_secret,
};
pub use lifetimes::{LATEST_EXPIRY, Lifetimes, latest_expiry, saturating_add_seconds};
pub use masking::{MASK, shown};
pub use password::{
    DEFAULT_ITERATIONS, MAX_ITERATIONS, PasswordError, hash_password, is_usable, iterations_of,
    unusable_password, verify_password,
};
pub use scope::{DEFAULT_SCOPE, Scope, ScopeError};
pub use secret::{
    PlainSecret, RandomnessError, SecretDigest, TOKEN_BYTES, constant_time_eq, generate_secret,
    parse_bearer,
};

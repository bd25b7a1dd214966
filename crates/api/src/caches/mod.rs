//! What a server keeps between requests to spare the database and the password hashing:
//! principals, verified passwords and OAuth 2 clients, each valid only while the change
//! counters it was built under hold (see `docs/architecture.md`, "Who moves what"). A leaf of
//! the crate: the caches import nothing of the handlers, of authentication or of the state
//! that holds them.

pub mod clients;
pub mod passwords;
pub mod principals;

pub use clients::ClientCache;
pub use passwords::PasswordCache;
pub use principals::PrincipalCache;

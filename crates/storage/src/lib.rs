//! Storage of ACS: the diesel schema, migrations, the connection pool, and repository functions.
//!
//! One code path serves both backends: [`DbConnection`] is a diesel `MultiConnection` over
//! SQLite (the embedded default) and PostgreSQL. Repository functions take `&mut DbConnection`
//! so callers compose several of them inside one transaction; they know SQL and nothing about
//! HTTP, and they return plain row types.

pub mod activity;
pub mod applications;
mod connection;
pub mod credential_types;
pub mod credentials;
mod error;
pub mod list;
mod migrations;
pub mod organizations;
pub mod revisions;
pub mod schema;
pub mod sessions;
pub mod settings;
pub mod source_credentials;
pub mod stats;
pub mod sweeps;
pub mod throttle;
pub mod tokens;
pub mod users;

pub use connection::{Backend, Database, DbConnection, Manager, Pool, PooledConnection};
pub use error::{StorageError, StorageResult};
pub use migrations::{pending_migrations, run_migrations};

/// Timestamps are stored as naive UTC date-times on both backends.
pub type Timestamp = chrono::NaiveDateTime;

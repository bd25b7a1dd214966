//! Storage of ACS: the diesel schema, migrations, the connection pool, and repository functions.
//!
//! One code path serves both backends: [`DbConnection`] is a diesel `MultiConnection` over
//! SQLite (the embedded default) and PostgreSQL. Repository functions take `&mut DbConnection`
//! so callers compose several of them inside one transaction; they know SQL and nothing about
//! HTTP, and they return plain row types.
//!
//! Every `Insertable` with optional fields writes `None` as NULL
//! (`treat_none_as_default_value = false`; no such column has another default). Diesel's
//! default writes `DEFAULT` (or, on SQLite, leaves the column out), so the SQL text depends on
//! which fields are set and diesel prepares the statement anew on every insert: on the token
//! paths that was a parse and a plan per row.
//!
//! A lookup by a unique key (a primary key, a digest, a client id, a username) is
//! `get_result`, never `first`: `first` adds a bound `LIMIT ?`, and SQLite 3.50 plans with a
//! bound LIMIT's value, so every rebinding expires the cached statement and each call parsed
//! and planned it again (`sqlite3Reprepare` under every refresh grant's two reads).

pub mod activity;
pub mod applications;
pub mod authorization_codes;
pub mod change_feed;
pub mod checkpoint;
mod connection;
pub mod counted;
pub mod credential_types;
pub mod credentials;
pub mod direct_grants;
mod error;
pub mod external_identities;
pub mod group_commit;
pub mod hosts;
pub mod instances;
pub mod inventories;
pub mod inventory_groups;
pub mod inventory_sources;
pub mod issued_tokens;
pub mod job_templates;
pub mod list;
pub mod local_changes;
mod migrations;
pub mod named_urls;
pub mod organizations;
pub mod projects;
pub mod refresh_tokens;
pub mod retired_keys;
pub mod revisions;
pub mod roles;
mod rows;
pub mod schema;
pub mod sealed;
pub mod sessions;
pub mod settings;
pub mod source_credentials;
pub mod sso_states;
pub mod stamps;
pub mod stats;
mod summaries;
pub mod sweeps;
pub mod teams;
pub mod throttle;
pub mod tokens;
pub mod unified_job_lines;
pub mod unified_jobs;
pub mod users;

pub(crate) use connection::lookup;
pub use connection::{Backend, Database, DbConnection, Manager, Pool, PooledConnection};
pub use error::{StorageError, StorageResult};
pub use migrations::{pending_migrations, run_migrations};

/// Timestamps are stored as naive UTC date-times on both backends.
pub type Timestamp = chrono::NaiveDateTime;

/// Fixtures for the repository unit tests.
#[cfg(test)]
mod test_support {
    use diesel::connection::SimpleConnection;

    use crate::{Database, DbConnection, Timestamp};

    /// A migrated in-memory SQLite database with user 1 (`alice`), organization 1 and a
    /// confidential authorization-code application 1 in it.
    pub fn seeded() -> DbConnection {
        let mut conn = Database::Sqlite(":memory:".into())
            .connect()
            .expect("an in-memory database");
        crate::run_migrations(&mut conn).expect("migrations");
        conn.batch_execute(
            "INSERT INTO users (id, username, password, created, modified) \
               VALUES (1, 'alice', '!', '2024-01-01 00:00:00', '2024-01-01 00:00:00');
             INSERT INTO organizations (id, name, created, modified) \
               VALUES (1, 'o', '2024-01-01 00:00:00', '2024-01-01 00:00:00');
             INSERT INTO applications (id, name, client_id, client_secret_digest, client_type, \
               authorization_grant_type, organization_id, created, modified) VALUES \
               (1, 'a', 'c', X'00', 'confidential', 'authorization-code', 1, \
                '2024-01-01 00:00:00', '2024-01-01 00:00:00');",
        )
        .expect("seed rows");
        conn
    }

    /// `YYYY-MM-DD HH:MM:SS` as a timestamp.
    pub fn at(text: &str) -> Timestamp {
        chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S").expect("a timestamp")
    }
}

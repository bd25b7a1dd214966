use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

use crate::{DbConnection, StorageError, StorageResult};

const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");
const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");

/// Applies every pending migration of the connection's backend; returns how many ran.
///
/// Safe to run from several processes at once on PostgreSQL (diesel takes a lock per
/// migration); idempotent everywhere.
pub fn run_migrations(conn: &mut DbConnection) -> StorageResult<usize> {
    let applied = match conn {
        DbConnection::Sqlite(inner) => inner.run_pending_migrations(SQLITE_MIGRATIONS),
        DbConnection::Postgres(inner) => inner.run_pending_migrations(POSTGRES_MIGRATIONS),
    };
    applied
        .map(|versions| versions.len())
        .map_err(|error| StorageError::Migration(error.to_string()))
}

/// How many migrations of the connection's backend have not been applied yet. Management
/// commands refuse to work on a database whose schema is behind the code.
pub fn pending_migrations(conn: &mut DbConnection) -> StorageResult<usize> {
    let pending = match conn {
        DbConnection::Sqlite(inner) => inner
            .pending_migrations(SQLITE_MIGRATIONS)
            .map(|migrations| migrations.len()),
        DbConnection::Postgres(inner) => inner
            .pending_migrations(POSTGRES_MIGRATIONS)
            .map(|migrations| migrations.len()),
    };
    pending.map_err(|error| StorageError::Migration(error.to_string()))
}

//! The database the server uses, found as the server finds it, and opened for a command.

use std::path::PathBuf;

use acs_app::settings::Settings;
use acs_storage::{Database, DbConnection};
use diesel::connection::SimpleConnection;

use super::error::{CommandError, one_line};

/// Where the database is: `ACS_DATABASE_URL`, else `acs.sqlite3` in `ACS_DATA_DIR` (default
/// `./data`), exactly as the server's configuration reads them.
#[derive(Debug, Clone)]
pub struct Location {
    /// `ACS_DATA_DIR`.
    pub data_dir: PathBuf,
    /// The database selected.
    pub database: Database,
}

impl Location {
    /// Reads `ACS_DATA_DIR` and `ACS_DATABASE_URL`.
    pub fn from_env() -> Self {
        let data_dir =
            PathBuf::from(std::env::var_os("ACS_DATA_DIR").unwrap_or_else(|| "./data".into()));
        let database =
            Database::from_url(std::env::var("ACS_DATABASE_URL").ok().as_deref(), &data_dir);
        Location { data_dir, database }
    }

    /// The secret key file: `ACS_SECRET_KEY_FILE`, else `secret_key` in `ACS_DATA_DIR`, as the
    /// server's configuration reads it.
    pub fn secret_key_file(&self) -> PathBuf {
        std::env::var_os("ACS_SECRET_KEY_FILE")
            .map_or_else(|| self.data_dir.join("secret_key"), PathBuf::from)
    }
}

/// Connection settings of a management command on SQLite, on top of the server's:
///
/// - a 64 MiB page cache (SQLite's default is 2 MiB): a bulk delete touches most pages of the
///   random token-digest index in every batch, and re-reading them each time would dominate;
/// - a checkpoint every 256 MiB of WAL instead of every 4 MiB: every batch rewrites many of
///   the same pages, and a checkpoint after each batch would copy them into the database file
///   (and sync it) again and again; a larger interval copies each page once per interval;
/// - the WAL file cut back to 64 MiB after a checkpoint, so the disk space comes back.
pub const SQLITE_COMMAND_PRAGMAS: &str = "PRAGMA cache_size = -65536; \
    PRAGMA wal_autocheckpoint = 65536; PRAGMA journal_size_limit = 67108864;";

/// Opens the database of `location` for a command that works on existing data: a missing
/// SQLite file is not created, an unreachable server is reported, and a schema behind this
/// version is refused (commands never migrate: that is `cargo xtask migrate`'s job, or the
/// server's at start), so an old database is never half-used.
pub fn open_existing(location: &Location) -> Result<DbConnection, CommandError> {
    if let Database::Sqlite(path) = &location.database
        && !path.is_file()
    {
        return Err(CommandError::Database(format!(
            "no database at {} (set ACS_DATABASE_URL or ACS_DATA_DIR as for acs-server, \
             which creates it on first start)",
            path.display()
        )));
    }
    let mut conn = location.database.connect().map_err(|error| {
        CommandError::Database(format!(
            "cannot open the database: {}",
            one_line(&error.to_string())
        ))
    })?;
    if location.database.is_sqlite() {
        conn.batch_execute(SQLITE_COMMAND_PRAGMAS)
            .map_err(|error| CommandError::Database(one_line(&error.to_string())))?;
    }
    let pending = acs_storage::pending_migrations(&mut conn).map_err(|error| {
        CommandError::Database(format!(
            "cannot read the database's schema version: {}",
            one_line(&error.to_string())
        ))
    })?;
    if pending > 0 {
        return Err(CommandError::Database(format!(
            "the database schema is behind this version ({pending} migrations pending): \
             run `cargo xtask migrate` or start the new acs-server first"
        )));
    }
    Ok(conn)
}

/// The settings stored in the database, as a server would read them.
pub fn settings_in_force(conn: &mut DbConnection) -> Result<Settings, CommandError> {
    let (_, rows) = acs_storage::settings::load_all(conn)?;
    Ok(Settings::from_rows(&rows))
}

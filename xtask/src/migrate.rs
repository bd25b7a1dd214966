//! `cargo xtask migrate`: applies pending migrations to the database the server would use.

use std::path::PathBuf;

use crate::Result;

pub fn run() -> Result<()> {
    // The same variables and defaults as the server's configuration, so both open one database.
    let data_dir =
        PathBuf::from(std::env::var_os("ACS_DATA_DIR").unwrap_or_else(|| "./data".into()));
    let db = acs_storage::Database::from_url(
        std::env::var("ACS_DATABASE_URL").ok().as_deref(),
        &data_dir,
    );
    if db.is_sqlite() {
        // SQLite creates the file but not its directory; a fresh checkout has no ./data yet.
        std::fs::create_dir_all(&data_dir).map_err(|error| {
            format!(
                "cannot create the data directory {}: {error}",
                data_dir.display()
            )
        })?;
    }
    let mut conn = db.connect()?;
    let applied = acs_storage::run_migrations(&mut conn)?;
    println!("applied {applied} migrations");
    Ok(())
}

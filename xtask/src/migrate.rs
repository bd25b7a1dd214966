//! `cargo xtask migrate`: applies pending migrations to the database the server would use.

use xtask::management::database::Location;

use crate::Result;

pub fn run() -> Result<()> {
    // The same variables and defaults as the server's configuration, so both open one database.
    let Location { data_dir, database } = Location::from_env();
    if database.is_sqlite() {
        // SQLite creates the file but not its directory; a fresh checkout has no ./data yet.
        std::fs::create_dir_all(&data_dir).map_err(|error| {
            format!(
                "cannot create the data directory {}: {error}",
                data_dir.display()
            )
        })?;
    }
    let mut conn = database.connect()?;
    let applied = acs_storage::run_migrations(&mut conn)?;
    println!("applied {applied} migrations");
    Ok(())
}

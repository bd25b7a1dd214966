//! The per-process settings cache. Each request reads the settings revision (one primary-key
//! lookup) and reloads only when another request, here or on another server, changed it.

use std::sync::{Arc, RwLock};

use acs_storage::{DbConnection, StorageResult};

use super::Settings;

/// Settings shared by the requests of one process.
#[derive(Debug)]
pub struct SettingsCache {
    current: RwLock<(i64, Arc<Settings>)>,
}

impl SettingsCache {
    /// A cache that will load on first use.
    pub fn new() -> Self {
        SettingsCache {
            current: RwLock::new((-1, Arc::new(Settings::from_rows(&[])))),
        }
    }

    /// The settings in force now, reloaded if the stored revision moved.
    pub fn current(&self, conn: &mut DbConnection) -> StorageResult<Arc<Settings>> {
        let revision = acs_storage::settings::revision(conn)?;
        {
            let guard = self
                .current
                .read()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if guard.0 == revision {
                return Ok(guard.1.clone());
            }
        }
        let (revision, rows) = acs_storage::settings::load_all(conn)?;
        let settings = Arc::new(Settings::from_rows(&rows));
        let mut guard = self
            .current
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // Another request may have loaded a newer revision meanwhile; keep the newest.
        if revision >= guard.0 {
            *guard = (revision, settings.clone());
        }
        Ok(settings)
    }
}

impl Default for SettingsCache {
    fn default() -> Self {
        Self::new()
    }
}

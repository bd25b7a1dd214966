//! The per-process settings cache: settings are reloaded only when their change counter moved
//! (see `acs_storage::change_feed`), whichever server changed them.

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

    /// The settings loaded at `revision`, if those are the ones held (no database read).
    pub fn at(&self, revision: i64) -> Option<Arc<Settings>> {
        let guard = self
            .current
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        (guard.0 == revision).then(|| guard.1.clone())
    }

    /// The settings in force at `revision` (the stored settings counter), reloaded if it moved.
    pub fn current(&self, conn: &mut DbConnection, revision: i64) -> StorageResult<Arc<Settings>> {
        if let Some(settings) = self.at(revision) {
            return Ok(settings);
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

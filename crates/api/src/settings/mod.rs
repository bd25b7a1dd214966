//! Settings: every named setting lives in the database, is read and written by superusers
//! through `/api/v2/settings/<category>/`, and is seen by every server on its next request.

pub mod cache;
pub mod registry;
mod snapshot;

pub use cache::SettingsCache;
pub use snapshot::Settings;

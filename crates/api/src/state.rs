//! Process-wide state shared by every request.

use acs_storage::Pool;
use ring::rand::SystemRandom;

use crate::caches::{ClientCache, PasswordCache, PrincipalCache};
use crate::config::Config;
use crate::pages::Pages;
use acs_app::settings::SettingsCache;

/// What every handler can reach. Nothing here is needed for correctness across servers: the
/// caches are keyed so that a stale entry can never grant what the database would refuse.
#[derive(Debug)]
pub struct AppState {
    /// Database connections.
    pub pool: Pool,
    /// One permit per pooled connection: requests wait here, on the async side, rather than
    /// as parked blocking threads inside the pool (which costs a thread and wake-ups each).
    pub blocking_slots: tokio::sync::Semaphore,
    /// The change counters as last read, by a background thread or a request: what decides
    /// whether the caches below still hold.
    pub changes: acs_storage::change_feed::ChangeFeed,
    /// Settings at the latest revision seen.
    pub settings: SettingsCache,
    /// Authenticated principals, valid while the change counters they were built under hold.
    pub principals: PrincipalCache,
    /// Recently verified passwords, keyed to the stored hash.
    pub passwords: PasswordCache,
    /// The password-hashing threads (lower priority) and their bounded queue.
    pub password_turns: crate::password_gate::PasswordGate,
    /// OAuth 2 applications by client id, valid while the `applications` counter holds.
    pub clients: ClientCache,
    /// The system's secure random number generator.
    pub rng: SystemRandom,
    /// This node's runs, executing and waiting (at most `ACS_MAX_CONCURRENT_RUNS` at once).
    pub runs: acs_runner::RunQueue,
    /// Start-time configuration.
    pub config: Config,
    /// When this node started (its heartbeats say so).
    pub started: chrono::NaiveDateTime,
    /// Server-rendered pages.
    pub pages: Pages,
    /// The deployment's secret keys, followed on disk: [`acs_app::secret_key::Keyring::cipher`]
    /// seals and opens secret inputs and settings under the keys in force.
    pub keys: acs_app::secret_key::Keyring,
}

/// The shared state as the HTTP server and the runs hold it.
pub type AppStateData = actix_web::web::Data<AppState>;

/// The runner reaches the server's database, settings, keys and places through its state.
impl acs_runner::Host for AppState {
    fn pool(&self) -> &Pool {
        &self.pool
    }

    fn settings(
        &self,
        conn: &mut acs_storage::DbConnection,
        revision: i64,
    ) -> acs_storage::StorageResult<std::sync::Arc<acs_app::settings::Settings>> {
        self.settings.current(conn, revision)
    }

    fn cipher(&self) -> std::sync::Arc<acs_credential_types::InputCipher> {
        self.keys.cipher()
    }

    fn rng(&self) -> &dyn ring::rand::SecureRandom {
        &self.rng
    }

    fn data_dir(&self) -> &std::path::Path {
        &self.config.data_dir
    }

    fn secret_key_file(&self) -> &std::path::Path {
        &self.config.secret_key_file
    }

    fn database(&self) -> &acs_storage::Database {
        &self.config.database
    }

    fn runs(&self) -> &acs_runner::RunQueue {
        &self.runs
    }
}

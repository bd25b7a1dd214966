//! The database side of one request: the shared state, at most one pooled connection checked
//! out on first use, and the change counters and settings as the request first saw them.
//! Authentication reads through it; the request's [`Context`](crate::context::Context) owns
//! one and hands it to whatever needs the database.

use std::sync::Arc;
use std::time::{Duration, Instant};

use acs_app::settings::Settings;
use acs_storage::revisions::Revisions;
use acs_storage::{DbConnection, PooledConnection, Timestamp};

use crate::error::{ApiError, ApiResult};
use crate::principal::Principal;
use crate::state::AppState;

/// The least the first checkout may wait, however much of the budget the wait for a slot
/// took: time to test an idle connection or open a new one.
const MIN_CHECKOUT_WAIT: Duration = Duration::from_millis(250);

/// What one request reads and writes through.
pub struct Store<'a> {
    /// Shared state.
    pub state: &'a AppState,
    /// The time the request is evaluated at.
    pub now: Timestamp,
    conn: Option<PooledConnection>,
    revisions: Option<Revisions>,
    settings: Option<Arc<Settings>>,
    /// Until when the first checkout may wait: the request's database budget
    /// (`ACS_DATABASE_TIMEOUT_SECONDS`) counts from its arrival, the wait for a blocking slot
    /// included.
    checkout_deadline: Option<Instant>,
}

impl std::fmt::Debug for Store<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("now", &self.now)
            .field("connected", &self.conn.is_some())
            .finish_non_exhaustive()
    }
}

impl<'a> Store<'a> {
    /// A store for a request that may wait for its first connection until `checkout_deadline`,
    /// starting with `conn` when the caller already holds one.
    pub fn new(
        state: &'a AppState,
        checkout_deadline: Instant,
        conn: Option<PooledConnection>,
    ) -> Self {
        Store {
            state,
            // Microseconds, as both databases store them, so a timestamp read back equals the
            // one written (an expiry computed from `now` gives whole seconds until it).
            now: chrono::SubsecRound::trunc_subsecs(chrono::Utc::now().naive_utc(), 6),
            conn,
            revisions: None,
            settings: None,
            checkout_deadline: Some(checkout_deadline),
        }
    }

    /// The request's connection, checked out on first use. The first checkout waits only for
    /// what is left of the request's budget; a later one (after [`Store::release`]) for the
    /// pool's whole timeout.
    pub fn conn(&mut self) -> ApiResult<&mut DbConnection> {
        if self.conn.is_none() {
            let conn = match self.checkout_deadline.take() {
                Some(deadline) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    self.state.pool.get_within(left.max(MIN_CHECKOUT_WAIT))?
                }
                None => self.state.pool.get()?,
            };
            self.conn = Some(conn);
        }
        match self.conn.as_mut() {
            Some(conn) => Ok(conn),
            None => Err(ApiError::Internal("connection vanished".into())),
        }
    }

    /// Returns the connection to the pool (before slow CPU work such as password hashing).
    pub fn release(&mut self) {
        self.conn = None;
    }

    /// `principal` as the author of a use case's write, now, through this request's pool.
    pub fn writer(&self, principal: &'a Principal) -> acs_app::Writer<'a> {
        let state = self.state;
        acs_app::Writer {
            pool: &state.pool,
            actor: &principal.actor,
            user: &principal.user,
            now: self.now,
        }
    }

    /// Runs `work` in one write transaction on the request's connection.
    pub fn write<T>(
        &mut self,
        work: impl FnOnce(&mut DbConnection) -> ApiResult<T>,
    ) -> ApiResult<T> {
        let pool = self.state.pool.clone();
        let conn = self.conn()?;
        pool.transaction(conn, work)
    }

    /// Runs `work`, whose change on PostgreSQL is one statement, as one write on the
    /// request's connection, without `BEGIN` and `COMMIT` there (see
    /// `acs_storage::Pool::single_statement_write`).
    pub fn write_single_statement<T>(
        &mut self,
        work: impl FnOnce(&mut DbConnection) -> ApiResult<T>,
    ) -> ApiResult<T> {
        let pool = self.state.pool.clone();
        let conn = self.conn()?;
        pool.single_statement_write(conn, work)
    }

    /// The change counters as this request first saw them: the change feed's, while they can
    /// be trusted (see `acs_storage::change_feed`), or else read on the request's connection.
    pub fn revisions(&mut self) -> ApiResult<Revisions> {
        if let Some(revisions) = self.revisions {
            return Ok(revisions);
        }
        let state = self.state;
        let revisions = match state.changes.fresh() {
            Some(revisions) => revisions,
            None => state.changes.read(self.conn()?)?,
        };
        self.revisions = Some(revisions);
        Ok(revisions)
    }

    /// The settings in force for this request.
    pub fn settings(&mut self) -> ApiResult<Arc<Settings>> {
        if let Some(settings) = &self.settings {
            return Ok(settings.clone());
        }
        let revision = self.revisions()?.settings;
        let state = self.state;
        let settings = state.settings.current(self.conn()?, revision)?;
        self.settings = Some(settings.clone());
        Ok(settings)
    }

    /// The settings, if this request has read them already.
    pub fn settings_read(&self) -> Option<&Settings> {
        self.settings.as_deref()
    }

    /// Forgets the settings read so far, so the next [`Store::settings`] sees a change this
    /// request just wrote.
    pub fn reload_settings(&mut self) {
        self.revisions = None;
        self.settings = None;
    }
}

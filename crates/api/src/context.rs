//! The blocking side of a request. A handler parses the HTTP request on the async side, then
//! hands one closure to [`run`]: it executes on the blocking pool with a [`Context`] that
//! authenticates lazily, checks out at most one connection and reads the settings once.

use std::sync::Arc;
use std::time::{Duration, Instant};

use acs_storage::revisions::Revisions;
use acs_storage::{DbConnection, PooledConnection, Timestamp};
use actix_web::http::Method;
use actix_web::{HttpRequest, web};

use crate::auth::{self, Principal};
use crate::error::{ApiError, ApiResult};
use crate::http::request::RequestInfo;
use crate::state::AppState;
use acs_app::settings::Settings;

/// A session cookie to send back: the sliding expiry re-arms it on every request.
#[derive(Debug, Clone)]
pub struct SessionCookie {
    /// Cookie name (`SESSION_COOKIE_NAME`).
    pub name: String,
    /// The session id itself (already known to the client).
    pub value: String,
    /// Seconds until it expires.
    pub max_age: i64,
}

/// The value a handler produced, with the session cookie to refresh, if any.
#[derive(Debug)]
pub struct Reply<T> {
    /// What the handler computed.
    pub value: T,
    /// Set when the request was authenticated by a session.
    pub session: Option<SessionCookie>,
    /// Whether the request came over HTTPS (cookies get `Secure`).
    pub secure: bool,
}

impl<T> Reply<T> {
    /// The same reply with its value split: `(extra, value)` becomes `extra` and a reply of
    /// `value`, for handlers that compute something besides the body (a `Location`, the id of
    /// a run to start once committed).
    pub fn split<E, V>(self) -> (E, Reply<V>)
    where
        T: Into<(E, V)>,
    {
        let (extra, value) = self.value.into();
        (
            extra,
            Reply {
                value,
                session: self.session,
                secure: self.secure,
            },
        )
    }
}

/// What a request's blocking work may use.
pub struct Context<'a> {
    /// Shared state.
    pub state: &'a AppState,
    /// The parts of the HTTP request that matter here.
    pub request: RequestInfo,
    /// The time the request is evaluated at.
    pub now: Timestamp,
    conn: Option<PooledConnection>,
    revisions: Option<Revisions>,
    settings: Option<Arc<Settings>>,
    principal: Option<Option<Principal>>,
    pub(crate) session_cookie: Option<SessionCookie>,
    /// Why the directory could not answer this request's password check, for the login page.
    pub(crate) directory_problem: Option<String>,
    /// Until when the first checkout may wait: the request's database budget
    /// (`ACS_DATABASE_TIMEOUT_SECONDS`) counts from its arrival, the wait for a blocking slot
    /// included.
    checkout_deadline: Option<Instant>,
}

/// The least the first checkout may wait, however much of the budget the wait for a slot
/// took: time to test an idle connection or open a new one.
const MIN_CHECKOUT_WAIT: Duration = Duration::from_millis(250);

impl std::fmt::Debug for Context<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("method", &self.request.method)
            .finish_non_exhaustive()
    }
}

impl<'a> Context<'a> {
    fn new(state: &'a AppState, request: RequestInfo, checkout_deadline: Instant) -> Self {
        Context {
            checkout_deadline: Some(checkout_deadline),
            state,
            request,
            // Microseconds, as both databases store them, so a timestamp read back equals the
            // one written (an expiry computed from `now` gives whole seconds until it).
            now: chrono::SubsecRound::trunc_subsecs(chrono::Utc::now().naive_utc(), 6),
            conn: None,
            revisions: None,
            settings: None,
            principal: None,
            session_cookie: None,
            directory_problem: None,
        }
    }

    /// The request's connection, checked out on first use. The first checkout waits only for
    /// what is left of the request's budget; a later one (after [`Context::release`]) for the
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

    /// Runs `work` in one write transaction on the request's connection.
    pub fn write<T>(
        &mut self,
        work: impl FnOnce(&mut DbConnection) -> ApiResult<T>,
    ) -> ApiResult<T> {
        let pool = self.state.pool.clone();
        let conn = self.conn()?;
        pool.transaction(conn, work)
    }

    /// The public base URL of this service: the `BASE_URL` setting, or else the scheme and
    /// host this request reached (through a trusted proxy's `X-Forwarded-Proto`).
    pub fn base_url(&mut self) -> ApiResult<String> {
        let settings = self.settings()?;
        let configured = settings.text("BASE_URL");
        if !configured.is_empty() {
            return Ok(configured.trim_end_matches('/').to_owned());
        }
        let https = self.request.is_https(settings.trusted_proxies());
        let scheme = if https { "https" } else { "http" };
        Ok(format!("{scheme}://{}", self.request.host))
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

    /// Forgets the settings read so far, so the next [`Context::settings`] sees a change this
    /// request just wrote.
    pub fn reload_settings(&mut self) {
        self.revisions = None;
        self.settings = None;
    }

    /// Who is making the request, if anyone (authenticates on first call).
    pub fn principal(&mut self) -> ApiResult<Option<&Principal>> {
        if self.principal.is_none() {
            let principal = auth::authenticate(self)?;
            self.principal = Some(principal);
        }
        Ok(self.principal.as_ref().and_then(Option::as_ref))
    }

    /// The user of a browser session, for pages: bearer tokens and Basic credentials do not
    /// count, since what a page does (consent, say) is given by a person at a browser.
    pub fn session_user(&mut self) -> ApiResult<Option<acs_storage::users::User>> {
        Ok(self
            .principal()?
            .filter(|principal| principal.is_session())
            .map(|principal| principal.user.clone()))
    }

    /// The authenticated user, or 401. A read-scoped token on an unsafe method is refused with
    /// 403 before anything else; session-authenticated unsafe requests must pass the CSRF
    /// check (403).
    pub fn require_user(&mut self) -> ApiResult<Principal> {
        let principal = self.principal()?.cloned().ok_or(ApiError::Unauthorized)?;
        let safe = is_safe(&self.request.method);
        acs_authz::check_method(&principal.actor, safe)?;
        if principal.is_session() && !safe {
            let settings = self.settings()?;
            let https = self.request.is_https(settings.trusted_proxies());
            auth::csrf::check(&self.request, https)?;
        }
        Ok(principal)
    }
}

/// GET, HEAD and OPTIONS change nothing.
pub fn is_safe(method: &Method) -> bool {
    matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// Runs `work` on the blocking pool with a fresh [`Context`].
pub async fn run<T, F>(
    state: &web::Data<AppState>,
    req: &HttpRequest,
    work: F,
) -> ApiResult<Reply<T>>
where
    T: Send + 'static,
    F: FnOnce(&mut Context<'_>) -> ApiResult<T> + Send + 'static,
{
    let request = RequestInfo::from_request(req);
    // A request waits for the database at most `ACS_DATABASE_TIMEOUT_SECONDS` in all: for a
    // blocking slot, then for a connection. Without the bound, while the database is down
    // requests queue for slots behind others that each wait out the whole checkout timeout,
    // and answers take a multiple of it.
    let budget = state.config.pool_timeout;
    let deadline = Instant::now() + budget;
    if let Some(conn) = inline_connection(state, req, &request) {
        let mut ctx = Context::new(state, request, deadline);
        ctx.conn = Some(conn);
        return finish(ctx, work);
    }
    let _slot = match tokio::time::timeout(budget, state.blocking_slots.acquire()).await {
        Ok(Ok(slot)) => slot,
        Ok(Err(_)) => return Err(ApiError::Unavailable("the server is shutting down".into())),
        Err(_) => {
            return Err(ApiError::Unavailable(format!(
                "no database connection became free within {budget:?}"
            )));
        }
    };
    let state = state.clone().into_inner();
    web::block(move || finish(Context::new(&state, request, deadline), work)).await?
}

/// A connection to run a request's work with on the worker thread itself, when that is
/// cheaper than handing it to the blocking pool and back. The hand-off (two thread wake-ups)
/// cost more than a cached bearer-authenticated read itself: `GET /api/v2/me/` went from
/// about half the bare actix-web rate to three quarters on SQLite when run in place.
///
/// Only work that cannot stall the worker's other connections runs in place: a safe method
/// (reads; at most a session's sliding expiry is written), with HTTP Basic credentials only
/// when their principal is cached (a first check costs a PBKDF2 hash or a directory round
/// trip), and only with a pooled connection idle at once and known good. Anything else, a
/// wait for a connection included, goes to the blocking pool.
fn inline_connection(
    state: &AppState,
    req: &HttpRequest,
    request: &RequestInfo,
) -> Option<PooledConnection> {
    if !is_safe(req.method()) {
        return None;
    }
    let basic = request
        .authorization
        .as_deref()
        .and_then(|value| value.as_bytes().get(..6))
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case(b"basic "));
    if basic && !auth::basic_is_cached(state, request) {
        return None;
    }
    state.pool.try_get_idle()
}

/// Runs `work` in `ctx`, on this thread.
fn finish<T, F>(mut ctx: Context<'_>, work: F) -> ApiResult<Reply<T>>
where
    F: FnOnce(&mut Context<'_>) -> ApiResult<T>,
{
    let outcome = work(&mut ctx);
    if !is_safe(&ctx.request.method) {
        // An unsafe request may have written outside a transaction (which the pool would have
        // counted); whatever it changed must count for every request after its answer.
        ctx.state.changes.note_local_change();
    }
    let value = outcome?;
    Ok(Reply {
        value,
        session: ctx.session_cookie.take(),
        secure: ctx.request.is_https(
            ctx.settings
                .as_deref()
                .map_or(&[][..], Settings::trusted_proxies),
        ),
    })
}

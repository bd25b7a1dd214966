//! The blocking side of a request. A handler parses the HTTP request on the async side, then
//! hands one closure to [`run`]: it executes on the blocking pool with a [`Context`] that
//! authenticates lazily, checks out at most one connection and reads the settings once.

use std::ops::{Deref, DerefMut};
use std::time::Instant;

use acs_app::settings::Settings;
use acs_storage::PooledConnection;
use actix_web::http::Method;
use actix_web::{HttpRequest, web};

use crate::auth::session::SessionCookie;
use crate::auth::{self, Principal};
use crate::error::{ApiError, ApiResult};
use crate::http::request::RequestInfo;
use crate::state::AppState;
use crate::store::Store;

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

/// What a request's blocking work may use: the request, its [`Store`] (reached through
/// `Deref`, so `ctx.conn()` and `ctx.settings()` read as before) and, once asked for, who
/// made it.
pub struct Context<'a> {
    /// The database side of the request.
    pub store: Store<'a>,
    /// The parts of the HTTP request that matter here.
    pub request: RequestInfo,
    principal: Option<Option<Principal>>,
    session_cookie: Option<SessionCookie>,
    /// Runs the work committed, each in the place it took, to start once it has succeeded.
    runs_to_start: Vec<(i64, acs_runner::Place)>,
}

impl std::fmt::Debug for Context<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("method", &self.request.method)
            .finish_non_exhaustive()
    }
}

impl<'a> Deref for Context<'a> {
    type Target = Store<'a>;

    fn deref(&self) -> &Store<'a> {
        &self.store
    }
}

impl DerefMut for Context<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.store
    }
}

impl<'a> Context<'a> {
    fn new(
        state: &'a AppState,
        request: RequestInfo,
        checkout_deadline: Instant,
        conn: Option<PooledConnection>,
    ) -> Self {
        Context {
            store: Store::new(state, checkout_deadline, conn),
            request,
            principal: None,
            session_cookie: None,
            runs_to_start: Vec::new(),
        }
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

    /// A place in this node's run queue for a run about to be written: taken before the
    /// write, so that a launch the queue cannot take writes nothing (503).
    pub fn run_place(&self) -> ApiResult<acs_runner::Place> {
        Ok(self.state.runs.reserve()?)
    }

    /// Starts run `run` (committed, `pending`) in `place` once the request's work has
    /// succeeded; if it fails, the place is given back.
    pub fn start_when_done(&mut self, run: i64, place: acs_runner::Place) {
        self.runs_to_start.push((run, place));
    }

    /// Who is making the request, if anyone (authenticates on first call).
    pub fn principal(&mut self) -> ApiResult<Option<&Principal>> {
        if self.principal.is_none() {
            let found = auth::authenticate(&mut self.store, &self.request)?;
            let principal = found.map(|found| {
                self.session_cookie = found.session;
                found.principal
            });
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
        return finish(
            state,
            Context::new(state, request, deadline, Some(conn)),
            work,
        );
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
    web::block(move || finish(&state, Context::new(&state, request, deadline, None), work)).await?
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

/// Runs `work` in `ctx`, on this thread, then starts the runs it committed.
fn finish<T, F>(
    state: &std::sync::Arc<AppState>,
    mut ctx: Context<'_>,
    work: F,
) -> ApiResult<Reply<T>>
where
    F: FnOnce(&mut Context<'_>) -> ApiResult<T>,
{
    // Whatever the work changed, the pool counted for the change feed once it was durable
    // (`acs_storage::local_changes`): a request after this answer will not trust older counters.
    let value = work(&mut ctx)?;
    for (run, place) in ctx.runs_to_start.drain(..) {
        acs_runner::start(state.clone(), run, place);
    }
    Ok(Reply {
        value,
        session: ctx.session_cookie.take(),
        secure: ctx.request.is_https(
            ctx.store
                .settings_read()
                .map_or(&[][..], Settings::trusted_proxies),
        ),
    })
}

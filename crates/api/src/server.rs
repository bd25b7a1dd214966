//! Building and running the server.

use std::net::TcpListener;
use std::time::Duration;

use actix_web::{App, HttpServer, middleware, web};
use ring::rand::SystemRandom;

pub use crate::bootstrap::StartError;
use crate::config::Config;
use crate::error::ApiError;
use crate::handlers::account::Problem;
use crate::openapi::ServedDocument;
use crate::state::AppState;
use crate::{bootstrap, handlers, heartbeat, housekeeping, http, pages, routes};
use acs_app::settings;

/// How long a client may take to send a request's head (request line and headers) before the
/// connection is closed with 408, so a slow client cannot hold a connection for long. It is
/// actix's default, stated here so that it stays a decision.
pub const CLIENT_REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

/// Prepares everything the server needs (blocking): data directory, secret key, pool,
/// migrations, settings from the environment, the first superuser.
pub fn prepare(config: Config) -> Result<web::Data<AppState>, StartError> {
    let rng = SystemRandom::new();
    let started = chrono::Utc::now().naive_utc();
    bootstrap::data_dir(&config)?;
    let keys = acs_app::secret_key::Keyring::open(
        acs_app::secret_key::KeyFiles::new(&config.secret_key_file),
        &rng,
    )?;
    let pool = config
        .database
        .pool(config.pool_size, config.pool_timeout)?;
    {
        let mut conn = pool.get()?;
        let applied = acs_storage::run_migrations(&mut conn)?;
        if applied > 0 {
            tracing::info!(applied, "database migrations applied");
        }
        if !conn.plans_are_stable()? {
            tracing::warn!(
                "SQLite was built without SQLITE_ENABLE_QPSG (LIBSQLITE3_FLAGS): once the \
                 database has statistics, every lookup is recompiled for its values"
            );
        }
        bootstrap::seed_settings(&mut conn, &config.setting_overrides, &keys.cipher(), &rng)?;
        bootstrap::first_superuser(&mut conn, &config, &rng)?;
        bootstrap::managed_credential_types(&mut conn)?;
        // Listed by `/api/v2/ping/` from the first request on.
        crate::heartbeat::first_beat(&mut conn, &config, started)?;
        let lost = acs_runner::fail_unfinished(&mut conn, &config.node_name)?;
        if lost > 0 {
            tracing::warn!(lost, node = %config.node_name, "unfinished runs of this node ended as error");
        }
    }
    let password_turns = crate::password_gate::PasswordGate::start(
        config.password_verifiers,
        config.password_checks_waiting(),
    )
    .map_err(|source| StartError::Io {
        what: "starting the password-hashing threads".into(),
        source,
    })?;
    let passwords = crate::caches::PasswordCache::new(&rng)
        .map_err(|_| StartError::Other("random number generator failed".into()))?;
    let principals = crate::caches::PrincipalCache::new(&rng)
        .map_err(|_| StartError::Other("random number generator failed".into()))?;
    let pages = pages::Pages::new().map_err(|e| StartError::Other(e.to_string()))?;
    let changes =
        acs_storage::change_feed::ChangeFeed::start(&config.database, &pool).map_err(|source| {
            StartError::Io {
                what: "starting the change feed's thread".into(),
                source,
            }
        })?;
    Ok(web::Data::new(AppState {
        changes,
        runs: acs_runner::RunQueue::new(config.max_concurrent_runs, config.max_waiting_runs),
        blocking_slots: tokio::sync::Semaphore::new(config.pool_size as usize),
        pool,
        settings: settings::SettingsCache::new(),
        passwords,
        password_turns,
        principals,
        clients: crate::caches::ClientCache::default(),
        rng,
        keys,
        config,
        started,
        pages,
    }))
}

/// A path segment that does not parse (`/api/v2/tokens/abc/`) names no record: the same 404
/// as an unknown id (JSON under `/api/`, the page elsewhere), not actix's plain-text error.
fn path_not_found(
    _: actix_web::error::PathError,
    req: &actix_web::HttpRequest,
) -> actix_web::Error {
    let not_found = || ApiError::NotFound("Not found.".into());
    if req.path().starts_with("/api/") {
        return not_found().into();
    }
    let page = req
        .app_data::<web::Data<AppState>>()
        .and_then(|state| Problem::from_error(not_found()).ok()?.page(state).ok());
    match page {
        Some(page) => actix_web::error::InternalError::from_response("not found", page).into(),
        None => not_found().into(),
    }
}

/// The HTTP server on `listener`; call inside an actix system and await it. The scheduled
/// clean-up of expired tokens and sessions starts with it and ends with the system.
pub fn http_server(
    state: web::Data<AppState>,
    listener: TcpListener,
) -> std::io::Result<actix_web::dev::Server> {
    let workers = state.config.workers;
    let schedule = state.clone();
    let document = web::Data::new(ServedDocument::new(routes::openapi_document));
    let server = HttpServer::new(move || {
        App::new()
            .app_data(state.clone())
            .app_data(document.clone())
            .app_data(web::PathConfig::default().error_handler(path_not_found))
            .wrap(middleware::from_fn(http::named_urls::resolve_named_urls))
            .wrap(middleware::from_fn(http::browsable::browsable))
            .wrap(middleware::from_fn(http::cors::cors))
            .wrap(middleware::from_fn(http::headers::standard_headers))
            .configure(routes::configure)
            .default_service(web::to(handlers::fallback::not_found))
    })
    .workers(workers)
    .client_request_timeout(CLIENT_REQUEST_TIMEOUT)
    .shutdown_timeout(10)
    .listen(listener)?
    .run();
    housekeeping::spawn(schedule.clone());
    heartbeat::spawn(schedule);
    Ok(server)
}

//! This node's heartbeat: its row of `instances` (name, version, capacity, start) written at
//! start and every [`INTERVAL`], so `/api/v2/ping/` on any node lists the nodes alive (heard
//! from within [`ALIVE_WITHIN`]). A failed beat is logged and the next comes an interval
//! later; it never stops the server.

use std::time::Duration;

use actix_web::web;

use crate::state::AppState;

/// How often the node says it is alive.
pub const INTERVAL: Duration = Duration::from_secs(30);

/// How recent a heartbeat counts as alive: a few intervals, so one slow beat loses nobody.
pub const ALIVE_WITHIN: Duration = Duration::from_secs(3 * 30 + 15);

/// The beat at start (blocking), before the server answers anyone.
pub fn first_beat(
    conn: &mut acs_storage::DbConnection,
    config: &crate::config::Config,
    started: chrono::NaiveDateTime,
) -> acs_storage::StorageResult<()> {
    acs_storage::instances::beat(
        conn,
        &config.node_name,
        env!("CARGO_PKG_VERSION"),
        capacity(config),
        started,
        started,
    )
}

fn capacity(config: &crate::config::Config) -> i64 {
    i64::try_from(config.max_concurrent_runs).unwrap_or(i64::MAX)
}

/// Starts the heartbeat on the current actix system (an interval after the first beat); it
/// ends with the system.
pub fn spawn(state: web::Data<AppState>) {
    actix_rt::spawn(async move {
        loop {
            tokio::time::sleep(INTERVAL).await;
            if let Err(error) = beat(&state).await {
                tracing::warn!(%error, "heartbeat failed");
            }
        }
    });
}

async fn beat(state: &web::Data<AppState>) -> Result<(), String> {
    // A blocking slot, as a request takes one, so the beat never leaves a request without a
    // connection.
    let _slot = state
        .blocking_slots
        .acquire()
        .await
        .map_err(|_| "the server is shutting down".to_owned())?;
    let state = state.clone().into_inner();
    web::block(move || {
        let mut conn = state.pool.get().map_err(|error| error.to_string())?;
        acs_storage::instances::beat(
            &mut conn,
            &state.config.node_name,
            env!("CARGO_PKG_VERSION"),
            capacity(&state.config),
            state.started,
            chrono::Utc::now().naive_utc(),
        )
        .map_err(|error| error.to_string())
    })
    .await
    .map_err(|error| error.to_string())?
}

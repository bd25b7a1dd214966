//! `acs-server`: with no arguments, serves on `ACS_BIND` (default 127.0.0.1:8013) from the
//! embedded SQLite database in `ACS_DATA_DIR` (default ./data).

use std::process::ExitCode;

use acs_api::config::Config;
use acs_api::logging::{self, LogFormat};

fn main() -> ExitCode {
    let format = match LogFormat::from_env() {
        Ok(format) => format,
        Err(message) => {
            eprintln!("acs-server: {message}");
            return ExitCode::from(2);
        }
    };
    let _log_writer = match logging::init(format) {
        Ok(guard) => guard,
        Err(error) => {
            eprintln!("acs-server: cannot start the log writer's thread: {error}");
            return ExitCode::FAILURE;
        }
    };
    if std::env::args().len() > 1 {
        eprintln!("usage: acs-server (configured by ACS_* environment variables; see README.md)");
        return ExitCode::from(2);
    }
    match serve() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            tracing::error!("{message}");
            eprintln!("acs-server: {message}");
            ExitCode::FAILURE
        }
    }
}

fn serve() -> Result<(), String> {
    let config = Config::from_env().map_err(|e| e.to_string())?;
    let bind = config.bind.clone();
    tracing::info!(database = ?config.database, data_dir = %config.data_dir.display(), "starting");
    let state = acs_api::server::prepare(config).map_err(|e| e.to_string())?;
    let listener =
        acs_api::listener::listen(&bind).map_err(|e| format!("cannot listen on {bind}: {e}"))?;
    tracing::info!(%bind, "listening");
    // actix stops gracefully on SIGTERM and SIGINT: in-flight requests finish first.
    actix_rt::System::new()
        .block_on(async move { acs_api::server::http_server(state, listener)?.await })
        .map_err(|e| e.to_string())?;
    tracing::info!("stopped");
    Ok(())
}

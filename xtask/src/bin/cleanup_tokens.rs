//! `cleanup_tokens`: deletes expired access tokens, expired refresh tokens (revoked and used
//! ones included, once their lifetime from creation has passed), expired authorization codes
//! and expired sessions, in batches on the live database, and prints the counts. Servers do
//! the same on their own every `CLEANUP_TOKENS_INTERVAL_SECONDS`; this is for doing it now.

use std::process::ExitCode;

use acs_app::housekeeping::{self, Batching, Cleanup, CleanupCounts, Rows, Writes, counted};
use clap::Parser;
use xtask::management::database::{Location, open_existing, settings_in_force};
use xtask::management::progress::Progress;
use xtask::management::{CommandError, exit};

/// Delete expired OAuth 2 tokens and sessions (reads ACS_DATABASE_URL and ACS_DATA_DIR like
/// acs-server).
#[derive(Debug, Parser)]
#[command(name = "cleanup_tokens")]
struct Args {}

fn main() -> ExitCode {
    let _ = Args::parse();
    exit(run())
}

fn run() -> Result<(), CommandError> {
    let mut conn = open_existing(&Location::from_env())?;
    let settings = settings_in_force(&mut conn)?;
    let mut progress = Progress::new(
        "Deleted",
        &[
            Rows::AccessTokens,
            Rows::RefreshTokens,
            Rows::AuthorizationCodes,
            Rows::Sessions,
        ],
    );
    let outcome = housekeeping::cleanup(
        &mut conn,
        Writes::Autocommit,
        Cleanup {
            now: chrono::Utc::now().naive_utc(),
            lifetimes: settings.oauth2_provider(),
            batching: Batching::for_command(),
            scheduled: false,
        },
        &mut |rows, count| progress.batch(rows, count),
    );
    progress.finish();
    match outcome {
        Ok(counts) => {
            println!("Deleted {}.", summary(counts));
            Ok(())
        }
        Err(interrupted) => Err(CommandError::Refused(format!(
            "Deleted {} before the error: {}",
            summary(interrupted.done),
            interrupted.error
        ))),
    }
}

/// `2 expired access tokens, 0 expired refresh tokens, 0 expired authorization codes and
/// 1 expired session`.
fn summary(counts: CleanupCounts) -> String {
    format!(
        "{}, {}, {} and {}",
        counted(
            counts.access_tokens,
            "expired access token",
            "expired access tokens"
        ),
        counted(
            counts.refresh_tokens,
            "expired refresh token",
            "expired refresh tokens"
        ),
        counted(
            counts.authorization_codes,
            "expired authorization code",
            "expired authorization codes"
        ),
        counted(counts.sessions, "expired session", "expired sessions"),
    )
}

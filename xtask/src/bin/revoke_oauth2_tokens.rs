//! `revoke_oauth2_tokens [--user USERNAME] [--all]`: revokes (deletes) every OAuth 2 access
//! token, or one user's; with `--all` (or its synonym `--revoke_refresh`) also marks their
//! refresh tokens revoked. Works on the live database in batches; every running server
//! refuses a revoked token on its next request. Prints counts, never token values.

use std::process::ExitCode;

use acs_app::housekeeping::{self, Batching, Revocation, Rows, Writes, counted};
use clap::Parser;
use xtask::management::database::{Location, open_existing};
use xtask::management::progress::Progress;
use xtask::management::{CommandError, exit};

/// Revoke OAuth 2 tokens (reads ACS_DATABASE_URL and ACS_DATA_DIR like acs-server).
#[derive(Debug, Parser)]
#[command(name = "revoke_oauth2_tokens")]
struct Args {
    /// Only this user's tokens (all users' when absent).
    #[arg(long, value_name = "USERNAME")]
    user: Option<String>,
    /// Also revoke refresh tokens (they are kept, marked revoked).
    #[arg(long, visible_alias = "revoke_refresh")]
    all: bool,
}

fn main() -> ExitCode {
    exit(run(&Args::parse()))
}

fn run(args: &Args) -> Result<(), CommandError> {
    let mut conn = open_existing(&Location::from_env())?;
    let user = match &args.user {
        Some(username) => Some(
            acs_storage::users::find_by_username(&mut conn, username)?.ok_or_else(|| {
                CommandError::Refused("A user with that username does not exist.".into())
            })?,
        ),
        None => None,
    };
    let shown: &'static [Rows] = if args.all {
        &[Rows::RefreshTokens, Rows::AccessTokens]
    } else {
        &[Rows::AccessTokens]
    };
    let mut progress = Progress::new("Revoked", shown);
    let outcome = housekeeping::revoke(
        &mut conn,
        Writes::Autocommit,
        Revocation {
            user: user.as_ref(),
            refresh_tokens: args.all,
            now: chrono::Utc::now().naive_utc(),
            batching: Batching::for_command(),
        },
        &mut |rows, count| progress.batch(rows, count),
    );
    progress.finish();
    match outcome {
        Ok(counts) => {
            println!("Revoked {}.", summary(args.all, counts));
            Ok(())
        }
        Err(interrupted) => Err(CommandError::Refused(format!(
            "Revoked {} before the error: {}",
            summary(args.all, interrupted.done),
            interrupted.error
        ))),
    }
}

/// `3 access tokens`, or `3 access tokens and 1 refresh token` when refresh tokens count.
fn summary(all: bool, counts: housekeeping::RevokeCounts) -> String {
    let access = counted(counts.access_tokens, "access token", "access tokens");
    if all {
        let refresh = counted(counts.refresh_tokens, "refresh token", "refresh tokens");
        format!("{access} and {refresh}")
    } else {
        access
    }
}

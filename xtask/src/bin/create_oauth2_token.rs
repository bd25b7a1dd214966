//! `create_oauth2_token --user USERNAME [--scope read|write] [--description TEXT]`: creates a
//! personal access token for a user through the API's own rules (validation, lifetimes,
//! `ALLOW_OAUTH2_FOR_EXTERNAL_USERS`, the activity-stream entry) and prints its value, and
//! only that, on stdout. The value is shown this once; the database keeps only its digest.

use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use diesel::Connection;
use xtask::management::database::{Location, open_existing, settings_in_force};
use xtask::management::{CommandError, exit};

/// Create a personal OAuth 2 access token (reads ACS_DATABASE_URL and ACS_DATA_DIR like
/// acs-server) and print it.
#[derive(Debug, Parser)]
#[command(name = "create_oauth2_token")]
struct Args {
    /// The user the token acts for.
    #[arg(long, value_name = "USERNAME")]
    user: String,
    /// What the token may do.
    #[arg(long, value_enum, default_value_t = Scope::Write)]
    scope: Scope,
    /// Free text shown with the token.
    #[arg(long, default_value = "")]
    description: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Scope {
    Read,
    Write,
}

impl Scope {
    fn as_str(self) -> &'static str {
        match self {
            Scope::Read => "read",
            Scope::Write => "write",
        }
    }
}

fn main() -> ExitCode {
    exit(run(&Args::parse()))
}

fn run(args: &Args) -> Result<(), CommandError> {
    let mut conn = open_existing(&Location::from_env())?;
    let user = acs_storage::users::find_by_username(&mut conn, &args.user)?
        .ok_or_else(|| CommandError::Refused("The user does not exist.".into()))?;
    let settings = settings_in_force(&mut conn)?;
    let rng = ring::rand::SystemRandom::new();
    let now = chrono::Utc::now().naive_utc();
    let issued = conn.transaction(|conn| {
        acs_app::tokens::issue_personal(
            conn,
            &rng,
            &settings,
            now,
            &user,
            args.scope.as_str(),
            &args.description,
        )
    })?;
    if !user.is_active {
        eprintln!(
            "note: {} is inactive; the token works once the user is active again",
            user.username
        );
    }
    println!("{}", issued.value.expose());
    Ok(())
}

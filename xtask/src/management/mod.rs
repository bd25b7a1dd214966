//! What every management command shares.
//!
//! A command reads `ACS_DATABASE_URL` and `ACS_DATA_DIR` as the server does
//! ([`database::Location::from_env`]), refuses a database that does not exist or whose schema
//! is behind this version ([`database::open_existing`]), reports progress on stderr when it is
//! a terminal ([`progress::Progress`]), and ends through [`exit`]: a one-line message on
//! stderr and exit status 1 on failure. No command ever prints a token value except
//! `create_oauth2_token`, whose one job is to print the token it made.

pub mod database;
pub mod error;
pub mod progress;

pub use error::{CommandError, exit};

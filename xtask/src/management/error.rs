//! How a management command fails: one line on stderr, exit status 1.

use std::process::ExitCode;

use acs_app::AppError;
use acs_storage::StorageError;

/// Why a command stopped.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// A message for the operator, shown as is (an unknown user, a refused token).
    #[error("{0}")]
    Refused(String),
    /// The database is missing, unreachable or not usable by this version.
    #[error("{0}")]
    Database(String),
    /// A storage error while working.
    #[error("database error: {0}")]
    Storage(#[from] StorageError),
}

impl From<AppError> for CommandError {
    /// The message the API would put in its response body, without the HTTP framing.
    fn from(error: AppError) -> Self {
        match error {
            AppError::Storage(error) => CommandError::Storage(error),
            other => CommandError::Refused(other.to_string()),
        }
    }
}

/// `text` on one line: database drivers put line breaks and tabs in their messages.
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Ends a command: success, or the error's message on one line of stderr and status 1.
pub fn exit(outcome: Result<(), CommandError>) -> ExitCode {
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{}", one_line(&error.to_string()));
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_fit_on_one_line() {
        assert_eq!(
            one_line("connection failed:\n\tIs the server running?\n"),
            "connection failed: Is the server running?"
        );
    }

    #[test]
    fn refusals_keep_the_apis_message() {
        let error = CommandError::from(AppError::Forbidden("(access_denied) nope".into()));
        assert_eq!(error.to_string(), "(access_denied) nope");
        let error = CommandError::from(AppError::invalid("description", "Too long."));
        assert_eq!(error.to_string(), "description: Too long.");
    }
}

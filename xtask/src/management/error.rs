//! How a management command fails: one line on stderr, exit status 1.

use std::process::ExitCode;

use acs_api::error::ApiError;
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

impl From<ApiError> for CommandError {
    /// The message the API would put in its response body, without the HTTP framing.
    fn from(error: ApiError) -> Self {
        match error {
            ApiError::Forbidden(message)
            | ApiError::BadRequest(message)
            | ApiError::NotFound(message) => CommandError::Refused(message),
            ApiError::Fields(fields) => CommandError::Refused(
                fields
                    .iter()
                    .flat_map(|(field, messages)| {
                        messages
                            .iter()
                            .map(move |message| format!("{field}: {message}"))
                    })
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
            ApiError::Unavailable(message) => {
                CommandError::Database(format!("the database is unavailable: {message}"))
            }
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
    fn api_refusals_keep_their_message() {
        let error = CommandError::from(ApiError::Forbidden("(access_denied) nope".into()));
        assert_eq!(error.to_string(), "(access_denied) nope");
        let error = CommandError::from(ApiError::field("description", "Too long."));
        assert_eq!(error.to_string(), "description: Too long.");
    }
}

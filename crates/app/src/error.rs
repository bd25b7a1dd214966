//! The one error type of the use cases.

use acs_storage::StorageError;

/// Why a use case failed.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// The database refused or could not be reached.
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// A record could not be turned into JSON (a bug, not bad input).
    #[error("a record could not be serialised: {0}")]
    Serialise(#[from] serde_json::Error),
}

/// The result of a use case.
pub type AppResult<T> = Result<T, AppError>;

impl From<diesel::result::Error> for AppError {
    fn from(error: diesel::result::Error) -> Self {
        AppError::Storage(error.into())
    }
}

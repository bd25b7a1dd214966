//! The one error type of the use cases.

use acs_storage::StorageError;

/// Why a use case failed.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// The database refused or could not be reached.
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// A rule refuses the request (an external user's token, say); the message says which.
    #[error("{0}")]
    Forbidden(String),
    /// A value fails its check.
    #[error("{field}: {message}")]
    Invalid {
        /// The field, as the API names it.
        field: &'static str,
        /// Why, as the API says it.
        message: String,
    },
    /// The record asked for does not exist (its kind, as the API names it: `"Credential"`).
    #[error("no such {0}")]
    NoSuch(&'static str),
    /// Values fail their checks in a shape richer than one message per field (a credential's
    /// `inputs`, keyed by input): the map names each field with its reasons.
    #[error("invalid values: {0:?}")]
    Rejected(serde_json::Map<String, serde_json::Value>),
    /// A write of sealed values was refused: a rotation retired their key meanwhile.
    #[error(transparent)]
    SealRefused(#[from] crate::secret_key::SealRefused),
    /// Stored data breaks a rule every write keeps (a bug or a damaged row, not bad input).
    #[error("damaged data: {0}")]
    Damaged(String),
    /// The system's random number generator failed.
    #[error("random number generator failed")]
    Random,
    /// A secret input could not be sealed (a bug or a broken key ring, not bad input).
    #[error("sealing an input: {0}")]
    Seal(#[from] acs_credential_types::cipher::CipherError),
    /// A record could not be turned into JSON (a bug, not bad input).
    #[error("a record could not be serialised: {0}")]
    Serialise(#[from] serde_json::Error),
}

impl AppError {
    /// A value of `field` that fails its check.
    pub fn invalid(field: &'static str, message: impl Into<String>) -> Self {
        AppError::Invalid {
            field,
            message: message.into(),
        }
    }

    /// `field` refers to record `id`, which does not exist (the reference's words).
    pub fn invalid_pk(field: &'static str, id: i64) -> Self {
        AppError::invalid(
            field,
            format!("Invalid pk \"{id}\" - object does not exist."),
        )
    }
}

/// `found`, a missing row being [`AppError::invalid_pk`]: `field` refers to record `id`.
pub(crate) fn referenced<T>(
    found: acs_storage::StorageResult<T>,
    field: &'static str,
    id: i64,
) -> AppResult<T> {
    found.map_err(|error| match error {
        StorageError::NotFound => AppError::invalid_pk(field, id),
        other => other.into(),
    })
}

/// The error type of a caller that hands a use case a fallible function of its own (the
/// API's rendering of a record): the use case's own errors turn into it.
pub trait CallerError: From<AppError> + From<diesel::result::Error> {}

impl<E: From<AppError> + From<diesel::result::Error>> CallerError for E {}

/// The result of a use case.
pub type AppResult<T> = Result<T, AppError>;

impl From<acs_authz::Denied> for AppError {
    fn from(denied: acs_authz::Denied) -> Self {
        AppError::Forbidden(denied.to_string())
    }
}

impl From<diesel::result::Error> for AppError {
    fn from(error: diesel::result::Error) -> Self {
        AppError::Storage(error.into())
    }
}

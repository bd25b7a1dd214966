use diesel::result::{DatabaseErrorKind, Error as DieselError};

/// Result of a repository function.
pub type StorageResult<T> = Result<T, StorageError>;

/// What can go wrong in storage, in terms a caller can act on.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    /// The row asked for does not exist.
    #[error("not found")]
    NotFound,
    /// A uniqueness or foreign-key constraint refused the write; the text names the constraint.
    #[error("constraint violated: {0}")]
    Conflict(String),
    /// The database cannot be reached or is busy; the request may be retried.
    #[error("the database is unavailable: {0}")]
    Unavailable(String),
    /// Any other database failure: a bug or a corrupt database, never the caller's input.
    #[error("database error: {0}")]
    Query(DieselError),
    /// Running migrations failed.
    #[error("migration failed: {0}")]
    Migration(String),
}

impl From<DieselError> for StorageError {
    fn from(error: DieselError) -> Self {
        match error {
            DieselError::NotFound => StorageError::NotFound,
            DieselError::DatabaseError(
                DatabaseErrorKind::UniqueViolation | DatabaseErrorKind::ForeignKeyViolation,
                info,
            ) => StorageError::Conflict(
                info.constraint_name()
                    .map_or_else(|| info.message().to_owned(), str::to_owned),
            ),
            DieselError::DatabaseError(
                DatabaseErrorKind::ClosedConnection | DatabaseErrorKind::UnableToSendCommand,
                info,
            ) => {
                crate::connection::note_connection_failure();
                StorageError::Unavailable(info.message().to_owned())
            }
            // SQLite reports lock timeouts as an unknown error with this text.
            DieselError::DatabaseError(_, ref info)
                if info.message().contains("database is locked") =>
            {
                StorageError::Unavailable(info.message().to_owned())
            }
            other => StorageError::Query(other),
        }
    }
}

impl From<r2d2::Error> for StorageError {
    fn from(error: r2d2::Error) -> Self {
        // No connection could be had: the server may be down, or every connection busy.
        crate::connection::note_connection_failure();
        StorageError::Unavailable(error.to_string())
    }
}

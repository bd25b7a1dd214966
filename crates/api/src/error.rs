//! The one error type of the API. It renders the reference system's shapes: `{"detail": …}`,
//! field errors `{"field": ["…"]}` (object-level ones under `__all__`).

use std::collections::BTreeMap;

use acs_storage::StorageError;
use acs_storage::list::ListError;
use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError};
use serde_json::json;

/// Result of a handler.
pub type ApiResult<T> = Result<T, ApiError>;

/// Text of every 401 body (AWX appends the login hint to DRF's message).
pub const UNAUTHORIZED_DETAIL: &str = "Authentication credentials were not provided. To establish a login session, visit /api/login/.";

/// Everything a request can end in other than success.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// No valid credentials.
    #[error("unauthorized")]
    Unauthorized,
    /// Authenticated, but not allowed.
    #[error("forbidden: {0}")]
    Forbidden(String),
    /// The object or resource does not exist.
    #[error("not found: {0}")]
    NotFound(String),
    /// A request-level problem.
    #[error("bad request: {0}")]
    BadRequest(String),
    /// Field-level validation problems.
    #[error("invalid fields: {0:?}")]
    Fields(BTreeMap<String, Vec<String>>),
    /// Validation problems whose shape is richer than one list per field (a credential's
    /// `inputs` errors are keyed by input): the map is the body.
    #[error("invalid body: {0:?}")]
    Invalid(serde_json::Map<String, serde_json::Value>),
    /// The method is not served here.
    #[error("method {0} not allowed")]
    MethodNotAllowed(String),
    /// The response type asked for cannot be produced.
    #[error("not acceptable")]
    NotAcceptable,
    /// The body is not JSON.
    #[error("unsupported media type")]
    UnsupportedMediaType,
    /// The body exceeds the limit.
    #[error("payload too large")]
    PayloadTooLarge(usize),
    /// Too many failed logins.
    #[error("too many failed attempts")]
    Throttled {
        /// Seconds until the next attempt is accepted.
        retry_after: i64,
    },
    /// The database is down or busy.
    #[error("service unavailable: {0}")]
    Unavailable(String),
    /// More password checks wait than the server takes (`ACS_PASSWORD_QUEUE`): try again in
    /// a moment.
    #[error("password checks busy: {0}")]
    PasswordChecksBusy(&'static str),
    /// As many runs wait on this node as it lets wait (`ACS_MAX_WAITING_RUNS`): launch again
    /// once some have started.
    #[error("run queue full: {0}")]
    RunQueueFull(acs_runner::QueueFull),
    /// This server cannot serve the request until its operator fixes it (a secret key a
    /// rotation retired); another node may. The message says what to do, and is logged.
    #[error("misconfigured: {0}")]
    Misconfigured(String),
    /// A bug: logged in full, rendered without detail.
    #[error("internal error: {0}")]
    Internal(String),
}

impl ApiError {
    /// A 403 with DRF's generic text.
    pub fn permission_denied() -> Self {
        ApiError::Forbidden("You do not have permission to perform this action.".into())
    }

    /// A 400 for one field.
    pub fn field(name: &str, message: impl Into<String>) -> Self {
        ApiError::Fields(BTreeMap::from([(name.to_owned(), vec![message.into()])]))
    }

    /// 404 for a missing object of `kind` (`"User"`).
    pub fn no_such(kind: &str) -> Self {
        ApiError::NotFound(format!("No {kind} matches the given query."))
    }
}

impl From<StorageError> for ApiError {
    fn from(error: StorageError) -> Self {
        match error {
            StorageError::NotFound => ApiError::NotFound("Not found.".into()),
            StorageError::Unavailable(reason) => ApiError::Unavailable(reason),
            StorageError::Conflict(constraint) => ApiError::BadRequest(format!(
                "The change conflicts with existing data ({constraint})."
            )),
            other => ApiError::Internal(other.to_string()),
        }
    }
}

impl From<acs_app::AppError> for ApiError {
    fn from(error: acs_app::AppError) -> Self {
        match error {
            acs_app::AppError::Storage(error) => error.into(),
            acs_app::AppError::Forbidden(message) => ApiError::Forbidden(message),
            acs_app::AppError::Invalid { field, message } => ApiError::field(field, message),
            acs_app::AppError::NoSuch(kind) => ApiError::no_such(kind),
            acs_app::AppError::Rejected(body) => ApiError::Invalid(body),
            acs_app::AppError::SealRefused(refused) => refused.into(),
            acs_app::AppError::Random
            | acs_app::AppError::Damaged(_)
            | acs_app::AppError::Seal(_)
            | acs_app::AppError::Serialise(_) => ApiError::Internal(error.to_string()),
        }
    }
}

impl From<acs_app::secret_key::SealRefused> for ApiError {
    fn from(error: acs_app::secret_key::SealRefused) -> Self {
        match error {
            acs_app::secret_key::SealRefused::Storage(error) => error.into(),
            // The server, not the request, is at fault, and another node can serve it.
            refused @ acs_app::secret_key::SealRefused::RetiredKey(_) => {
                let mut message = refused.to_string();
                message.push('.');
                ApiError::Misconfigured(message)
            }
        }
    }
}

impl From<diesel::result::Error> for ApiError {
    fn from(error: diesel::result::Error) -> Self {
        StorageError::from(error).into()
    }
}

impl From<ListError> for ApiError {
    fn from(error: ListError) -> Self {
        match error {
            ListError::SecretField(_) => ApiError::Forbidden(error.to_string()),
            ListError::UnknownField(_) => ApiError::BadRequest(error.to_string()),
            ListError::BadValue { field, reason } => ApiError::field(&field, reason),
        }
    }
}

impl From<acs_runner::QueueFull> for ApiError {
    fn from(full: acs_runner::QueueFull) -> Self {
        ApiError::RunQueueFull(full)
    }
}

impl From<acs_authz::Denied> for ApiError {
    fn from(denied: acs_authz::Denied) -> Self {
        ApiError::Forbidden(denied.to_string())
    }
}

impl From<actix_web::error::BlockingError> for ApiError {
    fn from(_: actix_web::error::BlockingError) -> Self {
        ApiError::Internal("the blocking task was cancelled".into())
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::Unauthorized => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::BadRequest(_) | ApiError::Fields(_) | ApiError::Invalid(_) => {
                StatusCode::BAD_REQUEST
            }
            ApiError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::NotAcceptable => StatusCode::NOT_ACCEPTABLE,
            ApiError::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Throttled { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Unavailable(_)
            | ApiError::PasswordChecksBusy(_)
            | ApiError::RunQueueFull(_)
            | ApiError::Misconfigured(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let status = self.status_code();
        let body = match self {
            ApiError::Unauthorized => json!({ "detail": UNAUTHORIZED_DETAIL }),
            ApiError::Forbidden(detail)
            | ApiError::NotFound(detail)
            | ApiError::BadRequest(detail) => {
                json!({ "detail": detail })
            }
            ApiError::Fields(fields) => json!(fields),
            ApiError::Invalid(body) => serde_json::Value::Object(body.clone()),
            ApiError::MethodNotAllowed(method) => {
                json!({ "detail": format!("Method \"{method}\" not allowed.") })
            }
            ApiError::NotAcceptable => {
                json!({ "detail": "Could not satisfy the request Accept header." })
            }
            ApiError::UnsupportedMediaType => json!({
                "detail": "You did not use correct Content-Type in your HTTP request. If you are using our REST API, the Content-Type must be application/json"
            }),
            ApiError::PayloadTooLarge(limit) => {
                json!({ "detail": format!("Request body exceeds the limit of {limit} bytes.") })
            }
            ApiError::Throttled { retry_after } => json!({
                "detail": format!("Too many failed login attempts. Try again in {retry_after} seconds.")
            }),
            ApiError::Unavailable(_) => json!({
                "detail": "The database is unavailable. Try again shortly."
            }),
            ApiError::PasswordChecksBusy(_) => json!({
                "detail": "Too many logins are being checked. Try again in a moment."
            }),
            ApiError::RunQueueFull(full) => json!({
                "detail": format!("This server is at its limit of waiting runs: {full}. Try again once some have started.")
            }),
            ApiError::Misconfigured(message) => json!({ "detail": message }),
            ApiError::Internal(_) => json!({ "detail": "A server error occurred." }),
        };
        match self {
            ApiError::Unavailable(reason) => tracing::warn!(%reason, "database unavailable"),
            ApiError::PasswordChecksBusy(reason) => {
                tracing::warn!(%reason, "password check refused: no turn to hash");
            }
            ApiError::RunQueueFull(full) => tracing::warn!(%full, "launch refused"),
            ApiError::Internal(reason) => tracing::error!(%reason, "internal error"),
            _ => {}
        }
        let mut response = HttpResponse::build(status).json(body);
        let headers = response.headers_mut();
        match self {
            ApiError::Unauthorized => {
                headers.insert(
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_static(
                        "Bearer realm=api authorization_url=/api/o/authorize/",
                    ),
                );
            }
            ApiError::Throttled { retry_after } => {
                if let Ok(value) = HeaderValue::from_str(&retry_after.to_string()) {
                    headers.insert(header::RETRY_AFTER, value);
                }
            }
            ApiError::Unavailable(_) => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
            }
            ApiError::PasswordChecksBusy(_) => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            }
            ApiError::RunQueueFull(_) => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
            }
            _ => {}
        }
        response
    }
}

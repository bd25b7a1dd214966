//! What the client-facing `/api/o/` endpoints answer: JSON that no cache keeps, and every
//! failure in the RFC 6749 shape `{"error", "error_description"}`, server trouble included,
//! so an OAuth client library always finds the body it parses.

use acs_oauth2::{ErrorCode, OAuthError};
use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, HttpResponseBuilder, ResponseError};
use serde::Serialize;

use crate::context::{Context, run};
use crate::error::ApiError;
use crate::state::AppState;

/// Why an `/api/o/` request failed: the protocol refused it, or the server could not serve it.
#[derive(Debug, thiserror::Error)]
pub enum OAuthFailure {
    /// A protocol error, rendered as is.
    #[error(transparent)]
    Protocol(#[from] OAuthError),
    /// Anything else (database down, body too large, throttled), translated to the OAuth shape.
    #[error(transparent)]
    Server(#[from] ApiError),
}

impl From<acs_storage::StorageError> for OAuthFailure {
    fn from(error: acs_storage::StorageError) -> Self {
        OAuthFailure::Server(error.into())
    }
}

impl From<acs_app::AppError> for OAuthFailure {
    fn from(error: acs_app::AppError) -> Self {
        OAuthFailure::Server(error.into())
    }
}

impl From<acs_app::grants::GrantError> for OAuthFailure {
    fn from(error: acs_app::grants::GrantError) -> Self {
        match error {
            acs_app::grants::GrantError::Refused(refused) => OAuthFailure::Protocol(refused),
            acs_app::grants::GrantError::App(error) => error.into(),
        }
    }
}

/// The result of an `/api/o/` handler.
pub type OAuthResult<T> = Result<T, OAuthFailure>;

/// Runs `work` on the blocking pool like [`run`], with OAuth failures as its error type.
pub async fn run_oauth<T, F>(
    state: &actix_web::web::Data<AppState>,
    req: &actix_web::HttpRequest,
    work: F,
) -> OAuthResult<T>
where
    T: Send + 'static,
    F: FnOnce(&mut Context<'_>) -> OAuthResult<T> + Send + 'static,
{
    run(state, req, move |ctx| Ok(work(ctx))).await?.value
}

/// A builder with the headers RFC 6749 §5.1 requires on token responses (and that every
/// answer carrying or describing credentials deserves).
pub fn no_store(status: StatusCode) -> HttpResponseBuilder {
    let mut builder = HttpResponse::build(status);
    builder
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::PRAGMA, "no-cache"));
    builder
}

/// A 200 JSON answer that no cache keeps.
pub fn json_no_store(body: &impl Serialize) -> HttpResponse {
    no_store(StatusCode::OK).json(body)
}

impl OAuthFailure {
    /// The protocol error a server-side failure is reported as, with its status.
    fn as_protocol(&self) -> (StatusCode, OAuthError) {
        let server = match self {
            OAuthFailure::Protocol(error) => {
                let status = StatusCode::from_u16(error.status())
                    .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
                return (status, error.clone());
            }
            OAuthFailure::Server(error) => error,
        };
        let (status, code, description) = match server {
            ApiError::PayloadTooLarge(limit) => (
                StatusCode::PAYLOAD_TOO_LARGE,
                ErrorCode::InvalidRequest,
                format!("The request body is larger than {limit} bytes."),
            ),
            ApiError::Throttled { retry_after } => (
                StatusCode::TOO_MANY_REQUESTS,
                ErrorCode::InvalidGrant,
                format!("Too many failed login attempts. Try again in {retry_after} seconds."),
            ),
            ApiError::Forbidden(reason) => (
                StatusCode::FORBIDDEN,
                ErrorCode::AccessDenied,
                reason.clone(),
            ),
            ApiError::Unavailable(_) => (
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::TemporarilyUnavailable,
                "The database is unavailable. Try again shortly.".to_owned(),
            ),
            ApiError::BadRequest(reason) => (
                StatusCode::BAD_REQUEST,
                ErrorCode::InvalidRequest,
                reason.clone(),
            ),
            _ => (
                StatusCode::INTERNAL_SERVER_ERROR,
                ErrorCode::ServerError,
                "A server error occurred.".to_owned(),
            ),
        };
        (status, OAuthError::new(code, description))
    }
}

impl ResponseError for OAuthFailure {
    fn status_code(&self) -> StatusCode {
        self.as_protocol().0
    }

    fn error_response(&self) -> HttpResponse {
        match self {
            OAuthFailure::Server(ApiError::Unavailable(reason)) => {
                tracing::warn!(%reason, "database unavailable");
            }
            // The client's doing, answered in the body: nothing for the server's log.
            OAuthFailure::Server(
                ApiError::Throttled { .. }
                | ApiError::Forbidden(_)
                | ApiError::PayloadTooLarge(_)
                | ApiError::BadRequest(_),
            )
            | OAuthFailure::Protocol(_) => {}
            OAuthFailure::Server(error) => tracing::error!(%error, "OAuth endpoint failed"),
        }
        let (status, error) = self.as_protocol();
        let mut response = no_store(status).json(&error);
        let headers = response.headers_mut();
        if let Some(challenge) = error.www_authenticate() {
            headers.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static(challenge),
            );
        }
        match self {
            OAuthFailure::Server(ApiError::Throttled { retry_after }) => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from(*retry_after));
            }
            OAuthFailure::Server(ApiError::Unavailable(_)) => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
            }
            _ => {}
        }
        response
    }
}

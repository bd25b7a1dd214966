//! Headers on every response: request id (a client-sent UUID is echoed), total time, the
//! exposed-headers list, and conservative security headers; plus one access-log line. Requests
//! whose URI or headers are oversized are refused here, before anything reads them.

use std::time::Instant;

use actix_web::HttpResponse;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::http::header::{
    ACCESS_CONTROL_EXPOSE_HEADERS, CACHE_CONTROL, HeaderName, HeaderValue, PRAGMA, REFERRER_POLICY,
    X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
};
use actix_web::middleware::Next;
use serde_json::json;

/// Header names read or written on every request, parsed once: a name given as a string is
/// parsed (and a non-standard one checked byte by byte) on every lookup and insert.
pub mod names {
    use actix_web::http::header::HeaderName;

    /// `X-API-Request-Id`.
    pub const X_API_REQUEST_ID: HeaderName = HeaderName::from_static("x-api-request-id");
    /// `X-API-Total-Time`.
    pub const X_API_TOTAL_TIME: HeaderName = HeaderName::from_static("x-api-total-time");
    /// `X-CSRFToken`.
    pub const X_CSRFTOKEN: HeaderName = HeaderName::from_static("x-csrftoken");
    /// `X-Forwarded-For`.
    pub const X_FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");
    /// `X-Forwarded-Proto`.
    pub const X_FORWARDED_PROTO: HeaderName = HeaderName::from_static("x-forwarded-proto");
}

/// Longest request target (path and query) served: far above what any client of ACS sends
/// (an authorization request with every parameter is under 2 KiB), as nginx's default
/// request-line buffer. actix itself only stops at its 128 KiB head buffer.
pub const MAX_URI_BYTES: usize = 16 * 1024;
/// Most bytes of request headers (names and values) served.
pub const MAX_HEADER_BYTES: usize = 32 * 1024;

/// The refusal of a request whose target or headers are too large: 414 or 431, in the
/// RFC 6749 error shape under `/api/o/` (as every answer there) and `{"detail"}` elsewhere.
fn oversized(req: &ServiceRequest) -> Option<HttpResponse> {
    let uri = req.uri().path_and_query().map_or(0, |pq| pq.as_str().len());
    let headers: usize = req
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 4)
        .sum();
    let (status, message) = if uri > MAX_URI_BYTES {
        (
            StatusCode::URI_TOO_LONG,
            format!("The request URI exceeds the limit of {MAX_URI_BYTES} bytes."),
        )
    } else if headers > MAX_HEADER_BYTES {
        (
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            format!("The request headers exceed the limit of {MAX_HEADER_BYTES} bytes."),
        )
    } else {
        return None;
    };
    let mut response = HttpResponse::build(status);
    if req.path().starts_with("/api/o/") {
        response
            .insert_header(("Cache-Control", "no-store"))
            .insert_header(("Pragma", "no-cache"));
        Some(response.json(json!({ "error": "invalid_request", "error_description": message })))
    } else {
        Some(response.json(json!({ "detail": message })))
    }
}

/// A fresh request id: a random per-process prefix and a counter. Ids must be unique, not
/// secret, and a system call per request for randomness is measurable.
fn next_request_id() -> uuid::Uuid {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU64, Ordering};
    static PREFIX: OnceLock<u64> = OnceLock::new();
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let prefix = *PREFIX.get_or_init(|| uuid::Uuid::new_v4().as_u64_pair().0);
    uuid::Uuid::from_u64_pair(prefix, COUNTER.fetch_add(1, Ordering::Relaxed))
}

/// The middleware function (wrap with `actix_web::middleware::from_fn`).
pub async fn standard_headers(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let started = Instant::now();
    // A client's id is echoed exactly as sent when it is a UUID (in any of its spellings,
    // dashed or not), so the client finds its own id in the answer and in the log; anything
    // else is replaced by one of ours.
    let request_id = req
        .headers()
        .get(names::X_API_REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .filter(|v| uuid::Uuid::parse_str(v).is_ok())
        .map_or_else(|| next_request_id().simple().to_string(), str::to_owned);
    let method = req.method().clone();
    let oauth = req.path().starts_with("/api/o/");
    // Only the path is logged: query strings could carry values a client should not have put
    // there, and they are not needed to follow a request.
    let path = req.path().to_owned();
    let mut response = match oversized(&req) {
        Some(refusal) => req.into_response(refusal).map_into_right_body(),
        None => next.call(req).await?.map_into_left_body(),
    };
    let elapsed = started.elapsed();
    super::metrics::REQUESTS.record(response.status().as_u16(), elapsed.as_micros() as u64);
    let headers = response.headers_mut();
    let has_cache_control = headers.contains_key(CACHE_CONTROL);
    let has_pragma = headers.contains_key(PRAGMA);
    for (name, value) in [
        (names::X_API_REQUEST_ID, HeaderValue::from_str(&request_id)),
        (
            names::X_API_TOTAL_TIME,
            HeaderValue::from_str(&total_time(elapsed)),
        ),
    ] {
        if let Ok(value) = value {
            headers.insert(name, value);
        }
    }
    let mut set = |name: HeaderName, value: &'static str| {
        headers.insert(name, HeaderValue::from_static(value));
    };
    set(ACCESS_CONTROL_EXPOSE_HEADERS, "X-API-Request-Id");
    set(X_CONTENT_TYPE_OPTIONS, "nosniff");
    set(X_FRAME_OPTIONS, "DENY");
    set(REFERRER_POLICY, "same-origin");
    if oauth {
        // Every answer of the OAuth endpoints (docs/decisions.md), the listing and the
        // consent redirect that carries a code included.
        if !has_cache_control {
            set(CACHE_CONTROL, "no-store");
        }
        if !has_pragma {
            set(PRAGMA, "no-cache");
        }
    } else if !has_cache_control {
        set(CACHE_CONTROL, "no-cache, no-store, must-revalidate");
    }
    tracing::info!(
        target: "acs::access",
        %method,
        path,
        status = response.status().as_u16(),
        micros = elapsed.as_micros() as u64,
        request_id,
        // A message like every other event: log shippers index it, and a JSON line without
        // one is hard to read.
        "request"
    );
    Ok(response)
}

/// `X-API-Total-Time`: seconds with three decimals (`0.004s`), rounded to the nearest
/// millisecond. Integer arithmetic: formatting an `f64` was a visible share of a cached read.
fn total_time(elapsed: std::time::Duration) -> String {
    let millis = elapsed.as_micros().saturating_add(500) / 1000;
    format!("{}.{:03}s", millis / 1000, millis % 1000)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::total_time;

    #[test]
    fn total_time_has_three_decimals_rounded() {
        assert_eq!(total_time(Duration::ZERO), "0.000s");
        assert_eq!(total_time(Duration::from_micros(1_499)), "0.001s");
        assert_eq!(total_time(Duration::from_micros(1_500)), "0.002s");
        assert_eq!(total_time(Duration::from_micros(999_600)), "1.000s");
        assert_eq!(total_time(Duration::from_millis(12_345)), "12.345s");
    }
}

//! Headers on every response: request id (a client-sent UUID is echoed), total time, the
//! exposed-headers list, and conservative security headers; plus one access-log line.

use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;

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
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let request_id = req
        .headers()
        .get("x-api-request-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| uuid::Uuid::parse_str(v).ok())
        .unwrap_or_else(next_request_id)
        .simple()
        .to_string();
    let method = req.method().clone();
    // Only the path is logged: query strings could carry values a client should not have put
    // there, and they are not needed to follow a request.
    let path = req.path().to_owned();
    let mut response = next.call(req).await?;
    let elapsed = started.elapsed();
    super::metrics::REQUESTS.record(response.status().as_u16(), elapsed.as_micros() as u64);
    let headers = response.headers_mut();
    let has_cache_control = headers.contains_key("cache-control");
    let mut set = |name: &'static str, value: &str| {
        if let Ok(value) = HeaderValue::from_str(value) {
            headers.insert(HeaderName::from_static(name), value);
        }
    };
    set("x-api-request-id", &request_id);
    set(
        "x-api-total-time",
        &format!("{:.3}s", elapsed.as_secs_f64()),
    );
    set("access-control-expose-headers", "X-API-Request-Id");
    set("x-content-type-options", "nosniff");
    set("x-frame-options", "DENY");
    set("referrer-policy", "same-origin");
    if !has_cache_control {
        set("cache-control", "no-cache, no-store, must-revalidate");
    }
    tracing::info!(
        target: "acs::access",
        %method,
        path,
        status = response.status().as_u16(),
        micros = elapsed.as_micros() as u64,
        request_id,
    );
    Ok(response)
}

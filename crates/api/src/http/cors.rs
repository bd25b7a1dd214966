//! Cross-origin requests (contract §4, reference §5), allowed by the live setting
//! `CORS_ALLOWED_ORIGIN_REGEXES`.
//!
//! Written here rather than with `actix-cors` because the contract keeps the reference's
//! answers, which that crate cannot give: every preflight gets an empty 200 before
//! authentication, also for an origin that is not allowed (just without CORS headers), and
//! the allowed origins change at run time, on every node, without a restart.
//!
//! The setting is read through the change counters (one indexed read when nothing changed)
//! for each cross-origin request, so a change made on another node applies at once; requests
//! from the service's own origin, and those without `Origin`, cost nothing.

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderMap, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::{HttpResponse, web};

use crate::context::run;
use crate::state::AppState;

/// Request headers a cross-origin caller may send (django-cors-headers' defaults).
const ALLOW_HEADERS: &str =
    "accept, authorization, content-type, user-agent, x-csrftoken, x-requested-with";
/// Methods a cross-origin caller may use.
const ALLOW_METHODS: &str = "DELETE, GET, OPTIONS, PATCH, POST, PUT";
/// How long a browser may cache a preflight answer, in seconds.
const MAX_AGE: &str = "86400";

/// The middleware function (wrap with `actix_web::middleware::from_fn`).
pub async fn cors(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let allowed_origin = match req.headers().get(header::ORIGIN).cloned() {
        Some(origin) if !is_own_origin(&req, &origin) && allows(&req, &origin).await => {
            Some(origin)
        }
        _ => None,
    };
    if is_preflight(&req) {
        let mut response = HttpResponse::new(StatusCode::OK);
        let headers = response.headers_mut();
        if let Some(origin) = allowed_origin {
            headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
            headers.insert(
                header::ACCESS_CONTROL_ALLOW_HEADERS,
                HeaderValue::from_static(ALLOW_HEADERS),
            );
            headers.insert(
                header::ACCESS_CONTROL_ALLOW_METHODS,
                HeaderValue::from_static(ALLOW_METHODS),
            );
            headers.insert(
                header::ACCESS_CONTROL_MAX_AGE,
                HeaderValue::from_static(MAX_AGE),
            );
        }
        add_vary_origin(headers);
        return Ok(req.into_response(response).map_into_right_body());
    }
    let mut response = next.call(req).await?;
    let headers = response.headers_mut();
    if let Some(origin) = allowed_origin {
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    }
    add_vary_origin(headers);
    Ok(response.map_into_left_body())
}

/// Whether `origin` is this service as the request addressed it (a browser sends `Origin` on
/// its own POSTs too; they need no CORS headers).
fn is_own_origin(req: &ServiceRequest, origin: &HeaderValue) -> bool {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok());
    let origin = origin
        .to_str()
        .ok()
        .and_then(|text| url::Url::parse(text).ok());
    match (host, origin) {
        (Some(host), Some(origin)) => {
            let authority = match (origin.host_str(), origin.port()) {
                (Some(name), Some(port)) => format!("{name}:{port}"),
                (Some(name), None) => name.to_owned(),
                (None, _) => return false,
            };
            authority.eq_ignore_ascii_case(host)
        }
        _ => false,
    }
}

/// `OPTIONS` with `Access-Control-Request-Method`.
fn is_preflight(req: &ServiceRequest) -> bool {
    req.method() == Method::OPTIONS
        && req
            .headers()
            .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD)
}

/// Whether the settings in force allow `origin`; a database that does not answer allows
/// none.
async fn allows(req: &ServiceRequest, origin: &HeaderValue) -> bool {
    let (Some(state), Ok(origin)) = (
        req.app_data::<web::Data<AppState>>(),
        origin.to_str().map(str::to_owned),
    ) else {
        return false;
    };
    run(state, req.request(), move |ctx| {
        Ok(ctx.settings()?.cors_allows(&origin))
    })
    .await
    .is_ok_and(|reply| reply.value)
}

/// Adds `Origin` to `Vary` (answers differ by origin, so caches must keep them apart).
fn add_vary_origin(headers: &mut HeaderMap) {
    let listed = headers.get_all(header::VARY).any(|value| {
        value.to_str().is_ok_and(|text| {
            text.split(',')
                .any(|v| v.trim().eq_ignore_ascii_case("origin"))
        })
    });
    if !listed {
        headers.append(header::VARY, HeaderValue::from_static("Origin"));
    }
}

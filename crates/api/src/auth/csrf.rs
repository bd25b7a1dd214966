//! CSRF protection for cookie-authenticated requests (contract §3): the `X-CSRFToken` header
//! (or the form field `csrfmiddlewaretoken`) must equal the `csrftoken` cookie, and over HTTPS
//! the `Origin` or `Referer` must be this host.

use ring::rand::SecureRandom;

use crate::error::{ApiError, ApiResult};
use crate::http::request::RequestInfo;

/// Name of the CSRF cookie; awxkit reads it by this name.
pub const COOKIE: &str = "csrftoken";

/// A fresh random CSRF token (64 characters of `[A-Za-z0-9]`, like Django's masked tokens).
pub fn new_token(rng: &dyn SecureRandom) -> ApiResult<String> {
    acs_oauth2::random_alphanumeric(rng, 64)
        .map_err(|_| ApiError::Internal("random number generator failed".into()))
}

/// The CSRF token of this browser (its `csrftoken` cookie) for a page's form, or a new one;
/// the flag says the cookie must be set.
pub fn page_token(
    req: &actix_web::HttpRequest,
    rng: &dyn SecureRandom,
) -> ApiResult<(String, bool)> {
    match req
        .cookie(COOKIE)
        .map(|c| c.value().to_owned())
        .filter(|v| !v.is_empty())
    {
        Some(token) => Ok((token, false)),
        None => Ok((new_token(rng)?, true)),
    }
}

/// The `csrftoken` cookie carrying `token`, readable by scripts (awxkit and the pages' forms
/// copy it). `Secure` follows the connection itself: pages that set it do not read the
/// database, so they cannot know the trusted proxies.
pub fn cookie(req: &actix_web::HttpRequest, token: String) -> actix_web::cookie::Cookie<'static> {
    crate::http::cookies::cookie(COOKIE.into(), token, false, None, req.app_config().secure())
}

/// The 403 page of a form whose CSRF check failed.
pub fn failure_page(
    pages: &crate::pages::Pages,
    reason: &str,
) -> ApiResult<actix_web::HttpResponse> {
    crate::pages::message_page(
        pages,
        actix_web::http::StatusCode::FORBIDDEN,
        &crate::pages::MessagePage {
            title: "Forbidden",
            message: "CSRF verification failed. Request aborted.",
            detail: Some(reason),
        },
    )
}

/// Checks the header token against the cookie (session-authenticated API requests); `https`
/// says whether the request came over HTTPS.
pub fn check(request: &RequestInfo, https: bool) -> ApiResult<()> {
    check_token(request, request.csrf_header.as_deref(), https)
}

/// Checks a token sent as a header or form field against the cookie.
pub fn check_token(request: &RequestInfo, sent: Option<&str>, https: bool) -> ApiResult<()> {
    let cookie = request
        .cookie(COOKIE)
        .filter(|c| !c.is_empty())
        .ok_or_else(|| ApiError::Forbidden("CSRF Failed: CSRF cookie not set.".into()))?;
    let sent = sent
        .filter(|s| !s.is_empty())
        .ok_or_else(|| ApiError::Forbidden("CSRF Failed: CSRF token missing.".into()))?;
    if !acs_oauth2::constant_time_eq(cookie.as_bytes(), sent.as_bytes()) {
        return Err(ApiError::Forbidden(
            "CSRF Failed: CSRF token from the 'X-Csrftoken' HTTP header incorrect.".into(),
        ));
    }
    check_origin(request, https)
}

/// Cross-origin browser requests are refused even with a valid token: the `Origin` (or, when
/// absent, the `Referer`) must name this host. Over HTTPS one of them is required, as Django
/// requires it (a man in the middle of plain http could set cookies, not forge this).
fn check_origin(request: &RequestInfo, https: bool) -> ApiResult<()> {
    let claimed = request.origin.as_deref().or(request.referer.as_deref());
    let Some(claimed) = claimed.filter(|c| *c != "null") else {
        return if https {
            Err(ApiError::Forbidden(
                "CSRF Failed: Referer checking failed - no Referer.".into(),
            ))
        } else {
            Ok(())
        };
    };
    let same_host = url::Url::parse(claimed).ok().is_some_and(|url| {
        let host = match (url.host_str(), url.port()) {
            (Some(host), Some(port)) => format!("{host}:{port}"),
            (Some(host), None) => host.to_owned(),
            _ => return false,
        };
        host.eq_ignore_ascii_case(&request.host)
    });
    if same_host {
        Ok(())
    } else {
        Err(ApiError::Forbidden(format!(
            "CSRF Failed: Origin checking failed - {claimed} does not match any trusted origins."
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(cookie: Option<&str>, header: Option<&str>, origin: Option<&str>) -> RequestInfo {
        RequestInfo {
            method: actix_web::http::Method::POST,
            authorization: None,
            cookie_header: cookie.map(|c| format!("other=1; csrftoken={c}")),
            csrf_header: header.map(str::to_owned),
            origin: origin.map(str::to_owned),
            referer: None,
            host: "127.0.0.1:8013".into(),
            peer: None,
            forwarded_for: None,
            forwarded_proto: None,
            tls: false,
        }
    }

    #[test]
    fn token_rules() {
        let detail = |r: ApiResult<()>| match r {
            Ok(()) => "ok".to_owned(),
            Err(ApiError::Forbidden(d)) => d,
            Err(other) => format!("{other:?}"),
        };
        let http = |cookie, header, origin| detail(check(&request(cookie, header, origin), false));
        let https = |cookie, header, origin| detail(check(&request(cookie, header, origin), true));
        assert_eq!(http(Some("abc"), Some("abc"), None), "ok");
        assert!(http(None, Some("abc"), None).contains("cookie not set"));
        assert!(http(Some("abc"), None, None).contains("token missing"));
        assert!(http(Some("abc"), Some("abd"), None).contains("incorrect"));
        assert_eq!(
            http(Some("a"), Some("a"), Some("http://127.0.0.1:8013")),
            "ok"
        );
        assert!(
            http(Some("a"), Some("a"), Some("http://evil.example"))
                .contains("Origin checking failed")
        );
        // Over HTTPS the origin must be stated, and be this host.
        assert!(https(Some("a"), Some("a"), None).contains("no Referer"));
        assert_eq!(
            https(Some("a"), Some("a"), Some("https://127.0.0.1:8013")),
            "ok"
        );
        assert!(
            https(Some("a"), Some("a"), Some("https://evil.example"))
                .contains("Origin checking failed")
        );
    }

    #[test]
    fn tokens_are_random_and_alphanumeric() {
        let rng = ring::rand::SystemRandom::new();
        let (a, b) = (new_token(&rng).expect("a"), new_token(&rng).expect("b"));
        assert_eq!(a.len(), 64);
        assert!(a.bytes().all(|c| c.is_ascii_alphanumeric()));
        assert_ne!(a, b);
    }
}

//! The cookies ACS sets (session, CSRF): one shape for all of them. A leaf, so that
//! authentication can set one without importing the response machinery.

use actix_web::cookie::{Cookie, SameSite, time::Duration as CookieDuration};

/// A cookie as ACS sets them: `Path=/`, `SameSite=Lax`, `Secure` only over HTTPS.
pub fn cookie(
    name: String,
    value: String,
    http_only: bool,
    max_age: Option<i64>,
    secure: bool,
) -> Cookie<'static> {
    let mut cookie = Cookie::build(name, value)
        .path("/")
        .same_site(SameSite::Lax)
        .http_only(http_only)
        .secure(secure)
        .finish();
    if let Some(seconds) = max_age {
        cookie.set_max_age(CookieDuration::seconds(seconds));
    }
    cookie
}

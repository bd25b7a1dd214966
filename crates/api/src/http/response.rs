//! Turning a handler's [`Reply`] into an HTTP response, with the session cookie re-armed.

use actix_web::cookie::{Cookie, SameSite, time::Duration as CookieDuration};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, HttpResponseBuilder};
use serde_json::Value;

use crate::context::{Reply, SessionCookie};

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

/// Adds the session cookie and `Session-Timeout` for a session-authenticated request.
pub fn apply_session(
    builder: &mut HttpResponseBuilder,
    session: Option<&SessionCookie>,
    secure: bool,
) {
    if let Some(session) = session {
        builder.cookie(cookie(
            session.name.clone(),
            session.value.clone(),
            true,
            Some(session.max_age),
            secure,
        ));
        builder.insert_header(("Session-Timeout", session.max_age.to_string()));
    }
}

impl<T: serde::Serialize> Reply<T> {
    /// The value as a JSON response with `status`.
    pub fn json(self, status: StatusCode) -> HttpResponse {
        let mut builder = HttpResponse::build(status);
        apply_session(&mut builder, self.session.as_ref(), self.secure);
        builder.json(self.value)
    }
}

impl Reply<()> {
    /// An empty 204 response.
    pub fn no_content(self) -> HttpResponse {
        let mut builder = HttpResponse::NoContent();
        apply_session(&mut builder, self.session.as_ref(), self.secure);
        builder.finish()
    }
}

impl Reply<(Value, String)> {
    /// An `OPTIONS` response: metadata body and `Allow` header.
    pub fn options(self) -> HttpResponse {
        let (body, allow) = self.value;
        let mut builder = HttpResponse::Ok();
        apply_session(&mut builder, self.session.as_ref(), self.secure);
        builder.insert_header(("Allow", allow)).json(body)
    }
}

//! Turning a handler's [`Reply`] into an HTTP response, with the session cookie re-armed.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, HttpResponseBuilder};
use serde_json::Value;

use super::cookies::cookie;
use crate::auth::session::SessionCookie;
use crate::context::Reply;

/// Adds `Strict-Transport-Security` to responses that travelled over HTTPS (never on plain
/// http: awxkit and browsers on a loopback test setup must keep working).
pub fn apply_transport(builder: &mut HttpResponseBuilder, secure: bool) {
    if secure {
        builder.insert_header(("Strict-Transport-Security", "max-age=31536000"));
    }
}

/// Adds the session cookie and `Session-Timeout` for a session-authenticated request, and the
/// transport headers.
pub fn apply_session(
    builder: &mut HttpResponseBuilder,
    session: Option<&SessionCookie>,
    secure: bool,
) {
    apply_transport(builder, secure);
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

    /// A 201 response for a new record at `location` (its relative URL).
    pub fn created(self, location: &str) -> HttpResponse {
        let mut builder = HttpResponse::Created();
        apply_session(&mut builder, self.session.as_ref(), self.secure);
        builder
            .insert_header((actix_web::http::header::LOCATION, location))
            .json(self.value)
    }
}

impl Reply<()> {
    /// An empty 204 response.
    pub fn no_content(self) -> HttpResponse {
        self.empty(StatusCode::NO_CONTENT)
    }

    /// An empty response with `status` (202 for work accepted).
    pub fn empty(self, status: StatusCode) -> HttpResponse {
        let mut builder = HttpResponse::build(status);
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

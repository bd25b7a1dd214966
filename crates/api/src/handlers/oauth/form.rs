//! The request of a client-facing `/api/o/` endpoint: its form parameters and its
//! `Authorization` header. Only `application/x-www-form-urlencoded` bodies are read (contract
//! §4), and parameters in the URL are refused, since URLs end up in logs and histories.

use acs_oauth2::{FormParams, OAuthError};
use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::{FromRequest, HttpRequest};

use super::reply::OAuthFailure;
use crate::http::body::{media_type, read_body};

/// The parameters and client credentials header of an `/api/o/` POST.
pub struct OAuthForm {
    /// The form parameters, none repeated.
    pub params: FormParams,
    /// The `Authorization` header, for HTTP Basic client authentication.
    pub authorization: Option<String>,
}

impl std::fmt::Debug for OAuthForm {
    /// Parameter names only; the header holds client secrets.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthForm")
            .field("params", &self.params)
            .field("authorization", &self.authorization.as_ref().map(|_| "…"))
            .finish()
    }
}

impl FromRequest for OAuthForm {
    type Error = OAuthFailure;
    type Future = futures_util::future::LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let req = req.clone();
        let mut payload = payload.take();
        Box::pin(async move {
            if !req.query_string().is_empty() {
                return Err(OAuthError::query_parameters_not_allowed().into());
            }
            let body = read_body(&req, &mut payload).await?;
            if !body.is_empty()
                && media_type(&req).as_deref() != Some("application/x-www-form-urlencoded")
            {
                return Err(OAuthError::unsupported_content_type().into());
            }
            let params = FormParams::parse(url::form_urlencoded::parse(&body))?;
            let authorization = req
                .headers()
                .get(header::AUTHORIZATION)
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned);
            Ok(OAuthForm {
                params,
                authorization,
            })
        })
    }
}

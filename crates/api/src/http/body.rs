//! Request bodies: JSON objects on `/api/v2/` (415 for other types, 400 for malformed JSON,
//! 413 over the limit) and URL-encoded forms for login.

use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::{FromRequest, HttpRequest, web};
use futures_util::StreamExt;
use futures_util::future::LocalBoxFuture;
use serde_json::{Map, Value};

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// A JSON object body; an empty body counts as `{}`.
#[derive(Debug, Clone, Default)]
pub struct JsonObject(pub Map<String, Value>);

/// A URL-encoded form body as name/value pairs.
#[derive(Debug, Clone, Default)]
pub struct FormBody(pub Vec<(String, String)>);

impl FormBody {
    /// The first value of field `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

fn limit(req: &HttpRequest) -> usize {
    req.app_data::<web::Data<AppState>>()
        .map_or(1 << 20, |state| state.config.max_body_bytes)
}

pub(crate) fn media_type(req: &HttpRequest) -> Option<String> {
    let value = req.headers().get(header::CONTENT_TYPE)?.to_str().ok()?;
    Some(
        value
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase(),
    )
}

/// Reads the whole body, refusing more than `limit` bytes (checked against Content-Length
/// first, then while streaming).
pub(crate) async fn read_body(
    req: &HttpRequest,
    payload: &mut Payload,
) -> ApiResult<web::BytesMut> {
    let limit = limit(req);
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|length| length > limit) {
        return Err(ApiError::PayloadTooLarge(limit));
    }
    let mut body = web::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|error| {
            ApiError::BadRequest(format!("Could not read the request body: {error}"))
        })?;
        if body.len() + chunk.len() > limit {
            return Err(ApiError::PayloadTooLarge(limit));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// The future of a body extractor: the whole body read (see [`read_body`]), then `parse`d.
fn parsed_body<T: 'static>(
    req: &HttpRequest,
    payload: &mut Payload,
    parse: fn(&HttpRequest, web::BytesMut) -> ApiResult<T>,
) -> LocalBoxFuture<'static, ApiResult<T>> {
    let req = req.clone();
    let mut payload = payload.take();
    Box::pin(async move {
        let body = read_body(&req, &mut payload).await?;
        parse(&req, body)
    })
}

impl JsonObject {
    fn parse(req: &HttpRequest, body: web::BytesMut) -> ApiResult<JsonObject> {
        if body.iter().all(u8::is_ascii_whitespace) {
            return Ok(JsonObject::default());
        }
        let json = media_type(req).is_some_and(|t| t == "application/json" || t.ends_with("+json"));
        if !json {
            return Err(ApiError::UnsupportedMediaType);
        }
        match serde_json::from_slice::<Value>(&body) {
            Ok(Value::Object(map)) => Ok(JsonObject(map)),
            Ok(_) => Err(ApiError::BadRequest(
                "JSON parse error - not a JSON object".into(),
            )),
            Err(error) => Err(ApiError::BadRequest(format!("JSON parse error - {error}"))),
        }
    }
}

impl FromRequest for JsonObject {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, ApiResult<Self>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        parsed_body(req, payload, JsonObject::parse)
    }
}

impl FormBody {
    fn parse(req: &HttpRequest, body: web::BytesMut) -> ApiResult<FormBody> {
        if body.is_empty() {
            return Ok(FormBody::default());
        }
        if media_type(req).as_deref() != Some("application/x-www-form-urlencoded") {
            return Err(ApiError::BadRequest(
                "The body must be sent as application/x-www-form-urlencoded.".into(),
            ));
        }
        serde_urlencoded::from_bytes(&body)
            .map(FormBody)
            .map_err(|error| ApiError::BadRequest(format!("Malformed form body: {error}")))
    }
}

impl FromRequest for FormBody {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, ApiResult<Self>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        parsed_body(req, payload, FormBody::parse)
    }
}

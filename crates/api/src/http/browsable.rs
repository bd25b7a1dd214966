//! The browsable API: a person's browser asking for `/api/v2/…` gets the JSON answer inside a
//! page (the resource's name, its methods, the list's filters and ordering, the body
//! pretty-printed with every API URL in it a link), where every program keeps getting the
//! JSON itself.
//!
//! The page is chosen by negotiation ([`wants_page`]): `?format=api`, or a `GET` whose
//! `Accept` prefers `text/html` to `application/json` (what browsers send) and no
//! `Authorization` header (bearer and Basic clients are programs). `?format=json`, an
//! `Accept` of `application/json`, `*/*` or none, and everything outside `/api/v2/` get the
//! JSON unchanged. A browser that is not signed in (the API answers 401) is sent to the login
//! page, which brings it back. The handlers know nothing of this: the page wraps their
//! answer, so it masks secrets exactly as the JSON does.
//!
//! A page carries a form for each change its caller may make: `POST` where the handler says
//! the caller may post (a list, an association, an action), with the fields to
//! fill; on a record, `PATCH` or `PUT` with its writable fields, and `DELETE`, as the record's
//! own `user_capabilities` say (or the handler, where they say less: an [`Offer`] the handler
//! sets on its answer to a page request). Browsers
//! post forms only, so a form posts to the page's URL with the method and the JSON (or typed
//! fields) in fields (`_method`, `_content`, `field.*`) and the page's CSRF token; the request
//! then runs as that method with that JSON body, the token as `X-CSRFToken`, under every
//! check a script's request meets. A change that worked goes back to the record's page (after a
//! creation, to the new record's; after a deletion, to the collection's); a refusal is shown
//! in the page with the form as sent.

pub use acs_browsable::Offer;
use acs_browsable::{
    ApiPage, Change, PREFIX, Viewer, api_link, body_from_fields, crumbs, wants_page,
};
use actix_web::body::{BoxBody, EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::{HttpMessage, HttpResponse, web};
use serde_json::Value;

use crate::openapi::ServedDocument;
use crate::pages::page_response;
use crate::state::AppState;

/// Set on a request whose answer becomes a page, for handlers that add to pages.
#[derive(Debug, Clone, Copy)]
struct PageWanted;

/// Whether `req`'s answer becomes a page.
pub fn is_page_request(req: &actix_web::HttpRequest) -> bool {
    req.extensions().contains::<PageWanted>()
}

/// The form fields of a page's change: the method, the JSON body and the CSRF token.
const METHOD_FIELD: &str = "_method";
const CONTENT_FIELD: &str = "_content";
const CSRF_FIELD: &str = "csrfmiddlewaretoken";
/// Present (`fields`) when the form sent typed fields rather than the JSON.
const FORM_FIELD: &str = "_form";

/// Whether `req` may be a page's form: a form `POST` under `/api/v2/` from a browser (no
/// `Authorization`; programs send JSON).
fn may_be_page_form(req: &ServiceRequest) -> bool {
    *req.method() == Method::POST
        && req.path().starts_with(PREFIX)
        && !req.headers().contains_key(header::AUTHORIZATION)
        && req.headers().get(header::CONTENT_TYPE).is_some_and(|t| {
            t.as_bytes()
                .starts_with(b"application/x-www-form-urlencoded")
        })
}

/// Turns a page's form into the request it stands for; any other form goes on unchanged.
async fn unwrap_page_form(req: &mut ServiceRequest) -> Result<Option<Change>, actix_web::Error> {
    let body = req.extract::<web::Bytes>().await?;
    let mut method = None;
    let mut content = String::new();
    let mut token = None;
    let mut typed = false;
    let mut inputs = Vec::new();
    for (name, value) in url::form_urlencoded::parse(&body) {
        match name.as_ref() {
            METHOD_FIELD => method = Some(value.into_owned()),
            CONTENT_FIELD => content = value.into_owned(),
            CSRF_FIELD => token = Some(value.into_owned()),
            FORM_FIELD => typed = value == "fields",
            _ => inputs.push((name.into_owned(), value.into_owned())),
        }
    }
    let method = match method.as_deref() {
        Some("POST") => "POST",
        Some("PUT") => "PUT",
        Some("PATCH") => "PATCH",
        Some("DELETE") => "DELETE",
        _ => {
            req.set_payload(body.into());
            return Ok(None);
        }
    };
    if method == "DELETE" {
        content.clear();
    } else if typed {
        let specs = req
            .app_data::<web::Data<ServedDocument>>()
            .and_then(|document| document.endpoints().find(req.path()))
            .map(|e| e.fields_for(method))
            .unwrap_or_default();
        content =
            serde_json::to_string_pretty(&body_from_fields(specs, &inputs)).unwrap_or_default();
    }
    req.head_mut().method = Method::from_bytes(method.as_bytes()).unwrap_or(Method::POST);
    let headers = req.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.remove(header::CONTENT_LENGTH);
    match token.and_then(|t| HeaderValue::from_str(&t).ok()) {
        Some(token) => {
            headers.insert(super::headers::names::X_CSRFTOKEN, token);
        }
        None => {
            headers.remove(super::headers::names::X_CSRFTOKEN);
        }
    }
    req.set_payload(web::Bytes::from(content.clone()).into());
    Ok(Some(Change { method, content }))
}

/// The middleware function (wrap with `actix_web::middleware::from_fn`), inside the ones that
/// add the standard headers.
pub async fn browsable(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody, BoxBody>>, actix_web::Error> {
    if may_be_page_form(&req) {
        if let Some(change) = unwrap_page_form(&mut req).await? {
            let response = next.call(req).await?;
            return Ok(answer_page_change(response, &change)
                .await?
                .map_into_right_body());
        }
        return Ok(next.call(req).await?.map_into_left_body());
    }
    let accept = req
        .headers()
        .get(header::ACCEPT)
        .and_then(|value| value.to_str().ok());
    let authorized = req.headers().contains_key(header::AUTHORIZATION);
    if !wants_page(
        req.method().as_str(),
        req.path(),
        req.query_string(),
        accept,
        authorized,
    ) {
        return Ok(next.call(req).await?.map_into_left_body());
    }
    req.extensions_mut().insert(PageWanted);
    let response = next.call(req).await?;
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|value| value.as_bytes().starts_with(b"application/json"));
    if response.status() == StatusCode::UNAUTHORIZED {
        let (req, _) = response.into_parts();
        let login = login_redirect(&req);
        return Ok(ServiceResponse::new(req, login).map_into_right_body());
    }
    if !is_json {
        return Ok(response.map_into_left_body());
    }
    Ok(as_page(response, None).await?.map_into_right_body())
}

/// The API's JSON `response` as a page (its status and headers kept), the form of `change`
/// shown again when it is the answer to one.
async fn as_page(
    response: ServiceResponse<impl MessageBody>,
    change: Option<&Change>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let (req, response) = response.into_parts();
    let status = response.status();
    let offer = response
        .extensions()
        .get::<Offer>()
        .copied()
        .unwrap_or_default();
    let kept: Vec<_> = response
        .headers()
        .iter()
        .filter(|(name, _)| **name != header::CONTENT_TYPE && **name != header::CONTENT_LENGTH)
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect();
    let body = actix_web::body::to_bytes(response.into_body())
        .await
        .map_err(|_| actix_web::error::ErrorInternalServerError("reading the answer"))?;
    let value: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let mut page = render_page(&req, status, &value, change, offer)?;
    for (name, value) in kept {
        page.headers_mut().insert(name, value);
    }
    page.headers_mut()
        .insert(header::VARY, HeaderValue::from_static("Accept"));
    Ok(ServiceResponse::new(req, page))
}

/// The answer to a page's change: back to the record's page (303) when it worked, to the
/// collection's after a deletion; the refusal in the page otherwise.
async fn answer_page_change(
    response: ServiceResponse<impl MessageBody + 'static>,
    change: &Change,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    if response.status().is_success() {
        let path = response.request().path().to_owned();
        let location = response
            .headers()
            .get(header::LOCATION)
            .and_then(|l| l.to_str().ok())
            .map(str::to_owned);
        let (req, response) = response.into_parts();
        let target = if change.method == "DELETE" {
            crumbs(&path)
                .pop()
                .map_or_else(|| PREFIX.to_owned(), |c| c.url)
        } else if change.method == "POST" {
            // A creation shows the new record: its `Location`, or the `url` in its body.
            match location {
                Some(location) => location,
                None => {
                    let body = actix_web::body::to_bytes(response.into_body())
                        .await
                        .unwrap_or_default();
                    serde_json::from_slice::<Value>(&body)
                        .ok()
                        .and_then(|record| api_link(record.get("url")))
                        .unwrap_or(path)
                }
            }
        } else {
            path
        };
        let back = HttpResponse::SeeOther()
            .insert_header((header::LOCATION, target))
            .finish();
        return Ok(ServiceResponse::new(req, back));
    }
    if response.status() == StatusCode::UNAUTHORIZED {
        let (req, _) = response.into_parts();
        let login = login_redirect(&req);
        return Ok(ServiceResponse::new(req, login));
    }
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|value| value.as_bytes().starts_with(b"application/json"));
    if !is_json {
        return Ok(response.map_into_boxed_body());
    }
    as_page(response, Some(change)).await
}

/// The login page, with `next` bringing the browser back here.
fn login_redirect(req: &actix_web::HttpRequest) -> HttpResponse {
    let here = req
        .uri()
        .path_and_query()
        .map_or_else(|| req.path().to_owned(), |pq| pq.as_str().to_owned());
    let next: String = url::form_urlencoded::byte_serialize(here.as_bytes()).collect();
    HttpResponse::Found()
        .insert_header((header::LOCATION, format!("/api/login/?next={next}")))
        .insert_header((header::VARY, "Accept"))
        .finish()
}

fn render_page(
    req: &actix_web::HttpRequest,
    status: StatusCode,
    value: &Value,
    change: Option<&Change>,
    offer: Offer,
) -> Result<HttpResponse, actix_web::Error> {
    let state = req
        .app_data::<web::Data<AppState>>()
        .ok_or_else(|| actix_web::error::ErrorInternalServerError("no state"))?;
    let document = req
        .app_data::<web::Data<ServedDocument>>()
        .ok_or_else(|| actix_web::error::ErrorInternalServerError("no document"))?;
    let viewer = Viewer {
        csrf_token: req
            .cookie(crate::auth::csrf::COOKIE)
            .map(|c| c.value().to_owned()),
        authorized: req.headers().contains_key(header::AUTHORIZATION),
        offer,
    };
    let status_line = format!(
        "{} {}",
        status.as_u16(),
        status.canonical_reason().unwrap_or("")
    );
    let page = ApiPage::new(
        document.endpoints(),
        req.method().as_str(),
        req.path(),
        status_line,
        value,
        change,
        &viewer,
    );
    let html = state.pages.html("api", &page)?;
    Ok(page_response(status).body(html))
}

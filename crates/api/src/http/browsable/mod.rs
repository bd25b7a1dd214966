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
//! A page carries a form for each change its caller may make: on a list, `POST` with the
//! fields to fill (when the list's handler says the caller may create there, [`MayCreate`]);
//! on a record, `PATCH` or `PUT` with its writable fields as JSON, and `DELETE` (the record's
//! own `user_capabilities` say which). Browsers post forms only, so the form posts to the record's URL with the method
//! and the JSON in fields (`_method`, `_content`) and the page's CSRF token; the request then
//! runs as that method with that JSON body, the token as `X-CSRFToken`, under every check a
//! script's request meets. A change that worked goes back to the record's page (after a
//! creation, to the new record's; after a deletion, to the collection's); a refusal is shown
//! in the page with the form as sent.

mod fields;

use std::sync::OnceLock;

use actix_web::body::{BoxBody, EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::{HttpMessage, HttpResponse, web};
use serde::Serialize;
use serde_json::Value;

use self::fields::{FieldSpec, FormField, body_from_fields, form_fields};
use crate::pages::page_response;
use crate::state::AppState;

/// Where the browsable API is served.
const PREFIX: &str = "/api/v2/";

/// Set on a request whose answer becomes a page, for handlers that add to pages.
#[derive(Debug, Clone, Copy)]
struct PageWanted;

/// Set by a list's handler on its answer to a page request when the caller may create there:
/// the page then carries the create form.
#[derive(Debug, Clone, Copy)]
pub struct MayCreate;

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

/// A change posted from a page: the method and JSON it stands for.
#[derive(Debug, Clone)]
struct PageChange {
    method: Method,
    content: String,
}

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
async fn unwrap_page_form(
    req: &mut ServiceRequest,
) -> Result<Option<PageChange>, actix_web::Error> {
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
        Some("POST") => Method::POST,
        Some("PUT") => Method::PUT,
        Some("PATCH") => Method::PATCH,
        Some("DELETE") => Method::DELETE,
        _ => {
            req.set_payload(body.into());
            return Ok(None);
        }
    };
    if method == Method::DELETE {
        content.clear();
    } else if typed {
        let specs = endpoints()
            .find(req.path())
            .map(|e| e.fields_for(&method))
            .unwrap_or_default();
        content =
            serde_json::to_string_pretty(&body_from_fields(specs, &inputs)).unwrap_or_default();
    }
    req.head_mut().method = method.clone();
    let headers = req.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.remove(header::CONTENT_LENGTH);
    match token.and_then(|t| HeaderValue::from_str(&t).ok()) {
        Some(token) => {
            headers.insert(header::HeaderName::from_static("x-csrftoken"), token);
        }
        None => {
            headers.remove("x-csrftoken");
        }
    }
    req.set_payload(web::Bytes::from(content.clone()).into());
    Ok(Some(PageChange { method, content }))
}

/// Whether the request is answered with a page: see the module's documentation.
pub fn wants_page(
    method: &Method,
    path: &str,
    query: &str,
    accept: Option<&str>,
    authorized: bool,
) -> bool {
    if !path.starts_with(PREFIX) || !matches!(*method, Method::GET | Method::HEAD) {
        return false;
    }
    // Most requests have no `format`: look for it before decoding the query.
    let format = query
        .contains("format")
        .then(|| {
            url::form_urlencoded::parse(query.as_bytes())
                .find(|(name, _)| name == "format")
                .map(|(_, value)| value.into_owned())
        })
        .flatten();
    match format.as_deref() {
        Some("api") => true,
        Some(_) => false,
        None => !authorized && accept.is_some_and(prefers_html),
    }
}

/// Whether an `Accept` header ranks `text/html` above `application/json` (a tie goes to
/// JSON: a program listing both did not ask for a page).
fn prefers_html(accept: &str) -> bool {
    let html = quality(accept, "text", "html");
    html > 0.0 && html > quality(accept, "application", "json")
}

/// The quality `accept` gives `kind/subtype`: its most specific matching range's `q`.
fn quality(accept: &str, kind: &str, subtype: &str) -> f32 {
    let mut best: Option<(u8, f32)> = None;
    for range in accept.split(',') {
        let mut parts = range.split(';').map(str::trim);
        let Some((range_kind, range_subtype)) = parts.next().and_then(|r| r.split_once('/')) else {
            continue;
        };
        let specificity = match (range_kind, range_subtype) {
            (k, s) if k.eq_ignore_ascii_case(kind) && s.eq_ignore_ascii_case(subtype) => 2,
            (k, "*") if k.eq_ignore_ascii_case(kind) => 1,
            ("*", "*") => 0,
            _ => continue,
        };
        let q = parts
            .filter_map(|p| p.strip_prefix("q="))
            .find_map(|q| q.parse::<f32>().ok())
            .unwrap_or(1.0);
        if best.is_none_or(|(seen, _)| specificity > seen) {
            best = Some((specificity, q));
        }
    }
    best.map_or(0.0, |(_, q)| q)
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
        req.method(),
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
    change: Option<&PageChange>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let (req, response) = response.into_parts();
    let status = response.status();
    let may_create = response.extensions().contains::<MayCreate>();
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
    let mut page = render_page(&req, status, &value, change, may_create)?;
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
    change: &PageChange,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    if response.status().is_success() {
        let path = response.request().path().to_owned();
        let location = response
            .headers()
            .get(header::LOCATION)
            .and_then(|l| l.to_str().ok())
            .map(str::to_owned);
        let (req, response) = response.into_parts();
        let target = if change.method == Method::DELETE {
            crumbs(&path)
                .pop()
                .map_or_else(|| PREFIX.to_owned(), |c| c.url)
        } else if change.method == Method::POST {
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

/// What the page shows.
#[derive(Debug, Serialize)]
struct ApiPage<'a> {
    /// The resource's name (the `GET` operation's summary), or the path.
    title: String,
    /// What the resource is.
    description: String,
    /// The method and path, as asked (a page's change as the method it stood for).
    method: &'a str,
    path: &'a str,
    /// The path's parents, each a link.
    crumbs: Vec<Crumb>,
    /// `Allow`: the methods of the endpoint.
    methods: String,
    /// The status line of the answer.
    status: String,
    /// The answer, as escaped HTML with its API URLs as links.
    body: String,
    /// Previous and next page of a list.
    previous: Option<String>,
    next: Option<String>,
    /// The list's query parameters: paging, ordering, search and the filters.
    parameters: Vec<Parameter>,
    /// The forms of the changes the caller may make.
    forms: Option<Forms>,
}

/// A record page's forms.
#[derive(Debug, Serialize)]
struct Forms {
    /// The browser's CSRF token (its `csrftoken` cookie).
    csrf_token: String,
    /// `PATCH` and `PUT`, when the caller may change the record.
    edit: Option<EditForm>,
    /// `DELETE`, when the caller may delete it.
    delete: bool,
    /// `POST` on a list, when the caller may create there.
    create: Option<CreateForm>,
}

#[derive(Debug, Serialize)]
struct CreateForm {
    /// The JSON in the text area: the fields to fill, or what was sent.
    content: String,
    /// The same as typed inputs.
    fields: Vec<FormField>,
}

#[derive(Debug, Serialize)]
struct EditForm {
    /// The JSON in the text area: the record's writable fields, or what was sent.
    content: String,
    /// The methods offered, the one sent first.
    methods: Vec<&'static str>,
    /// The writable fields as typed inputs.
    fields: Vec<FormField>,
}

#[derive(Debug, Serialize)]
struct Crumb {
    name: String,
    url: String,
}

#[derive(Debug, Clone, Serialize)]
struct Parameter {
    name: String,
    description: String,
}

fn render_page(
    req: &actix_web::HttpRequest,
    status: StatusCode,
    value: &Value,
    change: Option<&PageChange>,
    may_create: bool,
) -> Result<HttpResponse, actix_web::Error> {
    let state = req
        .app_data::<web::Data<AppState>>()
        .ok_or_else(|| actix_web::error::ErrorInternalServerError("no state"))?;
    let path = req.path();
    let endpoint = endpoints().find(path);
    let page = ApiPage {
        title: endpoint.map_or_else(|| path.to_owned(), |e| e.summary.clone()),
        description: endpoint.map_or_else(String::new, |e| e.description.clone()),
        method: req.method().as_str(),
        path,
        crumbs: crumbs(path),
        methods: endpoint.map_or_else(String::new, |e| e.methods.join(", ")),
        status: format!(
            "{} {}",
            status.as_u16(),
            status.canonical_reason().unwrap_or("")
        ),
        body: json_html(value),
        previous: api_link(value.get("previous")),
        next: api_link(value.get("next")),
        parameters: endpoint.map_or_else(Vec::new, |e| e.parameters.clone()),
        forms: endpoint.and_then(|e| forms(req, e, value, change, may_create)),
    };
    let html = state.pages.html("api", &page)?;
    Ok(page_response(status).body(html))
}

/// The forms of a record's page for a browser signed in with a session: editing when the
/// record says its caller may (`user_capabilities.edit`) and the endpoint takes `PATCH`,
/// deleting likewise; after a refused change, its form again with what was sent.
fn forms(
    req: &actix_web::HttpRequest,
    endpoint: &EndpointInfo,
    value: &Value,
    change: Option<&PageChange>,
    may_create: bool,
) -> Option<Forms> {
    if req.headers().contains_key(header::AUTHORIZATION) {
        return None;
    }
    let csrf_token = req
        .cookie(crate::auth::csrf::COOKIE)
        .map(|c| c.value().to_owned())
        .filter(|t| !t.is_empty())?;
    let capabilities = &value["summary_fields"]["user_capabilities"];
    let offers = |method: &str| endpoint.methods.iter().any(|m| m == method);
    let sent_body = |change: &PageChange| -> Value {
        serde_json::from_str(&change.content).unwrap_or(Value::Null)
    };
    let edit_fields =
        |values: &Value| form_fields(endpoint.fields_for(&Method::PATCH), "edit", values);
    let edit = match change {
        Some(change) if matches!(change.method, Method::PUT | Method::PATCH) => Some(EditForm {
            content: change.content.clone(),
            methods: if change.method == Method::PUT {
                vec!["PUT", "PATCH"]
            } else {
                vec!["PATCH", "PUT"]
            },
            fields: edit_fields(&sent_body(change)),
        }),
        Some(_) => None,
        None => (capabilities["edit"] == true && offers("PATCH")).then(|| EditForm {
            content: writable_fields(&endpoint.writable, value),
            methods: vec!["PATCH", "PUT"],
            fields: edit_fields(value),
        }),
    };
    let delete = change.is_none() && capabilities["delete"] == true && offers("DELETE");
    let create_fields =
        |values: &Value| form_fields(endpoint.fields_for(&Method::POST), "create", values);
    let create = match change.filter(|c| c.method == Method::POST) {
        Some(change) => Some(CreateForm {
            content: change.content.clone(),
            fields: create_fields(&sent_body(change)),
        }),
        None => (may_create && offers("POST")).then(|| CreateForm {
            content: new_record(&endpoint.creatable),
            fields: create_fields(&Value::Null),
        }),
    };
    (edit.is_some() || delete || create.is_some()).then_some(Forms {
        csrf_token,
        edit,
        delete,
        create,
    })
}

/// A new record's body to fill in: the fields a `POST` takes, each with the empty value of
/// its type.
fn new_record(fields: &[(String, Value)]) -> String {
    let fields: serde_json::Map<String, Value> = fields.iter().cloned().collect();
    serde_json::to_string_pretty(&fields).unwrap_or_default()
}

/// The record's writable fields (those `PATCH` takes) as pretty JSON, secrets left out: a
/// masked value sent back would be taken as the new secret.
fn writable_fields(writable: &[String], value: &Value) -> String {
    let fields: serde_json::Map<String, Value> = writable
        .iter()
        .filter_map(|name| value.get(name).map(|v| (name.clone(), v.clone())))
        .filter(|(_, v)| v != acs_credential_types::ENCRYPTED_PLACEHOLDER)
        .collect();
    serde_json::to_string_pretty(&fields).unwrap_or_default()
}

/// `value` when it is a URL of this API.
fn api_link(value: Option<&Value>) -> Option<String> {
    value
        .and_then(Value::as_str)
        .filter(|url| is_api_url(url))
        .map(str::to_owned)
}

fn is_api_url(text: &str) -> bool {
    text.starts_with("/api/") && !text.contains(char::is_whitespace)
}

/// `/api/v2/users/1/` → `/api/`, `/api/v2/`, `/api/v2/users/`.
fn crumbs(path: &str) -> Vec<Crumb> {
    let mut crumbs = Vec::new();
    let mut url = String::from("/");
    let segments: Vec<_> = path.split('/').filter(|s| !s.is_empty()).collect();
    for segment in segments.iter().take(segments.len().saturating_sub(1)) {
        url.push_str(segment);
        url.push('/');
        crumbs.push(Crumb {
            name: (*segment).to_owned(),
            url: url.clone(),
        });
    }
    crumbs
}

/// `value` pretty-printed as JSON, HTML-escaped, every string that is a URL of this API an
/// anchor to it.
pub fn json_html(value: &Value) -> String {
    let mut html = String::new();
    write_json(&mut html, value, 0);
    html
}

fn write_json(html: &mut String, value: &Value, depth: usize) {
    let indent = |html: &mut String, depth: usize| html.push_str(&"  ".repeat(depth));
    match value {
        Value::Object(map) if !map.is_empty() => {
            html.push_str("{\n");
            for (i, (key, item)) in map.iter().enumerate() {
                indent(html, depth + 1);
                html.push_str("<span class=\"key\">");
                html.push_str(&handlebars::html_escape(
                    &Value::from(key.as_str()).to_string(),
                ));
                html.push_str("</span>: ");
                write_json(html, item, depth + 1);
                html.push_str(if i + 1 < map.len() { ",\n" } else { "\n" });
            }
            indent(html, depth);
            html.push('}');
        }
        Value::Array(items) if !items.is_empty() => {
            html.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                indent(html, depth + 1);
                write_json(html, item, depth + 1);
                html.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            indent(html, depth);
            html.push(']');
        }
        Value::String(text) if is_api_url(text) => {
            let escaped = handlebars::html_escape(text);
            html.push_str(&format!("&quot;<a href=\"{escaped}\">{escaped}</a>&quot;"));
        }
        other => html.push_str(&handlebars::html_escape(&other.to_string())),
    }
}

/// What the OpenAPI document says about one endpoint.
#[derive(Debug)]
struct EndpointInfo {
    segments: Vec<String>,
    summary: String,
    description: String,
    methods: Vec<String>,
    parameters: Vec<Parameter>,
    /// The fields a `PATCH` takes.
    writable: Vec<String>,
    /// The fields a `POST` takes, each with the empty value of its type.
    creatable: Vec<(String, Value)>,
    /// The typed fields of a `POST` and of a `PATCH` (or `PUT`).
    post_fields: Vec<FieldSpec>,
    patch_fields: Vec<FieldSpec>,
}

impl EndpointInfo {
    /// The typed fields of a change by `method`.
    fn fields_for(&self, method: &Method) -> &[FieldSpec] {
        if *method == Method::POST {
            &self.post_fields
        } else {
            &self.patch_fields
        }
    }
}

#[derive(Debug)]
struct Endpoints(Vec<EndpointInfo>);

impl Endpoints {
    /// The endpoint whose path template matches `path`, literal segments before parameters.
    fn find(&self, path: &str) -> Option<&EndpointInfo> {
        let segments: Vec<_> = path.split('/').collect();
        self.0
            .iter()
            .filter(|e| {
                e.segments.len() == segments.len()
                    && e.segments
                        .iter()
                        .zip(&segments)
                        .all(|(t, s)| t == s || (t.starts_with('{') && !s.is_empty()))
            })
            .max_by_key(|e| e.segments.iter().filter(|t| !t.starts_with('{')).count())
    }
}

/// Every endpoint of the API, read once from the OpenAPI document the routes describe.
fn endpoints() -> &'static Endpoints {
    static ENDPOINTS: OnceLock<Endpoints> = OnceLock::new();
    ENDPOINTS.get_or_init(|| {
        let document = crate::routes::openapi_document();
        let paths = document["paths"].as_object().cloned().unwrap_or_default();
        Endpoints(
            paths
                .into_iter()
                .filter(|(path, _)| path.starts_with(PREFIX))
                .map(|(path, operations)| {
                    let get = &operations["get"];
                    let mut methods: Vec<String> = operations
                        .as_object()
                        .map(|ops| ops.keys().map(|m| m.to_ascii_uppercase()).collect())
                        .unwrap_or_default();
                    if methods.iter().any(|m| m == "GET") {
                        methods.push("HEAD".into());
                    }
                    let parameters = get["parameters"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter(|p| p["in"] == "query")
                        .map(|p| Parameter {
                            name: p["name"].as_str().unwrap_or_default().to_owned(),
                            description: p["description"].as_str().unwrap_or_default().to_owned(),
                        })
                        .collect();
                    let writable =
                        operations["patch"]["requestBody"]["content"]["application/json"]["schema"]
                            ["properties"]
                            .as_object()
                            .map(|p| p.keys().cloned().collect())
                            .unwrap_or_default();
                    let creatable =
                        operations["post"]["requestBody"]["content"]["application/json"]["schema"]
                            ["properties"]
                            .as_object()
                            .map(|p| {
                                p.iter()
                                    .filter(|(_, schema)| schema["readOnly"] != true)
                                    .map(|(name, schema)| (name.clone(), empty_value(schema)))
                                    .collect()
                            })
                            .unwrap_or_default();
                    let body_schema = |method: &str| {
                        &operations[method]["requestBody"]["content"]["application/json"]["schema"]
                    };
                    EndpointInfo {
                        post_fields: FieldSpec::from_schema(body_schema("post")),
                        patch_fields: FieldSpec::from_schema(body_schema("put")),
                        writable,
                        creatable,
                        segments: path.split('/').map(str::to_owned).collect(),
                        summary: get["summary"].as_str().unwrap_or(&path).to_owned(),
                        description: get["description"].as_str().unwrap_or_default().to_owned(),
                        methods,
                        parameters,
                    }
                })
                .collect(),
        )
    })
}

/// The empty value of a field of JSON schema `schema`: its default when it has one.
fn empty_value(schema: &Value) -> Value {
    if let Some(default) = schema.get("default") {
        return default.clone();
    }
    match schema["type"].as_str() {
        Some("string") => Value::from(""),
        Some("boolean") => Value::from(false),
        Some("object") => Value::Object(serde_json::Map::new()),
        Some("array") => Value::Array(Vec::new()),
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const CHROMIUM: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7";
    const FIREFOX: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

    #[test]
    fn browsers_get_pages_and_programs_get_json() {
        let get = Method::GET;
        let page = |accept: Option<&str>, query: &str, authorized: bool| {
            wants_page(&get, "/api/v2/users/", query, accept, authorized)
        };
        assert!(page(Some(CHROMIUM), "", false), "Chromium");
        assert!(page(Some(FIREFOX), "", false), "Firefox");
        assert!(page(None, "format=api", false), "?format=api");
        assert!(page(Some("application/json"), "a=1&format=api", false));
        for (accept, name) in [
            (None, "no Accept"),
            (Some("*/*"), "*/*"),
            (Some("application/json"), "JSON"),
            (Some("application/json, text/html"), "a tie"),
            (Some("text/html;q=0.5, application/json"), "JSON preferred"),
            (Some("text/html;q=0"), "HTML refused"),
        ] {
            assert!(!page(accept, "", false), "{name}");
        }
        assert!(!page(Some(CHROMIUM), "format=json", false), "?format=json");
        assert!(!page(Some(CHROMIUM), "", true), "Authorization header");
        assert!(!wants_page(
            &Method::POST,
            "/api/v2/users/",
            "",
            Some(CHROMIUM),
            false
        ));
        assert!(!wants_page(
            &get,
            "/api/o/token/",
            "",
            Some(CHROMIUM),
            false
        ));
        assert!(!wants_page(&get, "/api/login/", "", Some(CHROMIUM), false));
    }

    #[test]
    fn json_is_escaped_and_api_urls_are_links() {
        let html = json_html(&json!({
            "name": "<b>x</b>",
            "url": "/api/v2/users/1/",
            "external": "https://example.com/",
            "related": {"tokens": "/api/v2/users/1/tokens/\"onclick=\"x"},
            "list": [1, true, null],
            "empty": {},
        }));
        assert!(html.contains("&lt;b&gt;x&lt;/b&gt;"), "{html}");
        assert!(!html.contains("<b>"), "{html}");
        assert!(
            html.contains("&quot;<a href=\"/api/v2/users/1/\">/api/v2/users/1/</a>&quot;"),
            "{html}"
        );
        assert!(html.contains("&quot;https://example.com/&quot;"), "{html}");
        assert!(
            html.contains("<a href=\"/api/v2/users/1/tokens/&quot;onclick&#x3D;&quot;x\">"),
            "{html}"
        );
        assert!(html.contains("&quot;empty&quot;</span>: {}"), "{html}");
    }

    #[test]
    fn endpoints_are_found_by_their_templates() {
        let endpoints = endpoints();
        let users = endpoints.find("/api/v2/users/").expect("users");
        assert!(users.methods.contains(&"POST".to_owned()), "{users:?}");
        assert!(users.parameters.iter().any(|p| p.name == "order_by"));
        let user = endpoints.find("/api/v2/users/7/").expect("a user");
        assert!(user.methods.contains(&"PATCH".to_owned()), "{user:?}");
        assert!(endpoints.find("/api/v2/nothing/here/").is_none());
        let crumbs = crumbs("/api/v2/users/7/");
        let urls: Vec<_> = crumbs.iter().map(|c| c.url.as_str()).collect();
        assert_eq!(urls, ["/api/", "/api/v2/", "/api/v2/users/"]);
    }
}

//! Route registration that records each handler's [`Operation`] as it registers the handler.

use actix_web::http::header::{ALLOW, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::{FromRequest, Handler, HttpRequest, Resource, Responder, ResponseError, web};

use super::{Document, Operation};
use crate::handlers::fallback;
use crate::state::AppState;

/// `Endpoint::get`, `Endpoint::post`, …: [`Endpoint::on`] for one method each.
macro_rules! serves {
    ($($name:ident: $method:ident),+ $(,)?) => {$(
        #[doc = concat!("Serves `", stringify!($method), "`.")]
        pub fn $name<F, Args>(self, handler: F, operation: Operation) -> Self
        where
            F: Handler<Args>,
            Args: FromRequest + 'static,
            F::Output: Responder + 'static,
        {
            self.on(Method::$method, handler, operation)
        }
    )+};
}

/// One path, its handlers and their descriptions. Methods it does not serve answer 405 with
/// an `Allow` header listing those it does (RFC 9110 §15.5.6).
pub struct Endpoint {
    path: String,
    resource: Resource,
    operations: Vec<(Method, Operation)>,
    /// A handler other than the 405 was set for the methods not served.
    otherwise: bool,
}

impl Endpoint {
    /// An endpoint at `path` (actix pattern, e.g. `/api/v2/users/{user}/`).
    pub fn new(path: impl Into<String>) -> Self {
        let path = path.into();
        Endpoint {
            resource: web::resource(path.clone()),
            path,
            operations: Vec::new(),
            otherwise: false,
        }
    }

    /// Serves `method` with `handler`, described by `operation`.
    pub fn on<F, Args>(mut self, method: Method, handler: F, operation: Operation) -> Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        self.resource = self
            .resource
            .route(web::route().method(method.clone()).to(handler));
        self.operations.push((method, operation));
        self
    }

    serves! {
        get: GET,
        post: POST,
        put: PUT,
        patch: PATCH,
        delete: DELETE,
        options: OPTIONS,
    }

    /// Answers methods it does not serve with `handler` instead of 405.
    pub fn otherwise<F, Args>(mut self, handler: F) -> Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        self.resource = self.resource.default_service(web::to(handler));
        self.otherwise = true;
        self
    }

    /// The resource, answering the methods it does not serve with 405 and `Allow`.
    fn into_resource(self) -> Resource {
        if self.otherwise {
            return self.resource;
        }
        let allow: Vec<&str> = self.operations.iter().map(|(m, _)| m.as_str()).collect();
        let allow = HeaderValue::from_str(&allow.join(", ")).ok();
        self.resource.default_service(web::to(
            move |req: HttpRequest, state: web::Data<AppState>| {
                let allow = allow.clone();
                async move {
                    let mut response = match fallback::method_not_allowed(req, state).await {
                        Ok(response) => response,
                        Err(error) => error.error_response(),
                    };
                    if let (StatusCode::METHOD_NOT_ALLOWED, Some(allow)) =
                        (response.status(), allow)
                    {
                        response.headers_mut().insert(ALLOW, allow);
                    }
                    response
                }
            },
        ))
    }
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("path", &self.path)
            .field("operations", &self.operations)
            .finish_non_exhaustive()
    }
}

/// Where endpoints go: onto an app being configured, or into the document.
pub struct Routes<'a> {
    config: Option<&'a mut web::ServiceConfig>,
    document: Document,
}

impl std::fmt::Debug for Routes<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Routes")
            .field("serving", &self.config.is_some())
            .field("document", &self.document)
            .finish()
    }
}

impl<'a> Routes<'a> {
    /// Registers endpoints on `config`.
    pub fn serving(config: &'a mut web::ServiceConfig) -> Self {
        Routes {
            config: Some(config),
            document: Document::default(),
        }
    }

    /// Only describes endpoints.
    pub fn describing() -> Routes<'static> {
        Routes {
            config: None,
            document: Document::default(),
        }
    }

    /// Adds `endpoint`.
    pub fn add(&mut self, endpoint: Endpoint) {
        // Serving, the document is not needed: every worker configures the app at start, and
        // the document is built once, on its first request, by a describing `Routes`.
        match self.config.as_deref_mut() {
            Some(config) => {
                config.service(endpoint.into_resource());
            }
            None => {
                for (method, operation) in &endpoint.operations {
                    self.document.add(&endpoint.path, method, operation);
                }
            }
        }
    }

    /// The document of every endpoint added (empty when serving).
    pub fn into_document(self) -> Document {
        self.document
    }
}

//! The parts of an HTTP request that the blocking side needs, copied out so they can cross to
//! another thread.

use std::net::IpAddr;

use actix_web::HttpRequest;
use actix_web::http::{Method, header};

/// A request, reduced to what authentication and handlers read.
#[derive(Debug, Clone)]
pub struct RequestInfo {
    /// HTTP method.
    pub method: Method,
    /// `Authorization` header.
    pub authorization: Option<String>,
    /// The `Cookie` header, unparsed.
    pub cookie_header: Option<String>,
    /// `X-CSRFToken` header.
    pub csrf_header: Option<String>,
    /// `Origin` header.
    pub origin: Option<String>,
    /// `Referer` header.
    pub referer: Option<String>,
    /// `Host` header.
    pub host: String,
    /// The peer's address.
    pub peer: Option<IpAddr>,
    /// `X-Forwarded-For` header.
    pub forwarded_for: Option<String>,
    /// `X-Forwarded-Proto` header.
    pub forwarded_proto: Option<String>,
    /// The connection itself is TLS.
    pub tls: bool,
}

fn header_text(req: &HttpRequest, name: impl header::AsHeaderName) -> Option<String> {
    req.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

impl RequestInfo {
    /// Copies the relevant parts of `req`.
    pub fn from_request(req: &HttpRequest) -> Self {
        RequestInfo {
            method: req.method().clone(),
            authorization: header_text(req, header::AUTHORIZATION),
            cookie_header: header_text(req, header::COOKIE),
            csrf_header: header_text(req, "x-csrftoken"),
            origin: header_text(req, header::ORIGIN),
            referer: header_text(req, header::REFERER),
            // The Host header as sent: the CSRF origin check compares against it.
            host: req
                .headers()
                .get(header::HOST)
                .and_then(|v| v.to_str().ok())
                .or_else(|| req.uri().authority().map(|a| a.as_str()))
                .unwrap_or("")
                .to_owned(),
            peer: req.peer_addr().map(|addr| addr.ip()),
            forwarded_for: header_text(req, "x-forwarded-for"),
            forwarded_proto: header_text(req, "x-forwarded-proto"),
            tls: req.app_config().secure(),
        }
    }

    /// The value of cookie `name`, if sent.
    pub fn cookie(&self, name: &str) -> Option<&str> {
        self.cookie_header.as_deref()?.split(';').find_map(|pair| {
            let (key, value) = pair.trim().split_once('=')?;
            (key == name).then(|| value.trim_matches('"'))
        })
    }

    fn via_trusted_proxy(&self, trusted: &[IpAddr]) -> bool {
        self.peer.is_some_and(|peer| trusted.contains(&peer))
    }

    /// Whether the client reached us over HTTPS, directly or through a trusted proxy.
    pub fn is_https(&self, trusted: &[IpAddr]) -> bool {
        self.tls
            || (self.via_trusted_proxy(trusted)
                && self
                    .forwarded_proto
                    .as_deref()
                    .is_some_and(|p| p.trim().eq_ignore_ascii_case("https")))
    }

    /// The client's address: the peer, or the first `X-Forwarded-For` entry when the peer is a
    /// trusted proxy.
    pub fn client_ip(&self, trusted: &[IpAddr]) -> Option<IpAddr> {
        if self.via_trusted_proxy(trusted)
            && let Some(forwarded) = self
                .forwarded_for
                .as_deref()
                .and_then(|list| list.split(',').next())
                .and_then(|first| first.trim().parse().ok())
        {
            return Some(forwarded);
        }
        self.peer
    }
}

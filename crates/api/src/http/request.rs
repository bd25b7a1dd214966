//! The parts of an HTTP request that the blocking side needs, copied out so they can cross to
//! another thread.

use std::net::IpAddr;

use actix_web::HttpRequest;
use actix_web::http::{Method, header};

use super::headers::names;

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

/// Every `X-Forwarded-For` line joined in order: a proxy may add a line of its own rather
/// than extend the last one, and the client's part is always on the left.
fn forwarded_for(req: &HttpRequest) -> Option<String> {
    let lines: Vec<&str> = req
        .headers()
        .get_all(names::X_FORWARDED_FOR)
        .filter_map(|v| v.to_str().ok())
        .collect();
    (!lines.is_empty()).then(|| lines.join(", "))
}

impl RequestInfo {
    /// Copies the relevant parts of `req`.
    pub fn from_request(req: &HttpRequest) -> Self {
        RequestInfo {
            method: req.method().clone(),
            authorization: header_text(req, header::AUTHORIZATION),
            cookie_header: header_text(req, header::COOKIE),
            csrf_header: header_text(req, names::X_CSRFTOKEN),
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
            forwarded_for: forwarded_for(req),
            forwarded_proto: header_text(req, names::X_FORWARDED_PROTO),
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

    /// The client's address: the peer, or, when the peer is a trusted proxy, the right-most
    /// `X-Forwarded-For` entry that is not itself a trusted proxy. Each proxy appends the
    /// address it saw, so entries are only as trustworthy as the proxy right of them: the
    /// left-most is whatever the client wrote, and taking it would let a client choose its
    /// address (and escape the login throttle). An entry that is not an address ends the walk
    /// at the peer: a trusted proxy would have written a valid one.
    pub fn client_ip(&self, trusted: &[IpAddr]) -> Option<IpAddr> {
        if !self.via_trusted_proxy(trusted) {
            return self.peer;
        }
        let Some(list) = self.forwarded_for.as_deref() else {
            return self.peer;
        };
        let mut client = self.peer;
        for entry in list.rsplit(',') {
            let Ok(address) = entry.trim().parse::<IpAddr>() else {
                return self.peer;
            };
            client = Some(address);
            if !trusted.contains(&address) {
                break;
            }
        }
        client
    }
}

#[cfg(test)]
mod tests {
    use actix_web::test::TestRequest;

    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("an address")
    }

    fn from(peer: &str, forwarded: &[&str]) -> RequestInfo {
        let mut request =
            TestRequest::default().peer_addr(format!("{peer}:4000").parse().expect("peer"));
        for line in forwarded {
            request = request.append_header(("X-Forwarded-For", *line));
        }
        RequestInfo::from_request(&request.to_http_request())
    }

    #[test]
    fn the_client_is_the_right_most_entry_no_trusted_proxy_wrote() {
        let proxies = [ip("10.0.0.1"), ip("10.0.0.2")];
        #[rustfmt::skip]
        let rows = [
            ("no proxy: the peer, whatever the header", from("203.0.113.9", &["1.1.1.1"]), "203.0.113.9"),
            ("one proxy", from("10.0.0.1", &["198.51.100.7"]), "198.51.100.7"),
            ("a client-written left-most entry is ignored", from("10.0.0.1", &["1.2.3.4, 198.51.100.7"]), "198.51.100.7"),
            ("two proxies", from("10.0.0.1", &["6.6.6.6, 198.51.100.7, 10.0.0.2"]), "198.51.100.7"),
            ("lines joined in order", from("10.0.0.1", &["6.6.6.6", "198.51.100.7, 10.0.0.2"]), "198.51.100.7"),
            ("a proxy without a header: the peer", from("10.0.0.1", &[]), "10.0.0.1"),
            ("garbage on the right: the peer", from("10.0.0.1", &["198.51.100.7, nonsense"]), "10.0.0.1"),
            ("only proxies: the left-most of them", from("10.0.0.1", &["10.0.0.2"]), "10.0.0.2"),
            ("IPv6", from("10.0.0.1", &["2001:db8::1"]), "2001:db8::1"),
        ];
        for (name, request, expected) in rows {
            assert_eq!(request.client_ip(&proxies), Some(ip(expected)), "{name}");
        }
    }
}

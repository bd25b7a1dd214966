//! Server-rendered pages (Handlebars, HTML-escaped, strict mode: a missing variable is a bug,
//! not an empty string). They work without JavaScript and load nothing from other origins.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use handlebars::Handlebars;
use serde::Serialize;

use crate::error::{ApiError, ApiResult};

/// The Content-Security-Policy of every page: nothing but our own stylesheet, script and forms
/// (no inline script or style, so injected markup cannot run).
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// [`CONTENT_SECURITY_POLICY`] with `form-action` widened to one more origin, given as a
/// source expression made by [`origin_source`].
///
/// Browsers enforce `form-action` on every redirect a form submission follows, not only on the
/// form's own target. The consent page's Authorize and Deny answer with a redirect to the
/// client's redirect URI, on another origin for every real client, so under the plain policy
/// the browser refuses it and the user stays on the page. Nothing else widens.
pub fn content_security_policy_with_form_target(source: &str) -> String {
    format!(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self' {source}; frame-ancestors 'none'; base-uri 'none'"
    )
}

/// The CSP source expression of the origin of `url` (`scheme://host[:port]`), for a page whose
/// form may end at `url`; `None` when `url` does not parse, is not HTTP(S), or its origin holds
/// anything but the characters of a host name, an IP address and a port (a host such as
/// `a;b`, which URL parsers accept, must not end the directive and start another).
pub fn origin_source(url: &str) -> Option<String> {
    let url = url::Url::parse(url).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    let origin = url.origin().ascii_serialization();
    let plain = origin
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '/' | '.' | '-' | '[' | ']'));
    plain.then_some(origin)
}

/// The icon served at `/favicon.ico` (a 32×32 PNG in an ICO container): browsers ask for it
/// on every visit, and a 404 there fills logs and consoles.
pub const FAVICON: &[u8] = include_bytes!("../static/favicon.ico");

/// The stylesheet served at `/static/acs.css`.
pub const STYLESHEET: &str = include_str!("../static/acs.css");

/// The script served at `/static/acs.js`.
pub const SCRIPT: &str = include_str!("../static/acs.js");

/// The compiled templates.
#[derive(Debug)]
pub struct Pages {
    registry: Handlebars<'static>,
}

/// Fields of the login page.
#[derive(Debug, Serialize)]
pub struct LoginPage<'a> {
    /// Message shown above the form.
    pub error: Option<&'a str>,
    /// CSRF token for the hidden field.
    pub csrf_token: &'a str,
    /// Where to go after login.
    pub next: &'a str,
    /// Username to pre-fill after a failure.
    pub username: &'a str,
    /// One button per configured single sign-on provider.
    pub sign_on: &'a [SignOnButton],
}

/// A single sign-on button of the login page.
#[derive(Debug, Clone, Serialize)]
pub struct SignOnButton {
    /// The provider's label.
    pub label: String,
    /// `/sso/login/<name>/`, with `next`.
    pub url: String,
}

/// Fields of the consent page of `/api/o/authorize/`.
#[derive(Debug, Serialize)]
pub struct ConsentPage<'a> {
    /// Who is asked.
    pub username: &'a str,
    /// The application's name.
    pub application: &'a str,
    /// Its organization's name.
    pub organization: &'a str,
    /// The scope word asked for.
    pub scope: &'a str,
    /// What the scope allows, in words.
    pub scope_description: &'a str,
    /// CSRF token for the hidden field.
    pub csrf_token: &'a str,
    /// The authorization parameters, posted back unchanged.
    pub fields: Vec<HiddenField<'a>>,
}

/// A hidden form field.
#[derive(Debug, Serialize)]
pub struct HiddenField<'a> {
    /// Field name.
    pub name: &'a str,
    /// Field value.
    pub value: &'a str,
}

/// Fields of a page that only says something went wrong.
#[derive(Debug, Serialize)]
pub struct MessagePage<'a> {
    /// Title and heading.
    pub title: &'a str,
    /// The message, shown as an alert.
    pub message: &'a str,
    /// More explanation, if any.
    pub detail: Option<&'a str>,
}

impl Pages {
    /// Compiles the templates; a template that does not parse is a build defect.
    pub fn new() -> Result<Self, handlebars::TemplateError> {
        let mut registry = Handlebars::new();
        registry.set_strict_mode(true);
        registry.register_template_string("login", include_str!("../templates/login.hbs"))?;
        registry.register_partial("layout", include_str!("../templates/layout.hbs"))?;
        registry.register_partial(
            "client_fields",
            include_str!("../templates/client_fields.hbs"),
        )?;
        registry.register_template_string("profile", include_str!("../templates/profile.hbs"))?;
        registry.register_template_string(
            "applications",
            include_str!("../templates/applications.hbs"),
        )?;
        registry.register_template_string(
            "application",
            include_str!("../templates/application.hbs"),
        )?;
        registry.register_template_string("consent", include_str!("../templates/consent.hbs"))?;
        registry.register_template_string("message", include_str!("../templates/message.hbs"))?;
        registry.register_template_string("api", include_str!("../templates/api.hbs"))?;
        registry.register_partial("api_fields", include_str!("../templates/api_fields.hbs"))?;
        Ok(Pages { registry })
    }

    /// Renders `template` with `data` to HTML.
    pub fn html(&self, template: &str, data: &impl Serialize) -> ApiResult<String> {
        self.registry
            .render(template, data)
            .map_err(|error| ApiError::Internal(format!("rendering {template}: {error}")))
    }
}

/// A whole error page with `status`.
pub fn message_page(
    pages: &Pages,
    status: StatusCode,
    page: &MessagePage<'_>,
) -> ApiResult<HttpResponse> {
    Ok(page_response(status).body(pages.html("message", page)?))
}

/// A response builder with the page headers (HTML type and CSP).
pub fn page_response(status: StatusCode) -> actix_web::HttpResponseBuilder {
    page_response_with_form_target(status, None)
}

/// [`page_response`] for a page whose form may end, through redirects, at `form_target` (a
/// redirect URI already validated against the application): the policy lets the browser
/// follow the form there ([`content_security_policy_with_form_target`]).
pub fn page_response_with_form_target(
    status: StatusCode,
    form_target: Option<&str>,
) -> actix_web::HttpResponseBuilder {
    let policy = match form_target.and_then(origin_source) {
        Some(source) => content_security_policy_with_form_target(&source),
        None => CONTENT_SECURITY_POLICY.to_owned(),
    };
    let mut builder = HttpResponse::build(status);
    builder
        .content_type("text/html; charset=utf-8")
        .insert_header(("Content-Security-Policy", policy));
    builder
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_target_widens_only_form_action() {
        let widened = content_security_policy_with_form_target("https://client.example:8443");
        assert_eq!(
            widened.replace(" https://client.example:8443", ""),
            CONTENT_SECURITY_POLICY
        );
        assert!(widened.contains("form-action 'self' https://client.example:8443;"));
    }

    #[test]
    fn origin_source_cases() {
        let cases = [
            (
                "https, default port",
                "https://client.example/cb?x=1",
                Some("https://client.example"),
            ),
            (
                "http with port",
                "http://127.0.0.1:4000/callback/",
                Some("http://127.0.0.1:4000"),
            ),
            (
                "upper case host",
                "https://Client.Example/cb",
                Some("https://client.example"),
            ),
            ("IPv6", "http://[::1]:8080/cb", Some("http://[::1]:8080")),
            (
                "IDN as punycode",
                "https://bücher.example/cb",
                Some("https://xn--bcher-kva.example"),
            ),
            ("semicolon in host", "http://a;b/cb", None),
            ("comma in host", "http://a,b/cb", None),
            ("quote in host", "http://a'b/cb", None),
            ("custom scheme", "com.example.app:/cb", None),
            ("not a URL", "/relative", None),
        ];
        for (name, url, expected) in cases {
            assert_eq!(origin_source(url).as_deref(), expected, "{name}: {url}");
        }
    }

    #[test]
    fn templates_compile_and_escape() {
        let pages = Pages::new().expect("templates parse");
        let page = LoginPage {
            error: Some("<b>x</b>"),
            csrf_token: "t",
            next: "/a\"b",
            username: "",
            sign_on: &[SignOnButton {
                label: "Corp <SSO>".into(),
                url: "/sso/login/corp/?next=%2F".into(),
            }],
        };
        let html = pages.registry.render("login", &page).expect("renders");
        assert!(html.contains("&lt;b&gt;x&lt;/b&gt;"));
        assert!(html.contains("value=\"/a&quot;b\""));
        assert!(
            html.contains("href=\"/sso/login/corp/?next&#x3D;%2F\">Corp &lt;SSO&gt;</a>"),
            "{html}"
        );
    }
}

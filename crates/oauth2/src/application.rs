//! Validation of the fields of an OAuth 2 application (`/api/v2/applications/`):
//! client type, grant type and redirect URIs.
//!
//! Values and messages follow AWX (django-oauth-toolkit underneath) so
//! existing clients and UIs keep working, with two deliberate differences:
//! the implicit grant is refused with an explanation (RFC 9700, the OAuth 2
//! security BCP, says clients should not use it, since tokens leak through
//! URLs, and OAuth 2.1 drops it), and redirect URIs are matched exactly, never
//! by prefix or pattern.

use url::Url;

/// Whether an application can keep a secret (RFC 6749 §2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientType {
    /// A server-side application that keeps its `client_secret` private.
    Confidential,
    /// A browser or native application that cannot keep a secret.
    Public,
}

impl ClientType {
    /// The stored and API value: `"confidential"` or `"public"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ClientType::Confidential => "confidential",
            ClientType::Public => "public",
        }
    }

    /// Parses the API value (case-sensitive); `None` for anything else.
    pub fn parse(text: &str) -> Option<ClientType> {
        match text {
            "confidential" => Some(ClientType::Confidential),
            "public" => Some(ClientType::Public),
            _ => None,
        }
    }
}

/// The grant an application uses to obtain tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrantType {
    /// The authorization code grant (with PKCE for public clients).
    AuthorizationCode,
    /// The resource owner password credentials grant.
    Password,
}

/// A grant type [`GrantType::parse`] refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GrantTypeError {
    /// `"implicit"`, which AWX offers but ACS does not.
    #[error(
        "The implicit grant is not offered (RFC 9700 forbids it); use \"authorization-code\" with PKCE."
    )]
    Implicit,
    /// Any other value, including `"client-credentials"` (which AWX does not
    /// offer either). The message is Django REST framework's.
    #[error("\"{0}\" is not a valid choice.")]
    Unknown(String),
}

impl GrantType {
    /// The stored and API value: `"authorization-code"` or `"password"`.
    pub fn as_str(self) -> &'static str {
        match self {
            GrantType::AuthorizationCode => "authorization-code",
            GrantType::Password => "password",
        }
    }

    /// Parses the API value (case-sensitive).
    pub fn parse(text: &str) -> Result<GrantType, GrantTypeError> {
        match text {
            "authorization-code" => Ok(GrantType::AuthorizationCode),
            "password" => Ok(GrantType::Password),
            "implicit" => Err(GrantTypeError::Implicit),
            other => Err(GrantTypeError::Unknown(other.to_owned())),
        }
    }
}

/// Why [`validate_redirect_uris`] refused an application's `redirect_uris`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RedirectUriError {
    /// No URI given for an application using the authorization code grant,
    /// which needs somewhere to send the code.
    #[error("redirect_uris cannot be empty with grant_type authorization-code")]
    EmptyForAuthorizationCode,
    /// A scheme other than `http` or `https` (lower-cased), e.g. `ftp`,
    /// `javascript` or a custom app scheme.
    #[error("Unauthorized redirect scheme: {0}")]
    Scheme(String),
    /// The URI has a fragment (`#…`, even an empty one), which RFC 6749
    /// §3.1.2 forbids.
    #[error("Redirect URIs must not contain fragments")]
    Fragment,
    /// Not an absolute URL with a host. The message is Django's.
    #[error("Enter a valid URL.")]
    Invalid,
}

/// Schemes a redirect URI may use.
const ALLOWED_SCHEMES: [&str; 2] = ["http", "https"];

/// Validates the space-separated `redirect_uris` of an application: each must
/// be an absolute `http` or `https` URL with a host and without a fragment.
///
/// Words are split on any whitespace (spaces, tabs, newlines, several in a
/// row); the result is the words joined by single spaces, in order and
/// otherwise unchanged (not URL-normalized, since the authorize step compares
/// strings exactly, see [`redirect_uri_allowed`]). An empty (or blank) value
/// is allowed for the password grant and gives `""`. The first offending URI
/// decides the error.
///
/// Checks per URI, in order: it parses as an absolute URL, else
/// [`Invalid`](RedirectUriError::Invalid); its scheme is allowed, else
/// [`Scheme`](RedirectUriError::Scheme); it is written `scheme://authority…`
/// with a non-empty authority and host, and has no backslash or control
/// character, else `Invalid`; it has no fragment, else
/// [`Fragment`](RedirectUriError::Fragment). The checks on the written form
/// reject spellings that the WHATWG parser of the `url` crate would silently
/// repair (`http:host`, `http:///host`, `http:\\host`) and that other parsers
/// read differently.
pub fn validate_redirect_uris(text: &str, grant: GrantType) -> Result<String, RedirectUriError> {
    let uris: Vec<&str> = text.split_whitespace().collect();
    if uris.is_empty() && grant == GrantType::AuthorizationCode {
        return Err(RedirectUriError::EmptyForAuthorizationCode);
    }
    for uri in &uris {
        validate_redirect_uri(uri)?;
    }
    Ok(uris.join(" "))
}

/// Checks one redirect URI; see [`validate_redirect_uris`].
fn validate_redirect_uri(uri: &str) -> Result<(), RedirectUriError> {
    let url = Url::parse(uri).map_err(|_| RedirectUriError::Invalid)?;
    let scheme = url.scheme();
    if !ALLOWED_SCHEMES.contains(&scheme) {
        return Err(RedirectUriError::Scheme(scheme.to_owned()));
    }
    // `Url::scheme` is lower-cased; the text before `:` has the same length.
    let written_authority = uri
        .get(scheme.len()..)
        .and_then(|rest| rest.strip_prefix("://"))
        .and_then(|rest| rest.split(['/', '?', '#']).next())
        .unwrap_or_default();
    let has_host = url.host_str().is_some_and(|host| !host.is_empty());
    if written_authority.is_empty()
        || !has_host
        || uri.contains('\\')
        || uri.contains(char::is_control)
    {
        return Err(RedirectUriError::Invalid);
    }
    if url.fragment().is_some() {
        return Err(RedirectUriError::Fragment);
    }
    Ok(())
}

/// True when `presented` (the `redirect_uri` of an authorization request)
/// equals one of the whitespace-separated `registered` URIs exactly, byte for
/// byte: no normalization, prefix or pattern matching (RFC 9700 §4.1.3).
pub fn redirect_uri_allowed(registered: &str, presented: &str) -> bool {
    registered.split_whitespace().any(|uri| uri == presented)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_type_cases() {
        let cases = [
            (
                "confidential",
                "confidential",
                Some(ClientType::Confidential),
            ),
            ("public", "public", Some(ClientType::Public)),
            ("capitalised", "Public", None),
            ("empty", "", None),
            ("unknown", "private", None),
        ];
        for (name, text, expected) in cases {
            assert_eq!(ClientType::parse(text), expected, "{name}");
            if let Some(client_type) = expected {
                assert_eq!(client_type.as_str(), text, "{name}");
            }
        }
    }

    #[test]
    fn grant_type_cases() {
        let unknown = |s: &str| Err(GrantTypeError::Unknown(s.to_owned()));
        let cases = [
            (
                "authorization code",
                "authorization-code",
                Ok(GrantType::AuthorizationCode),
            ),
            ("password", "password", Ok(GrantType::Password)),
            (
                "implicit is refused",
                "implicit",
                Err(GrantTypeError::Implicit),
            ),
            (
                "client credentials",
                "client-credentials",
                unknown("client-credentials"),
            ),
            (
                "underscore spelling",
                "authorization_code",
                unknown("authorization_code"),
            ),
            ("capitalised", "Password", unknown("Password")),
            ("empty", "", unknown("")),
        ];
        for (name, text, expected) in cases {
            let parsed = GrantType::parse(text);
            assert_eq!(parsed, expected, "{name}");
            if let Ok(grant) = parsed {
                assert_eq!(grant.as_str(), text, "{name}");
            }
        }
    }

    #[test]
    fn grant_type_messages() {
        let cases = [
            (
                "implicit",
                GrantTypeError::Implicit,
                "The implicit grant is not offered (RFC 9700 forbids it); use \"authorization-code\" with PKCE.",
            ),
            (
                "unknown",
                GrantTypeError::Unknown("client-credentials".to_owned()),
                "\"client-credentials\" is not a valid choice.",
            ),
        ];
        for (name, error, message) in cases {
            assert_eq!(error.to_string(), message, "{name}");
        }
    }

    #[test]
    fn validate_redirect_uris_cases() {
        use GrantType::{AuthorizationCode as Code, Password};
        use RedirectUriError::{EmptyForAuthorizationCode, Fragment, Invalid, Scheme};
        let ok = |s: &str| Ok(s.to_owned());
        let scheme = |s: &str| Err(Scheme(s.to_owned()));
        let cases: Vec<(&str, &str, GrantType, Result<String, RedirectUriError>)> = vec![
            (
                "https",
                "https://example.com/cb",
                Code,
                ok("https://example.com/cb"),
            ),
            ("http", "http://x/cb", Code, ok("http://x/cb")),
            (
                "no path",
                "https://example.com",
                Code,
                ok("https://example.com"),
            ),
            (
                "port and query",
                "http://localhost:8013/cb?a=1&b=2",
                Code,
                ok("http://localhost:8013/cb?a=1&b=2"),
            ),
            (
                "IPv4 loopback",
                "http://127.0.0.1:8080/cb",
                Code,
                ok("http://127.0.0.1:8080/cb"),
            ),
            (
                "IPv6 loopback",
                "http://[::1]/cb",
                Code,
                ok("http://[::1]/cb"),
            ),
            (
                "kept as written",
                "HTTPS://Example.COM/Cb",
                Code,
                ok("HTTPS://Example.COM/Cb"),
            ),
            (
                "two URIs",
                "https://a/cb https://b/cb",
                Code,
                ok("https://a/cb https://b/cb"),
            ),
            (
                "several spaces and newlines",
                "  https://a/cb \n\n\t https://b/cb\r\n",
                Code,
                ok("https://a/cb https://b/cb"),
            ),
            (
                "empty for authorization code",
                "",
                Code,
                Err(EmptyForAuthorizationCode),
            ),
            (
                "blank for authorization code",
                " \n ",
                Code,
                Err(EmptyForAuthorizationCode),
            ),
            ("empty for password", "", Password, ok("")),
            ("blank for password", "  \n", Password, ok("")),
            (
                "URIs still checked for password",
                "ftp://x",
                Password,
                scheme("ftp"),
            ),
            ("fragment", "http://x/cb#frag", Code, Err(Fragment)),
            ("empty fragment", "http://x/cb#", Code, Err(Fragment)),
            ("ftp", "ftp://x", Code, scheme("ftp")),
            (
                "scheme lower-cased in error",
                "FTP://x",
                Code,
                scheme("ftp"),
            ),
            (
                "javascript",
                "javascript:alert(1)",
                Code,
                scheme("javascript"),
            ),
            (
                "custom app scheme",
                "com.example.app:/cb",
                Code,
                scheme("com.example.app"),
            ),
            ("file", "file:///etc/passwd", Code, scheme("file")),
            ("not a url", "not a url", Code, Err(Invalid)),
            ("relative path", "/cb", Code, Err(Invalid)),
            ("scheme-relative", "//x/cb", Code, Err(Invalid)),
            ("no host", "http://", Code, Err(Invalid)),
            ("empty host with path", "http:///cb", Code, Err(Invalid)),
            (
                "empty authority with query",
                "http://?x=1",
                Code,
                Err(Invalid),
            ),
            ("userinfo only", "http://user@/cb", Code, Err(Invalid)),
            ("missing slashes", "http:x/cb", Code, Err(Invalid)),
            ("one slash", "http:/x/cb", Code, Err(Invalid)),
            ("backslashes", "http:\\\\x\\cb", Code, Err(Invalid)),
            ("backslash in path", "http://x\\@y/cb", Code, Err(Invalid)),
            ("control character", "http://x/c\u{1}b", Code, Err(Invalid)),
            ("bad port", "http://x:99999/cb", Code, Err(Invalid)),
            (
                "first error wins",
                "https://ok/cb ftp://x http://x/cb#f",
                Code,
                scheme("ftp"),
            ),
            (
                "later bad URI",
                "https://ok/cb http://x/cb#f",
                Code,
                Err(Fragment),
            ),
        ];
        for (name, text, grant, expected) in cases {
            assert_eq!(
                validate_redirect_uris(text, grant),
                expected,
                "{name}: {text:?}"
            );
        }
    }

    #[test]
    fn redirect_uri_messages() {
        let cases = [
            (
                "empty",
                RedirectUriError::EmptyForAuthorizationCode,
                "redirect_uris cannot be empty with grant_type authorization-code",
            ),
            (
                "scheme",
                RedirectUriError::Scheme("ftp".to_owned()),
                "Unauthorized redirect scheme: ftp",
            ),
            (
                "fragment",
                RedirectUriError::Fragment,
                "Redirect URIs must not contain fragments",
            ),
            ("invalid", RedirectUriError::Invalid, "Enter a valid URL."),
        ];
        for (name, error, message) in cases {
            assert_eq!(error.to_string(), message, "{name}");
        }
    }

    #[test]
    fn redirect_uri_allowed_cases() {
        let registered = "https://a.example/cb  \n http://localhost:8013/cb";
        let cases = [
            ("first registered", "https://a.example/cb", true),
            ("second registered", "http://localhost:8013/cb", true),
            ("trailing slash differs", "https://a.example/cb/", false),
            ("extra query", "https://a.example/cb?x=1", false),
            ("prefix only", "https://a.example/c", false),
            ("longer path", "https://a.example/cb/evil", false),
            ("case differs", "https://A.example/cb", false),
            ("other port", "http://localhost:8014/cb", false),
            ("empty", "", false),
            (
                "two registered joined",
                "https://a.example/cb http://localhost:8013/cb",
                false,
            ),
        ];
        for (name, presented, expected) in cases {
            assert_eq!(
                redirect_uri_allowed(registered, presented),
                expected,
                "{name}"
            );
        }
        assert!(!redirect_uri_allowed("", ""));
        assert!(!redirect_uri_allowed("", "https://a.example/cb"));
    }
}

//! Client authentication at the token, revocation and introspection
//! endpoints (RFC 6749 §2.3): who the client says it is, and whether the
//! presented secret proves it.
//!
//! A client may use HTTP Basic (`client_secret_basic`), form fields
//! (`client_secret_post`), or, if public, send only its `client_id`
//! (`none`). Using two methods at once is refused (RFC 6749 §2.3: "MUST NOT
//! use more than one authentication method in each request"), so there is
//! never a question of which secret counts.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use crate::application::ClientType;
use crate::form::FormParams;
use crate::protocol_error::OAuthError;
use crate::secret::{PlainSecret, SecretDigest, constant_time_eq};

/// How the client presented its credentials.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAuthMethod {
    /// `Authorization: Basic` with `client_id:client_secret`.
    Basic,
    /// `client_id` and `client_secret` form fields.
    Post,
    /// `client_id` alone: only a public client may do this.
    None,
}

/// The client credentials of a request, not yet checked against the
/// application.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientCredentials {
    /// The application's `client_id`, to look it up by.
    pub client_id: String,
    /// The presented secret, absent for [`ClientAuthMethod::None`].
    pub secret: Option<PlainSecret>,
    /// Where the credentials came from.
    pub method: ClientAuthMethod,
}

impl ClientCredentials {
    /// Extracts the client credentials from the `Authorization` header value
    /// (if any) and the form.
    ///
    /// - A `Basic` header holds `base64(client_id ":" client_secret)`, each
    ///   part form-urlencoded first (RFC 6749 §2.3.1, as django-oauth-toolkit
    ///   decodes it, `+` meaning a space). Undecodable base64, non-UTF-8, no
    ///   `:` or an empty `client_id` give `invalid_client`: the client tried
    ///   the header and failed, so no fall-back to the form.
    /// - Other schemes (e.g. `Bearer`) are ignored, as by DOT.
    /// - Basic together with a form `client_secret` is `invalid_request`;
    ///   a form `client_id` beside Basic is tolerated when it names the same
    ///   client (some libraries always send it) and `invalid_request`
    ///   otherwise.
    /// - Without Basic: form `client_id` (+ `client_secret` if sent). A
    ///   `client_secret` without `client_id`, or nothing at all, gives
    ///   `invalid_client` (AWX answers 401 even without client information).
    pub fn extract(
        authorization: Option<&str>,
        form: &FormParams,
    ) -> Result<ClientCredentials, OAuthError> {
        let basic = authorization.and_then(basic_payload);
        let form_id = form.get("client_id");
        let form_secret = form.get("client_secret");
        if let Some(payload) = basic {
            let (client_id, secret) = decode_basic(payload)?;
            if form_secret.is_some() {
                return Err(OAuthError::invalid_request(
                    "Client credentials were sent both in the Authorization header and in the body; use one method.",
                ));
            }
            if form_id.is_some_and(|id| id != client_id) {
                return Err(OAuthError::invalid_request(
                    "The client_id in the body differs from the one in the Authorization header.",
                ));
            }
            return Ok(ClientCredentials {
                client_id,
                secret: Some(PlainSecret::new(secret)),
                method: ClientAuthMethod::Basic,
            });
        }
        match (form_id, form_secret) {
            (Some(id), Some(secret)) => Ok(ClientCredentials {
                client_id: id.to_owned(),
                secret: Some(PlainSecret::new(secret.to_owned())),
                method: ClientAuthMethod::Post,
            }),
            (Some(id), None) => Ok(ClientCredentials {
                client_id: id.to_owned(),
                secret: None,
                method: ClientAuthMethod::None,
            }),
            (None, _) => Err(OAuthError::invalid_client()),
        }
    }

    /// Checks the credentials against the application found by
    /// [`client_id`](Self::client_id): its client type and the stored
    /// digest of its secret.
    ///
    /// A presented secret must match (compared in constant time), whatever
    /// the client type, since public applications have a secret too and a
    /// wrong one is a failed authentication. Without a secret only a public
    /// client passes. Failure is `invalid_client`. An unknown `client_id`
    /// is the caller's to answer, with [`OAuthError::invalid_client`] too.
    pub fn verify(
        &self,
        client_type: ClientType,
        stored_secret: &SecretDigest,
    ) -> Result<(), OAuthError> {
        let ok = match &self.secret {
            Some(secret) => constant_time_eq(secret.digest().as_bytes(), stored_secret.as_bytes()),
            None => client_type == ClientType::Public,
        };
        if ok {
            Ok(())
        } else {
            Err(OAuthError::invalid_client())
        }
    }
}

/// The base64 part of a `Basic` header value (scheme case-insensitive), or
/// `None` for any other scheme.
fn basic_payload(header: &str) -> Option<&str> {
    let header = header.trim_ascii();
    let (scheme, rest) = header.split_once([' ', '\t']).unwrap_or((header, ""));
    scheme
        .eq_ignore_ascii_case("basic")
        .then(|| rest.trim_ascii())
}

/// Longest Basic payload decoded: far above any real `client_id` (40) and
/// `client_secret` (128) even fully percent-encoded, and it keeps decoding
/// of junk headers cheap.
const MAX_BASIC_LEN: usize = 4096;

/// Decodes `base64(urlencode(id) ":" urlencode(secret))`.
fn decode_basic(payload: &str) -> Result<(String, String), OAuthError> {
    if payload.len() > MAX_BASIC_LEN {
        return Err(OAuthError::invalid_client());
    }
    let bytes = STANDARD
        .decode(payload)
        .map_err(|_| OAuthError::invalid_client())?;
    let text = String::from_utf8(bytes).map_err(|_| OAuthError::invalid_client())?;
    let (id, secret) = text
        .split_once(':')
        .ok_or_else(OAuthError::invalid_client)?;
    let id = form_decode(id)?;
    let secret = form_decode(secret)?;
    if id.is_empty() {
        return Err(OAuthError::invalid_client());
    }
    Ok((id, secret))
}

/// Form-urldecodes one component (`+` is a space, `%XX` a byte, a `%` not
/// followed by two hex digits kept as is), refusing results that are not
/// UTF-8 rather than authenticating with a mangled (U+FFFD) secret.
fn form_decode(component: &str) -> Result<String, OAuthError> {
    let raw = component.as_bytes();
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while let Some(&b) = raw.get(i) {
        let escaped = (b == b'%')
            .then(|| Some((hex(*raw.get(i + 1)?)?, hex(*raw.get(i + 2)?)?)))
            .flatten();
        match (b, escaped) {
            (_, Some((high, low))) => {
                out.push(high * 16 + low);
                i += 3;
            }
            (b'+', None) => {
                out.push(b' ');
                i += 1;
            }
            (_, None) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_err(|_| OAuthError::invalid_client())
}

/// The value of one hexadecimal digit.
fn hex(digit: u8) -> Option<u8> {
    char::from(digit)
        .to_digit(16)
        .and_then(|d| u8::try_from(d).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The credentials expected, or the error code.
    type Expected = Result<ClientCredentials, ErrorCode>;
    use crate::protocol_error::ErrorCode;

    fn form(pairs: &[(&str, &str)]) -> FormParams {
        FormParams::parse(pairs.iter().copied()).unwrap()
    }

    fn basic(text: &str) -> String {
        format!("Basic {}", STANDARD.encode(text))
    }

    fn creds(id: &str, secret: Option<&str>, method: ClientAuthMethod) -> ClientCredentials {
        ClientCredentials {
            client_id: id.to_owned(),
            secret: secret.map(|s| PlainSecret::new(s.to_owned())),
            method,
        }
    }

    #[test]
    fn extract_cases() {
        use ClientAuthMethod::{Basic, None as Public, Post};
        let ok = |id, secret, method| Ok(creds(id, secret, method));
        let invalid_client = || Err(ErrorCode::InvalidClient);
        let invalid_request = || Err(ErrorCode::InvalidRequest);
        let cases: Vec<(&str, Option<String>, FormParams, Expected)> = vec![
            (
                "basic",
                Some(basic("id:secret")),
                form(&[]),
                ok("id", Some("secret"), Basic),
            ),
            (
                "basic, lower-case scheme, extra spaces",
                Some(format!("  basic   {} ", STANDARD.encode("id:s"))),
                form(&[]),
                ok("id", Some("s"), Basic),
            ),
            (
                "basic, form-encoded parts",
                Some(basic("my+app%3A1:p%40ss%2Bw+rd%25")),
                form(&[]),
                ok("my app:1", Some("p@ss+w rd%"), Basic),
            ),
            (
                "basic, colon in secret",
                Some(basic("id:a:b")),
                form(&[]),
                ok("id", Some("a:b"), Basic),
            ),
            (
                "basic, empty secret",
                Some(basic("id:")),
                form(&[]),
                ok("id", Some(""), Basic),
            ),
            (
                "basic, non-ASCII percent-encoded",
                Some(basic("id:%C3%A9")),
                form(&[]),
                ok("id", Some("é"), Basic),
            ),
            (
                "basic plus same form client_id",
                Some(basic("id:s")),
                form(&[("client_id", "id")]),
                ok("id", Some("s"), Basic),
            ),
            (
                "basic plus other form client_id",
                Some(basic("id:s")),
                form(&[("client_id", "other")]),
                invalid_request(),
            ),
            (
                "basic plus form secret",
                Some(basic("id:s")),
                form(&[("client_id", "id"), ("client_secret", "s")]),
                invalid_request(),
            ),
            (
                "basic, no colon",
                Some(basic("idsecret")),
                form(&[]),
                invalid_client(),
            ),
            (
                "basic, empty id",
                Some(basic(":secret")),
                form(&[]),
                invalid_client(),
            ),
            (
                "basic, empty payload",
                Some("Basic".to_owned()),
                form(&[]),
                invalid_client(),
            ),
            (
                "basic, bad base64",
                Some("Basic !!!".to_owned()),
                form(&[]),
                invalid_client(),
            ),
            (
                "basic, invalid UTF-8",
                Some(format!(
                    "Basic {}",
                    STANDARD.encode([0x69, 0x64, 0x3a, 0xff])
                )),
                form(&[]),
                invalid_client(),
            ),
            (
                "basic, lone percent kept",
                Some(basic("id:%zz%4")),
                form(&[]),
                ok("id", Some("%zz%4"), Basic),
            ),
            (
                "basic, percent-encoded invalid UTF-8",
                Some(basic("id:%FF")),
                form(&[]),
                invalid_client(),
            ),
            (
                "basic, huge",
                Some(basic(&format!("id:{}", "a".repeat(10_000)))),
                form(&[]),
                invalid_client(),
            ),
            (
                "bad basic does not fall back to the form",
                Some("Basic !!!".to_owned()),
                form(&[("client_id", "id"), ("client_secret", "s")]),
                invalid_client(),
            ),
            (
                "bearer header ignored",
                Some("Bearer abc".to_owned()),
                form(&[("client_id", "id")]),
                ok("id", None, Public),
            ),
            (
                "post",
                None,
                form(&[("client_id", "id"), ("client_secret", "s")]),
                ok("id", Some("s"), Post),
            ),
            (
                "public",
                None,
                form(&[("client_id", "id")]),
                ok("id", None, Public),
            ),
            (
                "empty secret counts as omitted",
                None,
                form(&[("client_id", "id"), ("client_secret", "")]),
                ok("id", None, Public),
            ),
            (
                "secret without id",
                None,
                form(&[("client_secret", "s")]),
                invalid_client(),
            ),
            ("nothing", None, form(&[]), invalid_client()),
            (
                "empty client_id",
                None,
                form(&[("client_id", "")]),
                invalid_client(),
            ),
        ];
        for (name, header, form, expected) in cases {
            let got = ClientCredentials::extract(header.as_deref(), &form).map_err(|e| e.code);
            assert_eq!(got, expected, "{name}");
        }
    }

    #[test]
    fn verify_cases() {
        let stored = PlainSecret::new("right".to_owned()).digest();
        use ClientType::{Confidential, Public};
        let cases = [
            (
                "confidential, right secret",
                Confidential,
                Some("right"),
                true,
            ),
            (
                "confidential, wrong secret",
                Confidential,
                Some("wrong"),
                false,
            ),
            ("confidential, empty secret", Confidential, Some(""), false),
            ("confidential, no secret", Confidential, None, false),
            ("public, no secret", Public, None, true),
            ("public, right secret", Public, Some("right"), true),
            ("public, wrong secret", Public, Some("wrong"), false),
        ];
        for (name, client_type, secret, ok) in cases {
            let method = if secret.is_some() {
                ClientAuthMethod::Post
            } else {
                ClientAuthMethod::None
            };
            let result = creds("id", secret, method).verify(client_type, &stored);
            assert_eq!(result.is_ok(), ok, "{name}");
            if let Err(error) = result {
                assert_eq!(error, OAuthError::invalid_client(), "{name}");
            }
        }
    }

    #[test]
    fn debug_hides_the_secret() {
        let shown = format!("{:?}", creds("id", Some("hunter2"), ClientAuthMethod::Post));
        assert!(!shown.contains("hunter2"), "{shown}");
    }
}

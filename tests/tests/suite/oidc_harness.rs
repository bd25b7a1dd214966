//! The OpenID Connect harness itself (`acs_tests::oidc`): each test starts a real
//! `oidc-provider` and plays the relying party by hand, checking what the single sign-on
//! tests rely on.

use std::collections::HashMap;

use acs_tests::oidc::{
    self, Account, LoginOutcome, Provider, ProviderConfig, attempt_login_at_provider,
    base64url_decode, base64url_encode, browser_client, cancel_at_provider, jwt_payload,
    log_in_at_provider, pkce_s256,
};
use reqwest::Url;
use serde_json::Value;

const CLIENT_ID: &str = "acs-sso";
const CLIENT_SECRET: &str = "client-Secret-1";
const REDIRECT: &str = "http://127.0.0.1:9/cb";
const VERIFIER: &str = "a-verifier-of-the-relying-party-0123456789-abcdefghijkl";

fn config(tamper_id_token: bool) -> ProviderConfig {
    ProviderConfig {
        clients: vec![oidc::Client {
            client_id: CLIENT_ID.into(),
            client_secret: CLIENT_SECRET.into(),
            redirect_uris: vec![REDIRECT.into()],
        }],
        accounts: vec![Account {
            sub: "sub-alice-1".into(),
            password: "Alice-pass-1".into(),
            preferred_username: "alice".into(),
            given_name: "Alice".into(),
            family_name: "Liddell".into(),
            email: "alice@example.com".into(),
            groups: None,
        }],
        tamper_id_token,
    }
}

fn start(tamper_id_token: bool) -> Provider {
    let provider = Provider::start(config(tamper_id_token));
    eprintln!(
        "Provider::start took {:?} ({})",
        provider.started_in(),
        provider.issuer()
    );
    provider
}

fn text(value: &Value, key: &str) -> String {
    value[key]
        .as_str()
        .unwrap_or_else(|| panic!("no string {key} in {value}"))
        .to_owned()
}

/// The authorization URL a relying party builds, with PKCE S256 of `verifier` unless
/// `verifier` is `None`.
fn authorize_url(discovery: &Value, state: &str, nonce: &str, verifier: Option<&str>) -> String {
    let mut url = Url::parse(&text(discovery, "authorization_endpoint")).expect("a URL");
    url.query_pairs_mut()
        .append_pair("response_type", "code")
        .append_pair("client_id", CLIENT_ID)
        .append_pair("redirect_uri", REDIRECT)
        .append_pair("scope", "openid profile email")
        .append_pair("state", state)
        .append_pair("nonce", nonce);
    if let Some(verifier) = verifier {
        url.query_pairs_mut()
            .append_pair("code_challenge", &pkce_s256(verifier))
            .append_pair("code_challenge_method", "S256");
    }
    url.to_string()
}

/// The query of a redirect back to the relying party, which must be at `REDIRECT`.
fn callback(location: &str) -> HashMap<String, String> {
    let url = Url::parse(location).unwrap_or_else(|error| panic!("{location}: {error}"));
    assert_eq!(
        format!("{}://{}{}", url.scheme(), url.authority(), url.path()),
        REDIRECT,
        "{location}"
    );
    url.query_pairs().into_owned().collect()
}

enum ClientAuth {
    Basic,
    Post,
}

/// Exchanges `code` at the token endpoint; returns the status and the JSON body.
fn exchange(discovery: &Value, code: &str, verifier: &str, auth: ClientAuth) -> (u16, Value) {
    let endpoint = text(discovery, "token_endpoint");
    let mut form = vec![
        ("grant_type", "authorization_code"),
        ("code", code),
        ("redirect_uri", REDIRECT),
        ("code_verifier", verifier),
    ];
    let client = browser_client();
    let request = match auth {
        ClientAuth::Basic => client
            .post(&endpoint)
            .basic_auth(CLIENT_ID, Some(CLIENT_SECRET)),
        ClientAuth::Post => {
            form.extend([("client_id", CLIENT_ID), ("client_secret", CLIENT_SECRET)]);
            client.post(&endpoint)
        }
    };
    let response = request
        .form(&form)
        .send()
        .unwrap_or_else(|error| panic!("POST {endpoint}: {error}"));
    let status = response.status().as_u16();
    let body = response.text().expect("a body");
    let json = serde_json::from_str(&body).unwrap_or_else(|error| panic!("{error}: {body}"));
    (status, json)
}

/// Logs alice in with a fresh browser and returns the code from the redirect.
fn code_for(provider: &Provider, discovery: &Value, nonce: &str) -> String {
    let url = authorize_url(discovery, "state-1", nonce, Some(VERIFIER));
    let location = log_in_at_provider(&browser_client(), &url, "alice", "Alice-pass-1");
    let query = callback(&location);
    assert_eq!(
        query.get("iss").map(String::as_str),
        Some(provider.issuer())
    );
    query
        .get("code")
        .cloned()
        .unwrap_or_else(|| panic!("no code in {location}"))
}

/// Whether the RS256 signature of `token` verifies with a key of `jwks`.
fn verifies(token: &str, jwks: &Value) -> bool {
    let (message, signature) = token.rsplit_once('.').expect("a JWT");
    let Some(signature) = base64url_decode(signature) else {
        return false;
    };
    jwks["keys"]
        .as_array()
        .expect("keys")
        .iter()
        .filter(|key| key["kty"] == "RSA")
        .any(|key| {
            let n = base64url_decode(&text(key, "n")).expect("n");
            let e = base64url_decode(&text(key, "e")).expect("e");
            ring::signature::RsaPublicKeyComponents { n, e }
                .verify(
                    &ring::signature::RSA_PKCS1_2048_8192_SHA256,
                    message.as_bytes(),
                    &signature,
                )
                .is_ok()
        })
}

fn jwks(discovery: &Value) -> Value {
    let url = text(discovery, "jwks_uri");
    browser_client()
        .get(&url)
        .send()
        .and_then(reqwest::blocking::Response::json)
        .unwrap_or_else(|error| panic!("GET {url}: {error}"))
}

#[test]
fn the_base64url_and_pkce_helpers_follow_the_rfcs() {
    for (bytes, encoded) in [
        (&b""[..], ""),
        (b"f", "Zg"),
        (b"fo", "Zm8"),
        (b"foo", "Zm9v"),
        (b"foob", "Zm9vYg"),
        (&[0xfb, 0xff, 0xfe][..], "-__-"),
    ] {
        assert_eq!(base64url_encode(bytes), encoded);
        assert_eq!(base64url_decode(encoded).as_deref(), Some(bytes));
    }
    assert_eq!(base64url_decode("Zg==").as_deref(), Some(&b"f"[..]));
    assert_eq!(base64url_decode("a+b/"), None);
    assert_eq!(base64url_decode("Z"), None);
    // RFC 7636, appendix B.
    assert_eq!(
        pkce_s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
        "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    );
}

#[test]
fn a_user_logs_in_and_the_code_buys_a_signed_id_token_with_the_claims() {
    let provider = start(false);
    let discovery = provider.discovery();
    assert_eq!(text(&discovery, "issuer"), provider.issuer());
    assert!(provider.issuer().starts_with("http://127.0.0.1:"));
    for (key, wanted) in [
        ("code_challenge_methods_supported", "S256"),
        (
            "token_endpoint_auth_methods_supported",
            "client_secret_basic",
        ),
        (
            "token_endpoint_auth_methods_supported",
            "client_secret_post",
        ),
        ("id_token_signing_alg_values_supported", "RS256"),
        ("scopes_supported", "profile"),
        ("scopes_supported", "email"),
        ("response_types_supported", "code"),
    ] {
        assert!(
            discovery[key]
                .as_array()
                .is_some_and(|values| values.iter().any(|v| v == wanted)),
            "{key} lacks {wanted}: {discovery}"
        );
    }

    let browser = browser_client();
    let url = authorize_url(&discovery, "state-xyz", "nonce-abc", Some(VERIFIER));
    let location = log_in_at_provider(&browser, &url, "alice", "Alice-pass-1");
    assert!(
        location.starts_with(&format!("{REDIRECT}?code=")),
        "{location}"
    );
    let query = callback(&location);
    assert_eq!(query["state"], "state-xyz");
    assert_eq!(query["iss"], provider.issuer());
    let code = &query["code"];

    let (status, tokens) = exchange(&discovery, code, VERIFIER, ClientAuth::Basic);
    assert_eq!(status, 200, "{tokens}");
    assert_eq!(tokens["token_type"], "Bearer", "{tokens}");
    let id_token = text(&tokens, "id_token");
    let header: Value = serde_json::from_slice(
        &base64url_decode(id_token.split('.').next().expect("a header")).expect("base64url"),
    )
    .expect("a JSON header");
    assert_eq!(header["alg"], "RS256");
    let payload = jwt_payload(&id_token);
    for (claim, value) in [
        ("iss", provider.issuer()),
        ("aud", CLIENT_ID),
        ("sub", "sub-alice-1"),
        ("nonce", "nonce-abc"),
        ("preferred_username", "alice"),
        ("given_name", "Alice"),
        ("family_name", "Liddell"),
        ("email", "alice@example.com"),
    ] {
        assert_eq!(payload[claim], value, "{claim} in {payload}");
    }
    assert_eq!(payload["email_verified"], true, "{payload}");
    let jwks = jwks(&discovery);
    assert!(
        jwks["keys"]
            .as_array()
            .expect("keys")
            .iter()
            .any(|key| key["kid"] == header["kid"]),
        "{jwks}"
    );
    assert!(verifies(&id_token, &jwks), "the ID token verifies");

    // The access token reads userinfo.
    let userinfo: Value = browser_client()
        .get(text(&discovery, "userinfo_endpoint"))
        .bearer_auth(text(&tokens, "access_token"))
        .send()
        .and_then(reqwest::blocking::Response::json)
        .expect("userinfo");
    assert_eq!(userinfo["sub"], "sub-alice-1", "{userinfo}");
    assert_eq!(userinfo["email"], "alice@example.com", "{userinfo}");

    // A code is good once.
    let (status, error) = exchange(&discovery, code, VERIFIER, ClientAuth::Basic);
    assert_eq!(
        (status, text(&error, "error")),
        (400, "invalid_grant".into())
    );

    // The browser's session at the provider skips the login page; client_secret_post works.
    let url = authorize_url(&discovery, "state-2", "nonce-2", Some(VERIFIER));
    let again = match attempt_login_at_provider(&browser, &url, "ignored", "ignored") {
        LoginOutcome::Redirected(location) => callback(&location),
        other => panic!("a logged in browser sees no login page: {other:?}"),
    };
    assert_eq!(again["state"], "state-2");
    let (status, tokens) = exchange(&discovery, &again["code"], VERIFIER, ClientAuth::Post);
    assert_eq!(status, 200, "{tokens}");
    assert_eq!(jwt_payload(&text(&tokens, "id_token"))["nonce"], "nonce-2");

    // A wrong verifier is refused.
    let code = code_for(&provider, &discovery, "nonce-3");
    let (status, error) = exchange(&discovery, &code, &"b".repeat(43), ClientAuth::Basic);
    assert_eq!(
        (status, text(&error, "error")),
        (400, "invalid_grant".into())
    );
    // So is a wrong client secret.
    let response = browser_client()
        .post(text(&discovery, "token_endpoint"))
        .basic_auth(CLIENT_ID, Some("not-the-secret"))
        .form(&[
            ("grant_type", "authorization_code"),
            ("code", code_for(&provider, &discovery, "nonce-4").as_str()),
            ("redirect_uri", REDIRECT),
            ("code_verifier", VERIFIER),
        ])
        .send()
        .expect("a reply");
    assert_eq!(response.status().as_u16(), 401);
    assert!(provider.log().contains("POST /token"), "{}", provider.log());
}

#[test]
fn a_wrong_password_keeps_the_user_on_the_login_page() {
    let provider = start(false);
    let discovery = provider.discovery();
    let browser = browser_client();
    let url = authorize_url(&discovery, "state-1", "nonce-1", Some(VERIFIER));
    for (login, password) in [
        ("alice", "Alice-pass-2"),
        ("alice", ""),
        ("nobody", "Alice-pass-1"),
    ] {
        match attempt_login_at_provider(&browser, &url, login, password) {
            LoginOutcome::LoginPage { status, body } => {
                assert_eq!(status, 200);
                assert!(body.contains("Invalid username or password."), "{body}");
                assert!(body.contains("name=\"password\""), "{body}");
            }
            other => panic!("{login}/{password:?} got in: {other:?}"),
        }
    }
    // The same browser then logs in, also with the sub as its login.
    let location = log_in_at_provider(&browser, &url, "sub-alice-1", "Alice-pass-1");
    assert_eq!(callback(&location)["state"], "state-1");
}

#[test]
fn pkce_is_required_and_cancel_denies_access() {
    let provider = start(false);
    let discovery = provider.discovery();
    let url = authorize_url(&discovery, "state-1", "nonce-1", None);
    let query = match attempt_login_at_provider(&browser_client(), &url, "alice", "Alice-pass-1") {
        LoginOutcome::Redirected(location) => callback(&location),
        other => panic!("a request without PKCE reached the login page: {other:?}"),
    };
    assert_eq!(query["error"], "invalid_request", "{query:?}");
    assert!(!query.contains_key("code"), "{query:?}");

    let url = authorize_url(&discovery, "state-2", "nonce-2", Some(VERIFIER));
    let query = callback(&cancel_at_provider(&browser_client(), &url));
    assert_eq!(query["error"], "access_denied", "{query:?}");
    assert_eq!(query["state"], "state-2", "{query:?}");
}

#[test]
fn a_tampering_provider_issues_id_tokens_whose_signature_fails() {
    let provider = start(true);
    let discovery = provider.discovery();
    let code = code_for(&provider, &discovery, "nonce-1");
    let (status, tokens) = exchange(&discovery, &code, VERIFIER, ClientAuth::Basic);
    assert_eq!(status, 200, "{tokens}");
    let id_token = text(&tokens, "id_token");
    // The header and the claims are as issued; only the signature is broken.
    let payload = jwt_payload(&id_token);
    assert_eq!(payload["sub"], "sub-alice-1");
    assert_eq!(payload["nonce"], "nonce-1");
    assert_eq!(payload["iss"], provider.issuer());
    assert!(!verifies(&id_token, &jwks(&discovery)), "{id_token}");
}

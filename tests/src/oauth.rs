//! Helpers of the `/api/o/` tests: OAuth 2 applications and the requests their clients send.

use serde_json::{Value, json};

use crate::{Call, Reply, TestServer};

/// `/api/o/authorize/?<params>`, encoded as a client encodes it.
pub fn authorize_path(params: &[(&str, &str)]) -> String {
    let mut url = reqwest::Url::parse("http://acs.invalid/api/o/authorize/").expect("a URL");
    url.query_pairs_mut().extend_pairs(params);
    format!("{}?{}", url.path(), url.query().unwrap_or(""))
}

/// An application as its client knows it.
#[derive(Debug, Clone)]
pub struct OAuthClient {
    /// The application's id in the API.
    pub id: i64,
    /// Its `client_id`.
    pub client_id: String,
    /// Its `client_secret`, shown once at creation; empty for a public client, which gets
    /// none to keep.
    pub client_secret: String,
}

impl TestServer {
    /// The status `GET /api/v2/me/` answers with `token` as a bearer token: 200 while the
    /// token works, 401 once it does not.
    pub fn bearer_me_status(&self, token: &str) -> u16 {
        self.anonymous()
            .with_bearer(token)
            .get("/api/v2/me/")
            .call()
            .status
    }

    /// The status a write (`POST /api/v2/tokens/` with `{}`) answers with `token` as a bearer
    /// token: 403 for a read-scoped token, before the body is looked at.
    pub fn bearer_write_status(&self, token: &str) -> u16 {
        self.anonymous()
            .with_bearer(token)
            .post("/api/v2/tokens/")
            .json(&json!({}))
            .call()
            .status
    }

    /// Creates, as admin, a confidential password-grant application in `organization`,
    /// owned by `owner` when given; returns its id.
    pub fn password_application(&self, organization: i64, name: &str, owner: Option<i64>) -> i64 {
        let mut body = json!({
            "name": name,
            "organization": organization,
            "authorization_grant_type": "password",
            "client_type": "confidential",
        });
        if let Some(owner) = owner {
            body["user"] = json!(owner);
        }
        self.admin()
            .post("/api/v2/applications/")
            .json(&body)
            .call()
            .expect(201)
            .json()["id"]
            .as_i64()
            .expect("an application id")
    }

    /// Creates an application as admin: `grant` is `password` or `authorization-code`,
    /// `client_type` `confidential` or `public`.
    pub fn oauth_client(
        &self,
        organization: i64,
        name: &str,
        grant: &str,
        client_type: &str,
    ) -> OAuthClient {
        let mut body = json!({
            "name": name,
            "organization": organization,
            "authorization_grant_type": grant,
            "client_type": client_type,
        });
        if grant == "authorization-code" {
            body["redirect_uris"] = json!("https://client.example/cb");
        }
        let created = self
            .admin()
            .post("/api/v2/applications/")
            .json(&body)
            .call()
            .expect(201)
            .json();
        let text = |key: &str| {
            created[key]
                .as_str()
                .unwrap_or_else(|| panic!("no {key} in {created}"))
                .to_owned()
        };
        OAuthClient {
            id: created["id"].as_i64().expect("an id"),
            client_id: text("client_id"),
            client_secret: created["client_secret"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        }
    }
}

impl OAuthClient {
    /// POSTs `form` to `path`, authenticating the client with HTTP Basic.
    pub fn post(&self, server: &TestServer, path: &str, form: &[(&str, &str)]) -> Reply {
        server
            .anonymous()
            .with_basic(&self.client_id, &self.client_secret)
            .post(path)
            .form(form)
            .call()
    }

    /// POSTs `form` to the token endpoint with HTTP Basic client authentication.
    pub fn token_request(&self, server: &TestServer, form: &[(&str, &str)]) -> Reply {
        self.post(server, "/api/o/token/", form)
    }

    /// A password grant for `username`; asserts 200 and returns the token response.
    pub fn password_grant(&self, server: &TestServer, username: &str, password: &str) -> Value {
        self.token_request(
            server,
            &[
                ("grant_type", "password"),
                ("username", username),
                ("password", password),
            ],
        )
        .expect(200)
        .json()
    }

    /// A refresh of `refresh_token`, answered as it comes.
    pub fn refresh(&self, server: &TestServer, refresh_token: &str) -> Reply {
        self.token_request(
            server,
            &[
                ("grant_type", "refresh_token"),
                ("refresh_token", refresh_token),
            ],
        )
    }
}

/// The `(error, error_description)` of an OAuth error reply with `status`, after checking
/// the headers every `/api/o/` error carries.
#[track_caller]
pub fn oauth_error(reply: &Reply, status: u16) -> (String, String) {
    assert_eq!(
        reply.status, status,
        "{} {} answered {} (expected {status}); body: {}",
        reply.method, reply.url, reply.status, reply.body
    );
    assert_eq!(reply.header("cache-control").as_deref(), Some("no-store"));
    assert_eq!(reply.header("pragma").as_deref(), Some("no-cache"));
    let body = reply.json();
    let text = |key: &str| {
        body[key]
            .as_str()
            .unwrap_or_else(|| panic!("no {key} in {body}"))
            .to_owned()
    };
    (text("error"), text("error_description"))
}

/// A string field of a token response.
#[track_caller]
pub fn field(response: &Value, key: &str) -> String {
    response[key]
        .as_str()
        .unwrap_or_else(|| panic!("no {key} in {response}"))
        .to_owned()
}

//! `POST /api/o/revoke_token/` (and `revoke-token/`) and `POST /api/o/introspect/`: a client
//! revokes or inspects its own tokens by value and learns nothing about anyone else's, on
//! SQLite and PostgreSQL.

use acs_tests::oauth::{OAuthClient, field, oauth_error};
use acs_tests::{Backend, Call, TestServer, backend_tests};
use serde_json::{Value, json};

backend_tests!(
    revoking_an_access_token_ends_its_refresh_token,
    revoking_a_refresh_token_ends_its_access_token,
    revocation_reveals_nothing_about_other_tokens,
    revocation_errors,
    introspection_shows_only_the_clients_active_tokens,
    introspection_errors,
);

const USER: &str = "heidi";
const PASSWORD: &str = "pw-heidi-1";

/// A server with a user, two confidential password clients and a pair issued to the first.
fn setup(backend: Backend) -> (TestServer, OAuthClient, OAuthClient, Value) {
    let server = TestServer::start(backend);
    let org = server.create_organization("acme");
    let user = server.create_user(USER, PASSWORD, false);
    server.add_member(org, user);
    let mine = server.oauth_client(org, "mine", "password", "confidential");
    let theirs = server.oauth_client(org, "theirs", "password", "confidential");
    let pair = mine.password_grant(&server, USER, PASSWORD);
    (server, mine, theirs, pair)
}

fn revoke(server: &TestServer, client: &OAuthClient, form: &[(&str, &str)]) -> acs_tests::Reply {
    client.post(server, "/api/o/revoke_token/", form)
}

fn introspect(server: &TestServer, client: &OAuthClient, token: &str) -> Value {
    let reply = client
        .post(server, "/api/o/introspect/", &[("token", token)])
        .expect(200);
    assert_eq!(reply.header("cache-control").as_deref(), Some("no-store"));
    reply.json()
}

fn revoking_an_access_token_ends_its_refresh_token(backend: Backend) {
    let (server, mine, _, pair) = setup(backend);
    let reply = revoke(&server, &mine, &[("token", &field(&pair, "access_token"))]).expect(200);
    assert!(reply.body.is_empty(), "{}", reply.body);
    assert_eq!(server.bearer_me_status(&field(&pair, "access_token")), 401);
    assert_eq!(
        oauth_error(&mine.refresh(&server, &field(&pair, "refresh_token")), 400).0,
        "invalid_grant"
    );
    // Recorded as the deletion of the token.
    let activity = server
        .admin()
        .get_json("/api/v2/activity_stream/?operation=delete&object1=o_auth2_access_token");
    assert_eq!(activity["count"], 1, "{activity}");
    // Revoking again is a no-op that still answers 200.
    revoke(&server, &mine, &[("token", &field(&pair, "access_token"))]).expect(200);
}

fn revoking_a_refresh_token_ends_its_access_token(backend: Backend) {
    let (server, mine, _, pair) = setup(backend);
    // Through the dashed alias, and with a hint that is wrong: the hint only orders lookups.
    mine.post(
        &server,
        "/api/o/revoke-token/",
        &[
            ("token", &field(&pair, "refresh_token")),
            ("token_type_hint", "access_token"),
        ],
    )
    .expect(200);
    assert_eq!(server.bearer_me_status(&field(&pair, "access_token")), 401);
    assert_eq!(
        oauth_error(&mine.refresh(&server, &field(&pair, "refresh_token")), 400).0,
        "invalid_grant"
    );
    let other = mine.password_grant(&server, USER, PASSWORD);
    revoke(
        &server,
        &mine,
        &[
            ("token", &field(&other, "access_token")),
            ("token_type_hint", "refresh_token"),
        ],
    )
    .expect(200);
    assert_eq!(server.bearer_me_status(&field(&other, "access_token")), 401);
}

fn revocation_reveals_nothing_about_other_tokens(backend: Backend) {
    let (server, mine, theirs, pair) = setup(backend);
    // Another client's token: 200, and nothing changes.
    for token in [field(&pair, "access_token"), field(&pair, "refresh_token")] {
        let reply = revoke(&server, &theirs, &[("token", &token)]).expect(200);
        assert!(reply.body.is_empty());
    }
    assert_eq!(server.bearer_me_status(&field(&pair, "access_token")), 200);
    // An unknown value: the same answer.
    revoke(&server, &theirs, &[("token", "no-such-token")]).expect(200);
    // The owner's client still refreshes.
    mine.refresh(&server, &field(&pair, "refresh_token"))
        .expect(200);
}

fn revocation_errors(backend: Backend) {
    let (server, mine, _, pair) = setup(backend);
    let personal = server.as_user(USER, PASSWORD).personal_token("write");
    assert_eq!(
        oauth_error(&revoke(&server, &mine, &[("token", &personal)]), 400).0,
        "unsupported_token_type"
    );
    assert_eq!(server.bearer_me_status(&personal), 200);
    assert_eq!(
        oauth_error(&revoke(&server, &mine, &[]), 400),
        (
            "invalid_request".to_owned(),
            "Missing token parameter.".to_owned()
        )
    );
    let wrong_secret = server
        .anonymous()
        .with_basic(&mine.client_id, "wrong")
        .post("/api/o/revoke_token/")
        .form(&[("token", field(&pair, "access_token"))])
        .call();
    assert_eq!(oauth_error(&wrong_secret, 401).0, "invalid_client");
    let as_json = server
        .anonymous()
        .with_basic(&mine.client_id, &mine.client_secret)
        .post("/api/o/revoke_token/")
        .json(&json!({ "token": field(&pair, "access_token") }))
        .call();
    assert_eq!(oauth_error(&as_json, 400).0, "invalid_request");
    assert_eq!(server.bearer_me_status(&field(&pair, "access_token")), 200);
    server
        .anonymous()
        .get("/api/o/revoke_token/")
        .call()
        .expect(405);
}

fn introspection_shows_only_the_clients_active_tokens(backend: Backend) {
    let (server, mine, theirs, pair) = setup(backend);
    let active = introspect(&server, &mine, &field(&pair, "access_token"));
    assert_eq!(active["active"], true);
    // Issued without a scope: every scope, in the reference's words.
    assert_eq!(active["scope"], "read write");
    assert_eq!(active["client_id"], mine.client_id.as_str());
    assert_eq!(active["username"], USER);
    assert_eq!(active["token_type"], "Bearer");
    let (exp, iat) = (
        active["exp"].as_i64().expect("exp"),
        active["iat"].as_i64().expect("iat"),
    );
    assert_eq!(exp - iat, 31_536_000);
    let refresh = introspect(&server, &mine, &field(&pair, "refresh_token"));
    assert_eq!(refresh["active"], true);
    let inactive = json!({ "active": false });
    // Another client, a personal token, an unknown value: exactly {"active": false}.
    assert_eq!(
        introspect(&server, &theirs, &field(&pair, "access_token")),
        inactive
    );
    let personal = server.as_user(USER, PASSWORD).personal_token("read");
    assert_eq!(introspect(&server, &mine, &personal), inactive);
    assert_eq!(introspect(&server, &mine, "no-such-token"), inactive);
    // Used, expired, or of a deactivated user: inactive.
    let next = mine
        .refresh(&server, &field(&pair, "refresh_token"))
        .expect(200)
        .json();
    assert_eq!(
        introspect(&server, &mine, &field(&pair, "refresh_token")),
        inactive
    );
    assert_eq!(
        introspect(&server, &mine, &field(&pair, "access_token")),
        inactive
    );
    server.execute_sql("UPDATE access_tokens SET expires = '2000-01-01 00:00:00'");
    assert_eq!(
        introspect(&server, &mine, &field(&next, "access_token")),
        inactive
    );
    assert_eq!(
        introspect(&server, &mine, &field(&next, "refresh_token"))["active"],
        true
    );
    server.execute_sql(&format!(
        "UPDATE users SET is_active = FALSE WHERE username = '{USER}'"
    ));
    assert_eq!(
        introspect(&server, &mine, &field(&next, "refresh_token")),
        inactive
    );
}

fn introspection_errors(backend: Backend) {
    let (server, mine, _, pair) = setup(backend);
    let missing = mine.post(&server, "/api/o/introspect/", &[]);
    assert_eq!(
        oauth_error(&missing, 400),
        (
            "invalid_request".to_owned(),
            "Missing token parameter.".to_owned()
        )
    );
    let anonymous = server
        .anonymous()
        .post("/api/o/introspect/")
        .form(&[("token", field(&pair, "access_token"))])
        .call();
    assert_eq!(oauth_error(&anonymous, 401).0, "invalid_client");
    // A resource server's bearer token is not client authentication.
    let bearer = server
        .anonymous()
        .with_bearer(&field(&pair, "access_token"))
        .post("/api/o/introspect/")
        .form(&[("token", field(&pair, "access_token"))])
        .call();
    assert_eq!(oauth_error(&bearer, 401).0, "invalid_client");
}

//! `POST /api/o/token/`: the password and refresh-token grants, client authentication, the
//! content-type rule and every error the reference §4.2 lists that the contract keeps, on
//! SQLite and PostgreSQL. The authorization-code grant is driven through the consent page in
//! `oauth_authorize.rs`.

use std::sync::{Arc, Barrier};

use acs_tests::ldap::Directory;
use acs_tests::oauth::{OAuthClient, field, oauth_error};
use acs_tests::{Backend, Call, TestServer, backend_tests};
use serde_json::json;

backend_tests!(
    password_grant_issues_a_pair_that_works,
    scope_defaults_to_read_write_and_echoes_the_request,
    only_post_with_a_form_body_is_read,
    client_authentication_comes_first,
    grant_parameters_are_checked,
    password_grant_failures_are_invalid_grant,
    refresh_rotates_the_pair,
    a_rotated_access_token_is_refused_at_once,
    a_deleted_application_is_refused_at_once,
    refresh_scope_may_only_narrow,
    a_refresh_keeps_the_scope_and_description_the_token_has_now,
    refresh_reuse_after_the_grace_period_revokes_the_chain,
    expired_refresh_tokens_are_refused_and_kept,
    twenty_concurrent_refreshes_have_one_winner,
    a_refresh_never_undoes_a_narrowing_that_races_it,
    external_users_are_refused_on_every_grant,
    endpoint_map_and_server_metadata,
);

const USER: &str = "grace";
const PASSWORD: &str = "pw-grace-1";

/// A server with a member user and a confidential password-grant client.
fn setup(backend: Backend) -> (TestServer, OAuthClient, i64) {
    let server = TestServer::start(backend);
    let org = server.create_organization("acme");
    let user = server.create_user(USER, PASSWORD, false);
    server.add_member(org, user);
    let client = server.oauth_client(org, "cli", "password", "confidential");
    (server, client, user)
}

/// Moves the use of every used refresh token past the default 5-second grace period.
fn age_used_refresh_tokens(server: &TestServer) {
    server.execute_sql(
        "UPDATE refresh_tokens SET revoked = '2000-01-01 00:00:00' WHERE revoked IS NOT NULL",
    );
}

fn password_grant_issues_a_pair_that_works(backend: Backend) {
    let (server, client, user) = setup(backend);
    let reply = client
        .token_request(
            &server,
            &[
                ("grant_type", "password"),
                ("username", USER),
                ("password", PASSWORD),
            ],
        )
        .expect(200);
    assert_eq!(reply.header("cache-control").as_deref(), Some("no-store"));
    assert_eq!(reply.header("pragma").as_deref(), Some("no-cache"));
    assert!(
        reply
            .header("content-type")
            .is_some_and(|t| t.starts_with("application/json"))
    );
    // AWX's key order, which some clients print as is.
    let keys: Vec<&str> = reply
        .body
        .split('"')
        .skip(1)
        .step_by(2)
        .filter(|k| {
            [
                "access_token",
                "expires_in",
                "token_type",
                "scope",
                "refresh_token",
            ]
            .contains(k)
        })
        .collect();
    assert_eq!(
        keys,
        [
            "access_token",
            "expires_in",
            "token_type",
            "scope",
            "refresh_token"
        ]
    );
    let token = reply.json();
    assert_eq!(token["token_type"], "Bearer");
    assert_eq!(token["expires_in"], 31_536_000);
    let access = field(&token, "access_token");
    assert!(access.len() >= 27, "at least 160 bits: {access}");
    let bearer = server.anonymous().with_bearer(&access);
    assert_eq!(
        bearer.get_json("/api/v2/me/")["results"][0]["username"],
        USER
    );
    // Listed as an application token of the user, its value masked.
    let listed = server
        .admin()
        .get_json(&format!("/api/v2/users/{user}/tokens/"));
    assert_eq!(listed["count"], 1);
    assert_eq!(listed["results"][0]["application"], client.id);
    assert_eq!(listed["results"][0]["token"], "************");
    // Issuance is in the activity stream, with the user as actor.
    let activity = server
        .admin()
        .get_json("/api/v2/activity_stream/?operation=create&object1=o_auth2_access_token");
    assert_eq!(activity["count"], 1, "{activity}");
    assert_eq!(
        activity["results"][0]["summary_fields"]["actor"]["username"],
        USER
    );
    assert_eq!(
        activity["results"][0]["summary_fields"]["o_auth2_access_token"][0]["id"],
        listed["results"][0]["id"],
        "{activity}"
    );
    assert_eq!(
        activity["results"][0]["changes"]["refresh_token"],
        "************"
    );
}

fn scope_defaults_to_read_write_and_echoes_the_request(backend: Backend) {
    let (server, client, _) = setup(backend);
    let grant = |scope: Option<&str>| {
        let mut form = vec![
            ("grant_type", "password"),
            ("username", USER),
            ("password", PASSWORD),
        ];
        form.extend(scope.map(|s| ("scope", s)));
        client.token_request(&server, &form)
    };
    // No scope asked: every scope, in AWX's words, in the response and in the token's record.
    let default = grant(None).expect(200).json();
    assert_eq!(default["scope"], "read write");
    let listed = server.admin().get_json("/api/v2/tokens/?order_by=-id");
    assert_eq!(listed["results"][0]["scope"], "read write", "{listed}");
    assert_eq!(
        server.bearer_write_status(&field(&default, "access_token")),
        201,
        "the default scope writes"
    );
    for words in ["read write", "write", "write read"] {
        assert_eq!(grant(Some(words)).expect(200).json()["scope"], words);
    }
    let read = grant(Some("read")).expect(200).json();
    assert_eq!(read["scope"], "read");
    // A read token cannot write, even to create a token.
    server
        .anonymous()
        .with_bearer(&field(&read, "access_token"))
        .post("/api/v2/tokens/")
        .json(&json!({}))
        .call()
        .expect(403);
    for bad in ["admin", "read read", "Write"] {
        let (error, _) = oauth_error(&grant(Some(bad)), 400);
        assert_eq!(error, "invalid_scope", "{bad}");
    }
}

fn only_post_with_a_form_body_is_read(backend: Backend) {
    let (server, client, _) = setup(backend);
    let basic = server
        .anonymous()
        .with_basic(&client.client_id, &client.client_secret);
    let json_body = basic
        .post("/api/o/token/")
        .json(&json!({"grant_type": "password", "username": USER, "password": PASSWORD}))
        .call();
    let (error, description) = oauth_error(&json_body, 400);
    assert_eq!(error, "invalid_request");
    assert!(
        description.contains("application/x-www-form-urlencoded"),
        "{description}"
    );
    let in_query = basic
        .post(&format!(
            "/api/o/token/?grant_type=password&username={USER}&password={PASSWORD}"
        ))
        .call();
    assert_eq!(
        oauth_error(&in_query, 400).1,
        "URL query parameters are not allowed"
    );
    let repeated = basic
        .post("/api/o/token/")
        .header("content-type", "application/x-www-form-urlencoded")
        .body("grant_type=password&grant_type=refresh_token")
        .call();
    assert_eq!(
        oauth_error(&repeated, 400),
        (
            "invalid_request".to_owned(),
            "Duplicate grant_type parameter.".to_owned()
        )
    );
    let huge = "x".repeat(2 << 20);
    let too_large = basic
        .post("/api/o/token/")
        .form(&[("grant_type", "password"), ("username", huge.as_str())])
        .call();
    assert_eq!(oauth_error(&too_large, 413).0, "invalid_request");
    let get = basic.get("/api/o/token/").call().expect(405);
    assert!(
        get.header("allow")
            .is_none_or(|allow| allow.contains("POST"))
    );
}

fn client_authentication_comes_first(backend: Backend) {
    let (server, client, _) = setup(backend);
    let anonymous = server.anonymous();
    let valid_grant = [
        ("grant_type", "password"),
        ("username", USER),
        ("password", PASSWORD),
    ];
    let refused = |reply: acs_tests::Reply, case: &str| {
        let (error, _) = oauth_error(&reply, 401);
        assert_eq!(error, "invalid_client", "{case}");
        assert_eq!(
            reply.header("www-authenticate").as_deref(),
            Some("Bearer error=\"invalid_client\""),
            "{case}"
        );
    };
    refused(
        anonymous.post("/api/o/token/").form(&valid_grant).call(),
        "no client at all",
    );
    refused(
        anonymous
            .with_basic(&client.client_id, "wrong")
            .post("/api/o/token/")
            .form(&[("grant_type", "nonsense")])
            .call(),
        "wrong secret before a bad grant",
    );
    refused(
        anonymous
            .with_basic("no-such-client", &client.client_secret)
            .post("/api/o/token/")
            .form(&valid_grant)
            .call(),
        "unknown client",
    );
    let mut confidential_without_secret = valid_grant.to_vec();
    confidential_without_secret.push(("client_id", &client.client_id));
    refused(
        anonymous
            .post("/api/o/token/")
            .form(&confidential_without_secret)
            .call(),
        "confidential client without its secret",
    );
    refused(
        anonymous
            .post("/api/o/token/")
            .header("authorization", "Basic %%%not-base64")
            .form(&valid_grant)
            .call(),
        "malformed Basic",
    );
    // The user Basic layer does not get in the way: a user's own credentials are not a client.
    refused(
        server
            .as_user(USER, PASSWORD)
            .post("/api/o/token/")
            .form(&valid_grant)
            .call(),
        "user credentials as client credentials",
    );
    // Two methods at once are refused; form credentials alone work.
    let mut both = valid_grant.to_vec();
    both.push(("client_secret", &client.client_secret));
    let (error, _) = oauth_error(
        &anonymous
            .with_basic(&client.client_id, &client.client_secret)
            .post("/api/o/token/")
            .form(&both)
            .call(),
        400,
    );
    assert_eq!(error, "invalid_request");
    let mut posted = valid_grant.to_vec();
    posted.push(("client_id", &client.client_id));
    posted.push(("client_secret", &client.client_secret));
    anonymous
        .post("/api/o/token/")
        .form(&posted)
        .call()
        .expect(200);
    // AUTH_BASIC_ENABLED concerns users, not clients.
    server
        .admin()
        .patch("/api/v2/settings/authentication/")
        .json(&json!({"AUTH_BASIC_ENABLED": false}))
        .call()
        .expect(200);
    client.token_request(&server, &valid_grant).expect(200);
}

fn grant_parameters_are_checked(backend: Backend) {
    let (server, client, _) = setup(backend);
    let code_client = server.oauth_client(
        server.create_organization("other"),
        "web",
        "authorization-code",
        "confidential",
    );
    // Who asks, the form, the error code, and the exact description where it is oauthlib's.
    type Case<'a> = (
        &'a OAuthClient,
        &'a [(&'a str, &'a str)],
        &'a str,
        Option<&'a str>,
    );
    let cases: [Case<'_>; 9] = [
        (
            &client,
            &[],
            "unsupported_grant_type",
            Some("Missing grant_type parameter."),
        ),
        (
            &client,
            &[("grant_type", "magic")],
            "unsupported_grant_type",
            None,
        ),
        (
            &client,
            &[("grant_type", "client_credentials")],
            "unauthorized_client",
            None,
        ),
        (
            &client,
            &[("grant_type", "implicit")],
            "unsupported_grant_type",
            None,
        ),
        (
            &client,
            &[("grant_type", "password"), ("password", PASSWORD)],
            "invalid_request",
            Some("Request is missing username parameter."),
        ),
        (
            &client,
            &[("grant_type", "password"), ("username", USER)],
            "invalid_request",
            Some("Request is missing password parameter."),
        ),
        (
            &client,
            &[("grant_type", "refresh_token")],
            "invalid_request",
            Some("Missing refresh token parameter."),
        ),
        (
            &code_client,
            &[
                ("grant_type", "password"),
                ("username", USER),
                ("password", PASSWORD),
            ],
            "unauthorized_client",
            None,
        ),
        (
            &client,
            &[("grant_type", "authorization_code"), ("code", "abc")],
            "unauthorized_client",
            None,
        ),
    ];
    for (who, form, code, description) in cases {
        let (error, text) = oauth_error(&who.token_request(&server, form), 400);
        assert_eq!(error, code, "{form:?}");
        if let Some(description) = description {
            assert_eq!(text, description, "{form:?}");
        }
    }
    let (error, text) = oauth_error(
        &code_client.token_request(&server, &[("grant_type", "authorization_code")]),
        400,
    );
    assert_eq!(
        (error.as_str(), text.as_str()),
        ("invalid_request", "Missing code parameter.")
    );
    let unknown_code = code_client.token_request(
        &server,
        &[
            ("grant_type", "authorization_code"),
            ("code", "no-such-code"),
        ],
    );
    assert_eq!(oauth_error(&unknown_code, 400).0, "invalid_grant");
}

fn password_grant_failures_are_invalid_grant(backend: Backend) {
    let (server, client, user) = setup(backend);
    let grant = |username: &str, password: &str| {
        client.token_request(
            &server,
            &[
                ("grant_type", "password"),
                ("username", username),
                ("password", password),
            ],
        )
    };
    let invalid = (
        "invalid_grant".to_owned(),
        "Invalid credentials given.".to_owned(),
    );
    assert_eq!(oauth_error(&grant(USER, "wrong"), 400), invalid);
    assert_eq!(oauth_error(&grant("nobody", PASSWORD), 400), invalid);
    server.execute_sql(&format!(
        "UPDATE users SET is_active = FALSE WHERE id = {user}"
    ));
    assert_eq!(oauth_error(&grant(USER, PASSWORD), 400), invalid);
    // Failed checks are throttled like the login form's: the tenth failure in a row and
    // later ones get 429 with Retry-After, still in the OAuth shape.
    let throttled = (0..12)
        .map(|_| grant("mallory", "guess"))
        .find(|reply| reply.status == 429)
        .expect("repeated failures are throttled");
    assert_eq!(oauth_error(&throttled, 429).0, "invalid_grant");
    assert!(
        throttled
            .header("retry-after")
            .and_then(|s| s.parse::<u64>().ok())
            .is_some()
    );
}

fn refresh_rotates_the_pair(backend: Backend) {
    let (server, client, user) = setup(backend);
    let first = client.password_grant(&server, USER, PASSWORD);
    let second = client
        .refresh(&server, &field(&first, "refresh_token"))
        .expect(200);
    assert_eq!(second.header("cache-control").as_deref(), Some("no-store"));
    let second = second.json();
    assert_ne!(
        field(&first, "access_token"),
        field(&second, "access_token")
    );
    assert_ne!(
        field(&first, "refresh_token"),
        field(&second, "refresh_token")
    );
    assert_eq!(second["scope"], "read write", "the original scope");
    assert_eq!(server.bearer_me_status(&field(&first, "access_token")), 401);
    assert_eq!(
        server.bearer_me_status(&field(&second, "access_token")),
        200
    );
    // One access token left; the old refresh token is kept, marked used.
    assert_eq!(
        server.query_i64(&format!(
            "SELECT count(*) FROM access_tokens WHERE user_id = {user}"
        )),
        1
    );
    assert_eq!(
        server.query_i64(&format!(
            "SELECT count(*) FROM refresh_tokens WHERE user_id = {user} AND revoked IS NOT NULL"
        )),
        1
    );
    // Presented again within the grace period: refused, and nothing else happens.
    let (error, description) = oauth_error(
        &client.refresh(&server, &field(&first, "refresh_token")),
        400,
    );
    assert_eq!(error, "invalid_grant");
    assert_eq!(description, "The refresh token is invalid.");
    assert_eq!(
        server.bearer_me_status(&field(&second, "access_token")),
        200
    );
    // Another client cannot use it.
    let other = server.oauth_client(
        server.create_organization("other"),
        "other",
        "password",
        "confidential",
    );
    let (error, _) = oauth_error(
        &other.refresh(&server, &field(&second, "refresh_token")),
        400,
    );
    assert_eq!(error, "invalid_grant");
    assert_eq!(
        server.bearer_me_status(&field(&second, "access_token")),
        200
    );
    // Unknown values are refused alike.
    assert_eq!(
        oauth_error(&client.refresh(&server, "no-such-token"), 400).0,
        "invalid_grant"
    );
    // Deleting the access token through the API ends its refresh token too.
    let id = server.query_i64(&format!(
        "SELECT id FROM access_tokens WHERE user_id = {user}"
    ));
    server
        .admin()
        .delete(&format!("/api/v2/tokens/{id}/"))
        .call()
        .expect(204);
    assert_eq!(
        oauth_error(
            &client.refresh(&server, &field(&second, "refresh_token")),
            400
        )
        .0,
        "invalid_grant"
    );
}

/// The rotation deletes the access token it replaces without moving the change counters this
/// server trusts: the server must drop the token's cached principal itself. Each old token is
/// used (and so cached) just before its rotation, and refused on the very next request.
fn a_rotated_access_token_is_refused_at_once(backend: Backend) {
    let (server, client, _) = setup(backend);
    let mut pair = client.password_grant(&server, USER, PASSWORD);
    for _ in 0..10 {
        let old = field(&pair, "access_token");
        assert_eq!(server.bearer_me_status(&old), 200);
        assert_eq!(server.bearer_me_status(&old), 200, "served from the cache");
        pair = client
            .refresh(&server, &field(&pair, "refresh_token"))
            .expect(200)
            .json();
        assert_eq!(server.bearer_me_status(&old), 401, "the replaced token");
        assert_eq!(server.bearer_me_status(&field(&pair, "access_token")), 200);
    }
}

/// Client authentication serves applications from the server's cache: deleting one must end
/// its client's access on the very next request.
fn a_deleted_application_is_refused_at_once(backend: Backend) {
    let (server, client, _) = setup(backend);
    client.password_grant(&server, USER, PASSWORD);
    client.password_grant(&server, USER, PASSWORD);
    server
        .admin()
        .delete(&format!("/api/v2/applications/{}/", client.id))
        .call()
        .expect(204);
    let refused = client.token_request(
        &server,
        &[
            ("grant_type", "password"),
            ("username", USER),
            ("password", PASSWORD),
        ],
    );
    assert_eq!(oauth_error(&refused, 401).0, "invalid_client");
}

fn refresh_scope_may_only_narrow(backend: Backend) {
    let (server, client, _) = setup(backend);
    let write = client.password_grant(&server, USER, PASSWORD);
    let read = client
        .token_request(
            &server,
            &[
                ("grant_type", "refresh_token"),
                ("refresh_token", &field(&write, "refresh_token")),
                ("scope", "read"),
            ],
        )
        .expect(200)
        .json();
    assert_eq!(read["scope"], "read");
    let wider = client.token_request(
        &server,
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", &field(&read, "refresh_token")),
            ("scope", "write"),
        ],
    );
    assert_eq!(oauth_error(&wider, 400).0, "invalid_scope");
    // The refused request changed nothing: the token still refreshes, as read.
    let again = client
        .refresh(&server, &field(&read, "refresh_token"))
        .expect(200)
        .json();
    assert_eq!(again["scope"], "read");
}

/// An owner narrows a client's token to `read`; one refresh must not bring `write` back (nor
/// may the client ask for it). Widened again, the refresh follows; the description stays.
fn a_refresh_keeps_the_scope_and_description_the_token_has_now(backend: Backend) {
    let (server, client, _) = setup(backend);
    let issued = client.password_grant(&server, USER, PASSWORD);
    assert_eq!(issued["scope"], "read write");
    let token_path = |pair: &serde_json::Value| {
        let value = field(pair, "access_token");
        let me = server
            .anonymous()
            .with_bearer(&value)
            .get("/api/v2/me/")
            .call()
            .expect(200)
            .json();
        let user = me["results"][0]["id"].clone();
        let tokens = server
            .admin()
            .get_json(&format!("/api/v2/users/{user}/tokens/?order_by=-id"));
        format!("/api/v2/tokens/{}/", tokens["results"][0]["id"])
    };
    let owner = server.as_user(USER, PASSWORD);
    owner
        .patch(&token_path(&issued))
        .json(&json!({"scope": "read", "description": "ci runner"}))
        .call()
        .expect(200);

    let refreshed = client
        .refresh(&server, &field(&issued, "refresh_token"))
        .expect(200)
        .json();
    assert_eq!(
        refreshed["scope"], "read",
        "the narrowed scope survives a refresh"
    );
    assert_eq!(
        server.bearer_write_status(&field(&refreshed, "access_token")),
        403
    );
    let path = token_path(&refreshed);
    let record = server.admin().get_json(&path);
    assert_eq!(record["scope"], "read");
    assert_eq!(
        record["description"], "ci runner",
        "the description survives a refresh"
    );
    let wider = client.token_request(
        &server,
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", &field(&refreshed, "refresh_token")),
            ("scope", "write"),
        ],
    );
    assert_eq!(oauth_error(&wider, 400).0, "invalid_scope");

    // Widened by its owner, the next refresh issues write.
    owner
        .patch(&path)
        .json(&json!({"scope": "write"}))
        .call()
        .expect(200);
    let widened = client
        .token_request(
            &server,
            &[
                ("grant_type", "refresh_token"),
                ("refresh_token", &field(&refreshed, "refresh_token")),
                ("scope", "write"),
            ],
        )
        .expect(200)
        .json();
    assert_eq!(widened["scope"], "write");
}

fn refresh_reuse_after_the_grace_period_revokes_the_chain(backend: Backend) {
    let (server, client, user) = setup(backend);
    let first = client.password_grant(&server, USER, PASSWORD);
    let second = client
        .refresh(&server, &field(&first, "refresh_token"))
        .expect(200)
        .json();
    let third = client
        .refresh(&server, &field(&second, "refresh_token"))
        .expect(200)
        .json();
    // An unrelated pair of the same user and client is not part of the chain.
    let unrelated = client.password_grant(&server, USER, PASSWORD);
    age_used_refresh_tokens(&server);
    let (error, _) = oauth_error(
        &client.refresh(&server, &field(&first, "refresh_token")),
        400,
    );
    assert_eq!(error, "invalid_grant");
    assert_eq!(server.bearer_me_status(&field(&third, "access_token")), 401);
    assert_eq!(
        oauth_error(
            &client.refresh(&server, &field(&third, "refresh_token")),
            400
        )
        .0,
        "invalid_grant"
    );
    assert_eq!(
        server.bearer_me_status(&field(&unrelated, "access_token")),
        200
    );
    client
        .refresh(&server, &field(&unrelated, "refresh_token"))
        .expect(200);
    assert_eq!(
        server.query_i64(&format!(
            "SELECT count(*) FROM refresh_tokens WHERE user_id = {user} AND revoked IS NULL"
        )),
        1,
        "only the unrelated chain's newest token is left"
    );
    // Every access token that went is recorded as deleted, with the client as the cause and
    // no secret: two rotations of the chain, its last token on reuse, and the unrelated
    // pair's rotation.
    let deleted = server
        .admin()
        .get_json("/api/v2/activity_stream/?operation=delete&object1=o_auth2_access_token");
    let entries = deleted["results"].as_array().expect("results").clone();
    let count = |cause: &str| {
        entries
            .iter()
            .filter(|entry| entry["changes"][cause] == client.client_id.as_str())
            .count()
    };
    assert_eq!(
        (
            count("rotated_by_client"),
            count("revoked_on_reuse_by_client")
        ),
        (3, 1),
        "{deleted}"
    );
    let body = serde_json::to_string(&deleted).expect("json");
    for pair in [&first, &second, &third, &unrelated] {
        assert!(!body.contains(&field(pair, "access_token")), "{body}");
        assert!(!body.contains(&field(pair, "refresh_token")), "{body}");
    }
}

fn expired_refresh_tokens_are_refused_and_kept(backend: Backend) {
    let (server, client, _) = setup(backend);
    let pair = client.password_grant(&server, USER, PASSWORD);
    server.execute_sql("UPDATE refresh_tokens SET created = '2000-01-01 00:00:00'");
    let (error, description) = oauth_error(
        &client.refresh(&server, &field(&pair, "refresh_token")),
        400,
    );
    assert_eq!(error, "invalid_grant");
    assert_eq!(description, "The refresh token has expired.");
    // Nothing changed: the access token still works.
    assert_eq!(server.bearer_me_status(&field(&pair, "access_token")), 200);
    assert_eq!(
        server.query_i64("SELECT count(*) FROM refresh_tokens WHERE revoked IS NULL"),
        1
    );
}

/// A narrowing of a token (`PATCH /api/v2/tokens/<id>/ {"scope": "read"}`) that races its
/// refresh is never undone: whenever the narrowing landed, the pair the refresh issued is
/// `read`, and the refresh still succeeds. Many rounds, each released at once by a barrier.
fn a_refresh_never_undoes_a_narrowing_that_races_it(backend: Backend) {
    let (server, client, _) = setup(backend);
    let server = Arc::new(server);
    let owner = server.as_user(USER, PASSWORD);
    let mut narrowed_first = 0;
    for round in 0..40 {
        let pair = client.password_grant(&server, USER, PASSWORD);
        let id = server.query_i64("SELECT MAX(id) FROM access_tokens");
        let barrier = Arc::new(Barrier::new(2));
        let refresh = {
            let (server, client, barrier) = (server.clone(), client.clone(), barrier.clone());
            let token = field(&pair, "refresh_token");
            std::thread::spawn(move || {
                barrier.wait();
                client.refresh(&server, &token)
            })
        };
        barrier.wait();
        let narrowing = owner
            .patch(&format!("/api/v2/tokens/{id}/"))
            .json(&json!({"scope": "read"}))
            .call();
        let refreshed = refresh.join().expect("the refresh thread");
        assert_eq!(refreshed.status, 200, "round {round}: {}", refreshed.body);
        let issued = refreshed.json();
        match narrowing.status {
            // Narrowed before the rotation: what the refresh issued carries it.
            200 => {
                narrowed_first += 1;
                assert_eq!(issued["scope"], "read", "round {round}: {issued}");
            }
            // The rotation came first and deleted the access token.
            404 => assert_eq!(issued["scope"], "read write", "round {round}: {issued}"),
            other => panic!(
                "round {round}: the narrowing answered {other}: {}",
                narrowing.body
            ),
        }
    }
    eprintln!("narrowings that landed before the rotation: {narrowed_first} of 40");
}

fn twenty_concurrent_refreshes_have_one_winner(backend: Backend) {
    let (server, client, user) = setup(backend);
    let pair = client.password_grant(&server, USER, PASSWORD);
    let refresh_token = field(&pair, "refresh_token");
    let server = Arc::new(server);
    let barrier = Arc::new(Barrier::new(20));
    let replies: Vec<acs_tests::Reply> = (0..20)
        .map(|_| {
            let (server, client, barrier, token) = (
                server.clone(),
                client.clone(),
                barrier.clone(),
                refresh_token.clone(),
            );
            std::thread::spawn(move || {
                barrier.wait();
                client.refresh(&server, &token)
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|thread| thread.join().expect("a refresh thread"))
        .collect();
    let winners: Vec<_> = replies.iter().filter(|r| r.status == 200).collect();
    assert_eq!(winners.len(), 1, "exactly one refresh wins");
    for loser in replies.iter().filter(|r| r.status != 200) {
        assert_eq!(oauth_error(loser, 400).0, "invalid_grant");
    }
    let new = winners[0].json();
    // Exactly one new pair exists: the old refresh token (used) and the new one.
    assert_eq!(
        server.query_i64(&format!(
            "SELECT count(*) FROM access_tokens WHERE user_id = {user}"
        )),
        1
    );
    assert_eq!(
        server.query_i64(&format!(
            "SELECT count(*) FROM refresh_tokens WHERE user_id = {user}"
        )),
        2
    );
    assert_eq!(server.bearer_me_status(&field(&new, "access_token")), 200);
    // The old token presented after the grace period revokes the new pair.
    age_used_refresh_tokens(&server);
    assert_eq!(
        oauth_error(&client.refresh(&server, &refresh_token), 400).0,
        "invalid_grant"
    );
    assert_eq!(server.bearer_me_status(&field(&new, "access_token")), 401);
    assert_eq!(
        oauth_error(&client.refresh(&server, &field(&new, "refresh_token")), 400).0,
        "invalid_grant"
    );
}

fn external_users_are_refused_on_every_grant(backend: Backend) {
    let directory = Directory::start();
    directory.add_user(USER, PASSWORD, "Grace", "Dir", "grace@example.com");
    let server = TestServer::start(backend);
    directory.configure(&server);
    let org = server.create_organization("acme");
    let user = directory.first_login(&server, USER, PASSWORD);
    server.add_member(org, user);
    let client = server.oauth_client(org, "cli", "password", "confidential");
    let allow = |allowed: bool| server.allow_oauth2_for_external_users(allowed);
    let refused = |reply: acs_tests::Reply| {
        assert_eq!(
            oauth_error(&reply, 403),
            (
                "access_denied".to_owned(),
                "(access_denied) OAuth2 Tokens cannot be created by users associated with an external authentication provider (ldap)".to_owned()
            )
        );
    };
    refused(client.token_request(
        &server,
        &[
            ("grant_type", "password"),
            ("username", USER),
            ("password", PASSWORD),
        ],
    ));
    assert_eq!(server.query_i64("SELECT count(*) FROM access_tokens"), 0);
    allow(true);
    let pair = client.password_grant(&server, USER, PASSWORD);
    allow(false);
    // Existing tokens keep working, but a refresh would create one.
    assert_eq!(server.bearer_me_status(&field(&pair, "access_token")), 200);
    refused(client.refresh(&server, &field(&pair, "refresh_token")));
    // The refused refresh rolled back: the pair is intact and refreshes once allowed.
    assert_eq!(server.bearer_me_status(&field(&pair, "access_token")), 200);
    allow(true);
    client
        .refresh(&server, &field(&pair, "refresh_token"))
        .expect(200);
}

fn endpoint_map_and_server_metadata(backend: Backend) {
    let server = TestServer::start(backend);
    let anonymous = server.anonymous();
    assert_eq!(
        anonymous.get_json("/api/o/"),
        json!({
            "authorize": "/api/o/authorize/",
            "token": "/api/o/token/",
            "revoke_token": "/api/o/revoke_token/",
            "introspect": "/api/o/introspect/",
        })
    );
    anonymous.post("/api/o/").call().expect(405);
    let metadata = anonymous.get_json("/.well-known/oauth-authorization-server");
    assert_eq!(metadata["issuer"], server.base.as_str());
    assert_eq!(
        metadata["token_endpoint"],
        server.url("/api/o/token/").as_str()
    );
    assert_eq!(
        metadata["code_challenge_methods_supported"],
        json!(["S256"])
    );
    assert_eq!(metadata["response_types_supported"], json!(["code"]));
    server
        .admin()
        .patch("/api/v2/settings/system/")
        .json(&json!({"BASE_URL": "https://acs.example.com/"}))
        .call()
        .expect(200);
    let metadata = anonymous.get_json("/.well-known/oauth-authorization-server");
    assert_eq!(metadata["issuer"], "https://acs.example.com");
    assert_eq!(
        metadata["revocation_endpoint"],
        "https://acs.example.com/api/o/revoke_token/"
    );
}

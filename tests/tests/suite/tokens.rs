//! `/api/v2/tokens/` and the token sub-lists: creation paths, masking, expiry, revocation,
//! bearer authentication, the external-user rule and who may do what.

use acs_tests::{Agent, Backend, Call, TestServer, backend_tests};
use serde_json::{Value, json};

backend_tests!(
    personal_token_is_shown_once_and_authenticates,
    application_token_gets_a_refresh_token,
    scope_is_validated_and_defaults_to_write,
    only_scope_and_description_change,
    revocation_takes_effect_on_the_next_request,
    expired_and_unknown_tokens_get_the_generic_401,
    lifetimes_follow_the_setting,
    external_users_need_the_setting,
    token_access_matrix,
    user_sublists_follow_the_reference,
    authorized_tokens_need_an_application,
    invalid_bearer_falls_through_to_the_session,
    secret_fields_cannot_be_filtered,
    token_changes_reach_the_activity_stream,
    deleting_the_organization_revokes_its_application_tokens,
    tokens_deleted_with_their_holder_are_recorded,
);

const MASK: &str = "************";

/// A confidential password-grant application in a new organization, created by admin.
fn application(server: &TestServer, name: &str) -> (i64, i64) {
    let org = server.create_organization(&format!("{name}-org"));
    (server.password_application(org, name, None), org)
}

fn token_path(id: &Value) -> String {
    format!("/api/v2/tokens/{id}/")
}

fn seconds_until(timestamp: &str) -> i64 {
    let expires = chrono::DateTime::parse_from_rfc3339(timestamp)
        .unwrap_or_else(|e| panic!("{timestamp}: {e}"));
    (expires.with_timezone(&chrono::Utc) - chrono::Utc::now()).num_seconds()
}

fn personal_token_is_shown_once_and_authenticates(backend: Backend) {
    let server = TestServer::start(backend);
    let alice_id = server.create_user("alice", "pw-alice-1", false);
    let alice = server.as_user("alice", "pw-alice-1");
    let created = alice
        .post(&format!("/api/v2/users/{alice_id}/personal_tokens/"))
        .json(&json!({ "description": "laptop", "application": 5, "scope": "write" }))
        .call()
        .expect(201);
    assert_eq!(
        created.header("Location").as_deref(),
        Some(token_path(&created.json()["id"]).as_str())
    );
    let record = created.json();
    let keys: Vec<&str> = record
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "id",
            "type",
            "url",
            "related",
            "summary_fields",
            "created",
            "modified",
            "description",
            "user",
            "token",
            "refresh_token",
            "application",
            "expires",
            "scope"
        ]
    );
    assert_eq!(record["type"], "o_auth2_access_token");
    assert_eq!(record["user"], alice_id);
    // The personal-token endpoint ignores a posted application.
    assert_eq!(record["application"], Value::Null);
    assert_eq!(record["refresh_token"], Value::Null);
    assert_eq!(record["summary_fields"]["user"]["username"], "alice");
    assert_eq!(
        record["related"]["activity_stream"],
        format!("{}activity_stream/", token_path(&record["id"]))
    );
    let token = record["token"].as_str().expect("token").to_owned();
    assert!(token.len() >= 27, "at least 160 bits: {token}");
    // Letters and digits only, as AWX's: a value starting with '-' would read as an option
    // to command lines that take it as an argument (`awx --conf.token <value>`).
    assert!(token.chars().all(|c| c.is_ascii_alphanumeric()), "{token}");

    let bearer = server.anonymous().with_bearer(&token);
    let me = bearer.get_json("/api/v2/me/");
    assert_eq!(me["results"][0]["username"], "alice");

    let shown = alice.get_json(&token_path(&record["id"]));
    assert_eq!(shown["token"], MASK);
    assert_eq!(shown["refresh_token"], Value::Null);
    let listed = alice.get_json("/api/v2/tokens/");
    assert_eq!(listed["count"], 1);
    assert_eq!(listed["results"][0]["token"], MASK);
}

fn application_token_gets_a_refresh_token(backend: Backend) {
    let server = TestServer::start(backend);
    let (app, _) = application(&server, "cli");
    let admin = server.admin();
    let record = admin
        .post("/api/v2/tokens/")
        .json(&json!({ "application": app, "scope": "read" }))
        .call()
        .expect(201)
        .json();
    assert_eq!(record["application"], app);
    let refresh = record["refresh_token"].as_str().expect("refresh token");
    assert_ne!(refresh, MASK);
    assert_ne!(refresh, record["token"].as_str().expect("token"));
    assert_eq!(record["summary_fields"]["application"]["id"], app);
    assert_eq!(record["summary_fields"]["application"]["name"], "cli");
    assert_eq!(
        record["summary_fields"]["application"]["client_id"]
            .as_str()
            .map(str::len),
        Some(40)
    );
    assert_eq!(
        record["related"]["application"],
        format!("/api/v2/applications/{app}/")
    );
    let shown = admin.get_json(&token_path(&record["id"]));
    assert_eq!(shown["token"], MASK);
    assert_eq!(shown["refresh_token"], MASK);

    // The same through the application's own list.
    let via_app = admin
        .post(&format!("/api/v2/applications/{app}/tokens/"))
        .json(&json!({ "scope": "write" }))
        .call()
        .expect(201)
        .json();
    assert_eq!(via_app["application"], app);
    let tokens = admin.get_json(&format!("/api/v2/applications/{app}/tokens/"));
    assert_eq!(tokens["count"], 2);
    let app_record = admin.get_json(&format!("/api/v2/applications/{app}/"));
    assert_eq!(app_record["summary_fields"]["tokens"]["count"], 2);
    assert_eq!(
        app_record["summary_fields"]["tokens"]["results"][0]["token"],
        MASK
    );

    // A missing application is a field error.
    let missing = admin
        .post("/api/v2/tokens/")
        .json(&json!({ "application": 999_999 }))
        .call()
        .expect(400);
    assert_eq!(
        missing.field_errors("application"),
        ["Invalid pk \"999999\" - object does not exist."]
    );
}

fn scope_is_validated_and_defaults_to_write(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let created = admin
        .post("/api/v2/tokens/")
        .json(&json!({}))
        .call()
        .expect(201)
        .json();
    assert_eq!(created["scope"], "write");
    assert_eq!(created["description"], "");
    let message = "Must be a simple space-separated string with allowed scopes ['read', 'write'].";
    for bad in [
        json!(""),
        json!(null),
        json!("Write"),
        json!("read read"),
        json!("read rainbow"),
        json!("admin"),
        json!(7),
    ] {
        let reply = admin
            .post("/api/v2/tokens/")
            .json(&json!({ "scope": bad }))
            .call()
            .expect(400);
        let errors = reply.field_errors("scope");
        assert!(!errors.is_empty(), "{bad}: {}", reply.body);
        if bad.is_string() || bad.is_null() {
            assert_eq!(errors, [message], "{bad}");
        }
    }
    for good in ["read", "write", "read write", "write read"] {
        let record = admin
            .post("/api/v2/tokens/")
            .json(&json!({ "scope": good }))
            .call()
            .expect(201)
            .json();
        assert_eq!(record["scope"], good);
    }
}

fn only_scope_and_description_change(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let record = admin
        .post("/api/v2/tokens/")
        .json(&json!({ "scope": "read", "description": "before" }))
        .call()
        .expect(201)
        .json();
    let path = token_path(&record["id"]);
    let patched = admin
        .patch(&path)
        .json(&json!({ "description": "after", "user": 999, "expires": "2000-01-01T00:00:00Z", "token": "x" }))
        .call()
        .expect(200)
        .json();
    assert_eq!(patched["description"], "after");
    assert_eq!(patched["scope"], "read");
    assert_eq!(patched["user"], record["user"]);
    assert_eq!(patched["expires"], record["expires"]);
    assert_eq!(patched["token"], MASK);
    // PUT resets what it omits, as the reference does.
    let put = admin.put(&path).json(&json!({})).call().expect(200).json();
    assert_eq!(put["scope"], "write");
    assert_eq!(put["description"], "");
    admin
        .patch(&path)
        .json(&json!({ "scope": "everything" }))
        .call()
        .expect(400);
    // The token still authenticates with its new scope.
    let token = record["token"].as_str().expect("token");
    server
        .anonymous()
        .with_bearer(token)
        .get("/api/v2/me/")
        .call()
        .expect(200);
}

fn revocation_takes_effect_on_the_next_request(backend: Backend) {
    let server = TestServer::start(backend);
    server.create_user("bob", "pw-bob-1", false);
    let bob = server.as_user("bob", "pw-bob-1");
    let token = bob.personal_token("write");
    let bearer = server.anonymous().with_bearer(&token);
    // Warm every cache on the path.
    for _ in 0..3 {
        bearer.get("/api/v2/me/").call().expect(200);
    }
    let id = bob.get_json("/api/v2/tokens/")["results"][0]["id"].clone();
    bob.delete(&token_path(&id)).call().expect(204);
    let refused = bearer.get("/api/v2/me/").call().expect(401);
    assert!(
        refused.detail().ends_with("visit /api/login/."),
        "{}",
        refused.body
    );
    assert_eq!(
        refused.header("WWW-Authenticate").as_deref(),
        Some("Bearer realm=api authorization_url=/api/o/authorize/")
    );
    bob.get(&token_path(&id)).call().expect(404);

    // A token may revoke itself, and deleting the user revokes theirs too (behind the
    // server's back: straight in the database, as another node would).
    let second = bob.personal_token("write");
    let second_bearer = server.anonymous().with_bearer(&second);
    second_bearer.get("/api/v2/me/").call().expect(200);
    server.execute_sql("DELETE FROM access_tokens");
    second_bearer.get("/api/v2/me/").call().expect(401);
}

fn expired_and_unknown_tokens_get_the_generic_401(backend: Backend) {
    let server = TestServer::start(backend);
    let token = server.admin().personal_token("write");
    let bearer = server.anonymous().with_bearer(&token);
    bearer.get("/api/v2/me/").call().expect(200);
    server.execute_sql("UPDATE access_tokens SET expires = '2000-01-01 00:00:00'");
    let expired = bearer.get("/api/v2/me/").call().expect(401);
    assert_eq!(
        expired.detail(),
        "Authentication credentials were not provided. To establish a login session, visit /api/login/."
    );
    for header in [
        "Bearer nonsense",
        "Bearer ",
        "Bearer a b",
        "Bearer a\tb",
        "Token abc",
    ] {
        server
            .anonymous()
            .get("/api/v2/me/")
            .header("Authorization", header)
            .call()
            .expect(401);
    }
    // The scheme is case-insensitive.
    let fresh = server.admin().personal_token("read");
    server
        .anonymous()
        .get("/api/v2/me/")
        .header("Authorization", format!("bEaReR {fresh}"))
        .call()
        .expect(200);
}

fn lifetimes_follow_the_setting(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let (app, _) = application(&server, "timed");
    let default_personal = admin
        .post("/api/v2/tokens/")
        .json(&json!({}))
        .call()
        .expect(201)
        .json();
    let year = seconds_until(default_personal["expires"].as_str().expect("expires"));
    assert!((31_535_900..=31_536_000).contains(&year), "{year}");

    admin
        .patch("/api/v2/settings/authentication/")
        .json(&json!({ "OAUTH2_PROVIDER": {
            "ACCESS_TOKEN_EXPIRE_SECONDS": 1000,
            "PERSONAL_ACCESS_TOKEN_EXPIRE_SECONDS": 500,
        }}))
        .call()
        .expect(200);
    let personal = admin
        .post("/api/v2/tokens/")
        .json(&json!({}))
        .call()
        .expect(201)
        .json();
    let left = seconds_until(personal["expires"].as_str().expect("expires"));
    assert!((400..=500).contains(&left), "personal: {left}");
    let app_token = admin
        .post("/api/v2/tokens/")
        .json(&json!({ "application": app }))
        .call()
        .expect(201)
        .json();
    let left = seconds_until(app_token["expires"].as_str().expect("expires"));
    assert!((900..=1000).contains(&left), "application: {left}");
}

fn external_users_need_the_setting(backend: Backend) {
    let directory = acs_tests::ldap::Directory::start();
    directory.add_user("carol", "pw-carol-1", "Carol", "Dir", "carol@example.com");
    let server = TestServer::start(backend);
    directory.configure(&server);
    let carol_id = directory.first_login(&server, "carol", "pw-carol-1");
    let carol = server.anonymous().with_basic("carol", "pw-carol-1");
    let allow = |allowed: bool| server.allow_oauth2_for_external_users(allowed);
    // A token made while the setting allowed it.
    allow(true);
    let before = carol.personal_token("write");
    allow(false);
    let message = "(access_denied) OAuth2 Tokens cannot be created by users associated with an external authentication provider (ldap)";
    for path in [
        "/api/v2/tokens/".to_owned(),
        format!("/api/v2/users/{carol_id}/personal_tokens/"),
        format!("/api/v2/users/{carol_id}/tokens/"),
    ] {
        let refused = carol
            .post(&path)
            .json(&json!({ "scope": "read" }))
            .call()
            .expect(403);
        assert_eq!(refused.detail(), message, "{path}");
    }
    assert_eq!(
        server
            .admin()
            .get_json(&format!("/api/v2/users/{carol_id}/"))["external_account"],
        "ldap"
    );
    // Tokens made before keep working.
    let bearer = server.anonymous().with_bearer(&before);
    bearer.get("/api/v2/me/").call().expect(200);

    allow(true);
    let allowed = carol.personal_token("write");
    allow(false);
    // Turning it off again revokes nothing.
    server
        .anonymous()
        .with_bearer(&allowed)
        .get("/api/v2/me/")
        .call()
        .expect(200);
    carol
        .post("/api/v2/tokens/")
        .json(&json!({}))
        .call()
        .expect(403);
}

/// One user per role around organization O, each with a personal token.
struct Cast {
    server: TestServer,
    org_admin: Agent,
    member: Agent,
    other_member: Agent,
    stranger: Agent,
    auditor: Agent,
    tokens: std::collections::HashMap<&'static str, Value>,
}

fn cast(backend: Backend) -> Cast {
    let server = TestServer::start(backend);
    let org = server.create_organization("O");
    let roles = [
        ("org_admin", "pw-org-admin"),
        ("member", "pw-member-1"),
        ("other_member", "pw-other-1"),
        ("stranger", "pw-stranger"),
    ];
    let mut ids = std::collections::HashMap::new();
    for (name, password) in roles {
        ids.insert(name, server.create_user(name, password, false));
    }
    server.create_auditor("auditor", "pw-auditor");
    server.add_admin(org, ids["org_admin"]);
    server.add_member(org, ids["member"]);
    server.add_member(org, ids["other_member"]);
    let agent = |name: &str| {
        let password = roles
            .iter()
            .chain(&[("auditor", "pw-auditor")])
            .find(|(n, _)| *n == name)
            .map(|(_, p)| *p)
            .expect("known role");
        server.as_user(name, password)
    };
    let mut tokens = std::collections::HashMap::new();
    for name in ["org_admin", "member", "other_member", "stranger", "auditor"] {
        let record = agent(name)
            .post("/api/v2/tokens/")
            .json(&json!({ "description": name }))
            .call()
            .expect(201)
            .json();
        tokens.insert(name, record["id"].clone());
    }
    tokens.insert(
        "admin",
        server
            .admin()
            .post("/api/v2/tokens/")
            .json(&json!({}))
            .call()
            .expect(201)
            .json()["id"]
            .clone(),
    );
    Cast {
        org_admin: agent("org_admin"),
        member: agent("member"),
        other_member: agent("other_member"),
        stranger: agent("stranger"),
        auditor: agent("auditor"),
        server,
        tokens,
    }
}

fn listed(agent: &Agent) -> Vec<String> {
    let mut names: Vec<String> = agent.get_json("/api/v2/tokens/")["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|t| {
            t["summary_fields"]["user"]["username"]
                .as_str()
                .unwrap_or("")
                .to_owned()
        })
        .collect();
    names.sort();
    names
}

fn token_access_matrix(backend: Backend) {
    let cast = cast(backend);
    let all = [
        "admin",
        "auditor",
        "member",
        "org_admin",
        "other_member",
        "stranger",
    ];
    assert_eq!(listed(&cast.server.admin()), all);
    assert_eq!(listed(&cast.auditor), all);
    assert_eq!(
        listed(&cast.org_admin),
        ["member", "org_admin", "other_member"]
    );
    assert_eq!(listed(&cast.member), ["member"]);
    assert_eq!(listed(&cast.stranger), ["stranger"]);

    // (agent, owner of the token, may read, may change and delete)
    let rows: [(&str, &Agent, &str, bool, bool); 9] = [
        ("auditor reads", &cast.auditor, "member", true, false),
        (
            "org admin manages a member's",
            &cast.org_admin,
            "member",
            true,
            true,
        ),
        (
            "org admin and a stranger's",
            &cast.org_admin,
            "stranger",
            false,
            false,
        ),
        (
            "member and another member's",
            &cast.member,
            "other_member",
            false,
            false,
        ),
        ("member and own", &cast.member, "member", true, true),
        (
            "stranger and a member's",
            &cast.stranger,
            "member",
            false,
            false,
        ),
        (
            "org admin and the auditor's",
            &cast.org_admin,
            "auditor",
            false,
            false,
        ),
        ("auditor and own", &cast.auditor, "auditor", true, true),
        ("member and admin's", &cast.member, "admin", false, false),
    ];
    for (name, agent, owner, read, write) in rows {
        let path = token_path(&cast.tokens[owner]);
        agent.get(&path).call().expect(if read { 200 } else { 403 });
        let patch = agent
            .patch(&path)
            .json(&json!({ "description": "changed" }))
            .call();
        assert_eq!(
            patch.status,
            if write { 200 } else { 403 },
            "{name}: {}",
            patch.body
        );
    }
    // Delete last, so the rows above still find their tokens.
    for (agent, owner, allowed) in [
        (&cast.auditor, "member", false),
        (&cast.member, "other_member", false),
        (&cast.org_admin, "member", true),
        (&cast.stranger, "stranger", true),
    ] {
        let path = token_path(&cast.tokens[owner]);
        agent
            .delete(&path)
            .call()
            .expect(if allowed { 204 } else { 403 });
    }
    // A superuser manages everyone's; a missing token is 404; anonymous is 401.
    let admin = cast.server.admin();
    admin
        .delete(&token_path(&cast.tokens["other_member"]))
        .call()
        .expect(204);
    admin.get("/api/v2/tokens/999999/").call().expect(404);
    cast.server
        .anonymous()
        .get("/api/v2/tokens/")
        .call()
        .expect(401);
    cast.other_member
        .get(&token_path(&cast.tokens["other_member"]))
        .call()
        .expect(404);
}

fn user_sublists_follow_the_reference(backend: Backend) {
    let cast = cast(backend);
    let server = &cast.server;
    let member_id = cast.member.get_json("/api/v2/me/")["results"][0]["id"].clone();
    let stranger_id = cast.stranger.get_json("/api/v2/me/")["results"][0]["id"].clone();
    // The org admin sees the member's tokens under the member.
    let page = cast
        .org_admin
        .get_json(&format!("/api/v2/users/{member_id}/tokens/"));
    assert_eq!(page["count"], 1);
    assert_eq!(page["results"][0]["user"], member_id);
    // personal_tokens lists the caller's own, whichever visible user is in the path.
    let page = cast
        .org_admin
        .get_json(&format!("/api/v2/users/{member_id}/personal_tokens/"));
    assert_eq!(page["count"], 1);
    assert_eq!(
        page["results"][0]["summary_fields"]["user"]["username"],
        "org_admin"
    );
    // A token posted under another user belongs to the caller.
    let made = cast
        .org_admin
        .post(&format!("/api/v2/users/{member_id}/tokens/"))
        .json(&json!({ "scope": "read" }))
        .call()
        .expect(201)
        .json();
    assert_eq!(
        made["summary_fields"]["user"]["username"], "org_admin",
        "{made}"
    );
    // An invisible user is 403, a missing one 404; usernames work too.
    cast.member
        .get(&format!("/api/v2/users/{stranger_id}/tokens/"))
        .call()
        .expect(403);
    cast.member
        .get("/api/v2/users/999999/personal_tokens/")
        .call()
        .expect(404);
    cast.member
        .get_json("/api/v2/users/member/personal_tokens/");
    server
        .anonymous()
        .get("/api/v2/users/member/personal_tokens/")
        .call()
        .expect(401);
}

fn authorized_tokens_need_an_application(backend: Backend) {
    let server = TestServer::start(backend);
    let (app, _) = application(&server, "authz");
    let admin = server.admin();
    let required = admin
        .post("/api/v2/users/admin/authorized_tokens/")
        .json(&json!({ "scope": "read" }))
        .call()
        .expect(400);
    assert_eq!(
        required.field_errors("application"),
        ["This field is required."]
    );
    let null = admin
        .post("/api/v2/users/admin/authorized_tokens/")
        .json(&json!({ "application": null }))
        .call()
        .expect(400);
    assert_eq!(
        null.field_errors("application"),
        ["This field may not be null."]
    );
    let made = admin
        .post("/api/v2/users/admin/authorized_tokens/")
        .json(&json!({ "application": app }))
        .call()
        .expect(201)
        .json();
    assert!(made["refresh_token"].as_str().is_some_and(|r| r != MASK));
    let listed = admin.get_json("/api/v2/users/admin/authorized_tokens/");
    assert_eq!(listed["count"], 1);
    let personal = admin.get_json("/api/v2/users/admin/personal_tokens/");
    assert_eq!(personal["count"], 0);

    // A member of another organization cannot see the application, so cannot use it.
    server.create_user("dave", "pw-dave-1", false);
    server
        .as_user("dave", "pw-dave-1")
        .post("/api/v2/tokens/")
        .json(&json!({ "application": app }))
        .call()
        .expect(403);
}

fn invalid_bearer_falls_through_to_the_session(backend: Backend) {
    let server = TestServer::start(backend);
    let browser = server.client();
    server.login(&browser, "admin", &server.admin_password);
    let me = browser
        .get("/api/v2/me/")
        .header("Authorization", "Bearer not-a-token")
        .call()
        .expect(200)
        .json();
    assert_eq!(me["results"][0]["username"], "admin");
    // An invalid bearer with valid Basic credentials: Basic wins.
    server.admin().get("/api/v2/me/").call().expect(200);
}

fn secret_fields_cannot_be_filtered(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    admin.personal_token("write");
    for query in [
        "token=abc",
        "token__startswith=a",
        "refresh_token=x",
        "order_by=token",
    ] {
        admin
            .get(&format!("/api/v2/tokens/?{query}"))
            .call()
            .expect(403);
    }
    assert_eq!(
        admin.get_json("/api/v2/tokens/?scope=write&order_by=-id")["count"],
        1
    );
    assert_eq!(admin.get_json("/api/v2/tokens/?search=tes")["count"], 1);
    admin.get("/api/v2/tokens/?nonsense=1").call().expect(400);
}

fn token_changes_reach_the_activity_stream(backend: Backend) {
    let server = TestServer::start(backend);
    server.create_user("erin", "pw-erin-1", false);
    let erin = server.as_user("erin", "pw-erin-1");
    let created = erin
        .post("/api/v2/tokens/")
        .json(&json!({ "scope": "read", "description": "ci" }))
        .call()
        .expect(201)
        .json();
    let plain = created["token"].as_str().expect("token").to_owned();
    let path = token_path(&created["id"]);
    erin.patch(&path)
        .json(&json!({ "scope": "write" }))
        .call()
        .expect(200);
    let stream = erin.get_json(&format!("{path}activity_stream/"));
    let operations: Vec<&str> = stream["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|e| e["operation"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(operations, ["create", "update"], "{stream}");
    let create = &stream["results"][0];
    assert_eq!(create["type"], "activity_stream");
    assert_eq!(create["object1"], "o_auth2_access_token");
    assert_eq!(create["summary_fields"]["actor"]["username"], "erin");
    // The token's id, which the database assigned in the same write as the entry.
    assert_eq!(
        create["summary_fields"]["o_auth2_access_token"],
        json!([{ "id": created["id"], "name": "ci" }]),
        "{create}"
    );
    assert_eq!(create["changes"]["token"], MASK);
    assert_eq!(create["changes"]["scope"], "read");
    assert_eq!(
        stream["results"][1]["changes"]["scope"],
        json!(["read", "write"])
    );
    erin.delete(&path).call().expect(204);

    // The whole stream: the superuser sees it all, erin sees her own actions only, and no
    // entry carries the token.
    let everything = server
        .admin()
        .get_json("/api/v2/activity_stream/?page_size=200");
    assert!(!everything.to_string().contains(&plain));
    let ops: Vec<String> = everything["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|e| {
            format!(
                "{}:{}",
                e["object1"].as_str().unwrap_or(""),
                e["operation"].as_str().unwrap_or("")
            )
        })
        .collect();
    for expected in [
        "user:create",
        "o_auth2_access_token:create",
        "o_auth2_access_token:update",
        "o_auth2_access_token:delete",
    ] {
        assert!(ops.iter().any(|op| op == expected), "{expected} in {ops:?}");
    }
    let own = erin.get_json("/api/v2/activity_stream/");
    assert_eq!(own["count"], 4, "{own}");
    let first = own["results"][0]["id"].clone();
    erin.get(&format!("/api/v2/activity_stream/{first}/"))
        .call()
        .expect(200);
    server.create_user("frank", "pw-frank-1", false);
    server
        .as_user("frank", "pw-frank-1")
        .get(&format!("/api/v2/activity_stream/{first}/"))
        .call()
        .expect(404);
}

fn deleting_the_organization_revokes_its_application_tokens(backend: Backend) {
    let server = TestServer::start(backend);
    let (app, org) = application(&server, "doomed");
    let admin = server.admin();
    let record = admin
        .post("/api/v2/tokens/")
        .json(&json!({ "application": app }))
        .call()
        .expect(201)
        .json();
    let bearer = server
        .anonymous()
        .with_bearer(record["token"].as_str().expect("token"));
    bearer.get("/api/v2/me/").call().expect(200);
    admin
        .delete(&format!("/api/v2/organizations/{org}/"))
        .call()
        .expect(204);
    bearer.get("/api/v2/me/").call().expect(401);
    admin
        .get(&format!("/api/v2/applications/{app}/"))
        .call()
        .expect(404);
}

/// Deleting an application, an organization or a user takes their tokens with it; each token
/// is recorded as deleted, by the user who deleted the holder, with the holder named and no
/// secret.
fn tokens_deleted_with_their_holder_are_recorded(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let grace = server.create_user("grace", "pw-grace-12345", false);
    let grace_agent = server.as_user("grace", "pw-grace-12345");
    let issue = |agent: &Agent, application: Option<i64>| {
        let record = agent
            .post("/api/v2/tokens/")
            .json(&json!({ "application": application }))
            .call()
            .expect(201)
            .json();
        (
            record["id"].as_i64().expect("id"),
            record["token"].as_str().expect("token").to_owned(),
        )
    };
    let (app, _) = application(&server, "app");
    let (doomed_app, doomed_org) = application(&server, "org");
    let (by_app, _) = issue(&admin, Some(app));
    let (by_org, _) = issue(&admin, Some(doomed_app));
    let (by_user, personal) = issue(&grace_agent, None);
    admin
        .delete(&format!("/api/v2/applications/{app}/"))
        .call()
        .expect(204);
    admin
        .delete(&format!("/api/v2/organizations/{doomed_org}/"))
        .call()
        .expect(204);
    admin
        .delete(&format!("/api/v2/users/{grace}/"))
        .call()
        .expect(204);

    let page = admin.get_json(
        "/api/v2/activity_stream/?operation=delete&object1=o_auth2_access_token&page_size=200",
    );
    let deleted_with = |token: i64| {
        let entry = page["results"]
            .as_array()
            .expect("results")
            .iter()
            .find(|entry| entry["changes"]["id"] == token)
            .unwrap_or_else(|| panic!("no deletion of token {token} in {page}"));
        assert_eq!(
            entry["summary_fields"]["actor"]["username"], "admin",
            "{entry}"
        );
        entry["changes"]["deleted_with"].clone()
    };
    assert_eq!(deleted_with(by_app)["o_auth2_application"]["id"], app);
    assert_eq!(deleted_with(by_org)["organization"]["id"], doomed_org);
    assert_eq!(deleted_with(by_user)["user"]["id"], grace);
    assert!(!page.to_string().contains(&personal), "{page}");
}

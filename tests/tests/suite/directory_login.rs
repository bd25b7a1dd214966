//! Directory (LDAP) login against a real OpenLDAP `slapd` (contract §3): the `ldap` settings
//! are validated and keep the bind password sealed; the login form, HTTP Basic and the
//! password grant try local users, then the directory; a first login creates the linked
//! external user, later logins find it by its DN; the directory is asked every time; external
//! users get no token while `ALLOW_OAUTH2_FOR_EXTERNAL_USERS` is off; bad configuration never
//! logs anyone in and never answers 500.

use acs_tests::ldap::Directory;
use acs_tests::{Agent, Backend, Call, TestServer, backend_tests};
use serde_json::{Value, json};

const EXTERNAL_DENIED: &str = "(access_denied) OAuth2 Tokens cannot be created by users associated with an external authentication provider (ldap)";

fn me(agent: &Agent) -> Value {
    agent.get_json("/api/v2/me/")["results"][0].clone()
}

fn settings_are_validated_and_the_bind_password_sealed(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let path = "/api/v2/settings/ldap/";
    let cases = [
        (
            "AUTH_LDAP_SERVER_URI",
            json!("http://directory.example.com"),
        ),
        (
            "AUTH_LDAP_USER_SEARCH",
            json!(["ou=people,dc=x", "SCOPE_BASE", "(uid=%(user)s)"]),
        ),
        (
            "AUTH_LDAP_USER_SEARCH",
            json!(["ou=people,dc=x", "SCOPE_SUBTREE"]),
        ),
        ("AUTH_LDAP_USER_DN_TEMPLATE", json!("uid=alice,dc=x")),
        ("AUTH_LDAP_USER_ATTR_MAP", json!({"is_superuser": "x"})),
        ("AUTH_LDAP_START_TLS", json!("yes")),
    ];
    for (name, value) in cases {
        let errors = admin
            .patch(path)
            .json(&json!({ name: value }))
            .call()
            .expect(400)
            .field_errors(name);
        assert!(!errors.is_empty(), "{name}");
    }
    admin
        .patch(path)
        .json(
            &json!({"AUTH_LDAP_BIND_PASSWORD": "s3cret-bind-pw", "AUTH_LDAP_BIND_DN": "cn=reader"}),
        )
        .call()
        .expect(200);
    let shown = admin.get_json(path);
    assert_eq!(shown["AUTH_LDAP_BIND_PASSWORD"], "$encrypted$");
    assert_eq!(shown["AUTH_LDAP_BIND_DN"], "cn=reader");
    let stored = server.query_i64(
        "SELECT COUNT(*) FROM settings WHERE key = 'AUTH_LDAP_BIND_PASSWORD' AND value LIKE '%s3cret-bind-pw%'",
    );
    assert_eq!(stored, 0, "the bind password is not stored in clear");
    // Sending the mask back keeps the stored value.
    admin
        .patch(path)
        .json(&json!({"AUTH_LDAP_BIND_PASSWORD": "$encrypted$"}))
        .call()
        .expect(200);
    assert_eq!(
        server.query_i64("SELECT COUNT(*) FROM settings WHERE key = 'AUTH_LDAP_BIND_PASSWORD'"),
        1
    );
}

fn directory_users_log_in_and_are_linked(backend: Backend) {
    let directory = Directory::start();
    directory.add_user(
        "alice",
        "al1ce-dir-pw",
        "Alice",
        "Liddell",
        "alice@example.com",
    );
    directory.add_user("bob", "b0b-dir-pw", "Robert", "Dir", "bob@example.com");
    let server = TestServer::start(backend);
    directory.configure(&server);
    server.create_user("bob", "b0b-local-pw", false);

    // Basic: a first login creates the user from the directory.
    let alice = server.anonymous().with_basic("alice", "al1ce-dir-pw");
    let record = me(&alice);
    assert_eq!(record["username"], "alice");
    assert_eq!(record["external_account"], "ldap");
    assert_eq!(
        (
            record["first_name"].clone(),
            record["last_name"].clone(),
            record["email"].clone()
        ),
        (json!("Alice"), json!("Liddell"), json!("alice@example.com"))
    );
    let id = record["id"].clone();
    // The form: the same user again.
    let browser = server.client();
    server.login(&browser, "alice", "al1ce-dir-pw");
    assert_eq!(me(&browser)["id"], id);
    let users = server
        .admin()
        .get_json("/api/v2/users/?username__startswith=alice")["count"]
        .clone();
    assert_eq!(users, 1);

    // A local user keeps its account; the directory's bob becomes another user.
    assert_eq!(
        me(&server.anonymous().with_basic("bob", "b0b-local-pw"))["external_account"],
        Value::Null
    );
    let directory_bob = me(&server.anonymous().with_basic("bob", "b0b-dir-pw"));
    assert_eq!(directory_bob["username"], "bob2");
    assert_eq!(directory_bob["external_account"], "ldap");

    // Wrong, empty and filter-shaped credentials never log in.
    for (username, password) in [
        ("alice", "wrong"),
        ("alice", ""),
        ("*", "al1ce-dir-pw"),
        ("alice)(uid=*", "al1ce-dir-pw"),
    ] {
        server
            .anonymous()
            .with_basic(username, password)
            .get("/api/v2/me/")
            .call()
            .expect(401);
    }

    // The directory is asked every time: a new password counts at once, the old one no more.
    directory.set_password("alice", "n3w-dir-pw");
    alice.get("/api/v2/me/").call().expect(401);
    assert_eq!(
        me(&server.anonymous().with_basic("alice", "n3w-dir-pw"))["id"],
        id
    );
    directory.add_user(
        "carol",
        "c4rol-dir-pw",
        "Carol",
        "Gone",
        "carol@example.com",
    );
    let carol = server.anonymous().with_basic("carol", "c4rol-dir-pw");
    me(&carol);
    directory.delete_user("carol");
    carol.get("/api/v2/me/").call().expect(401);
    let failed = server
        .login_attempt(&server.client(), "carol", "c4rol-dir-pw", None)
        .expect(401);
    assert!(
        failed
            .body
            .contains("Please enter a correct username and password"),
        "{}",
        failed.body
    );

    // The DN template works as well as the search.
    server
        .admin()
        .patch("/api/v2/settings/ldap/")
        .json(&json!({"AUTH_LDAP_USER_DN_TEMPLATE": format!("uid=%(user)s,{}", directory.people_dn())}))
        .call()
        .expect(200);
    assert_eq!(
        me(&server.anonymous().with_basic("alice", "n3w-dir-pw"))["id"],
        id
    );
}

fn external_users_get_tokens_only_when_allowed(backend: Backend) {
    let directory = Directory::start();
    directory.add_user("dora", "d0ra-dir-pw", "Dora", "Dir", "dora@example.com");
    let server = TestServer::start(backend);
    directory.configure(&server);
    let dora = server.anonymous().with_basic("dora", "d0ra-dir-pw");
    let id = me(&dora)["id"].clone();
    let tokens = format!("/api/v2/users/{id}/personal_tokens/");
    let refused = dora
        .post(&tokens)
        .json(&json!({"scope": "read"}))
        .call()
        .expect(403);
    assert!(refused.body.contains(EXTERNAL_DENIED), "{}", refused.body);
    server
        .admin()
        .patch("/api/v2/settings/authentication/")
        .json(&json!({"ALLOW_OAUTH2_FOR_EXTERNAL_USERS": true}))
        .call()
        .expect(200);
    let token = dora
        .post(&tokens)
        .json(&json!({"scope": "read"}))
        .call()
        .expect(201)
        .json()["token"]
        .as_str()
        .expect("a token")
        .to_owned();
    server
        .admin()
        .patch("/api/v2/settings/authentication/")
        .json(&json!({"ALLOW_OAUTH2_FOR_EXTERNAL_USERS": false}))
        .call()
        .expect(200);
    assert_eq!(
        me(&server.anonymous().with_bearer(&token))["username"],
        "dora",
        "tokens made while allowed keep working"
    );
    dora.post(&tokens)
        .json(&json!({"scope": "read"}))
        .call()
        .expect(403);
}

fn bad_configuration_never_logs_in(backend: Backend) {
    let directory = Directory::start();
    directory.add_user("erin", "er1n-dir-pw", "Erin", "Dir", "erin@example.com");
    let server = TestServer::start(backend);
    directory.configure(&server);
    let admin = server.admin();
    // A wrong bind password: the search cannot run.
    admin
        .patch("/api/v2/settings/ldap/")
        .json(&json!({"AUTH_LDAP_BIND_PASSWORD": "not-the-password"}))
        .call()
        .expect(200);
    server
        .anonymous()
        .with_basic("erin", "er1n-dir-pw")
        .get("/api/v2/me/")
        .call()
        .expect(401);
    let page = server
        .login_attempt(&server.client(), "erin", "er1n-dir-pw", None)
        .expect(401);
    assert!(
        page.body
            .contains("refused the configured bind DN or password"),
        "{}",
        page.body
    );
    // StartTLS asked of a server that offers no TLS: the login fails; nothing falls back to
    // sending the password in clear.
    admin
        .patch("/api/v2/settings/ldap/")
        .json(&json!({"AUTH_LDAP_BIND_PASSWORD": directory.reader_password(), "AUTH_LDAP_START_TLS": true}))
        .call()
        .expect(200);
    server
        .anonymous()
        .with_basic("erin", "er1n-dir-pw")
        .get("/api/v2/me/")
        .call()
        .expect(401);
    let page = server
        .login_attempt(&server.client(), "erin", "er1n-dir-pw", None)
        .expect(401);
    assert!(
        page.body.contains("Directory login is unavailable"),
        "{}",
        page.body
    );
    admin
        .patch("/api/v2/settings/ldap/")
        .json(&json!({"AUTH_LDAP_START_TLS": false}))
        .call()
        .expect(200);
    // An unreachable server: a closed port answers at once.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("a port")
        .local_addr()
        .expect("addr")
        .port();
    admin
        .patch("/api/v2/settings/ldap/")
        .json(&json!({"AUTH_LDAP_SERVER_URI": format!("ldap://127.0.0.1:{closed}"), "AUTH_LDAP_BIND_PASSWORD": directory.reader_password()}))
        .call()
        .expect(200);
    let page = server
        .login_attempt(&server.client(), "erin", "er1n-dir-pw", None)
        .expect(401);
    assert!(page.body.contains("cannot be reached"), "{}", page.body);
    server
        .anonymous()
        .with_basic("erin", "er1n-dir-pw")
        .get("/api/v2/me/")
        .call()
        .expect(401);
    // Local users still log in.
    server
        .anonymous()
        .with_basic("admin", &server.admin_password)
        .get("/api/v2/me/")
        .call()
        .expect(200);
    assert_eq!(admin.get_json("/api/v2/users/?username=erin")["count"], 0);
}

/// A directory user's password is the directory's: nobody sets a local one (an organization
/// admin who added them, the user, a superuser), so none logs in, and once the directory
/// removes them nothing does.
fn directory_users_are_given_no_local_password(backend: Backend) {
    let directory = Directory::start();
    directory.add_user("dana", "d4na-dir-pw", "Dana", "Dir", "dana@example.com");
    let server = TestServer::start(backend);
    directory.configure(&server);
    let dana = server.anonymous().with_basic("dana", "d4na-dir-pw");
    let id = me(&dana)["id"].as_i64().expect("dana's id");
    let organization = server.create_organization("Directory people");
    let boss = server.create_user("boss", "b0ss-local-pw", false);
    server.add_admin(organization, boss);
    let boss = server.as_user("boss", "b0ss-local-pw");
    boss.post(&format!("/api/v2/organizations/{organization}/users/"))
        .json(&json!({"id": id}))
        .call()
        .expect(204);

    let path = format!("/api/v2/users/{id}/");
    for (agent, password) in [
        (&boss, "b0ss-chose-this"),
        (&dana, "d4na-local-pw"),
        (&server.admin(), "admin-chose-this"),
    ] {
        let refused = agent
            .patch(&path)
            .json(&json!({"password": password}))
            .call()
            .expect(400)
            .json();
        assert!(
            refused["password"][0]
                .as_str()
                .is_some_and(|reason| reason.contains("external account (\"ldap\")")),
            "{refused}"
        );
        server
            .anonymous()
            .with_basic("dana", password)
            .get("/api/v2/me/")
            .call()
            .expect(401);
    }
    // What must still succeed: the admin's other changes, and the directory's password.
    boss.patch(&path)
        .json(&json!({"first_name": "Dana B."}))
        .call()
        .expect(200);
    assert_eq!(me(&dana)["id"], id);

    directory.delete_user("dana");
    dana.get("/api/v2/me/").call().expect(401);
}

backend_tests!(
    directory_users_are_given_no_local_password,
    settings_are_validated_and_the_bind_password_sealed,
    directory_users_log_in_and_are_linked,
    external_users_get_tokens_only_when_allowed,
    bad_configuration_never_logs_in,
);

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

/// The `ldap` group settings pointing at `directory`'s groups (groupOfNames, found by their
/// members' DNs), with `more` settings in the same change.
fn search_groups(server: &TestServer, directory: &Directory, more: Value) {
    let mut settings = json!({
        "AUTH_LDAP_GROUP_SEARCH": [directory.groups_dn(), "SCOPE_SUBTREE", "(objectClass=groupOfNames)"],
    });
    let extra = more.as_object().expect("settings").clone();
    settings.as_object_mut().expect("settings").extend(extra);
    server
        .admin()
        .patch("/api/v2/settings/ldap/")
        .json(&settings)
        .call()
        .expect(200);
}

/// The id of the one object at `path` (a filtered list).
fn only_id(agent: &Agent, path: &str) -> i64 {
    let page = agent.get_json(path);
    assert_eq!(page["count"], 1, "{path}: {page}");
    page["results"][0]["id"].as_i64().expect("an id")
}

fn directory_groups_decide_memberships_and_flags(backend: Backend) {
    let directory = Directory::start();
    for (uid, password) in [
        ("gina", "g1na-dir-pw"),
        ("hugo", "hug0-dir-pw"),
        ("ivan", "1van-dir-pw"),
    ] {
        directory.add_user(uid, password, uid, "Dir", &format!("{uid}@example.com"));
    }
    directory.add_group("ops", &["gina", "hugo", "ivan"]);
    directory.add_group("admins", &["gina"]);
    directory.add_group("auditors", &["gina", "ivan"]);
    directory.add_group("banned", &["ivan"]);
    let server = TestServer::start(backend);
    directory.configure(&server);
    let group = |cn: &str| directory.group_dn(cn);
    search_groups(
        &server,
        &directory,
        json!({
            "AUTH_LDAP_DENY_GROUP": group("banned"),
            "AUTH_LDAP_USER_FLAGS_BY_GROUP": {"is_system_auditor": group("auditors")},
            "AUTH_LDAP_ORGANIZATION_MAP": {"Ops": {"admins": group("admins"), "users": group("ops")}},
            "AUTH_LDAP_TEAM_MAP": {"On-call": {"organization": "Ops", "users": [group("ops")]}},
        }),
    );
    let admin = server.admin();
    assert_eq!(
        admin.get_json("/api/v2/organizations/?name=Ops")["count"],
        0,
        "made only when someone is added"
    );

    let gina = server.anonymous().with_basic("gina", "g1na-dir-pw");
    let record = me(&gina);
    assert_eq!(record["is_system_auditor"], true);
    assert_eq!(record["is_superuser"], false);
    let gina_id = record["id"].as_i64().expect("gina's id");
    let ops = only_id(&admin, "/api/v2/organizations/?name=Ops");
    let on_call = only_id(
        &admin,
        &format!("/api/v2/teams/?name=On-call&organization={ops}"),
    );
    assert_eq!(
        admin.usernames_at(&format!("/api/v2/organizations/{ops}/admins/")),
        ["gina"]
    );
    assert_eq!(
        admin.usernames_at(&format!("/api/v2/teams/{on_call}/users/")),
        ["gina"]
    );

    let hugo = server.anonymous().with_basic("hugo", "hug0-dir-pw");
    let hugo_id = me(&hugo)["id"].as_i64().expect("hugo's id");
    assert_eq!(me(&hugo)["is_system_auditor"], false);
    assert!(
        admin
            .usernames_at(&format!("/api/v2/organizations/{ops}/users/"))
            .contains(&"hugo".to_owned())
    );
    assert_eq!(
        admin.usernames_at(&format!("/api/v2/organizations/{ops}/admins/")),
        ["gina"]
    );
    assert_eq!(
        admin.usernames_at(&format!("/api/v2/teams/{on_call}/users/")),
        ["gina", "hugo"]
    );

    // The deny group keeps ivan out, by every door, and no account is made.
    server
        .anonymous()
        .with_basic("ivan", "1van-dir-pw")
        .get("/api/v2/me/")
        .call()
        .expect(401);
    server
        .login_attempt(&server.client(), "ivan", "1van-dir-pw", None)
        .expect(401);
    assert_eq!(admin.get_json("/api/v2/users/?username=ivan")["count"], 0);

    // Each change once: two made, gina's three roles and one flag, hugo's two roles; a login
    // that changes nothing writes nothing.
    let written = admin.activity_from("ldap");
    assert_eq!(written.len(), 8, "{written:#?}");
    assert_eq!(
        written
            .iter()
            .filter(|entry| entry.starts_with("create "))
            .count(),
        2
    );
    assert_eq!(
        written
            .iter()
            .filter(|entry| entry.starts_with("associate "))
            .count(),
        5
    );
    assert_eq!(
        written
            .iter()
            .filter(|entry| entry.contains("is_system_auditor"))
            .count(),
        1
    );
    me(&gina);
    me(&server.anonymous().with_basic("hugo", "hug0-dir-pw"));
    assert_eq!(admin.activity_from("ldap").len(), 8);

    // Leaving a group in the directory takes the membership away at the next login.
    directory.remove_group_member("ops", "hugo");
    directory.remove_group_member("auditors", "gina");
    me(&server.anonymous().with_basic("hugo", "hug0-dir-pw"));
    assert!(
        !admin
            .usernames_at(&format!("/api/v2/organizations/{ops}/users/"))
            .contains(&"hugo".to_owned())
    );
    assert_eq!(
        admin.usernames_at(&format!("/api/v2/teams/{on_call}/users/")),
        ["gina"]
    );
    assert_eq!(
        me(&server.anonymous().with_basic("gina", "g1na-dir-pw"))["is_system_auditor"],
        false
    );
    let written = admin.activity_from("ldap");
    assert_eq!(written.len(), 11, "{written:#?}");
    assert_eq!(
        written
            .iter()
            .filter(|entry| entry.starts_with("disassociate "))
            .count(),
        2
    );

    // With the remove flags off, leaving the group keeps what was given.
    directory.add_group_member("ops", "hugo");
    me(&server.anonymous().with_basic("hugo", "hug0-dir-pw"));
    admin
        .patch("/api/v2/settings/ldap/")
        .json(&json!({
            "AUTH_LDAP_ORGANIZATION_MAP": {"Ops": {"admins": group("admins"), "users": group("ops"), "remove_users": false}},
            "AUTH_LDAP_TEAM_MAP": {"On-call": {"organization": "Ops", "users": group("ops"), "remove": false}},
        }))
        .call()
        .expect(200);
    directory.remove_group_member("ops", "hugo");
    me(&server.anonymous().with_basic("hugo", "hug0-dir-pw"));
    assert!(
        admin
            .usernames_at(&format!("/api/v2/organizations/{ops}/users/"))
            .contains(&"hugo".to_owned())
    );
    assert_eq!(
        admin.usernames_at(&format!("/api/v2/teams/{on_call}/users/")),
        ["gina", "hugo"]
    );

    // The flag the directory owns is not changed by hand (same value passes); others are.
    let refused = admin
        .patch(&format!("/api/v2/users/{gina_id}/"))
        .json(&json!({"is_system_auditor": true}))
        .call()
        .expect(400)
        .field_errors("is_system_auditor");
    assert!(
        refused
            .iter()
            .any(|reason| reason.contains("AUTH_LDAP_USER_FLAGS_BY_GROUP")),
        "{refused:?}"
    );
    admin
        .patch(&format!("/api/v2/users/{gina_id}/"))
        .json(&json!({"is_system_auditor": false, "first_name": "Gina"}))
        .call()
        .expect(200);
    admin
        .patch(&format!("/api/v2/users/{hugo_id}/"))
        .json(&json!({"is_superuser": true}))
        .call()
        .expect(200);
    let local = server.create_user("lena", "l3na-local-pw", false);
    admin
        .patch(&format!("/api/v2/users/{local}/"))
        .json(&json!({"is_system_auditor": true}))
        .call()
        .expect(200);
}

fn require_group_and_other_group_types(backend: Backend) {
    let directory = Directory::start();
    for uid in ["jill", "kurt", "Bob"] {
        directory.add_user(
            uid,
            &format!("{uid}-dir-pw"),
            uid,
            "Dir",
            &format!("{uid}@example.com"),
        );
    }
    directory.add_group("staff", &["jill"]);
    let server = TestServer::start(backend);
    directory.configure(&server);
    let admin = server.admin();
    search_groups(
        &server,
        &directory,
        json!({"AUTH_LDAP_REQUIRE_GROUP": directory.group_dn("staff")}),
    );
    me(&server.anonymous().with_basic("jill", "jill-dir-pw"));
    server
        .anonymous()
        .with_basic("kurt", "kurt-dir-pw")
        .get("/api/v2/me/")
        .call()
        .expect(401);
    directory.add_group_member("staff", "kurt");
    me(&server.anonymous().with_basic("kurt", "kurt-dir-pw"));

    // Nested groups: a member of a group that is a member of the mapped group.
    directory.add_group("platform", &["kurt"]);
    directory.add_ldif(&format!(
        "dn: {}\nobjectClass: groupOfNames\ncn: engineering\nmember: {}\n",
        directory.group_dn("engineering"),
        directory.group_dn("platform")
    ));
    let engineering = json!({"Engineering": {"users": directory.group_dn("engineering")}});
    admin
        .patch("/api/v2/settings/ldap/")
        .json(&json!({"AUTH_LDAP_ORGANIZATION_MAP": engineering}))
        .call()
        .expect(200);
    me(&server.anonymous().with_basic("kurt", "kurt-dir-pw"));
    assert_eq!(
        admin.get_json("/api/v2/organizations/?name=Engineering")["count"],
        0,
        "not nested: not a member"
    );
    admin
        .patch("/api/v2/settings/ldap/")
        .json(&json!({"AUTH_LDAP_GROUP_TYPE": "NestedGroupOfNamesType", "AUTH_LDAP_GROUP_TYPE_PARAMS": {"name_attr": "cn"}}))
        .call()
        .expect(200);
    me(&server.anonymous().with_basic("kurt", "kurt-dir-pw"));
    let organization = only_id(&admin, "/api/v2/organizations/?name=Engineering");
    assert_eq!(
        admin.usernames_at(&format!("/api/v2/organizations/{organization}/users/")),
        ["kurt"]
    );

    // POSIX groups name their members by uid.
    directory.add_posix_group("devs", 5000, &["jill"]);
    admin
        .patch("/api/v2/settings/ldap/")
        .json(&json!({
            "AUTH_LDAP_REQUIRE_GROUP": null,
            "AUTH_LDAP_GROUP_SEARCH": [directory.groups_dn(), "SCOPE_SUBTREE", "(objectClass=posixGroup)"],
            "AUTH_LDAP_GROUP_TYPE": "PosixGroupType",
            "AUTH_LDAP_GROUP_TYPE_PARAMS": {"name_attr": "cn"},
            "AUTH_LDAP_ORGANIZATION_MAP": {"Dev": {"users": directory.group_dn("devs")}},
        }))
        .call()
        .expect(200);
    me(&server.anonymous().with_basic("jill", "jill-dir-pw"));
    let dev = only_id(&admin, "/api/v2/organizations/?name=Dev");
    assert_eq!(
        admin.usernames_at(&format!("/api/v2/organizations/{dev}/users/")),
        ["jill"]
    );

    // A local account is never taken over by a directory name differing only in case.
    server.create_user("bob", "b0b-local-pw", false);
    let directory_bob = me(&server.anonymous().with_basic("Bob", "Bob-dir-pw"));
    assert_eq!(directory_bob["username"], "Bob2");
    assert_eq!(directory_bob["external_account"], "ldap");
    assert_eq!(
        me(&server.anonymous().with_basic("bob", "b0b-local-pw"))["external_account"],
        Value::Null
    );
}

fn group_settings_are_refused_with_reasons(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let path = "/api/v2/settings/ldap/";
    let search = json!([
        "ou=groups,dc=acs,dc=test",
        "SCOPE_SUBTREE",
        "(objectClass=groupOfNames)"
    ]);
    let cases = [
        (
            json!({"AUTH_LDAP_GROUP_SEARCH": ["not a dn", "SCOPE_SUBTREE", "(cn=*)"]}),
            "AUTH_LDAP_GROUP_SEARCH",
            "Invalid DN",
        ),
        (
            json!({"AUTH_LDAP_GROUP_SEARCH": ["ou=groups,dc=x", "SCOPE_ALL", "(cn=*)"]}),
            "AUTH_LDAP_GROUP_SEARCH",
            "not a valid choice",
        ),
        (
            json!({"AUTH_LDAP_GROUP_SEARCH": ["ou=groups,dc=x", "SCOPE_BASE"]}),
            "AUTH_LDAP_GROUP_SEARCH",
            "three items",
        ),
        (
            json!({"AUTH_LDAP_GROUP_TYPE": "NoSuchGroupType"}),
            "AUTH_LDAP_GROUP_TYPE",
            "not a valid choice",
        ),
        (
            json!({"AUTH_LDAP_GROUP_TYPE": "PosixGroupType"}),
            "AUTH_LDAP_GROUP_TYPE",
            "member_attr",
        ),
        (
            json!({"AUTH_LDAP_GROUP_TYPE_PARAMS": ["member"]}),
            "AUTH_LDAP_GROUP_TYPE_PARAMS",
            "dict",
        ),
        (
            json!({"AUTH_LDAP_GROUP_SEARCH": search, "AUTH_LDAP_TEAM_MAP": {"T": {"users": true}}}),
            "AUTH_LDAP_TEAM_MAP",
            "organization",
        ),
        (
            json!({"AUTH_LDAP_GROUP_SEARCH": search, "AUTH_LDAP_ORGANIZATION_MAP": {"O": {"remove": true}}}),
            "AUTH_LDAP_ORGANIZATION_MAP",
            "remove",
        ),
        (
            json!({"AUTH_LDAP_GROUP_SEARCH": search, "AUTH_LDAP_USER_FLAGS_BY_GROUP": {"is_superuser": []}}),
            "AUTH_LDAP_USER_FLAGS_BY_GROUP",
            "",
        ),
        (
            json!({"AUTH_LDAP_GROUP_SEARCH": search, "AUTH_LDAP_DENY_GROUP": "not a dn"}),
            "AUTH_LDAP_DENY_GROUP",
            "Invalid DN",
        ),
        (
            json!({"AUTH_LDAP_ORGANIZATION_MAP": {"O": {"users": true}}}),
            "AUTH_LDAP_ORGANIZATION_MAP",
            "AUTH_LDAP_GROUP_SEARCH",
        ),
        (
            json!({"AUTH_LDAP_REQUIRE_GROUP": "cn=staff,ou=groups,dc=acs,dc=test"}),
            "AUTH_LDAP_REQUIRE_GROUP",
            "AUTH_LDAP_GROUP_SEARCH",
        ),
    ];
    let before = admin.get_json(path);
    for (change, field, reason) in cases {
        let errors = admin
            .patch(path)
            .json(&change)
            .call()
            .expect(400)
            .field_errors(field);
        assert!(
            errors.iter().any(|error| error.contains(reason)),
            "{change}: {errors:?}"
        );
    }
    assert_eq!(admin.get_json(path), before, "nothing refused was stored");

    // Together they are fine; taking the search away from what reads it is not.
    admin
        .patch(path)
        .json(&json!({"AUTH_LDAP_GROUP_SEARCH": search, "AUTH_LDAP_ORGANIZATION_MAP": {"O": {"users": true}}}))
        .call()
        .expect(200);
    let errors = admin
        .patch(path)
        .json(&json!({"AUTH_LDAP_GROUP_SEARCH": []}))
        .call()
        .expect(400)
        .field_errors("AUTH_LDAP_GROUP_SEARCH");
    assert!(
        errors
            .iter()
            .any(|error| error.contains("AUTH_LDAP_ORGANIZATION_MAP")),
        "{errors:?}"
    );
    admin
        .patch(path)
        .json(&json!({"AUTH_LDAP_GROUP_SEARCH": [], "AUTH_LDAP_ORGANIZATION_MAP": {}}))
        .call()
        .expect(200);
    // The type and its parameters change together.
    admin
        .patch(path)
        .json(&json!({"AUTH_LDAP_GROUP_TYPE": "PosixGroupType", "AUTH_LDAP_GROUP_TYPE_PARAMS": {"name_attr": "cn"}}))
        .call()
        .expect(200);
}

backend_tests!(
    directory_users_are_given_no_local_password,
    settings_are_validated_and_the_bind_password_sealed,
    directory_users_log_in_and_are_linked,
    external_users_get_tokens_only_when_allowed,
    bad_configuration_never_logs_in,
    directory_groups_decide_memberships_and_flags,
    require_group_and_other_group_types,
    group_settings_are_refused_with_reasons,
);

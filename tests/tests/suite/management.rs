//! The management commands (`revoke_oauth2_tokens`, `create_oauth2_token`, `cleanup_tokens`),
//! run as built binaries against a running server's database, and the server's scheduled
//! clean-up.

use std::process::Command;
use std::time::{Duration, Instant};

use acs_tests::{Backend, Call, TestServer, backend_tests, honoured_within_bound};
use serde_json::{Value, json};

backend_tests!(
    revocation_takes_effect_within_the_bound,
    user_option_revokes_only_that_users_tokens,
    all_option_also_revokes_refresh_tokens,
    created_token_authenticates_as_the_user,
    created_tokens_honour_the_external_user_setting,
    unknown_users_and_bad_arguments_are_refused,
    cleanup_deletes_only_what_expired,
    unreachable_database_is_reported_on_one_line,
    server_cleans_up_on_its_schedule,
);

/// How a command ended.
#[derive(Debug)]
struct Outcome {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Outcome {
    #[track_caller]
    fn success(self) -> Self {
        assert_eq!(self.code, Some(0), "{self:?}");
        self
    }

    #[track_caller]
    fn failure(self, code: i32) -> Self {
        assert_eq!(self.code, Some(code), "{self:?}");
        assert!(!self.stderr.contains("panicked"), "{self:?}");
        self
    }
}

fn run(mut command: Command, args: &[&str]) -> Outcome {
    let output = command
        .args(args)
        .output()
        .unwrap_or_else(|error| panic!("cannot run {command:?}: {error}"));
    Outcome {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn command(server: &TestServer, name: &str, args: &[&str]) -> Outcome {
    run(server.management_command(name), args)
}

/// A password-grant application owned by user `owner` (made a member of the application's
/// new organization); returns its id.
fn application(server: &TestServer, name: &str, owner: i64) -> i64 {
    let org = server.create_organization(&format!("{name}-org"));
    server.add_member(org, owner);
    server.password_application(org, name, Some(owner))
}

/// An application token of `agent`'s user (it comes with a refresh token); returns its value.
fn application_token(agent: &acs_tests::Agent, app: i64) -> String {
    let created = agent
        .post(&format!("/api/v2/applications/{app}/tokens/"))
        .json(&json!({ "scope": "write" }))
        .call()
        .expect(201)
        .json();
    assert!(created["refresh_token"].is_string(), "{created}");
    created["token"].as_str().expect("a token").to_owned()
}

/// The activity-stream entries of the system (no actor) with `name` as their object's name.
fn system_entries(server: &TestServer, name: &str) -> Vec<Value> {
    let page = server
        .admin()
        .get_json("/api/v2/activity_stream/?operation=delete&page_size=200");
    page["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|entry| entry["changes"]["command"] == name)
        .cloned()
        .collect()
}

fn revocation_takes_effect_within_the_bound(backend: Backend) {
    let server = TestServer::start(backend);
    server.create_user("alice", "pw-alice-1", false);
    let alice = server
        .as_user("alice", "pw-alice-1")
        .personal_token("write");
    let admin = server.admin().personal_token("read");
    // Used once, so the server holds both principals in its cache.
    assert_eq!(server.bearer_me_status(&alice), 200);
    assert_eq!(server.bearer_me_status(&admin), 200);

    let outcome = command(&server, "revoke_oauth2_tokens", &[]).success();
    // The command committed before it exited: the live server, which holds both tokens in
    // its cache, must refuse them within the consistency bound.
    let revoked_at = Instant::now();
    assert_eq!(outcome.stdout, "Revoked 2 access tokens.\n");
    for token in [&alice, &admin] {
        assert!(!outcome.stdout.contains(token.as_str()));
        assert!(!outcome.stderr.contains(token.as_str()));
        let delay = honoured_within_bound(revoked_at, 401, || server.bearer_me_status(token));
        eprintln!("revoke_oauth2_tokens honoured {delay:?} after the command exited");
    }
    assert_eq!(server.query_i64("SELECT COUNT(*) FROM access_tokens"), 0);

    let entries = system_entries(&server, "revoke_oauth2_tokens");
    assert_eq!(entries.len(), 1, "{entries:?}");
    let entry = &entries[0];
    assert_eq!(entry["object1"], "o_auth2_access_token");
    assert!(entry["summary_fields"].get("actor").is_none(), "{entry}");
    assert_eq!(
        entry["changes"],
        json!({
            "command": "revoke_oauth2_tokens",
            "user": null,
            "refresh_tokens": false,
            "revoked_access_tokens": 2,
            "revoked_refresh_tokens": 0,
        })
    );

    // Nothing left: still a success.
    let outcome = command(&server, "revoke_oauth2_tokens", &[]).success();
    assert_eq!(outcome.stdout, "Revoked 0 access tokens.\n");
}

fn user_option_revokes_only_that_users_tokens(backend: Backend) {
    let server = TestServer::start(backend);
    let alice_id = server.create_user("alice", "pw-alice-1", false);
    server.create_user("bob", "pw-bob-1", false);
    let alice = server.as_user("alice", "pw-alice-1");
    let alice_tokens = [alice.personal_token("write"), alice.personal_token("read")];
    let bob = server.as_user("bob", "pw-bob-1").personal_token("write");

    let outcome = command(&server, "revoke_oauth2_tokens", &["--user", "alice"]).success();
    assert_eq!(outcome.stdout, "Revoked 2 access tokens.\n");
    for token in &alice_tokens {
        assert_eq!(server.bearer_me_status(token), 401);
    }
    assert_eq!(server.bearer_me_status(&bob), 200);

    let entries = system_entries(&server, "revoke_oauth2_tokens");
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0]["changes"]["user"], "alice");
    assert_eq!(entries[0]["object2"], "user");
    // The entry is listed with alice's activity.
    let about_alice = server
        .admin()
        .get_json(&format!("/api/v2/users/{alice_id}/activity_stream/"));
    assert!(
        about_alice["results"]
            .as_array()
            .expect("results")
            .iter()
            .any(|entry| entry["changes"]["command"] == "revoke_oauth2_tokens"),
        "{about_alice}"
    );
}

fn all_option_also_revokes_refresh_tokens(backend: Backend) {
    let server = TestServer::start(backend);
    let alice_id = server.create_user("alice", "pw-alice-1", false);
    let bob_id = server.create_user("bob", "pw-bob-1", false);
    let alice = server.as_user("alice", "pw-alice-1");
    let bob = server.as_user("bob", "pw-bob-1");
    let alice_app = application(&server, "alice-cli", alice_id);
    application_token(&alice, alice_app);
    application_token(&alice, alice_app);
    let bob_token = application_token(&bob, application(&server, "bob-cli", bob_id));
    let unrevoked = "SELECT COUNT(*) FROM refresh_tokens WHERE revoked IS NULL";

    // Without --all, refresh tokens are left as they are.
    command(&server, "revoke_oauth2_tokens", &["--user", "alice"]).success();
    assert_eq!(server.query_i64(unrevoked), 3);

    let outcome = command(
        &server,
        "revoke_oauth2_tokens",
        &["--user", "alice", "--all"],
    )
    .success();
    assert_eq!(
        outcome.stdout,
        "Revoked 0 access tokens and 2 refresh tokens.\n"
    );
    assert_eq!(server.query_i64(unrevoked), 1);
    assert_eq!(server.bearer_me_status(&bob_token), 200);

    // The synonym the admin guide documents.
    let outcome = command(&server, "revoke_oauth2_tokens", &["--revoke_refresh"]).success();
    let revoked_at = Instant::now();
    assert_eq!(
        outcome.stdout,
        "Revoked 1 access token and 1 refresh token.\n"
    );
    assert_eq!(server.query_i64(unrevoked), 0);
    // Revoked refresh tokens stay as rows.
    assert_eq!(server.query_i64("SELECT COUNT(*) FROM refresh_tokens"), 3);
    honoured_within_bound(revoked_at, 401, || server.bearer_me_status(&bob_token));
}

fn created_token_authenticates_as_the_user(backend: Backend) {
    let server = TestServer::start(backend);
    server.create_user("alice", "pw-alice-1", false);
    let outcome = command(&server, "create_oauth2_token", &["--user", "alice"]).success();
    let token = outcome.stdout.trim_end_matches('\n');
    assert!(
        !token.is_empty() && !token.contains(char::is_whitespace),
        "{outcome:?}"
    );
    assert_eq!(outcome.stderr, "");
    let bearer = server.anonymous().with_bearer(token);
    let me = bearer.get_json("/api/v2/me/");
    assert_eq!(me["results"][0]["username"], "alice");

    let alice_id = me["results"][0]["id"].as_i64().expect("an id");
    let listed = server
        .admin()
        .get_json(&format!("/api/v2/tokens/?user={alice_id}"))["results"]
        .clone();
    assert_eq!(listed[0]["scope"], "write", "{listed}");
    assert_eq!(listed[0]["application"], Value::Null);
    assert_eq!(listed[0]["token"], "************");

    // The creation is recorded as the API records it, with no actor.
    let id = listed[0]["id"].as_i64().expect("a token id");
    let entries = server
        .admin()
        .get_json(&format!("/api/v2/tokens/{id}/activity_stream/"));
    let entry = &entries["results"][0];
    assert_eq!(entry["operation"], "create", "{entries}");
    assert!(entry["summary_fields"].get("actor").is_none(), "{entry}");
    assert_eq!(entry["changes"]["token"], "************");

    // A read-scoped token with a description.
    let outcome = command(
        &server,
        "create_oauth2_token",
        &["--user", "alice", "--scope", "read", "--description", "ci"],
    )
    .success();
    let read = server
        .anonymous()
        .with_bearer(outcome.stdout.trim_end_matches('\n'));
    read.get("/api/v2/me/").call().expect(200);
    read.post("/api/v2/tokens/")
        .json(&json!({}))
        .call()
        .expect(403);
}

fn created_tokens_honour_the_external_user_setting(backend: Backend) {
    let server = TestServer::start(backend);
    let carol_id = server.create_user("carol", "pw-carol-1", false);
    server.execute_sql(&format!(
        "UPDATE users SET external_account = 'ldap' WHERE id = {carol_id}"
    ));
    let refused = command(&server, "create_oauth2_token", &["--user", "carol"]).failure(1);
    assert_eq!(refused.stdout, "");
    assert_eq!(
        refused.stderr,
        "(access_denied) OAuth2 Tokens cannot be created by users associated with an external authentication provider (ldap)\n"
    );
    assert_eq!(server.query_i64("SELECT COUNT(*) FROM access_tokens"), 0);

    server
        .admin()
        .patch("/api/v2/settings/authentication/")
        .json(&json!({ "ALLOW_OAUTH2_FOR_EXTERNAL_USERS": true }))
        .call()
        .expect(200);
    let allowed = command(&server, "create_oauth2_token", &["--user", "carol"]).success();
    assert_eq!(
        server.bearer_me_status(allowed.stdout.trim_end_matches('\n')),
        200
    );
}

fn unknown_users_and_bad_arguments_are_refused(backend: Backend) {
    let server = TestServer::start(backend);
    let outcome = command(&server, "create_oauth2_token", &["--user", "nobody"]).failure(1);
    assert_eq!(outcome.stderr, "The user does not exist.\n");
    assert_eq!(outcome.stdout, "");
    let outcome = command(&server, "revoke_oauth2_tokens", &["--user", "nobody"]).failure(1);
    assert_eq!(
        outcome.stderr,
        "A user with that username does not exist.\n"
    );

    // Usage errors: clap's status 2.
    let outcome = command(&server, "create_oauth2_token", &[]).failure(2);
    assert!(outcome.stderr.contains("--user"), "{outcome:?}");
    command(
        &server,
        "create_oauth2_token",
        &["--user", "admin", "--scope", "all"],
    )
    .failure(2);
    command(&server, "revoke_oauth2_tokens", &["--everything"]).failure(2);
    command(&server, "cleanup_tokens", &["--now"]).failure(2);
    assert_eq!(server.query_i64("SELECT COUNT(*) FROM access_tokens"), 0);
}

fn cleanup_deletes_only_what_expired(backend: Backend) {
    let server = TestServer::start(backend);
    let alice_id = server.create_user("alice", "pw-alice-1", false);
    let alice = server.as_user("alice", "pw-alice-1");
    let expired = alice.personal_token("write");
    let valid = alice.personal_token("write");
    let app = application(&server, "cli", alice_id);
    let old_refresh = application_token(&alice, app);
    application_token(&alice, app);
    let long_ago = "'2000-01-01 00:00:00'";
    // The first personal token expired; the first application token's refresh token has
    // outlived REFRESH_TOKEN_EXPIRE_SECONDS (counted from its creation).
    server.execute_sql(&format!(
        "UPDATE access_tokens SET expires = {long_ago} WHERE id = (SELECT MIN(id) FROM access_tokens)"
    ));
    server.execute_sql(&format!(
        "UPDATE refresh_tokens SET created = {long_ago} WHERE id = (SELECT MIN(id) FROM refresh_tokens)"
    ));
    // Two authorization codes, one expired.
    for (digest, expires) in [("01", long_ago), ("02", "'2999-01-01 00:00:00'")] {
        let digest = match backend {
            Backend::Sqlite => format!("X'{digest}'"),
            Backend::Postgres => format!("decode('{digest}', 'hex')"),
        };
        server.execute_sql(&format!(
            "INSERT INTO authorization_codes (digest, application_id, user_id, redirect_uri, \
             redirect_uri_sent, scope, created, expires) VALUES ({digest}, {app}, {alice_id}, \
             'https://client.example/cb', TRUE, 'read', {long_ago}, {expires})"
        ));
    }
    // Two sessions, one expired.
    for _ in 0..2 {
        server.login(&server.client(), "alice", "pw-alice-1");
    }
    server.execute_sql(&format!(
        "UPDATE sessions SET expires = {long_ago} WHERE id = (SELECT MIN(id) FROM sessions)"
    ));

    let outcome = command(&server, "cleanup_tokens", &[]).success();
    assert_eq!(
        outcome.stdout,
        "Deleted 1 expired access token, 1 expired refresh token, 1 expired authorization code \
         and 1 expired session.\n"
    );
    assert_eq!(
        server.query_i64("SELECT COUNT(*) FROM authorization_codes"),
        1
    );
    assert_eq!(server.query_i64("SELECT COUNT(*) FROM access_tokens"), 3);
    assert_eq!(server.query_i64("SELECT COUNT(*) FROM refresh_tokens"), 1);
    assert_eq!(server.query_i64("SELECT COUNT(*) FROM sessions"), 1);
    assert_eq!(server.bearer_me_status(&expired), 401);
    assert_eq!(server.bearer_me_status(&valid), 200);
    // Only the refresh token went; its access token is still valid.
    assert_eq!(server.bearer_me_status(&old_refresh), 200);

    let entries = system_entries(&server, "cleanup_tokens");
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(
        entries[0]["changes"],
        json!({
            "command": "cleanup_tokens",
            "scheduled": false,
            "deleted_access_tokens": 1,
            "deleted_refresh_tokens": 1,
            "deleted_authorization_codes": 1,
            "deleted_sessions": 1,
        })
    );
    let again = command(&server, "cleanup_tokens", &[]).success();
    assert_eq!(
        again.stdout,
        "Deleted 0 expired access tokens, 0 expired refresh tokens, 0 expired authorization \
         codes and 0 expired sessions.\n"
    );
}

fn unreachable_database_is_reported_on_one_line(backend: Backend) {
    let server = TestServer::start(backend);
    let mut unreachable = server.management_command("revoke_oauth2_tokens");
    match backend {
        // Nothing listens on port 1.
        Backend::Postgres => unreachable.env("ACS_DATABASE_URL", "postgres://acs@127.0.0.1:1/acs"),
        Backend::Sqlite => unreachable.env("ACS_DATABASE_URL", "/nonexistent/acs.sqlite3"),
    };
    let outcome = run(unreachable, &[]).failure(1);
    assert_eq!(outcome.stdout, "");
    assert_eq!(outcome.stderr.lines().count(), 1, "{outcome:?}");
    assert!(outcome.stderr.contains("database"), "{outcome:?}");

    let mut missing = server.management_command("cleanup_tokens");
    missing.env_remove("ACS_DATABASE_URL");
    missing.env("ACS_DATA_DIR", "/nonexistent-acs-data");
    let outcome = run(missing, &[]).failure(1);
    assert_eq!(
        outcome.stderr,
        "no database at /nonexistent-acs-data/acs.sqlite3 (set ACS_DATABASE_URL or ACS_DATA_DIR as for acs-server, which creates it on first start)\n"
    );
    assert!(!std::path::Path::new("/nonexistent-acs-data").exists());
}

fn server_cleans_up_on_its_schedule(backend: Backend) {
    // The default is hourly; the setting is validated like every other.
    let defaults = TestServer::start(backend);
    let system = defaults.admin().get_json("/api/v2/settings/system/");
    assert_eq!(system["CLEANUP_TOKENS_INTERVAL_SECONDS"], 3600);
    for bad in [json!(-1), json!("soon"), json!(1.5)] {
        defaults
            .admin()
            .patch("/api/v2/settings/system/")
            .json(&json!({ "CLEANUP_TOKENS_INTERVAL_SECONDS": bad }))
            .call()
            .expect(400);
    }
    drop(defaults);

    let server = TestServer::start_with(backend, &[("ACS_CLEANUP_TOKENS_INTERVAL_SECONDS", "1")]);
    server.create_user("alice", "pw-alice-1", false);
    let alice = server.as_user("alice", "pw-alice-1");
    alice.personal_token("write");
    let valid = alice.personal_token("write");
    server.execute_sql(
        "UPDATE access_tokens SET expires = '2000-01-01 00:00:00' \
         WHERE id = (SELECT MIN(id) FROM access_tokens)",
    );
    // The run deletes in batches, then records its entry in a transaction of its own: wait
    // for both.
    let deadline = Instant::now() + Duration::from_secs(30);
    while server.query_i64("SELECT COUNT(*) FROM access_tokens") != 1
        || system_entries(&server, "cleanup_tokens").is_empty()
    {
        assert!(
            Instant::now() < deadline,
            "no scheduled clean-up of the expired token after 30 s"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(server.bearer_me_status(&valid), 200);
    let entries = system_entries(&server, "cleanup_tokens");
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0]["changes"]["scheduled"], true);
    assert_eq!(entries[0]["changes"]["deleted_access_tokens"], 1);

    // 0 turns it off.
    server
        .admin()
        .patch("/api/v2/settings/system/")
        .json(&json!({ "CLEANUP_TOKENS_INTERVAL_SECONDS": 0 }))
        .call()
        .expect(200);
    // Let a run that was already under way finish before the next expiry.
    std::thread::sleep(Duration::from_secs(2));
    server.execute_sql("UPDATE access_tokens SET expires = '2000-01-01 00:00:00'");
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(server.query_i64("SELECT COUNT(*) FROM access_tokens"), 1);
}

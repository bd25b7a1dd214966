//! `/api/v2/settings/`: categories, defaults, validation, who may read and write, and settings
//! taking effect; `/api/v2/settings/all/`, every setting at once under the same rules.

use acs_tests::{Backend, Call, SESSION_COOKIE, TestServer, backend_tests};
use serde_json::{Value, json};

backend_tests!(
    categories_are_listed,
    authentication_defaults,
    session_cookie_age_below_minimum_is_400,
    unknown_oauth2_provider_key_is_400,
    invalid_cors_regex_is_400,
    unknown_setting_is_400,
    rejected_patch_changes_nothing,
    normal_user_gets_403,
    anonymous_gets_401,
    unknown_category_is_404,
    valid_patch_is_read_back_and_used_by_the_next_login,
    delete_restores_defaults,
    all_shows_every_setting_with_secrets_masked,
    patch_all_changes_only_the_named_keys,
    put_all_changes_only_the_named_keys,
    all_validation_error_names_the_field,
    all_unknown_setting_is_400,
    all_keeps_a_secret_sent_back_masked,
    auditor_reads_all_but_gets_403_on_writes,
    all_normal_user_gets_403,
    all_anonymous_gets_401,
    delete_all_restores_every_default,
    options_all_describes_every_setting_in_its_category,
    the_references_names_answer_for_the_same_setting,
);

const AUTHENTICATION: &str = "/api/v2/settings/authentication/";
const ALL: &str = "/api/v2/settings/all/";

/// The setting names of every category, in the order the categories list them.
fn names_by_category(server: &TestServer) -> Vec<(String, Vec<String>)> {
    let index = server.admin().get_json("/api/v2/settings/");
    index["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results in {index}"))
        .iter()
        .filter(|c| c["slug"] != "all")
        .map(|c| {
            let slug = c["slug"].as_str().expect("a slug").to_owned();
            let body = server
                .admin()
                .get_json(&format!("/api/v2/settings/{slug}/"));
            let names = body
                .as_object()
                .unwrap_or_else(|| panic!("{slug}: {body}"))
                .keys()
                .cloned()
                .collect();
            (slug, names)
        })
        .collect()
}

fn categories_are_listed(backend: Backend) {
    let server = TestServer::start(backend);
    let body = server.admin().get_json("/api/v2/settings/");
    let results = body["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results in {body}"));
    assert_eq!(body["count"].as_u64(), Some(results.len() as u64), "{body}");
    // As the reference controller lists them: `all` first.
    assert_eq!(
        results[0],
        json!({ "url": "/api/v2/settings/all/", "slug": "all", "name": "All" }),
        "{body}"
    );
    for slug in ["all", "authentication", "system", "jobs", "ldap", "oidc"] {
        let category = results
            .iter()
            .find(|c| c["slug"] == slug)
            .unwrap_or_else(|| panic!("category {slug} missing from {body}"));
        assert_eq!(
            category["url"],
            format!("/api/v2/settings/{slug}/"),
            "{category}"
        );
        assert!(
            category["name"].as_str().is_some_and(|n| !n.is_empty()),
            "{category}"
        );
        server
            .admin()
            .get(&format!("/api/v2/settings/{slug}/"))
            .call()
            .expect(200);
    }
}

fn authentication_defaults(backend: Backend) {
    let server = TestServer::start(backend);
    let body = server.admin().get_json(AUTHENTICATION);
    assert_eq!(body["AUTH_BASIC_ENABLED"], true, "{body}");
    assert_eq!(body["SESSION_COOKIE_AGE"], 1800, "{body}");
    assert_eq!(body["SESSIONS_PER_USER"], -1, "{body}");
    assert_eq!(body["ALLOW_OAUTH2_FOR_EXTERNAL_USERS"], false, "{body}");
    assert!(body["OAUTH2_PROVIDER"].is_object(), "{body}");
    assert_eq!(body["CORS_ALLOWED_ORIGIN_REGEXES"], json!([]), "{body}");
}

fn patch(server: &TestServer, body: &Value) -> acs_tests::Reply {
    server.admin().patch(AUTHENTICATION).json(body).call()
}

fn session_cookie_age_below_minimum_is_400(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = patch(&server, &json!({ "SESSION_COOKIE_AGE": 30 })).expect(400);
    assert!(!reply.field_errors("SESSION_COOKIE_AGE").is_empty());
    patch(&server, &json!({ "SESSION_COOKIE_AGE": "soon" })).expect(400);
    assert_eq!(
        server.admin().get_json(AUTHENTICATION)["SESSION_COOKIE_AGE"],
        1800
    );
}

fn unknown_oauth2_provider_key_is_400(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = patch(&server, &json!({ "OAUTH2_PROVIDER": { "NOPE": 1 } })).expect(400);
    assert!(
        reply.body.contains("Invalid key names: NOPE"),
        "{}",
        reply.body
    );
    assert!(!reply.field_errors("OAUTH2_PROVIDER").is_empty());
    patch(
        &server,
        &json!({ "OAUTH2_PROVIDER": { "ACCESS_TOKEN_EXPIRE_SECONDS": 0 } }),
    )
    .expect(400);
    patch(
        &server,
        &json!({ "OAUTH2_PROVIDER": { "ACCESS_TOKEN_EXPIRE_SECONDS": 3600 } }),
    )
    .expect(200);
}

fn invalid_cors_regex_is_400(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = patch(&server, &json!({ "CORS_ALLOWED_ORIGIN_REGEXES": ["("] })).expect(400);
    assert!(!reply.field_errors("CORS_ALLOWED_ORIGIN_REGEXES").is_empty());
    let ok = patch(
        &server,
        &json!({ "CORS_ALLOWED_ORIGIN_REGEXES": ["^https://app\\.example$"] }),
    )
    .expect(200);
    assert_eq!(
        ok.json()["CORS_ALLOWED_ORIGIN_REGEXES"],
        json!(["^https://app\\.example$"])
    );
}

fn unknown_setting_is_400(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = patch(&server, &json!({ "NOPE": 1 })).expect(400);
    assert!(reply.body.contains("NOPE"), "{}", reply.body);
    // A setting of another category is not part of this one.
    let reply = patch(&server, &json!({ "BASE_URL": "https://acs.example" })).expect(400);
    assert!(reply.body.contains("BASE_URL"), "{}", reply.body);
}

fn rejected_patch_changes_nothing(backend: Backend) {
    let server = TestServer::start(backend);
    patch(
        &server,
        &json!({ "SESSION_COOKIE_AGE": 600, "SESSIONS_PER_USER": -5 }),
    )
    .expect(400);
    let body = server.admin().get_json(AUTHENTICATION);
    assert_eq!(body["SESSION_COOKIE_AGE"], 1800, "{body}");
    assert_eq!(body["SESSIONS_PER_USER"], -1, "{body}");
}

fn normal_user_gets_403(backend: Backend) {
    let server = TestServer::start(backend);
    server.create_user("plain", "pw-plain", false);
    let agent = server.as_user("plain", "pw-plain");
    agent.get(AUTHENTICATION).call().expect(403);
    agent
        .patch(AUTHENTICATION)
        .json(&json!({ "AUTH_BASIC_ENABLED": false }))
        .call()
        .expect(403);
    agent.delete(AUTHENTICATION).call().expect(403);
    assert_eq!(
        server.admin().get_json(AUTHENTICATION)["AUTH_BASIC_ENABLED"],
        true
    );
}

fn anonymous_gets_401(backend: Backend) {
    let server = TestServer::start(backend);
    server.anonymous().get(AUTHENTICATION).call().expect(401);
    server
        .anonymous()
        .get("/api/v2/settings/")
        .call()
        .expect(401);
}

fn unknown_category_is_404(backend: Backend) {
    let server = TestServer::start(backend);
    server
        .admin()
        .get("/api/v2/settings/nope/")
        .call()
        .expect(404);
    server
        .admin()
        .patch("/api/v2/settings/nope/")
        .json(&json!({ "X": 1 }))
        .call()
        .expect(404);
}

fn valid_patch_is_read_back_and_used_by_the_next_login(backend: Backend) {
    let server = TestServer::start(backend);
    let reply = patch(&server, &json!({ "SESSION_COOKIE_AGE": 600 })).expect(200);
    assert_eq!(reply.json()["SESSION_COOKIE_AGE"], 600);
    assert_eq!(
        server.admin().get_json(AUTHENTICATION)["SESSION_COOKIE_AGE"],
        600
    );

    let login = server.login(&server.client(), "admin", &server.admin_password);
    let session = login
        .reply
        .set_cookie(SESSION_COOKIE)
        .expect("session cookie");
    assert_eq!(
        session.attribute("Max-Age").as_deref(),
        Some("600"),
        "{}",
        session.raw
    );
    assert_eq!(
        login.reply.header("session-timeout").as_deref(),
        Some("600")
    );
}

fn delete_restores_defaults(backend: Backend) {
    let server = TestServer::start(backend);
    patch(
        &server,
        &json!({ "SESSION_COOKIE_AGE": 600, "SESSIONS_PER_USER": 3 }),
    )
    .expect(200);
    let reply = server.admin().delete(AUTHENTICATION).call().expect(204);
    assert!(reply.body.is_empty(), "{}", reply.body);
    let body = server.admin().get_json(AUTHENTICATION);
    assert_eq!(body["SESSION_COOKIE_AGE"], 1800, "{body}");
    assert_eq!(body["SESSIONS_PER_USER"], -1, "{body}");
    assert_eq!(body["AUTH_BASIC_ENABLED"], true, "{body}");
}

fn all_shows_every_setting_with_secrets_masked(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    admin
        .patch("/api/v2/settings/ldap/")
        .json(&json!({ "AUTH_LDAP_BIND_PASSWORD": "s3cret-bind-pw" }))
        .call()
        .expect(200);
    admin
        .patch("/api/v2/settings/oidc/")
        .json(&json!({ "OIDC_PROVIDERS": [{
            "name": "corp", "label": "Corp ID", "issuer": "https://id.example.com/",
            "client_id": "acs", "client_secret": "acs-client-s3cret",
        }] }))
        .call()
        .expect(200);
    let all = admin.get_json(ALL);
    let object = all.as_object().unwrap_or_else(|| panic!("{all}"));
    let mut expected = 0;
    for (slug, names) in names_by_category(&server) {
        let category = admin.get_json(&format!("/api/v2/settings/{slug}/"));
        for name in names {
            assert_eq!(all[&name], category[&name], "{name} of {slug}: {all}");
            expected += 1;
        }
    }
    assert_eq!(
        object.len(),
        expected,
        "only the categories' settings: {all}"
    );
    assert_eq!(all["SESSION_COOKIE_AGE"], 1800, "{all}");
    assert_eq!(all["AUTH_LDAP_BIND_PASSWORD"], "$encrypted$", "{all}");
    assert_eq!(
        all["OIDC_PROVIDERS"][0]["client_secret"], "$encrypted$",
        "{all}"
    );
    assert_eq!(all["OIDC_PROVIDERS"][0]["client_id"], "acs", "{all}");
    assert!(!all.to_string().contains("s3cret"), "{all}");
}

/// `method` on `/api/v2/settings/all/` changes the keys it names, of any category, and
/// nothing else; each category shows the change.
fn all_write_changes_only_the_named_keys(backend: Backend, method: reqwest::Method) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let before = admin.get_json(ALL);
    let reply = admin
        .request(method, ALL)
        .json(&json!({ "SESSION_COOKIE_AGE": 900, "DEFAULT_JOB_TIMEOUT": 60 }))
        .call()
        .expect(200)
        .json();
    let after = admin.get_json(ALL);
    assert_eq!(reply, after, "the reply is the whole new state");
    assert_eq!(after["SESSION_COOKIE_AGE"], 900, "{after}");
    assert_eq!(after["DEFAULT_JOB_TIMEOUT"], 60, "{after}");
    for (name, value) in before.as_object().expect("an object") {
        if !matches!(name.as_str(), "SESSION_COOKIE_AGE" | "DEFAULT_JOB_TIMEOUT") {
            assert_eq!(&after[name], value, "{name} changed: {after}");
        }
    }
    assert_eq!(admin.get_json(AUTHENTICATION)["SESSION_COOKIE_AGE"], 900);
    assert_eq!(
        admin.get_json("/api/v2/settings/jobs/")["DEFAULT_JOB_TIMEOUT"],
        60
    );
}

fn patch_all_changes_only_the_named_keys(backend: Backend) {
    all_write_changes_only_the_named_keys(backend, reqwest::Method::PATCH);
}

fn put_all_changes_only_the_named_keys(backend: Backend) {
    all_write_changes_only_the_named_keys(backend, reqwest::Method::PUT);
}

fn all_validation_error_names_the_field(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let body = json!({ "SESSION_COOKIE_AGE": 30, "SESSIONS_PER_USER": 2 });
    let on_all = admin.patch(ALL).json(&body).call().expect(400);
    let on_category = admin.patch(AUTHENTICATION).json(&body).call().expect(400);
    // The same rule, the same message, the same shape: only the bad field is named.
    assert_eq!(on_all.json(), on_category.json());
    let reasons = on_all.field_errors("SESSION_COOKIE_AGE");
    assert!(
        reasons[0].contains("greater than or equal to 60"),
        "{reasons:?}"
    );
    assert!(
        on_all.json().get("SESSIONS_PER_USER").is_none(),
        "{}",
        on_all.body
    );
    // All or nothing: the valid key was not stored either.
    let all = admin.get_json(ALL);
    assert_eq!(all["SESSION_COOKIE_AGE"], 1800, "{all}");
    assert_eq!(all["SESSIONS_PER_USER"], -1, "{all}");
}

fn all_unknown_setting_is_400(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let reply = admin
        .patch(ALL)
        .json(&json!({ "NOPE": 1, "SESSION_COOKIE_AGE": 900 }))
        .call()
        .expect(400);
    assert_eq!(reply.field_errors("NOPE"), ["Unknown setting."]);
    assert_eq!(admin.get_json(ALL)["SESSION_COOKIE_AGE"], 1800);
    // A category still refuses the settings of the others, naming itself.
    let reply = admin
        .patch(AUTHENTICATION)
        .json(&json!({ "BASE_URL": "https://acs.example" }))
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("BASE_URL"),
        ["Unknown setting in category authentication."]
    );
}

fn all_keeps_a_secret_sent_back_masked(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    admin
        .patch(ALL)
        .json(&json!({ "AUTH_LDAP_BIND_PASSWORD": "s3cret-bind-pw" }))
        .call()
        .expect(200);
    let stored =
        || server.query_i64("SELECT COUNT(*) FROM settings WHERE key = 'AUTH_LDAP_BIND_PASSWORD'");
    assert_eq!(stored(), 1);
    let clear =
        server.query_i64("SELECT COUNT(*) FROM settings WHERE value LIKE '%s3cret-bind-pw%'");
    assert_eq!(clear, 0, "stored sealed, as through the category");
    // What GET showed, sent back whole, keeps the secret.
    let shown = admin.get_json(ALL);
    admin.put(ALL).json(&shown).call().expect(200);
    assert_eq!(stored(), 1);
    assert_eq!(admin.get_json(ALL), shown);
}

fn auditor_reads_all_but_gets_403_on_writes(backend: Backend) {
    let server = TestServer::start(backend);
    server.create_auditor("auditor", "pw-auditor");
    let auditor = server.as_user("auditor", "pw-auditor");
    let all = auditor.get_json(ALL);
    assert_eq!(all["SESSION_COOKIE_AGE"], 1800, "{all}");
    let index = auditor.get_json("/api/v2/settings/");
    assert_eq!(index["results"][0]["slug"], "all", "{index}");
    let options = auditor.options(ALL).call().expect(200);
    assert_eq!(
        options.header("allow").as_deref(),
        Some("GET, HEAD, OPTIONS")
    );
    auditor
        .patch(ALL)
        .json(&json!({ "SESSION_COOKIE_AGE": 900 }))
        .call()
        .expect(403);
    auditor
        .put(ALL)
        .json(&json!({ "SESSION_COOKIE_AGE": 900 }))
        .call()
        .expect(403);
    auditor.delete(ALL).call().expect(403);
    assert_eq!(server.admin().get_json(ALL)["SESSION_COOKIE_AGE"], 1800);
}

fn all_normal_user_gets_403(backend: Backend) {
    let server = TestServer::start(backend);
    server.create_user("plain", "pw-plain", false);
    let agent = server.as_user("plain", "pw-plain");
    agent.get(ALL).call().expect(403);
    agent.options(ALL).call().expect(403);
    agent
        .patch(ALL)
        .json(&json!({ "AUTH_BASIC_ENABLED": false }))
        .call()
        .expect(403);
    agent.delete(ALL).call().expect(403);
    assert_eq!(server.admin().get_json(ALL)["AUTH_BASIC_ENABLED"], true);
}

fn all_anonymous_gets_401(backend: Backend) {
    let server = TestServer::start(backend);
    let anonymous = server.anonymous();
    anonymous.get(ALL).call().expect(401);
    anonymous
        .patch(ALL)
        .json(&json!({ "AUTH_BASIC_ENABLED": false }))
        .call()
        .expect(401);
    anonymous.delete(ALL).call().expect(401);
    assert_eq!(server.admin().get_json(ALL)["AUTH_BASIC_ENABLED"], true);
}

fn delete_all_restores_every_default(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let defaults = admin.get_json(ALL);
    admin
        .patch(ALL)
        .json(&json!({
            "SESSION_COOKIE_AGE": 600,
            "DEFAULT_JOB_TIMEOUT": 60,
            "AUTH_LDAP_BIND_PASSWORD": "s3cret-bind-pw",
        }))
        .call()
        .expect(200);
    let reply = admin.delete(ALL).call().expect(204);
    assert!(reply.body.is_empty(), "{}", reply.body);
    assert_eq!(admin.get_json(ALL), defaults);
    assert_eq!(server.query_i64("SELECT COUNT(*) FROM settings"), 0);
}

fn options_all_describes_every_setting_in_its_category(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let reply = admin.options(ALL).call().expect(200);
    assert_eq!(
        reply.header("allow").as_deref(),
        Some("GET, PUT, PATCH, DELETE, HEAD, OPTIONS")
    );
    let body = reply.json();
    let fields = body["actions"]["PUT"]
        .as_object()
        .unwrap_or_else(|| panic!("no PUT fields in {body}"));
    let mut described = 0;
    for (slug, names) in names_by_category(&server) {
        let category = admin
            .options(&format!("/api/v2/settings/{slug}/"))
            .call()
            .expect(200)
            .json();
        for name in names {
            // Each field as its own category describes it, category name included.
            assert_eq!(
                fields.get(&name),
                category["actions"]["PUT"].get(&name),
                "{name} of {slug}"
            );
            described += 1;
        }
    }
    assert_eq!(fields.len(), described, "{body}");
    assert_eq!(fields["SESSION_COOKIE_AGE"]["category"], "Authentication");
    assert_eq!(fields["OIDC_PROVIDERS"]["category"], "OpenID Connect");
    assert_eq!(body["actions"]["GET"], body["actions"]["PUT"]);
}

/// `AWX_ISOLATION_SHOW_PATHS` is the reference's name of `JOB_ISOLATION_SHOW_PATHS`: both are
/// shown, described and written, for one stored value; a change naming both is refused.
fn the_references_names_answer_for_the_same_setting(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let jobs = "/api/v2/settings/jobs/";
    admin
        .patch(ALL)
        .json(&json!({"AWX_ISOLATION_SHOW_PATHS": ["/usr/share/zoneinfo"]}))
        .call()
        .expect(200);
    for path in [jobs, ALL] {
        let shown = admin.get_json(path);
        assert_eq!(
            shown["AWX_ISOLATION_SHOW_PATHS"],
            json!(["/usr/share/zoneinfo"]),
            "{shown}"
        );
        assert_eq!(
            shown["JOB_ISOLATION_SHOW_PATHS"],
            json!(["/usr/share/zoneinfo"]),
            "{shown}"
        );
    }
    assert_eq!(
        server.query_i64("SELECT COUNT(*) FROM settings WHERE key = 'AWX_ISOLATION_SHOW_PATHS'"),
        0,
        "stored once, under ACS's name"
    );
    admin
        .patch(jobs)
        .json(&json!({"JOB_ISOLATION_SHOW_PATHS": []}))
        .call()
        .expect(200);
    assert_eq!(admin.get_json(jobs)["AWX_ISOLATION_SHOW_PATHS"], json!([]));
    let refused = admin
        .patch(jobs)
        .json(&json!({"AWX_ISOLATION_SHOW_PATHS": ["/usr"], "JOB_ISOLATION_SHOW_PATHS": ["/opt"]}))
        .call()
        .expect(400)
        .field_errors("AWX_ISOLATION_SHOW_PATHS");
    assert!(
        refused[0].contains("JOB_ISOLATION_SHOW_PATHS"),
        "{refused:?}"
    );
    assert_eq!(admin.get_json(jobs)["JOB_ISOLATION_SHOW_PATHS"], json!([]));
    // What a GET shows, sent back whole, names both with one value: written once.
    admin
        .patch(jobs)
        .json(&json!({"AWX_ISOLATION_SHOW_PATHS": ["/usr"], "JOB_ISOLATION_SHOW_PATHS": ["/usr"]}))
        .call()
        .expect(200);
    assert_eq!(
        admin.get_json(jobs)["JOB_ISOLATION_SHOW_PATHS"],
        json!(["/usr"])
    );
    // Validated as the setting is.
    admin
        .patch(jobs)
        .json(&json!({"AWX_ISOLATION_SHOW_PATHS": "not a list"}))
        .call()
        .expect(400)
        .field_errors("AWX_ISOLATION_SHOW_PATHS");
    let options = admin.options(jobs).call().expect(200).json();
    let described = &options["actions"]["GET"]["AWX_ISOLATION_SHOW_PATHS"];
    assert_eq!(described["type"], "list", "{options}");
    assert!(
        described["help_text"]
            .as_str()
            .is_some_and(|text| text.contains("JOB_ISOLATION_SHOW_PATHS")),
        "{options}"
    );
    assert_eq!(admin.get_json(jobs)["PROJECT_UPDATE_VVV"], false);
}

//! `/api/v2/applications/`: the record, validation, updates, deletion, the sub-lists under
//! organizations and users, the activity stream, who may do what, scope masking, filtering
//! and OPTIONS.

use acs_tests::{
    Agent, Backend, Call, LOGIN_HINT, Reply, TestServer, WWW_AUTHENTICATE, backend_tests,
    is_api_timestamp,
};
use reqwest::Method;
use serde_json::{Value, json};

backend_tests!(
    only_organization_admins_let_an_application_skip_consent,
    an_owner_cannot_repoint_an_application_that_skips_consent,
    superuser_creates_an_application_with_the_full_record,
    client_secret_is_shown_once_and_never_for_public_clients,
    create_validation_errors_are_400,
    redirect_uris_are_validated,
    duplicate_name_in_an_organization_is_400,
    malformed_and_non_json_bodies_are_rejected,
    put_and_patch_change_the_editable_fields,
    fixed_fields_cannot_change_after_creation,
    delete_revokes_the_application_tokens,
    superuser_may_do_everything,
    auditor_reads_everything_but_writes_nothing,
    organization_admin_manages_only_their_organization,
    member_sees_only_the_applications_they_own,
    stranger_sees_nothing,
    missing_application_is_404_and_anonymous_is_401,
    organization_admin_names_owners_only_inside_the_organization,
    organization_applications_sublist,
    user_applications_sublist,
    activity_stream_records_create_and_update,
    read_scope_token_cannot_write_but_write_scope_can,
    secret_fields_cannot_be_filtered,
    options_offers_post_only_to_creators,
);

const APPS: &str = "/api/v2/applications/";
const MASK: &str = "************";
const DENIED: &str = "You do not have permission to perform this action.";
const FIXED: &str = "This field cannot be changed after creation.";

fn app_path(id: i64) -> String {
    format!("/api/v2/applications/{id}/")
}

/// A valid body for a confidential password-grant application.
fn body(name: &str, organization: i64) -> Value {
    json!({
        "name": name,
        "description": "",
        "client_type": "confidential",
        "redirect_uris": "",
        "authorization_grant_type": "password",
        "skip_authorization": false,
        "organization": organization,
    })
}

/// [`body`] owned by `user`.
fn owned_body(name: &str, organization: i64, user: i64) -> Value {
    let mut value = body(name, organization);
    value["user"] = json!(user);
    value
}

/// Posts `body` to `path` as `agent`, expects 201 and returns the record.
#[track_caller]
fn create_at(agent: &Agent, path: &str, body: &Value) -> Value {
    agent.post(path).json(body).call().expect(201).json()
}

/// Creates an application as `agent` through `/api/v2/applications/` and returns its id.
#[track_caller]
fn create(agent: &Agent, body: &Value) -> i64 {
    let record = create_at(agent, APPS, body);
    record["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("no integer id in {record}"))
}

/// Ids of a list page's results, in order.
#[track_caller]
fn ids(page: &Value) -> Vec<i64> {
    page["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results in {page}"))
        .iter()
        .map(|item| {
            item["id"]
                .as_i64()
                .unwrap_or_else(|| panic!("no id in {item}"))
        })
        .collect()
}

/// Ids listed at `path` for `agent` (expects 200); `count` must agree.
#[track_caller]
fn listed(agent: &Agent, path: &str) -> Vec<i64> {
    let page = agent.get_json(path);
    let found = ids(&page);
    assert_eq!(page["count"], json!(found.len()), "{path}: {page}");
    found
}

fn sorted(mut values: Vec<i64>) -> Vec<i64> {
    values.sort_unstable();
    values
}

/// `summary_fields.user_capabilities` of a record.
#[track_caller]
fn capabilities(record: &Value) -> (bool, bool) {
    let caps = &record["summary_fields"]["user_capabilities"];
    match (caps["edit"].as_bool(), caps["delete"].as_bool()) {
        (Some(edit), Some(delete)) => (edit, delete),
        _ => panic!("no user_capabilities in {record}"),
    }
}

/// A request carrying `Authorization: Bearer <token>` and nothing else.
fn bearer(
    server: &TestServer,
    method: Method,
    path: &str,
    token: &str,
) -> reqwest::blocking::RequestBuilder {
    server
        .anonymous()
        .request(method, path)
        .header("Authorization", format!("Bearer {token}"))
}

/// Creates a personal token with `scope` for `username` (with Basic auth) and returns its value.
#[track_caller]
fn personal_token(server: &TestServer, username: &str, password: &str, scope: &str) -> String {
    let agent = server.as_user(username, password);
    let me = agent.get_json("/api/v2/me/")["results"][0]["id"].clone();
    let created = agent
        .post(&format!("/api/v2/users/{me}/personal_tokens/"))
        .json(&json!({ "scope": scope }))
        .call()
        .expect(201)
        .json();
    created["token"]
        .as_str()
        .unwrap_or_else(|| panic!("no token in {created}"))
        .to_owned()
}

#[track_caller]
fn assert_denied(reply: &Reply) {
    assert_eq!(
        reply.status, 403,
        "{} {} answered {} (expected 403); body: {}",
        reply.method, reply.url, reply.status, reply.body
    );
    assert_eq!(reply.detail(), DENIED, "{} {}", reply.method, reply.url);
}

fn is_alphanumeric(text: &str, len: usize) -> bool {
    text.len() == len && text.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// Asserts that `agent` may neither change nor delete application `id` (403 each), and that
/// it is unchanged.
#[track_caller]
fn assert_cannot_write(server: &TestServer, agent: &Agent, id: i64) {
    let before = server.admin().get_json(&app_path(id));
    assert_denied(
        &agent
            .patch(&app_path(id))
            .json(&json!({ "description": "hijacked" }))
            .call(),
    );
    let mut put = body(
        "hijacked",
        before["organization"].as_i64().expect("organization"),
    );
    put["user"] = before["user"].clone();
    assert_denied(&agent.put(&app_path(id)).json(&put).call());
    assert_denied(&agent.delete(&app_path(id)).call());
    let after = server.admin().get_json(&app_path(id));
    assert_eq!(after["name"], before["name"]);
    assert_eq!(after["description"], before["description"]);
}

fn superuser_creates_an_application_with_the_full_record(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let admin = server.admin();
    let reply = admin
        .post(APPS)
        .json(&json!({
            "name": "Portal",
            "description": "the web portal",
            "client_type": "confidential",
            "redirect_uris": "https://portal.example.com/cb",
            "authorization_grant_type": "authorization-code",
            "skip_authorization": true,
            "organization": org,
        }))
        .call()
        .expect(201);
    let created = reply.json();
    let id = created["id"].as_i64().expect("integer id");
    assert_eq!(reply.header("Location"), Some(app_path(id)));

    let keys: Vec<&str> = created
        .as_object()
        .expect("an object")
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
            "name",
            "description",
            "client_id",
            "client_secret",
            "client_type",
            "redirect_uris",
            "authorization_grant_type",
            "skip_authorization",
            "organization",
            "user",
        ]
    );
    assert_eq!(created["type"], "o_auth2_application");
    assert_eq!(created["url"], app_path(id));
    assert_eq!(
        created["related"],
        json!({
            "tokens": format!("{}tokens/", app_path(id)),
            "activity_stream": format!("{}activity_stream/", app_path(id)),
            "organization": format!("/api/v2/organizations/{org}/"),
        })
    );
    let summary = &created["summary_fields"];
    let summary_keys: Vec<&str> = summary
        .as_object()
        .expect("summary_fields")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        summary_keys,
        ["organization", "user_capabilities", "tokens"],
        "{summary}"
    );
    assert_eq!(
        summary["organization"],
        json!({ "id": org, "name": "Acme", "description": "" })
    );
    assert_eq!(
        summary["user_capabilities"],
        json!({ "edit": true, "delete": true })
    );
    assert_eq!(summary["tokens"], json!({ "count": 0, "results": [] }));
    for stamp in ["created", "modified"] {
        assert!(
            is_api_timestamp(created[stamp].as_str().unwrap_or_default()),
            "{stamp}: {created}"
        );
    }
    assert_eq!(created["name"], "Portal");
    assert_eq!(created["description"], "the web portal");
    let client_id = created["client_id"].as_str().expect("client_id");
    assert!(is_alphanumeric(client_id, 40), "client_id {client_id:?}");
    let secret = created["client_secret"].as_str().expect("client_secret");
    assert!(is_alphanumeric(secret, 128), "client_secret {secret:?}");
    assert_eq!(created["client_type"], "confidential");
    assert_eq!(created["redirect_uris"], "https://portal.example.com/cb");
    assert_eq!(created["authorization_grant_type"], "authorization-code");
    assert_eq!(created["skip_authorization"], true);
    assert_eq!(created["organization"], org);
    assert_eq!(created["user"], Value::Null);

    // The record read back is the same, secret masked.
    let read = admin.get_json(&app_path(id));
    let mut expected = created.clone();
    expected["client_secret"] = json!(MASK);
    assert_eq!(read, expected);
    assert!(listed(&admin, APPS).contains(&id));

    // Two applications never share a client id.
    let other = create_at(&admin, APPS, &body("Other", org));
    assert_ne!(other["client_id"], created["client_id"]);
    assert_ne!(other["client_secret"], created["client_secret"]);
}

fn client_secret_is_shown_once_and_never_for_public_clients(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let admin = server.admin();

    let confidential = create_at(&admin, APPS, &body("Confidential", org));
    let id = confidential["id"].as_i64().expect("id");
    let secret = confidential["client_secret"].as_str().expect("secret");
    assert!(is_alphanumeric(secret, 128), "{secret:?}");
    assert_eq!(admin.get_json(&app_path(id))["client_secret"], MASK);
    let page = admin.get_json(APPS);
    let in_list = page["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|a| a["id"] == id)
        .expect("listed");
    assert_eq!(in_list["client_secret"], MASK);
    let patched = admin
        .patch(&app_path(id))
        .json(&json!({ "description": "x" }))
        .call()
        .expect(200)
        .json();
    assert_eq!(patched["client_secret"], MASK);
    let put = admin
        .put(&app_path(id))
        .json(&body("Confidential", org))
        .call()
        .expect(200)
        .json();
    assert_eq!(put["client_secret"], MASK);
    assert!(!server.admin().get(APPS).call().body.contains(secret));

    let mut public_body = body("Public", org);
    public_body["client_type"] = json!("public");
    let public = create_at(&admin, APPS, &public_body);
    let public_id = public["id"].as_i64().expect("id");
    assert!(public.get("client_secret").is_none(), "{public}");
    assert_eq!(public["client_type"], "public");
    let read = admin.get_json(&app_path(public_id));
    assert!(read.get("client_secret").is_none(), "{read}");
    let patched = admin
        .patch(&app_path(public_id))
        .json(&json!({ "description": "y" }))
        .call()
        .expect(200)
        .json();
    assert!(patched.get("client_secret").is_none(), "{patched}");
    let put = admin
        .put(&app_path(public_id))
        .json(&public_body)
        .call()
        .expect(200)
        .json();
    assert!(put.get("client_secret").is_none(), "{put}");
}

fn create_validation_errors_are_400(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let admin = server.admin();
    let post = |body: &Value| admin.post(APPS).json(body).call().expect(400);

    for field in [
        "name",
        "client_type",
        "authorization_grant_type",
        "organization",
    ] {
        let mut missing = body("Missing", org);
        missing.as_object_mut().expect("object").remove(field);
        assert_eq!(
            post(&missing).field_errors(field),
            ["This field is required."],
            "without {field}"
        );
    }

    let mut bad = body("Bad", org);
    bad["client_type"] = json!("foo");
    assert_eq!(
        post(&bad).field_errors("client_type"),
        ["\"foo\" is not a valid choice."]
    );

    let mut implicit = body("Implicit", org);
    implicit["authorization_grant_type"] = json!("implicit");
    implicit["redirect_uris"] = json!("https://x.example.com/cb");
    let messages = post(&implicit).field_errors("authorization_grant_type");
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].contains("authorization-code") && messages[0].contains("PKCE"),
        "{messages:?}"
    );

    let mut credentials = body("Credentials", org);
    credentials["authorization_grant_type"] = json!("client-credentials");
    assert_eq!(
        post(&credentials).field_errors("authorization_grant_type"),
        ["\"client-credentials\" is not a valid choice."]
    );

    let reply = post(&body("Nowhere", 999_999));
    assert_eq!(
        reply.json(),
        json!({ "organization": ["Invalid pk \"999999\" - object does not exist."] })
    );

    let reply = post(&owned_body("Ghost owner", org, 999_999));
    assert_eq!(
        reply.field_errors("user"),
        ["Invalid pk \"999999\" - object does not exist."]
    );

    assert_eq!(listed(&admin, APPS), Vec::<i64>::new());
}

fn redirect_uris_are_validated(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let admin = server.admin();
    let code = |uris: &str| {
        let mut value = body("Code", org);
        value["authorization_grant_type"] = json!("authorization-code");
        value["redirect_uris"] = json!(uris);
        value
    };

    let mut without = code("");
    without
        .as_object_mut()
        .expect("object")
        .remove("redirect_uris");
    let reply = admin.post(APPS).json(&without).call().expect(400);
    assert_eq!(
        reply.field_errors("__all__"),
        ["redirect_uris cannot be empty with grant_type authorization-code"]
    );

    let reply = admin
        .post(APPS)
        .json(&code("ftp://x/cb"))
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("redirect_uris"),
        ["Unauthorized redirect scheme: ftp"]
    );
    let reply = admin
        .post(APPS)
        .json(&code("http://x/cb#f"))
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("redirect_uris"),
        ["Redirect URIs must not contain fragments"]
    );
    // A password application is checked too.
    let mut password = body("Password", org);
    password["redirect_uris"] = json!("ftp://x/cb");
    let reply = admin.post(APPS).json(&password).call().expect(400);
    assert_eq!(
        reply.field_errors("redirect_uris"),
        ["Unauthorized redirect scheme: ftp"]
    );
    assert_eq!(listed(&admin, APPS), Vec::<i64>::new());

    let created = create_at(
        &admin,
        APPS,
        &code("https://a.example.com/cb http://b.example.com/cb"),
    );
    assert_eq!(
        created["redirect_uris"],
        "https://a.example.com/cb http://b.example.com/cb"
    );
    let id = created["id"].as_i64().expect("id");

    // The same rules hold on update.
    let reply = admin
        .patch(&app_path(id))
        .json(&json!({ "redirect_uris": "ftp://x/cb" }))
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("redirect_uris"),
        ["Unauthorized redirect scheme: ftp"]
    );
    let reply = admin
        .patch(&app_path(id))
        .json(&json!({ "redirect_uris": "https://x/cb#frag" }))
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("redirect_uris"),
        ["Redirect URIs must not contain fragments"]
    );
    assert_eq!(
        admin.get_json(&app_path(id))["redirect_uris"],
        "https://a.example.com/cb http://b.example.com/cb"
    );

    // An empty value given explicitly is the same object-level error as a missing one, on
    // create and on update.
    let empty =
        json!({ "__all__": ["redirect_uris cannot be empty with grant_type authorization-code"] });
    let reply = admin.post(APPS).json(&code("")).call().expect(400);
    assert_eq!(reply.json(), empty, "POST with redirect_uris \"\"");
    let reply = admin
        .patch(&app_path(id))
        .json(&json!({ "redirect_uris": "" }))
        .call()
        .expect(400);
    assert_eq!(reply.json(), empty, "PATCH with redirect_uris \"\"");
    assert_eq!(listed(&admin, APPS), vec![id]);
}

fn duplicate_name_in_an_organization_is_400(backend: Backend) {
    let server = TestServer::start(backend);
    let acme = server.create_organization("Acme");
    let globex = server.create_organization("Globex");
    let admin = server.admin();
    create(&admin, &body("Twin", acme));

    let reply = admin
        .post(APPS)
        .json(&body("Twin", acme))
        .call()
        .expect(400);
    assert_eq!(
        reply.json(),
        json!({ "__all__": ["Application with this Name and Organization already exists."] })
    );
    assert_eq!(admin.get_json(&format!("{APPS}?name=Twin"))["count"], 1);

    // The same name in another organization is fine.
    create(&admin, &body("Twin", globex));
    // Renaming onto a taken name is refused the same way.
    let other = create(&admin, &body("Other", acme));
    let reply = admin
        .patch(&app_path(other))
        .json(&json!({ "name": "Twin" }))
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("__all__"),
        ["Application with this Name and Organization already exists."]
    );
    assert_eq!(admin.get_json(&app_path(other))["name"], "Other");
}

fn malformed_and_non_json_bodies_are_rejected(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let admin = server.admin();
    admin
        .post(APPS)
        .header("Content-Type", "application/json")
        .body(r#"{"name": "broken","#)
        .call()
        .expect(400);
    admin
        .post(APPS)
        .header("Content-Type", "text/plain")
        .body(body("Plain", org).to_string())
        .call()
        .expect(415);
    admin
        .post(APPS)
        .form(&[("name", "Formed"), ("organization", &org.to_string())])
        .call()
        .expect(415);
    assert_eq!(listed(&admin, APPS), Vec::<i64>::new());

    let id = create(&admin, &body("Target", org));
    admin
        .patch(&app_path(id))
        .header("Content-Type", "application/json")
        .body("{")
        .call()
        .expect(400);
    admin
        .put(&app_path(id))
        .header("Content-Type", "text/plain")
        .body(body("Renamed", org).to_string())
        .call()
        .expect(415);
    assert_eq!(admin.get_json(&app_path(id))["name"], "Target");
}

fn put_and_patch_change_the_editable_fields(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let admin = server.admin();
    let created = create_at(&admin, APPS, &body("Before", org));
    let id = created["id"].as_i64().expect("id");
    let client_id = created["client_id"].clone();

    let patched = admin
        .patch(&app_path(id))
        .json(&json!({ "description": "patched" }))
        .call()
        .expect(200)
        .json();
    assert_eq!(patched["description"], "patched");
    assert_eq!(patched["name"], "Before");
    assert_eq!(patched["client_id"], client_id);
    assert_eq!(patched["created"], created["created"]);

    let put = admin
        .put(&app_path(id))
        .json(&json!({
            "name": "After",
            "description": "put",
            "client_type": "public",
            "redirect_uris": "https://after.example.com/cb",
            "skip_authorization": true,
        }))
        .call()
        .expect(200)
        .json();
    assert_eq!(put["name"], "After");
    assert_eq!(put["description"], "put");
    assert_eq!(put["client_type"], "public");
    assert_eq!(put["redirect_uris"], "https://after.example.com/cb");
    assert_eq!(put["skip_authorization"], true);
    assert_eq!(put["authorization_grant_type"], "password");
    assert_eq!(put["organization"], org);
    assert_eq!(put["client_id"], client_id);
    assert!(put.get("client_secret").is_none(), "{put}");

    // PUT resets what it leaves out.
    let put = admin
        .put(&app_path(id))
        .json(&json!({ "name": "Again", "client_type": "confidential" }))
        .call()
        .expect(200)
        .json();
    assert_eq!(put["description"], "");
    assert_eq!(put["redirect_uris"], "");
    assert_eq!(put["skip_authorization"], false);
    assert_eq!(put["client_secret"], MASK);

    // PUT needs the required fields; PATCH does not.
    let reply = admin
        .put(&app_path(id))
        .json(&json!({ "description": "no name" }))
        .call()
        .expect(400);
    assert_eq!(reply.field_errors("name"), ["This field is required."]);
    let reply = admin
        .patch(&app_path(id))
        .json(&json!({ "client_type": "foo" }))
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("client_type"),
        ["\"foo\" is not a valid choice."]
    );

    let read = admin.get_json(&app_path(id));
    assert_eq!(read["name"], "Again");
    assert_eq!(read["client_type"], "confidential");
    assert_eq!(read["client_id"], client_id);
}

fn fixed_fields_cannot_change_after_creation(backend: Backend) {
    let server = TestServer::start(backend);
    let acme = server.create_organization("Acme");
    let globex = server.create_organization("Globex");
    let owner = server.create_user("owner", "pw-owner", false);
    let other = server.create_user("other", "pw-other", false);
    let admin = server.admin();
    let unowned = create(&admin, &body("Unowned", acme));
    let owned = create(&admin, &owned_body("Owned", acme, owner));

    for (id, field, value) in [
        (
            unowned,
            "authorization_grant_type",
            json!("authorization-code"),
        ),
        (unowned, "organization", json!(globex)),
        (unowned, "user", json!(owner)),
        (owned, "user", json!(other)),
        (owned, "user", Value::Null),
    ] {
        let reply = admin
            .patch(&app_path(id))
            .json(&json!({ field: value, "description": "changed" }))
            .call()
            .expect(400);
        assert_eq!(reply.field_errors(field), [FIXED], "{field} = {value}");
        let mut put = body("Renamed", acme);
        put[field] = value.clone();
        let reply = admin.put(&app_path(id)).json(&put).call().expect(400);
        assert_eq!(reply.field_errors(field), [FIXED], "PUT {field} = {value}");
    }
    for id in [unowned, owned] {
        let read = admin.get_json(&app_path(id));
        assert_eq!(read["authorization_grant_type"], "password");
        assert_eq!(read["organization"], acme);
        assert_eq!(read["description"], "");
        assert_ne!(read["name"], "Renamed");
    }
    assert_eq!(admin.get_json(&app_path(owned))["user"], owner);
    assert_eq!(admin.get_json(&app_path(unowned))["user"], Value::Null);

    // Echoing the stored values is accepted.
    let patched = admin
        .patch(&app_path(unowned))
        .json(&json!({
            "authorization_grant_type": "password",
            "organization": acme,
            "user": null,
            "description": "echoed",
        }))
        .call()
        .expect(200)
        .json();
    assert_eq!(patched["description"], "echoed");
    let put = admin
        .put(&app_path(owned))
        .json(&owned_body("Owned", acme, owner))
        .call()
        .expect(200)
        .json();
    assert_eq!(put["user"], owner);
}

fn delete_revokes_the_application_tokens(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let admin = server.admin();
    let id = create(&admin, &body("Doomed", org));

    let issued = admin
        .post(&format!("{}tokens/", app_path(id)))
        .json(&json!({ "scope": "write" }))
        .call()
        .expect(201)
        .json();
    let token = issued["token"].as_str().expect("token").to_owned();
    let token_id = issued["id"].as_i64().expect("token id");
    let summary = &admin.get_json(&app_path(id))["summary_fields"]["tokens"];
    assert_eq!(
        *summary,
        json!({ "count": 1, "results": [{ "id": token_id, "token": MASK, "scope": "write" }] })
    );
    bearer(&server, Method::GET, "/api/v2/me/", &token)
        .call()
        .expect(200);

    let reply = admin.delete(&app_path(id)).call().expect(204);
    assert!(reply.body.is_empty(), "{}", reply.body);
    admin.get(&app_path(id)).call().expect(404);
    assert!(!listed(&admin, APPS).contains(&id));
    bearer(&server, Method::GET, "/api/v2/me/", &token)
        .call()
        .expect(401);
    admin.delete(&app_path(id)).call().expect(404);
}

fn superuser_may_do_everything(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let someone = server.create_user("someone", "pw-someone", false);
    server.create_user("root2", "pw-root2", true);
    let root = server.as_user("root2", "pw-root2");
    let theirs = create(&server.admin(), &owned_body("Theirs", org, someone));

    let mine = create(&root, &body("Mine", org));
    assert_eq!(sorted(listed(&root, APPS)), sorted(vec![theirs, mine]));
    for id in [theirs, mine] {
        let read = root.get_json(&app_path(id));
        assert_eq!(capabilities(&read), (true, true), "{read}");
    }
    root.patch(&app_path(theirs))
        .json(&json!({ "description": "by root2" }))
        .call()
        .expect(200);
    root.put(&app_path(theirs))
        .json(&owned_body("Theirs", org, someone))
        .call()
        .expect(200);
    root.delete(&app_path(theirs)).call().expect(204);
    root.delete(&app_path(mine)).call().expect(204);
    assert_eq!(listed(&root, APPS), Vec::<i64>::new());
}

fn auditor_reads_everything_but_writes_nothing(backend: Backend) {
    let server = TestServer::start(backend);
    let acme = server.create_organization("Acme");
    let globex = server.create_organization("Globex");
    let someone = server.create_user("someone", "pw-someone", false);
    server.create_auditor("watcher", "pw-watcher");
    let admin = server.admin();
    let first = create(&admin, &body("First", acme));
    let second = create(&admin, &owned_body("Second", globex, someone));
    let auditor = server.as_user("watcher", "pw-watcher");

    assert_eq!(sorted(listed(&auditor, APPS)), sorted(vec![first, second]));
    for id in [first, second] {
        let read = auditor.get_json(&app_path(id));
        assert_eq!(capabilities(&read), (false, false), "{read}");
        assert_eq!(read["client_secret"], MASK);
        assert_cannot_write(&server, &auditor, id);
    }
    assert_denied(&auditor.post(APPS).json(&body("Audited", acme)).call());
    assert_eq!(listed(&admin, APPS).len(), 2);
}

fn organization_admin_manages_only_their_organization(backend: Backend) {
    let server = TestServer::start(backend);
    let acme = server.create_organization("Acme");
    let globex = server.create_organization("Globex");
    let boss = server.create_user("boss", "pw-boss", false);
    server.add_admin(acme, boss);
    let admin = server.admin();
    let ours = create(&admin, &body("Ours", acme));
    let theirs = create(&admin, &body("Theirs", globex));
    let agent = server.as_user("boss", "pw-boss");

    // Create: in the administered organization only.
    let created = create_at(&agent, APPS, &body("Made by boss", acme));
    let made = created["id"].as_i64().expect("id");
    assert_eq!(created["organization"], acme);
    assert!(is_alphanumeric(
        created["client_secret"].as_str().unwrap_or_default(),
        128
    ));
    assert_denied(&agent.post(APPS).json(&body("Elsewhere", globex)).call());

    // List and read: the organization's applications, not the others.
    assert_eq!(sorted(listed(&agent, APPS)), sorted(vec![ours, made]));
    for id in [ours, made] {
        let read = agent.get_json(&app_path(id));
        assert_eq!(capabilities(&read), (true, true), "{read}");
    }
    assert_denied(&agent.get(&app_path(theirs)).call());
    assert_cannot_write(&server, &agent, theirs);

    // Update and delete inside the organization.
    let patched = agent
        .patch(&app_path(ours))
        .json(&json!({ "description": "by boss" }))
        .call()
        .expect(200)
        .json();
    assert_eq!(patched["description"], "by boss");
    agent
        .put(&app_path(ours))
        .json(&body("Ours renamed", acme))
        .call()
        .expect(200);
    agent.delete(&app_path(ours)).call().expect(204);
    agent.delete(&app_path(made)).call().expect(204);
    assert_eq!(listed(&admin, APPS), vec![theirs]);
}

fn member_sees_only_the_applications_they_own(backend: Backend) {
    let server = TestServer::start(backend);
    let acme = server.create_organization("Acme");
    let member = server.create_user("member", "pw-member", false);
    server.add_member(acme, member);
    let admin = server.admin();
    let shared = create(&admin, &body("Shared", acme));
    let owned = create(&admin, &owned_body("Owned", acme, member));
    let agent = server.as_user("member", "pw-member");

    // The organization's application is invisible to a plain member.
    assert_eq!(listed(&agent, APPS), vec![owned]);
    assert_denied(&agent.get(&app_path(shared)).call());
    assert_cannot_write(&server, &agent, shared);
    assert_denied(&agent.post(APPS).json(&body("Mine", acme)).call());
    assert_denied(
        &agent
            .post(APPS)
            .json(&owned_body("Mine too", acme, member))
            .call(),
    );

    // The owned one is theirs to read, change and delete.
    let read = agent.get_json(&app_path(owned));
    assert_eq!(read["user"], member);
    assert_eq!(capabilities(&read), (true, true), "{read}");
    let patched = agent
        .patch(&app_path(owned))
        .json(&json!({ "description": "by member" }))
        .call()
        .expect(200)
        .json();
    assert_eq!(patched["description"], "by member");
    agent
        .put(&app_path(owned))
        .json(&owned_body("Owned renamed", acme, member))
        .call()
        .expect(200);
    agent.delete(&app_path(owned)).call().expect(204);
    assert_eq!(listed(&admin, APPS), vec![shared]);
}

fn stranger_sees_nothing(backend: Backend) {
    let server = TestServer::start(backend);
    let acme = server.create_organization("Acme");
    let member = server.create_user("member", "pw-member", false);
    server.add_member(acme, member);
    server.create_user("stranger", "pw-stranger", false);
    let admin = server.admin();
    let plain = create(&admin, &body("Plain", acme));
    let owned = create(&admin, &owned_body("Owned", acme, member));
    let agent = server.as_user("stranger", "pw-stranger");

    assert_eq!(listed(&agent, APPS), Vec::<i64>::new());
    for id in [plain, owned] {
        assert_denied(&agent.get(&app_path(id)).call());
        assert_cannot_write(&server, &agent, id);
    }
    assert_denied(&agent.post(APPS).json(&body("Intruder", acme)).call());
    assert_eq!(listed(&admin, APPS).len(), 2);
}

fn missing_application_is_404_and_anonymous_is_401(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let admin = server.admin();
    let id = create(&admin, &body("Existing", org));
    let missing = app_path(999_999);

    assert!(!admin.get(&missing).call().expect(404).detail().is_empty());
    admin
        .patch(&missing)
        .json(&json!({ "description": "x" }))
        .call()
        .expect(404);
    admin
        .put(&missing)
        .json(&body("Ghost", org))
        .call()
        .expect(404);
    admin.delete(&missing).call().expect(404);
    admin
        .get(&format!("{missing}activity_stream/"))
        .call()
        .expect(404);

    let anonymous = server.anonymous();
    for reply in [
        anonymous.get(APPS).call(),
        anonymous.get(&app_path(id)).call(),
        anonymous.post(APPS).json(&body("Anon", org)).call(),
        anonymous
            .patch(&app_path(id))
            .json(&json!({ "description": "anon" }))
            .call(),
        anonymous.put(&app_path(id)).json(&body("Anon", org)).call(),
        anonymous.delete(&app_path(id)).call(),
        anonymous.get(&missing).call(),
    ] {
        let reply = reply.expect(401);
        assert!(reply.detail().ends_with(LOGIN_HINT), "{}", reply.body);
        assert_eq!(
            reply.header("WWW-Authenticate").as_deref(),
            Some(WWW_AUTHENTICATE)
        );
    }
    let read = admin.get_json(&app_path(id));
    assert_eq!(read["name"], "Existing");
    assert_eq!(read["description"], "");
}

fn organization_admin_names_owners_only_inside_the_organization(backend: Backend) {
    let server = TestServer::start(backend);
    let acme = server.create_organization("Acme");
    let globex = server.create_organization("Globex");
    let boss = server.create_user("boss", "pw-boss", false);
    server.add_admin(acme, boss);
    let member = server.create_user("member", "pw-member", false);
    server.add_member(acme, member);
    let outsider = server.create_user("outsider", "pw-outsider", false);
    server.add_member(globex, outsider);
    let loner = server.create_user("loner", "pw-loner", false);
    let root = server.create_user("root2", "pw-root2", true);
    server.add_member(acme, root);
    let agent = server.as_user("boss", "pw-boss");

    let for_member = create_at(&agent, APPS, &owned_body("For member", acme, member));
    assert_eq!(for_member["user"], member);
    assert_eq!(
        for_member["related"]["user"],
        format!("/api/v2/users/{member}/")
    );
    let for_self = create_at(&agent, APPS, &owned_body("For self", acme, boss));
    assert_eq!(for_self["user"], boss);

    for (name, user) in [
        ("For outsider", outsider),
        ("For loner", loner),
        ("For superuser", root),
    ] {
        assert_denied(&agent.post(APPS).json(&owned_body(name, acme, user)).call());
    }
    let names: Vec<Value> = server.admin().get_json(APPS)["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|a| a["name"].clone())
        .collect();
    assert_eq!(names, [json!("For member"), json!("For self")]);
}

fn organization_applications_sublist(backend: Backend) {
    let server = TestServer::start(backend);
    let acme = server.create_organization("Acme");
    let globex = server.create_organization("Globex");
    let boss = server.create_user("boss", "pw-boss", false);
    server.add_admin(acme, boss);
    let member = server.create_user("member", "pw-member", false);
    server.add_member(acme, member);
    let admin = server.admin();
    let acme_path = format!("/api/v2/organizations/{acme}/applications/");
    let globex_path = format!("/api/v2/organizations/{globex}/applications/");
    let in_acme = create(&admin, &body("In Acme", acme));
    let in_globex = create(&admin, &body("In Globex", globex));

    assert_eq!(listed(&admin, &acme_path), vec![in_acme]);
    assert_eq!(listed(&admin, &globex_path), vec![in_globex]);

    // The path decides the organization, whatever the body says.
    let mut misdirected = body("Posted", globex);
    misdirected
        .as_object_mut()
        .expect("object")
        .remove("organization");
    let created = admin.post(&acme_path).json(&misdirected).call().expect(201);
    let record = created.json();
    let posted = record["id"].as_i64().expect("id");
    assert_eq!(created.header("Location"), Some(app_path(posted)));
    assert_eq!(record["organization"], acme);
    let forced = create_at(&admin, &acme_path, &body("Forced", globex));
    assert_eq!(forced["organization"], acme);
    let forced = forced["id"].as_i64().expect("id");
    assert_eq!(
        sorted(listed(&admin, &acme_path)),
        sorted(vec![in_acme, posted, forced])
    );
    assert_eq!(listed(&admin, &globex_path), vec![in_globex]);

    // The organization admin lists and creates under their organization only.
    let boss_agent = server.as_user("boss", "pw-boss");
    let by_boss = create_at(&boss_agent, &acme_path, &body("By boss", acme));
    assert_eq!(by_boss["organization"], acme);
    assert_eq!(listed(&boss_agent, &acme_path).len(), 4);
    assert_denied(
        &boss_agent
            .post(&globex_path)
            .json(&body("Sneaky", globex))
            .call(),
    );
    assert_eq!(listed(&admin, &globex_path), vec![in_globex]);

    // A plain member sees the organization but none of its applications, and cannot add one.
    assert_eq!(
        listed(&server.as_user("member", "pw-member"), &acme_path),
        Vec::<i64>::new()
    );
    assert_denied(
        &server
            .as_user("member", "pw-member")
            .post(&acme_path)
            .json(&body("By member", acme))
            .call(),
    );

    admin
        .get("/api/v2/organizations/999999/applications/")
        .call()
        .expect(404);
}

fn user_applications_sublist(backend: Backend) {
    let server = TestServer::start(backend);
    let acme = server.create_organization("Acme");
    let globex = server.create_organization("Globex");
    let boss = server.create_user("boss", "pw-boss", false);
    server.add_admin(acme, boss);
    let member = server.create_user("member", "pw-member", false);
    server.add_member(acme, member);
    server.add_member(globex, member);
    let other = server.create_user("other", "pw-other", false);
    let admin = server.admin();
    let owned_in_acme = create(&admin, &owned_body("Owned in Acme", acme, member));
    let owned_in_globex = create(&admin, &owned_body("Owned in Globex", globex, member));
    create(&admin, &body("Unowned", acme));
    create(&admin, &owned_body("Other's", acme, other));
    let by_id = format!("/api/v2/users/{member}/applications/");
    let by_name = "/api/v2/users/member/applications/";
    let both = sorted(vec![owned_in_acme, owned_in_globex]);

    assert_eq!(sorted(listed(&admin, &by_id)), both);
    assert_eq!(sorted(listed(&admin, by_name)), both);
    let owner = server.as_user("member", "pw-member");
    assert_eq!(sorted(listed(&owner, &by_id)), both);
    // Among the applications the caller may see: the admin of Acme does not see Globex's.
    let boss_agent = server.as_user("boss", "pw-boss");
    assert_eq!(listed(&boss_agent, &by_id), vec![owned_in_acme]);

    // POST makes the path's user the owner, whatever the body says.
    let created = admin
        .post(&by_id)
        .json(&owned_body("Posted", acme, other))
        .call()
        .expect(201);
    let record = created.json();
    let posted = record["id"].as_i64().expect("id");
    assert_eq!(created.header("Location"), Some(app_path(posted)));
    assert_eq!(record["user"], member);
    assert_eq!(
        record["summary_fields"]["user"],
        json!({ "id": member, "username": "member", "first_name": "", "last_name": "" })
    );
    assert_eq!(
        record["related"]["user"],
        format!("/api/v2/users/{member}/")
    );
    let by_boss = create_at(&boss_agent, by_name, &body("By boss", acme));
    assert_eq!(by_boss["user"], member);
    let by_boss = by_boss["id"].as_i64().expect("id");
    assert_eq!(
        sorted(listed(&admin, &by_id)),
        sorted(vec![owned_in_acme, owned_in_globex, posted, by_boss])
    );
    // The owner still cannot create one through their own list.
    assert_denied(&owner.post(&by_id).json(&body("Self-made", acme)).call());

    admin
        .get("/api/v2/users/999999/applications/")
        .call()
        .expect(404);
}

fn activity_stream_records_create_and_update(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let admin = server.admin();
    let created = create_at(&admin, APPS, &body("Tracked", org));
    let id = created["id"].as_i64().expect("id");
    let secret = created["client_secret"]
        .as_str()
        .expect("secret")
        .to_owned();
    let path = format!("{}activity_stream/", app_path(id));

    let operations = |page: &Value| -> Vec<String> {
        page["results"]
            .as_array()
            .unwrap_or_else(|| panic!("no results in {page}"))
            .iter()
            .map(|entry| entry["operation"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    let page = admin.get_json(&path);
    assert_eq!(page["count"], 1, "{page}");
    assert_eq!(operations(&page), ["create"]);

    admin
        .patch(&app_path(id))
        .json(&json!({ "description": "changed" }))
        .call()
        .expect(200);
    let page = admin.get_json(&path);
    assert_eq!(page["count"], 2, "{page}");
    let mut seen = operations(&page);
    seen.sort();
    assert_eq!(seen, ["create", "update"]);

    // Nobody who cannot see the application reads its stream.
    server.create_user("stranger", "pw-stranger", false);
    assert_denied(&server.as_user("stranger", "pw-stranger").get(&path).call());
    // The stream never shows the plain secret.
    assert!(!page.to_string().contains(&secret), "{page}");
}

fn read_scope_token_cannot_write_but_write_scope_can(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let admin = server.admin();
    let id = create(&admin, &body("Guarded", org));
    let read = personal_token(&server, "admin", &server.admin_password, "read");

    let page = bearer(&server, Method::GET, APPS, &read)
        .call()
        .expect(200)
        .json();
    assert_eq!(ids(&page), vec![id]);
    assert_eq!(capabilities(&page["results"][0]), (false, false));
    let record = bearer(&server, Method::GET, &app_path(id), &read)
        .call()
        .expect(200)
        .json();
    assert_eq!(capabilities(&record), (false, false), "{record}");

    assert_denied(
        &bearer(&server, Method::POST, APPS, &read)
            .json(&body("Via read", org))
            .call(),
    );
    assert_denied(
        &bearer(&server, Method::PUT, &app_path(id), &read)
            .json(&body("Via read", org))
            .call(),
    );
    assert_denied(
        &bearer(&server, Method::PATCH, &app_path(id), &read)
            .json(&json!({ "description": "via read" }))
            .call(),
    );
    assert_denied(&bearer(&server, Method::DELETE, &app_path(id), &read).call());
    let unchanged = admin.get_json(&app_path(id));
    assert_eq!(unchanged["name"], "Guarded");
    assert_eq!(unchanged["description"], "");
    assert_eq!(listed(&admin, APPS), vec![id]);

    // The same requests with a write token succeed.
    let write = personal_token(&server, "admin", &server.admin_password, "write");
    let record = bearer(&server, Method::GET, &app_path(id), &write)
        .call()
        .expect(200)
        .json();
    assert_eq!(capabilities(&record), (true, true), "{record}");
    bearer(&server, Method::POST, APPS, &write)
        .json(&body("Via write", org))
        .call()
        .expect(201);
    bearer(&server, Method::PUT, &app_path(id), &write)
        .json(&body("Via write put", org))
        .call()
        .expect(200);
    bearer(&server, Method::PATCH, &app_path(id), &write)
        .json(&json!({ "description": "via write" }))
        .call()
        .expect(200);
    bearer(&server, Method::DELETE, &app_path(id), &write)
        .call()
        .expect(204);
    assert_eq!(admin.get_json(APPS)["results"][0]["name"], "Via write");
}

fn secret_fields_cannot_be_filtered(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let admin = server.admin();
    let created = create_at(&admin, APPS, &body("Bravo", org));
    let client_id = created["client_id"].as_str().expect("client_id").to_owned();
    let secret = created["client_secret"]
        .as_str()
        .expect("secret")
        .to_owned();
    create(&admin, &body("Alpha", org));
    create(&admin, &body("Charlie", org));

    for query in [
        "client_secret=x".to_owned(),
        "client_id=x".to_owned(),
        format!("client_id={client_id}"),
        format!("client_secret={secret}"),
        format!("client_id__startswith={}", &client_id[..1]),
        format!("client_secret__startswith={}", &secret[..1]),
    ] {
        let reply = admin.get(&format!("{APPS}?{query}")).call().expect(403);
        assert!(!reply.body.contains(&client_id), "{query}: {}", reply.body);
    }

    let page = admin.get_json(&format!("{APPS}?name=Alpha"));
    assert_eq!(page["count"], 1, "{page}");
    assert_eq!(page["results"][0]["name"], "Alpha");
    let names = |query: &str| -> Vec<String> {
        admin.get_json(&format!("{APPS}?{query}"))["results"]
            .as_array()
            .expect("results")
            .iter()
            .map(|a| a["name"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    assert_eq!(names("order_by=name"), ["Alpha", "Bravo", "Charlie"]);
    assert_eq!(names("order_by=-name"), ["Charlie", "Bravo", "Alpha"]);
}

fn options_offers_post_only_to_creators(backend: Backend) {
    let server = TestServer::start(backend);
    let acme = server.create_organization("Acme");
    let boss = server.create_user("boss", "pw-boss", false);
    server.add_admin(acme, boss);
    let member = server.create_user("member", "pw-member", false);
    server.add_member(acme, member);
    server.create_user("stranger", "pw-stranger", false);
    server.create_auditor("watcher", "pw-watcher");

    for (agent, can_post) in [
        (server.admin(), true),
        (server.as_user("boss", "pw-boss"), true),
        (server.as_user("watcher", "pw-watcher"), false),
        (server.as_user("member", "pw-member"), false),
        (server.as_user("stranger", "pw-stranger"), false),
    ] {
        let reply = agent.options(APPS).call().expect(200);
        let actions = &reply.json()["actions"];
        assert!(actions["GET"].is_object(), "{agent:?}: {}", reply.body);
        assert_eq!(
            actions.get("POST").is_some(),
            can_post,
            "{agent:?}: {}",
            reply.body
        );
    }
    server.anonymous().options(APPS).call().expect(401);
}

/// An application without a consent page gets tokens issued to it for anyone who follows a
/// link, so its owner (a plain member) may change it but not turn that on; an admin of its
/// organization may, and the owner may turn it off again.
fn only_organization_admins_let_an_application_skip_consent(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let boss = server.create_user("boss", "pw-boss-12345", false);
    let owner = server.create_user("owner", "pw-owner-12345", false);
    server.add_admin(org, boss);
    server.add_member(org, owner);
    let boss = server.as_user("boss", "pw-boss-12345");
    let owner_agent = server.as_user("owner", "pw-owner-12345");
    let id = create(&boss, &owned_body("Portal", org, owner));
    let path = app_path(id);

    let refused = owner_agent
        .patch(&path)
        .json(&json!({"skip_authorization": true}))
        .call()
        .expect(403);
    assert!(
        refused.json()["detail"]
            .as_str()
            .is_some_and(|detail| detail.contains("skip_authorization")),
        "{}",
        refused.body
    );
    let mut full = server.admin().get_json(&path);
    full["skip_authorization"] = json!(true);
    owner_agent.put(&path).json(&full).call().expect(403);
    assert_eq!(server.admin().get_json(&path)["skip_authorization"], false);

    // The owner still changes the rest, and sending the value it has is no change.
    owner_agent
        .patch(&path)
        .json(&json!({"description": "ours", "skip_authorization": false}))
        .call()
        .expect(200);
    boss.patch(&path)
        .json(&json!({"skip_authorization": true}))
        .call()
        .expect(200);
    owner_agent
        .patch(&path)
        .json(&json!({"name": "Portal 2", "skip_authorization": true}))
        .call()
        .expect(200);
    owner_agent
        .patch(&path)
        .json(&json!({"skip_authorization": false}))
        .call()
        .expect(200);
    assert_eq!(server.admin().get_json(&path)["skip_authorization"], false);
}

/// While an application skips the consent page, its owner may not re-point it: a new
/// redirect URI (a site of his) or a public client type (his own PKCE, no secret) would let
/// him have codes for anyone who follows one link. He may turn consent back on with the
/// change; an admin of its organization changes them as they are.
fn an_owner_cannot_repoint_an_application_that_skips_consent(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let boss = server.create_user("boss", "pw-boss-12345", false);
    let owner = server.create_user("owner", "pw-owner-12345", false);
    server.add_admin(org, boss);
    server.add_member(org, owner);
    let boss = server.as_user("boss", "pw-boss-12345");
    let owner_agent = server.as_user("owner", "pw-owner-12345");
    let mut dashboard = owned_body("Dashboard", org, owner);
    dashboard["authorization_grant_type"] = json!("authorization-code");
    dashboard["redirect_uris"] = json!("https://dashboard.example.com/callback");
    dashboard["skip_authorization"] = json!(true);
    let id = create(&boss, &dashboard);
    let path = app_path(id);

    for (field, value) in [
        ("redirect_uris", json!("https://attacker.example.net/steal")),
        ("client_type", json!("public")),
    ] {
        let refused = owner_agent
            .patch(&path)
            .json(&json!({ field: value }))
            .call()
            .expect(403);
        assert!(
            refused.json()["detail"]
                .as_str()
                .is_some_and(|detail| detail.starts_with(&format!("{field}: "))),
            "{}",
            refused.body
        );
        let mut full = server.admin().get_json(&path);
        full[field] = value.clone();
        owner_agent.put(&path).json(&full).call().expect(403);
    }
    let stored = server.admin().get_json(&path);
    assert_eq!(
        stored["redirect_uris"],
        "https://dashboard.example.com/callback"
    );
    assert_eq!(stored["client_type"], "confidential");
    assert_eq!(stored["skip_authorization"], true);

    // What must still succeed: the owner's other changes, the same values sent again, the
    // admin's re-pointing, and the owner's own once consent is back on.
    let mut same = stored.clone();
    same["description"] = json!("ours");
    owner_agent.put(&path).json(&same).call().expect(200);
    boss.patch(&path)
        .json(&json!({"redirect_uris": "https://dashboard.example.com/v2/callback"}))
        .call()
        .expect(200);
    let changed = owner_agent
        .patch(&path)
        .json(
            &json!({"redirect_uris": "https://owner.example.org/cb", "skip_authorization": false}),
        )
        .call()
        .expect(200)
        .json();
    assert_eq!(changed["redirect_uris"], "https://owner.example.org/cb");
    assert_eq!(changed["skip_authorization"], false);
    owner_agent
        .patch(&path)
        .json(&json!({"client_type": "public"}))
        .call()
        .expect(200);
}

//! `/api/v2/credentials/`: the record, owners (exactly one of organization or user, fixed after
//! creation), who may see and change what, inputs validated against the type (reference §3
//! messages, required fields checked on save), secret inputs encrypted at rest and always
//! shown as `$encrypted$` (kept by `$encrypted$`, removed by `""`, `inputs` replaced wholesale),
//! content sources owned by organizations, filters (never on inputs), type changes while in
//! use, the activity stream, read-scope tokens, OPTIONS and malformed bodies.

use acs_tests::{
    Agent, Backend, Call, LOGIN_HINT, Reply, TestServer, backend_tests, id_of, is_api_timestamp,
};
use serde_json::{Value, json};

backend_tests!(
    a_running_server_follows_a_new_key_file_without_a_restart,
    superuser_creates_a_credential_with_the_full_record,
    exactly_one_owner_is_required,
    referenced_objects_must_exist,
    owner_is_fixed_after_creation,
    inputs_are_validated_against_the_type,
    falsy_inputs_become_empty_values,
    required_inputs_are_checked_on_save,
    ssh_key_rules_of_managed_types,
    network_dependency_is_checked,
    secrets_are_masked_on_every_read,
    secrets_are_stored_encrypted,
    encrypted_placeholder_keeps_the_stored_secret,
    empty_secret_removes_it_and_inputs_are_replaced_wholesale,
    encrypted_placeholder_is_refused_on_create,
    sealed_looking_text_in_a_plain_field_is_only_text,
    content_source_credentials_need_an_organization,
    organization_admins_manage_their_organization_credentials,
    plain_members_do_not_see_organization_credentials,
    users_manage_their_own_credentials,
    auditor_reads_everything_but_writes_nothing,
    strangers_get_403_and_missing_is_404,
    duplicate_name_in_organization_and_type_is_400,
    filters_select_through_the_type,
    inputs_cannot_be_filtered_or_ordered,
    credential_type_cannot_change_while_in_use,
    changing_the_type_revalidates_the_inputs,
    activity_stream_never_shows_a_secret,
    read_scope_token_reads_but_cannot_write,
    options_describes_the_fields,
    malformed_bodies_are_400_never_500,
);

const CREDS: &str = "/api/v2/credentials/";
const DENIED: &str = "You do not have permission to perform this action.";
const FIXED: &str = "This field cannot be changed after creation.";
const MASK: &str = "$encrypted$";

fn cred_path(id: i64) -> String {
    format!("/api/v2/credentials/{id}/")
}

/// Creates a custom type as admin and returns its id.
#[track_caller]
fn custom_type(server: &TestServer, name: &str, inputs: &Value) -> i64 {
    let record = server
        .admin()
        .post("/api/v2/credential_types/")
        .json(&json!({"name": name, "kind": "cloud", "inputs": inputs}))
        .call()
        .expect(201)
        .json();
    id_of(&record)
}

/// The custom type of the reference's credential-input examples (§3.2).
fn example_type(server: &TestServer) -> i64 {
    custom_type(
        server,
        "Example",
        &json!({"fields": [
            {"id": "username", "label": "Username"},
            {"id": "flag", "label": "Flag", "type": "boolean"},
            {"id": "region", "label": "Region", "choices": ["us", "eu"]},
            {"id": "url", "label": "URL", "format": "url"},
            {"id": "key", "label": "Key", "format": "ssh_private_key", "secret": true},
        ]}),
    )
}

/// A custom type with a plain `user` and a secret `token`, neither required.
fn token_type(server: &TestServer) -> i64 {
    custom_type(
        server,
        "Token",
        &json!({"fields": [
            {"id": "user", "label": "User"},
            {"id": "token", "label": "Token", "secret": true},
        ]}),
    )
}

/// Posts `body` as `agent` (expects 201) and returns the record.
#[track_caller]
fn create(agent: &Agent, body: &Value) -> Value {
    agent.post(CREDS).json(body).call().expect(201).json()
}

/// Creates an `aws` credential owned by `org` as admin and returns the record.
#[track_caller]
fn aws_credential(server: &TestServer, name: &str, org: i64, password: &str) -> Value {
    create(
        &server.admin(),
        &json!({
            "name": name,
            "credential_type": server.managed_type_id("aws"),
            "organization": org,
            "inputs": {"username": "AKIA", "password": password},
        }),
    )
}

/// Creates a credential of type `type_id` owned by `owner` (`("organization", id)` or
/// `("user", id)`) as `agent`.
#[track_caller]
fn owned(agent: &Agent, name: &str, type_id: i64, owner: (&str, i64)) -> Value {
    let mut body = json!({"name": name, "credential_type": type_id, "inputs": {"user": "u"}});
    body[owner.0] = json!(owner.1);
    create(agent, &body)
}

/// Ids listed at `path` for `agent`, sorted; `count` must agree.
#[track_caller]
fn listed(agent: &Agent, path: &str) -> Vec<i64> {
    let page = agent.get_json(path);
    let mut ids: Vec<i64> = page["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results in {page}"))
        .iter()
        .map(id_of)
        .collect();
    assert_eq!(page["count"], json!(ids.len()), "{path}: {page}");
    ids.sort_unstable();
    ids
}

fn sorted(mut ids: Vec<i64>) -> Vec<i64> {
    ids.sort_unstable();
    ids
}

#[track_caller]
fn capabilities(record: &Value) -> (bool, bool) {
    let caps = &record["summary_fields"]["user_capabilities"];
    match (caps["edit"].as_bool(), caps["delete"].as_bool()) {
        (Some(edit), Some(delete)) => (edit, delete),
        _ => panic!("no user_capabilities in {record}"),
    }
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

/// Asserts that `agent` may neither change nor delete credential `id` (403 each), and that
/// it is unchanged.
#[track_caller]
fn assert_cannot_write(server: &TestServer, agent: &Agent, id: i64) {
    let before = server.admin().get_json(&cred_path(id));
    assert_denied(
        &agent
            .patch(&cred_path(id))
            .json(&json!({"description": "hijacked"}))
            .call(),
    );
    assert_denied(
        &agent
            .put(&cred_path(id))
            .json(&json!({"name": "hijacked", "credential_type": before["credential_type"]}))
            .call(),
    );
    assert_denied(&agent.delete(&cred_path(id)).call());
    assert_eq!(server.admin().get_json(&cred_path(id)), before);
}

/// The stored `inputs` column of credential `id`, read from the database directly.
fn stored_inputs(server: &TestServer, id: i64) -> Value {
    let mut conn = server.database().connect().expect("a database connection");
    let credential = acs_storage::credentials::find(&mut conn, id).expect("the credential row");
    serde_json::from_str(&credential.inputs).expect("stored inputs are JSON")
}

fn superuser_creates_a_credential_with_the_full_record(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let aws = server.managed_type_id("aws");
    let admin = server.admin();
    let reply = admin
        .post(CREDS)
        .json(&json!({
            "name": "Prod AWS",
            "description": "production account",
            "credential_type": aws,
            "organization": org,
            "inputs": {"username": "AKIAEXAMPLE", "password": "s3cr3t-full-record"},
        }))
        .call()
        .expect(201);
    let created = reply.json();
    let id = id_of(&created);
    assert_eq!(reply.header("Location"), Some(cred_path(id)));
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
            "organization",
            "user",
            "credential_type",
            "managed",
            "inputs",
            "kind",
            "cloud",
            "kubernetes",
        ]
    );
    assert_eq!(created["type"], "credential");
    assert_eq!(created["url"], cred_path(id));
    assert_eq!(
        created["related"]["credential_type"],
        format!("/api/v2/credential_types/{aws}/")
    );
    assert_eq!(
        created["related"]["activity_stream"],
        format!("{}activity_stream/", cred_path(id))
    );
    assert_eq!(
        created["related"]["organization"],
        format!("/api/v2/organizations/{org}/")
    );
    let summary = &created["summary_fields"];
    assert_eq!(summary["credential_type"]["id"], aws, "{summary}");
    assert_eq!(summary["credential_type"]["name"], "Amazon Web Services");
    assert!(summary["credential_type"]["description"].is_string());
    assert_eq!(
        summary["organization"],
        json!({"id": org, "name": "Acme", "description": ""})
    );
    assert!(summary.get("user").is_none(), "{summary}");
    assert_eq!(capabilities(&created), (true, true));
    for stamp in ["created", "modified"] {
        assert!(
            is_api_timestamp(created[stamp].as_str().unwrap_or_default()),
            "{stamp}: {created}"
        );
    }
    assert_eq!(created["name"], "Prod AWS");
    assert_eq!(created["description"], "production account");
    assert_eq!(created["organization"], org);
    assert_eq!(created["user"], Value::Null);
    assert_eq!(created["credential_type"], aws);
    assert_eq!(created["managed"], false);
    assert_eq!(
        created["inputs"],
        json!({"username": "AKIAEXAMPLE", "password": MASK})
    );
    assert_eq!(created["kind"], "aws");
    assert_eq!(created["cloud"], true);
    assert_eq!(created["kubernetes"], false);
    assert!(!reply.body.contains("s3cr3t-full-record"), "{}", reply.body);
    assert_eq!(admin.get_json(&cred_path(id)), created);

    // A user-owned credential of a custom type: no kind, a user summary.
    let owner = server.create_user("grace", "pw-grace", false);
    let custom = token_type(&server);
    let mine = create(
        &admin,
        &json!({"name": "Grace's", "credential_type": custom, "user": owner, "inputs": {"user": "g"}}),
    );
    assert_eq!(mine["user"], owner);
    assert_eq!(mine["organization"], Value::Null);
    assert_eq!(mine["kind"], Value::Null);
    assert_eq!(mine["cloud"], true);
    assert_eq!(mine["summary_fields"]["user"]["username"], "grace");
    assert!(
        mine["summary_fields"].get("organization").is_none(),
        "{mine}"
    );
    assert_eq!(mine["related"]["user"], format!("/api/v2/users/{owner}/"));
    // Machine credentials are not cloud credentials.
    let ssh = create(
        &admin,
        &json!({"name": "Machine", "credential_type": server.managed_type_id("ssh"), "organization": org}),
    );
    assert_eq!(ssh["kind"], "ssh");
    assert_eq!(ssh["cloud"], false);
}

fn exactly_one_owner_is_required(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let user = server.create_user("grace", "pw-grace", false);
    let custom = token_type(&server);
    let admin = server.admin();
    let reply = admin
        .post(CREDS)
        .json(&json!({"name": "orphan", "credential_type": custom}))
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("detail"),
        ["Missing 'user' or 'organization'."]
    );
    let reply = admin
        .post(CREDS)
        .json(&json!({"name": "orphan", "credential_type": custom, "user": null, "organization": null}))
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("detail"),
        ["Missing 'user' or 'organization'."]
    );
    let reply = admin
        .post(CREDS)
        .json(
            &json!({"name": "both", "credential_type": custom, "user": user, "organization": org}),
        )
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("detail"),
        [
            "Only one of 'user' or 'organization' should be provided, received organization, user fields."
        ]
    );
    // Teams do not exist in ACS.
    let reply = admin
        .post(CREDS)
        .json(&json!({"name": "team", "credential_type": custom, "team": 1}))
        .call()
        .expect(400);
    assert_eq!(reply.field_errors("team").len(), 1, "{}", reply.body);
    // Name and type are required.
    let reply = admin
        .post(CREDS)
        .json(&json!({"organization": org}))
        .call()
        .expect(400);
    assert_eq!(reply.field_errors("name"), ["This field is required."]);
    assert_eq!(
        reply.field_errors("credential_type"),
        ["This field is required."]
    );
    // A null owner next to a real one counts as absent.
    create(
        &admin,
        &json!({"name": "fine", "credential_type": custom, "user": null, "organization": org}),
    );
    let page = admin.get_json(CREDS);
    assert_eq!(page["count"], 1, "{page}");
}

fn referenced_objects_must_exist(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let custom = token_type(&server);
    let admin = server.admin();
    let reply = admin
        .post(CREDS)
        .json(&json!({"name": "x", "credential_type": 999_999, "organization": org}))
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("credential_type"),
        ["Invalid pk \"999999\" - object does not exist."]
    );
    let reply = admin
        .post(CREDS)
        .json(&json!({"name": "x", "credential_type": custom, "organization": 999_999}))
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("organization"),
        ["Invalid pk \"999999\" - object does not exist."]
    );
    let reply = admin
        .post(CREDS)
        .json(&json!({"name": "x", "credential_type": custom, "user": 999_999}))
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("user"),
        ["Invalid pk \"999999\" - object does not exist."]
    );
    let reply = admin
        .post(CREDS)
        .json(&json!({"name": "x", "credential_type": "abc", "organization": org}))
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("credential_type"),
        ["A valid integer is required."]
    );
    let id = id_of(&owned(&admin, "c", custom, ("organization", org)));
    let reply = admin
        .patch(&cred_path(id))
        .json(&json!({"credential_type": 999_999}))
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("credential_type"),
        ["Invalid pk \"999999\" - object does not exist."]
    );
}

fn owner_is_fixed_after_creation(backend: Backend) {
    let server = TestServer::start(backend);
    let acme = server.create_organization("Acme");
    let other = server.create_organization("Other");
    let grace = server.create_user("grace", "pw-grace", false);
    let custom = token_type(&server);
    let admin = server.admin();
    let org_owned = id_of(&owned(&admin, "org", custom, ("organization", acme)));
    let user_owned = id_of(&owned(&admin, "user", custom, ("user", grace)));

    for (id, body, field) in [
        (org_owned, json!({"organization": other}), "organization"),
        (org_owned, json!({"organization": null}), "organization"),
        (org_owned, json!({"user": grace}), "user"),
        (user_owned, json!({"user": 1}), "user"),
        (user_owned, json!({"organization": acme}), "organization"),
    ] {
        let reply = admin.patch(&cred_path(id)).json(&body).call().expect(400);
        assert_eq!(reply.field_errors(field), [FIXED], "{body}: {}", reply.body);
    }
    // Echoing the current owner is fine.
    admin
        .patch(&cred_path(org_owned))
        .json(&json!({"organization": acme, "user": null, "description": "same owner"}))
        .call()
        .expect(200);
    admin
        .put(&cred_path(user_owned))
        .json(&json!({"name": "user", "credential_type": custom, "user": grace}))
        .call()
        .expect(200);
    let record = admin.get_json(&cred_path(org_owned));
    assert_eq!(record["organization"], acme);
    assert_eq!(record["description"], "same owner");
    assert_eq!(admin.get_json(&cred_path(user_owned))["user"], grace);
}

fn inputs_are_validated_against_the_type(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let example = example_type(&server);
    let admin = server.admin();
    let post = |inputs: Value| {
        admin
            .post(CREDS)
            .json(&json!({"name": "example", "credential_type": example, "organization": org, "inputs": inputs}))
            .call()
    };
    // Errors about the inputs as a whole: a list of messages.
    for (inputs, expected) in [
        (
            json!({"invalid_field": "foo"}),
            "Additional properties are not allowed ('invalid_field' was unexpected)",
        ),
        (
            json!({"username": "x", "zzz": 1, "yyy": 2}),
            "Additional properties are not allowed ('yyy', 'zzz' were unexpected)",
        ),
        (json!(["must-be-a-dict"]), "list provided, expected dict"),
        (json!("text"), "str provided, expected dict"),
        (json!(5), "int provided, expected dict"),
        (
            json!({"key": 5}),
            "secret values must be of type string, not int",
        ),
        (
            json!({"key": ["a"]}),
            "secret values must be of type string, not list",
        ),
    ] {
        let reply = post(inputs.clone()).expect(400);
        assert_eq!(
            reply.field_errors("inputs"),
            [expected],
            "inputs {inputs}: {}",
            reply.body
        );
    }
    // Errors per field: an object of lists.
    for (inputs, field, expected) in [
        (
            json!({"username": 1}),
            "username",
            "1 is not of type 'string'",
        ),
        (
            json!({"username": 1.5}),
            "username",
            "1.5 is not of type 'string'",
        ),
        (
            json!({"username": ["a", "b", "c"]}),
            "username",
            "['a', 'b', 'c'] is not of type 'string'",
        ),
        (
            json!({"flag": "some-string"}),
            "flag",
            "'some-string' is not of type 'boolean'",
        ),
        (
            json!({"flag": "true"}),
            "flag",
            "'true' is not of type 'boolean'",
        ),
        (json!({"flag": 1}), "flag", "1 is not of type 'boolean'"),
        (
            json!({"region": "asia"}),
            "region",
            "'asia' is not one of ['us', 'eu']",
        ),
        (
            json!({"url": "foo.com"}),
            "url",
            "Invalid URL: Missing url scheme (http, https, etc.)",
        ),
        (
            json!({"url": "https://[dead:beef"}),
            "url",
            "Invalid IPv6 URL",
        ),
        (
            json!({"url": "http:domain:8080"}),
            "url",
            "Invalid URL: http:domain:8080",
        ),
        (
            json!({"url": "http:/domain:8080"}),
            "url",
            "Invalid URL: http:/domain:8080",
        ),
        (
            json!({"key": "invalid-key"}),
            "key",
            "Invalid certificate or key: invalid-key...",
        ),
    ] {
        let reply = post(inputs.clone()).expect(400);
        let body = reply.json();
        assert_eq!(
            body["inputs"],
            json!({ field: [expected] }),
            "inputs {inputs}: {}",
            reply.body
        );
    }
    // Several field errors at once.
    let reply = post(json!({"username": 1, "region": "asia"})).expect(400);
    assert_eq!(
        reply.json()["inputs"],
        json!({
            "username": ["1 is not of type 'string'"],
            "region": ["'asia' is not one of ['us', 'eu']"],
        })
    );
    // Nothing was saved by the refused requests.
    assert_eq!(admin.get_json(CREDS)["count"], 0);
    let ok = post(json!({
        "username": "u",
        "flag": true,
        "region": "eu",
        "url": "http://foo.com",
        "key": "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----",
    }))
    .expect(201)
    .json();
    assert_eq!(
        ok["inputs"],
        json!({"username": "u", "flag": true, "region": "eu", "url": "http://foo.com", "key": MASK})
    );
    // Updates are validated the same way.
    let reply = admin
        .patch(&cred_path(id_of(&ok)))
        .json(&json!({"inputs": {"region": "mars"}}))
        .call()
        .expect(400);
    assert_eq!(
        reply.json()["inputs"],
        json!({"region": ["'mars' is not one of ['us', 'eu']"]})
    );
}

fn falsy_inputs_become_empty_values(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let example = example_type(&server);
    let admin = server.admin();
    let record = create(
        &admin,
        &json!({
            "name": "falsy",
            "credential_type": example,
            "organization": org,
            "inputs": {"username": null, "flag": 0, "region": "", "url": ""},
        }),
    );
    assert_eq!(
        record["inputs"],
        json!({"username": "", "flag": false, "region": "us", "url": ""}),
        "{record}"
    );
}

fn required_inputs_are_checked_on_save(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let aws = server.managed_type_id("aws");
    let admin = server.admin();
    let reply = admin
        .post(CREDS)
        .json(&json!({"name": "empty", "credential_type": aws, "organization": org, "inputs": {}}))
        .call()
        .expect(400);
    assert_eq!(
        reply.json()["inputs"],
        json!({
            "password": ["This field is required."],
            "username": ["This field is required."],
        }),
        "{}",
        reply.body
    );
    // Omitted inputs are empty inputs.
    let reply = admin
        .post(CREDS)
        .json(&json!({"name": "omitted", "credential_type": aws, "organization": org}))
        .call()
        .expect(400);
    assert_eq!(
        reply.json()["inputs"]["username"],
        json!(["This field is required."])
    );
    let reply = admin
        .post(CREDS)
        .json(&json!({"name": "blank", "credential_type": aws, "organization": org, "inputs": {"username": "", "password": "p"}}))
        .call()
        .expect(400);
    assert_eq!(
        reply.json()["inputs"],
        json!({"username": ["This field is required."]})
    );
    let source = server.managed_type_id("content_source_token");
    let reply = admin
        .post(CREDS)
        .json(&json!({"name": "source", "credential_type": source, "organization": org, "inputs": {"token": "t"}}))
        .call()
        .expect(400);
    assert_eq!(
        reply.json()["inputs"],
        json!({"url": ["This field is required."]})
    );
    // On update too: removing a required secret is refused.
    let id = id_of(&aws_credential(&server, "ok", org, "pw-required"));
    let reply = admin
        .patch(&cred_path(id))
        .json(&json!({"inputs": {"username": "AKIA", "password": ""}}))
        .call()
        .expect(400);
    assert_eq!(
        reply.json()["inputs"],
        json!({"password": ["This field is required."]})
    );
    let reply = admin
        .patch(&cred_path(id))
        .json(&json!({"inputs": {"username": "AKIA"}}))
        .call()
        .expect(400);
    assert_eq!(
        reply.json()["inputs"],
        json!({"password": ["This field is required."]})
    );
    assert_eq!(
        admin.get_json(&cred_path(id))["inputs"],
        json!({"username": "AKIA", "password": MASK})
    );
    // A custom type's required list counts too; ids naming no field are ignored.
    let custom = custom_type(
        &server,
        "Needs host",
        &json!({"fields": [{"id": "host", "label": "Host"}], "required": ["host", "ghost"]}),
    );
    let reply = admin
        .post(CREDS)
        .json(&json!({"name": "c", "credential_type": custom, "organization": org, "inputs": {}}))
        .call()
        .expect(400);
    assert_eq!(
        reply.json()["inputs"],
        json!({"host": ["This field is required."]})
    );
    create(
        &admin,
        &json!({"name": "c", "credential_type": custom, "organization": org, "inputs": {"host": "h"}}),
    );
}

const PLAIN_KEY: &str = "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----";
const ENCRYPTED_KEY: &str = "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\nAAAA\n-----END RSA PRIVATE KEY-----";

fn ssh_key_rules_of_managed_types(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let ssh = server.managed_type_id("ssh");
    let admin = server.admin();
    let post = |inputs: Value| {
        admin
            .post(CREDS)
            .json(&json!({"name": "machine", "credential_type": ssh, "organization": org, "inputs": inputs}))
            .call()
    };
    let reply = post(json!({"username": "u", "ssh_key_data": ENCRYPTED_KEY})).expect(400);
    assert_eq!(
        reply.json()["inputs"],
        json!({"ssh_key_unlock": ["must be set when SSH key is encrypted."]})
    );
    let reply = post(json!({"username": "u", "ssh_key_data": PLAIN_KEY, "ssh_key_unlock": "pass"}))
        .expect(400);
    assert_eq!(
        reply.json()["inputs"],
        json!({"ssh_key_unlock": ["should not be set when SSH key is not encrypted."]})
    );
    // A bad key reports only the key.
    let reply = post(json!({"ssh_key_data": "not a key", "ssh_key_unlock": "pass"})).expect(400);
    let body = reply.json();
    assert_eq!(
        body["inputs"]
            .as_object()
            .map(|o| o.keys().cloned().collect::<Vec<_>>()),
        Some(vec!["ssh_key_data".to_owned()]),
        "{body}"
    );
    assert!(
        body["inputs"]["ssh_key_data"][0]
            .as_str()
            .unwrap_or_default()
            .starts_with("Invalid certificate or key: not a key"),
        "{body}"
    );
    let reply = post(json!({
        "ssh_key_data": "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----"
    }))
    .expect(400);
    assert_eq!(
        reply.json()["inputs"],
        json!({"ssh_key_data": ["At least one private key is required."]})
    );
    // ASK is kept as is for ask_at_runtime fields.
    let ask = post(json!({"username": "u", "password": "ASK", "become_password": "ASK"}))
        .expect(201)
        .json();
    assert_eq!(ask["inputs"]["password"], "ASK", "{ask}");
    // An encrypted key with its passphrase; `$encrypted$` keeps both on update, and the stored
    // key is what the unlock rule is checked against.
    let good = admin
        .post(CREDS)
        .json(
            &json!({"name": "machine-2", "credential_type": ssh, "organization": org, "inputs": {
            "username": "u", "ssh_key_data": ENCRYPTED_KEY, "ssh_key_unlock": "pass"}}),
        )
        .call()
        .expect(201)
        .json();
    let id = id_of(&good);
    assert_eq!(good["inputs"]["ssh_key_data"], MASK);
    assert_eq!(good["inputs"]["ssh_key_unlock"], MASK);
    admin
        .patch(&cred_path(id))
        .json(&json!({"inputs": {"username": "v", "ssh_key_data": MASK, "ssh_key_unlock": MASK}}))
        .call()
        .expect(200);
    let reply = admin
        .patch(&cred_path(id))
        .json(&json!({"inputs": {"username": "v", "ssh_key_data": MASK}}))
        .call()
        .expect(400);
    assert_eq!(
        reply.json()["inputs"],
        json!({"ssh_key_unlock": ["must be set when SSH key is encrypted."]})
    );
}

fn network_dependency_is_checked(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let net = server.managed_type_id("net");
    let admin = server.admin();
    let reply = admin
        .post(CREDS)
        .json(
            &json!({"name": "switch", "credential_type": net, "organization": org, "inputs": {
            "username": "u", "authorize_password": "enable"}}),
        )
        .call()
        .expect(400);
    assert_eq!(
        reply.json()["inputs"],
        json!({"authorize_password": ["cannot be set unless \"Authorize\" is set"]})
    );
    let record = create(
        &admin,
        &json!({"name": "switch", "credential_type": net, "organization": org, "inputs": {
            "username": "u", "authorize": true, "authorize_password": "enable"}}),
    );
    assert_eq!(record["inputs"]["authorize"], true);
    assert_eq!(record["inputs"]["authorize_password"], MASK);
}

fn secrets_are_masked_on_every_read(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let secret = "s3cr3t-masked-everywhere";
    let created = aws_credential(&server, "masked", org, secret);
    let id = id_of(&created);
    let aws = server.managed_type_id("aws");
    let admin = server.admin();
    let boss = server.create_user("boss", "pw-boss", false);
    server.add_admin(org, boss);
    server.create_auditor("watcher", "pw-watcher");
    for agent in [
        admin.clone(),
        server.as_user("boss", "pw-boss"),
        server.as_user("watcher", "pw-watcher"),
    ] {
        for path in [
            cred_path(id),
            CREDS.to_owned(),
            format!("/api/v2/credential_types/{aws}/credentials/"),
            format!("{CREDS}?id={id}"),
            format!("{CREDS}?search=masked"),
        ] {
            let reply = agent.get(&path).call().expect(200);
            assert!(!reply.body.contains(secret), "{path}: {}", reply.body);
            let body = reply.json();
            let record = if body.get("results").is_some() {
                body["results"][0].clone()
            } else {
                body
            };
            assert_eq!(
                record["inputs"],
                json!({"username": "AKIA", "password": MASK}),
                "{path}"
            );
        }
    }
    // Updates answer masked too.
    let reply = admin
        .patch(&cred_path(id))
        .json(&json!({"inputs": {"username": "AKIA2", "password": "n3w-s3cr3t-value"}}))
        .call()
        .expect(200);
    assert!(!reply.body.contains("n3w-s3cr3t-value"));
    assert_eq!(reply.json()["inputs"]["password"], MASK);
}

fn secrets_are_stored_encrypted(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let secret = "s3cr3t-stored-sealed";
    let id = id_of(&aws_credential(&server, "sealed", org, secret));
    let stored = stored_inputs(&server, id);
    assert_eq!(stored["username"], "AKIA", "{stored}");
    let sealed = stored["password"].as_str().expect("a stored password");
    assert!(sealed.starts_with("$encrypted$AESGCM$"), "{stored}");
    assert!(!sealed.contains(secret), "{stored}");
    // Two credentials with the same secret store different ciphertexts (one nonce each).
    let other = id_of(&aws_credential(&server, "sealed-2", org, secret));
    assert_ne!(
        stored_inputs(&server, other)["password"],
        stored["password"]
    );
}

fn encrypted_placeholder_keeps_the_stored_secret(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let custom = token_type(&server);
    let admin = server.admin();
    let id = id_of(&create(
        &admin,
        &json!({"name": "kept", "credential_type": custom, "organization": org,
                "inputs": {"user": "u", "token": "t0k3n-kept-value"}}),
    ));
    let before = stored_inputs(&server, id);
    let updated = admin
        .patch(&cred_path(id))
        .json(&json!({"inputs": {"user": "u2", "token": MASK}}))
        .call()
        .expect(200)
        .json();
    assert_eq!(updated["inputs"], json!({"user": "u2", "token": MASK}));
    let after = stored_inputs(&server, id);
    let sealed = after["token"].as_str().expect("the token is still stored");
    assert!(sealed.starts_with("$encrypted$AESGCM$"), "{after}");
    assert_ne!(sealed, MASK, "the placeholder itself was stored");
    assert!(before["token"].is_string());
    // PUT keeps it the same way.
    admin
        .put(&cred_path(id))
        .json(&json!({"name": "kept", "credential_type": custom, "inputs": {"user": "u3", "token": MASK}}))
        .call()
        .expect(200);
    assert!(
        stored_inputs(&server, id)["token"]
            .as_str()
            .is_some_and(|t| t.starts_with("$encrypted$AESGCM$"))
    );
    // Sending `$encrypted$` for a secret never stored drops the key (no crash).
    let empty = id_of(&create(
        &admin,
        &json!({"name": "no token", "credential_type": custom, "organization": org, "inputs": {"user": "u"}}),
    ));
    let record = admin
        .patch(&cred_path(empty))
        .json(&json!({"inputs": {"user": "u", "token": MASK}}))
        .call()
        .expect(200)
        .json();
    assert_eq!(record["inputs"], json!({"user": "u"}));
    // A PATCH without inputs leaves the inputs alone.
    admin
        .patch(&cred_path(id))
        .json(&json!({"description": "only the description"}))
        .call()
        .expect(200);
    assert_eq!(
        admin.get_json(&cred_path(id))["inputs"],
        json!({"user": "u3", "token": MASK})
    );
}

fn empty_secret_removes_it_and_inputs_are_replaced_wholesale(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let custom = token_type(&server);
    let admin = server.admin();
    let id = id_of(&create(
        &admin,
        &json!({"name": "wholesale", "credential_type": custom, "organization": org,
                "inputs": {"user": "u", "token": "t0k3n-removed"}}),
    ));
    // An empty secret removes the key.
    let record = admin
        .patch(&cred_path(id))
        .json(&json!({"inputs": {"user": "u", "token": ""}}))
        .call()
        .expect(200)
        .json();
    assert_eq!(record["inputs"], json!({"user": "u"}));
    assert!(stored_inputs(&server, id).get("token").is_none());
    // A null secret too.
    admin
        .patch(&cred_path(id))
        .json(&json!({"inputs": {"user": "u", "token": "again"}}))
        .call()
        .expect(200);
    let record = admin
        .patch(&cred_path(id))
        .json(&json!({"inputs": {"user": "u", "token": null}}))
        .call()
        .expect(200)
        .json();
    assert_eq!(record["inputs"], json!({"user": "u"}));
    // Inputs are replaced wholesale: keys left out are dropped, secrets included.
    admin
        .patch(&cred_path(id))
        .json(&json!({"inputs": {"user": "u", "token": "third"}}))
        .call()
        .expect(200);
    let record = admin
        .patch(&cred_path(id))
        .json(&json!({"inputs": {"token": MASK}}))
        .call()
        .expect(200)
        .json();
    assert_eq!(record["inputs"], json!({"token": MASK}));
    let record = admin
        .put(&cred_path(id))
        .json(&json!({"name": "wholesale", "credential_type": custom, "inputs": {"user": "only"}}))
        .call()
        .expect(200)
        .json();
    assert_eq!(record["inputs"], json!({"user": "only"}));
    // PUT without inputs empties them.
    let record = admin
        .put(&cred_path(id))
        .json(&json!({"name": "wholesale", "credential_type": custom}))
        .call()
        .expect(200)
        .json();
    assert_eq!(record["inputs"], json!({}));
    assert_eq!(record["description"], "");
}

fn encrypted_placeholder_is_refused_on_create(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let aws = server.managed_type_id("aws");
    let reply = server
        .admin()
        .post(CREDS)
        .json(
            &json!({"name": "placeholder", "credential_type": aws, "organization": org,
                      "inputs": {"username": "u", "password": MASK}}),
        )
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("inputs"),
        ["$encrypted$ is a reserved keyword, and cannot be used for password."]
    );
    // On a non-secret field it is an ordinary value.
    let custom = token_type(&server);
    let record = create(
        &server.admin(),
        &json!({"name": "plain", "credential_type": custom, "organization": org, "inputs": {"user": MASK}}),
    );
    assert_eq!(record["inputs"]["user"], MASK);
}

fn sealed_looking_text_in_a_plain_field_is_only_text(backend: Backend) {
    // A client may type anything into a non-secret field, including text shaped like a
    // sealed value; later updates must not try to open it (which would fail with a 500).
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let custom = token_type(&server);
    let admin = server.admin();
    let fake = "$encrypted$AESGCM$bm90LWEtcmVhbC1zZWFsZWQtdmFsdWU=";
    let record = create(
        &admin,
        &json!({"name": "lookalike", "credential_type": custom, "organization": org,
                "inputs": {"user": fake, "token": "real-token-value"}}),
    );
    let id = id_of(&record);
    // Shown masked (it looks encrypted), stored as typed.
    assert_eq!(record["inputs"], json!({"user": MASK, "token": MASK}));
    assert_eq!(stored_inputs(&server, id)["user"], fake);
    let reply = admin
        .patch(&cred_path(id))
        .json(&json!({"description": "touched"}))
        .call()
        .expect(200);
    assert_eq!(reply.json()["description"], "touched");
    admin
        .patch(&cred_path(id))
        .json(&json!({"inputs": {"user": "plain now", "token": MASK}}))
        .call()
        .expect(200);
    assert_eq!(
        admin.get_json(&cred_path(id))["inputs"],
        json!({"user": "plain now", "token": MASK})
    );
    assert!(
        stored_inputs(&server, id)["token"]
            .as_str()
            .is_some_and(|t| t.starts_with("$encrypted$AESGCM$"))
    );
    // A secret field sent sealed-looking text on update is a new secret, sealed again.
    admin
        .patch(&cred_path(id))
        .json(&json!({"inputs": {"user": "u", "token": fake}}))
        .call()
        .expect(200);
    admin
        .patch(&cred_path(id))
        .json(&json!({"description": "touched again"}))
        .call()
        .expect(200);
}

fn content_source_credentials_need_an_organization(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let grace = server.create_user("grace", "pw-grace", false);
    let source = server.managed_type_id("content_source_token");
    let admin = server.admin();
    let inputs = json!({"url": "https://galaxy.example.com/", "token": "t"});
    let reply = admin
        .post(CREDS)
        .json(
            &json!({"name": "galaxy", "credential_type": source, "user": grace, "inputs": inputs}),
        )
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("organization"),
        ["Content source credentials must be owned by an Organization."]
    );
    // Grace may not create it for herself either.
    let reply = server
        .as_user("grace", "pw-grace")
        .post(CREDS)
        .json(
            &json!({"name": "galaxy", "credential_type": source, "user": grace, "inputs": inputs}),
        )
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("organization"),
        ["Content source credentials must be owned by an Organization."]
    );
    let record = create(
        &admin,
        &json!({"name": "galaxy", "credential_type": source, "organization": org, "inputs": inputs}),
    );
    assert_eq!(record["kind"], "content_source_token");
    assert_eq!(record["cloud"], false);
    assert_eq!(record["inputs"]["token"], MASK);
    // A user-owned credential cannot become a content source.
    let custom = token_type(&server);
    let mine = id_of(&owned(&admin, "mine", custom, ("user", grace)));
    let reply = admin
        .patch(&cred_path(mine))
        .json(&json!({"credential_type": source, "inputs": inputs}))
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("organization"),
        ["Content source credentials must be owned by an Organization."]
    );
    // The URL is checked.
    let reply = admin
        .post(CREDS)
        .json(
            &json!({"name": "bad url", "credential_type": source, "organization": org,
                      "inputs": {"url": "galaxy.example.com"}}),
        )
        .call()
        .expect(400);
    assert_eq!(
        reply.json()["inputs"],
        json!({"url": ["Invalid URL: Missing url scheme (http, https, etc.)"]})
    );
}

fn organization_admins_manage_their_organization_credentials(backend: Backend) {
    let server = TestServer::start(backend);
    let acme = server.create_organization("Acme");
    let other = server.create_organization("Other");
    let boss = server.create_user("boss", "pw-boss", false);
    server.add_admin(acme, boss);
    let member = server.create_user("member", "pw-member", false);
    server.add_member(acme, member);
    let outsider = server.create_user("outsider", "pw-outsider", false);
    server.add_member(other, outsider);
    let root = server.create_user("root", "pw-root", true);
    server.add_member(acme, root);
    let custom = token_type(&server);
    let admin = server.admin();

    let acme_cred = id_of(&owned(&admin, "acme", custom, ("organization", acme)));
    let other_cred = id_of(&owned(&admin, "other", custom, ("organization", other)));
    let member_cred = id_of(&owned(&admin, "member's", custom, ("user", member)));
    let outsider_cred = id_of(&owned(&admin, "outsider's", custom, ("user", outsider)));
    let root_cred = id_of(&owned(&admin, "root's", custom, ("user", root)));

    let agent = server.as_user("boss", "pw-boss");
    // The admin sees the organization's credentials and those of its users.
    assert_eq!(
        listed(&agent, CREDS),
        sorted(vec![acme_cred, member_cred, root_cred])
    );
    let record = agent.get_json(&cred_path(acme_cred));
    assert_eq!(capabilities(&record), (true, true));
    assert_eq!(
        capabilities(&agent.get_json(&cred_path(member_cred))),
        (true, true)
    );
    // A privileged user's credential is visible but not theirs to change.
    assert_eq!(
        capabilities(&agent.get_json(&cred_path(root_cred))),
        (false, false)
    );
    assert_cannot_write(&server, &agent, root_cred);
    for id in [other_cred, outsider_cred] {
        assert_denied(&agent.get(&cred_path(id)).call());
        assert_cannot_write(&server, &agent, id);
    }
    // They change and delete what they manage.
    agent
        .patch(&cred_path(acme_cred))
        .json(&json!({"description": "by boss", "inputs": {"user": "b", "token": "new"}}))
        .call()
        .expect(200);
    agent
        .patch(&cred_path(member_cred))
        .json(&json!({"description": "by boss"}))
        .call()
        .expect(200);
    agent.delete(&cred_path(member_cred)).call().expect(204);
    // They create for the organization and its plain users, not elsewhere.
    owned(&agent, "new acme", custom, ("organization", acme));
    owned(&agent, "for member", custom, ("user", member));
    owned(&agent, "for me", custom, ("user", boss));
    for owner in [("organization", other), ("user", outsider), ("user", root)] {
        let mut body = json!({"name": "nope", "credential_type": custom});
        body[owner.0] = json!(owner.1);
        assert_denied(&agent.post(CREDS).json(&body).call());
    }
}

fn plain_members_do_not_see_organization_credentials(backend: Backend) {
    let server = TestServer::start(backend);
    let acme = server.create_organization("Acme");
    let member = server.create_user("member", "pw-member", false);
    server.add_member(acme, member);
    let fellow = server.create_user("fellow", "pw-fellow", false);
    server.add_member(acme, fellow);
    let custom = token_type(&server);
    let admin = server.admin();
    let acme_cred = id_of(&owned(&admin, "acme", custom, ("organization", acme)));
    let fellow_cred = id_of(&owned(&admin, "fellow's", custom, ("user", fellow)));
    let own = id_of(&owned(&admin, "own", custom, ("user", member)));

    let agent = server.as_user("member", "pw-member");
    assert_eq!(listed(&agent, CREDS), [own]);
    for id in [acme_cred, fellow_cred] {
        assert_denied(&agent.get(&cred_path(id)).call());
        assert_cannot_write(&server, &agent, id);
    }
    let reply = agent
        .get(&format!("/api/v2/credential_types/{custom}/credentials/"))
        .call()
        .expect(200);
    assert_eq!(reply.json()["count"], 1, "{}", reply.body);
    // Nor may they create one for the organization or a fellow member.
    for owner in [("organization", acme), ("user", fellow)] {
        let mut body = json!({"name": "nope", "credential_type": custom});
        body[owner.0] = json!(owner.1);
        assert_denied(&agent.post(CREDS).json(&body).call());
    }
    assert_eq!(listed(&admin, CREDS).len(), 3);
}

fn users_manage_their_own_credentials(backend: Backend) {
    let server = TestServer::start(backend);
    let grace = server.create_user("grace", "pw-grace", false);
    let custom = token_type(&server);
    let agent = server.as_user("grace", "pw-grace");
    let record = owned(&agent, "mine", custom, ("user", grace));
    let id = id_of(&record);
    assert_eq!(capabilities(&record), (true, true));
    assert_eq!(record["summary_fields"]["user"]["username"], "grace");
    assert_eq!(listed(&agent, CREDS), [id]);
    agent
        .patch(&cred_path(id))
        .json(&json!({"name": "renamed", "inputs": {"user": "g", "token": "t"}}))
        .call()
        .expect(200);
    let read = agent.get_json(&cred_path(id));
    assert_eq!(read["name"], "renamed");
    assert_eq!(read["inputs"], json!({"user": "g", "token": MASK}));
    // Users may own several credentials with one name (the uniqueness is per organization).
    owned(&agent, "renamed", custom, ("user", grace));
    agent.delete(&cred_path(id)).call().expect(204);
    agent.get(&cred_path(id)).call().expect(404);
    assert_eq!(listed(&agent, CREDS).len(), 1);
}

fn auditor_reads_everything_but_writes_nothing(backend: Backend) {
    let server = TestServer::start(backend);
    let acme = server.create_organization("Acme");
    let grace = server.create_user("grace", "pw-grace", false);
    server.create_auditor("watcher", "pw-watcher");
    let custom = token_type(&server);
    let admin = server.admin();
    let acme_cred = id_of(&owned(&admin, "acme", custom, ("organization", acme)));
    let grace_cred = id_of(&owned(&admin, "grace's", custom, ("user", grace)));
    let agent = server.as_user("watcher", "pw-watcher");
    assert_eq!(listed(&agent, CREDS), sorted(vec![acme_cred, grace_cred]));
    for id in [acme_cred, grace_cred] {
        let record = agent.get_json(&cred_path(id));
        assert_eq!(capabilities(&record), (false, false), "{record}");
        assert_cannot_write(&server, &agent, id);
    }
    assert_denied(
        &agent
            .post(CREDS)
            .json(&json!({"name": "nope", "credential_type": custom, "organization": acme}))
            .call(),
    );
    // The superuser sees everything too.
    assert_eq!(listed(&admin, CREDS), sorted(vec![acme_cred, grace_cred]));
}

fn strangers_get_403_and_missing_is_404(backend: Backend) {
    let server = TestServer::start(backend);
    let grace = server.create_user("grace", "pw-grace", false);
    server.create_user("stranger", "pw-stranger", false);
    let custom = token_type(&server);
    let id = id_of(&owned(&server.admin(), "grace's", custom, ("user", grace)));
    let stranger = server.as_user("stranger", "pw-stranger");
    assert_denied(&stranger.get(&cred_path(id)).call());
    assert_denied(
        &stranger
            .get(&format!("{}activity_stream/", cred_path(id)))
            .call(),
    );
    assert_cannot_write(&server, &stranger, id);
    assert!(listed(&stranger, CREDS).is_empty());
    for agent in [&stranger, &server.admin()] {
        let reply = agent.get(&cred_path(999_999)).call().expect(404);
        assert!(reply.json()["detail"].is_string());
        agent
            .patch(&cred_path(999_999))
            .json(&json!({"name": "x"}))
            .call()
            .expect(404);
        agent.delete(&cred_path(999_999)).call().expect(404);
    }
    let anonymous = server.anonymous();
    for reply in [
        anonymous.get(CREDS).call(),
        anonymous.get(&cred_path(id)).call(),
        anonymous
            .post(CREDS)
            .json(&json!({"name": "x", "credential_type": custom, "user": grace}))
            .call(),
    ] {
        let reply = reply.expect(401);
        assert!(reply.detail().ends_with(LOGIN_HINT), "{}", reply.body);
    }
}

fn duplicate_name_in_organization_and_type_is_400(backend: Backend) {
    let server = TestServer::start(backend);
    let acme = server.create_organization("Acme");
    let other = server.create_organization("Other");
    let custom = token_type(&server);
    let aws = server.managed_type_id("aws");
    let admin = server.admin();
    owned(&admin, "twin", custom, ("organization", acme));
    let reply = admin
        .post(CREDS)
        .json(&json!({"name": "twin", "credential_type": custom, "organization": acme}))
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("__all__"),
        ["Credential with this Organization, Name and Credential type already exists."]
    );
    // Another organization or another type makes it distinct.
    owned(&admin, "twin", custom, ("organization", other));
    create(
        &admin,
        &json!({"name": "twin", "credential_type": aws, "organization": acme,
                "inputs": {"username": "u", "password": "p"}}),
    );
    // Renaming onto an existing name is refused the same way.
    let third = id_of(&owned(&admin, "third", custom, ("organization", acme)));
    let reply = admin
        .patch(&cred_path(third))
        .json(&json!({"name": "twin"}))
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("__all__"),
        ["Credential with this Organization, Name and Credential type already exists."]
    );
}

fn filters_select_through_the_type(backend: Backend) {
    let server = TestServer::start(backend);
    let acme = server.create_organization("Acme");
    let other = server.create_organization("Other");
    let admin = server.admin();
    let aws = id_of(&aws_credential(&server, "aws one", acme, "pw"));
    let gce = id_of(&create(
        &admin,
        &json!({"name": "gce one", "credential_type": server.managed_type_id("gce"), "organization": other,
                "inputs": {"username": "sa@example.com", "ssh_key_data": PLAIN_KEY}}),
    ));
    let ssh = id_of(&create(
        &admin,
        &json!({"name": "ssh one", "credential_type": server.managed_type_id("ssh"), "organization": acme}),
    ));
    let custom_type = token_type(&server);
    let custom = id_of(&owned(
        &admin,
        "custom one",
        custom_type,
        ("organization", acme),
    ));
    let source = id_of(&create(
        &admin,
        &json!({"name": "source one", "credential_type": server.managed_type_id("content_source_token"),
                "organization": acme, "inputs": {"url": "https://galaxy.example.com/"}}),
    ));

    let cases: Vec<(String, Vec<i64>)> = vec![
        ("credential_type__namespace=aws".into(), vec![aws]),
        (
            "credential_type__kind=cloud".into(),
            sorted(vec![aws, gce, custom]),
        ),
        ("credential_type__kind=ssh".into(), vec![ssh]),
        ("credential_type__kind=source".into(), vec![source]),
        (
            "credential_type__namespace__in=aws,ssh".into(),
            sorted(vec![aws, ssh]),
        ),
        ("credential_type__managed=false".into(), vec![custom]),
        (
            "credential_type__name=Amazon%20Web%20Services".into(),
            vec![aws],
        ),
        (format!("credential_type={custom_type}"), vec![custom]),
        ("name=gce%20one".into(), vec![gce]),
        (
            "name__icontains=ONE".into(),
            sorted(vec![aws, gce, ssh, custom, source]),
        ),
        (format!("organization={other}"), vec![gce]),
        (
            format!("organization={acme}&credential_type__kind=cloud"),
            sorted(vec![aws, custom]),
        ),
        ("search=custom".into(), vec![custom]),
        ("credential_type__namespace=nope".into(), vec![]),
    ];
    for (query, expected) in cases {
        assert_eq!(
            listed(&admin, &format!("{CREDS}?{query}")),
            expected,
            "?{query}"
        );
    }
    // Ordering.
    let page = admin.get_json(&format!("{CREDS}?order_by=-name"));
    assert_eq!(page["results"][0]["name"], "ssh one", "{page}");
    let page = admin.get_json(&format!("{CREDS}?order_by=name"));
    assert_eq!(page["results"][0]["name"], "aws one", "{page}");
    // Unknown fields are 400, not 500.
    for query in [
        "nonsense=1",
        "credential_type__nonsense=1",
        "order_by=nonsense",
    ] {
        let reply = admin.get(&format!("{CREDS}?{query}")).call().expect(400);
        assert!(
            reply.json().get("detail").is_some(),
            "{query}: {}",
            reply.body
        );
    }
}

fn inputs_cannot_be_filtered_or_ordered(backend: Backend) {
    let server = TestServer::start(backend);
    let acme = server.create_organization("Acme");
    let secret = "s3cr3t-never-filtered";
    aws_credential(&server, "probe me", acme, secret);
    let grace = server.create_user("grace", "pw-grace", false);
    let custom = token_type(&server);
    owned(
        &server.as_user("grace", "pw-grace"),
        "grace's",
        custom,
        ("user", grace),
    );
    for agent in [server.admin(), server.as_user("grace", "pw-grace")] {
        for (query, field) in [
            (format!("inputs={secret}"), "inputs"),
            ("inputs__icontains=s3cr3t".to_owned(), "inputs"),
            ("inputs__password=x".to_owned(), "inputs__password"),
            (
                "inputs__password__startswith=s".to_owned(),
                "inputs__password",
            ),
        ] {
            let reply = agent.get(&format!("{CREDS}?{query}")).call().expect(403);
            assert_eq!(
                reply.detail(),
                format!("Filtering on {field} is not allowed."),
                "?{query}"
            );
            assert!(!reply.body.contains(secret));
        }
        for order in ["inputs", "-inputs"] {
            let reply = agent.get(&format!("{CREDS}?order_by={order}")).call();
            assert!(
                reply.status == 403 || reply.status == 400,
                "order_by={order}: {} {}",
                reply.status,
                reply.body
            );
            assert!(reply.detail().contains("inputs"), "{}", reply.body);
        }
        // Through the type's sub-list as well.
        let aws = server.managed_type_id("aws");
        let reply = agent
            .get(&format!(
                "/api/v2/credential_types/{aws}/credentials/?inputs__password=x"
            ))
            .call()
            .expect(403);
        assert_eq!(
            reply.detail(),
            "Filtering on inputs__password is not allowed."
        );
    }
}

fn credential_type_cannot_change_while_in_use(backend: Backend) {
    let server = TestServer::start(backend);
    let acme = server.create_organization("Acme");
    let source_type = server.managed_type_id("content_source_token");
    let admin = server.admin();
    let source = id_of(&create(
        &admin,
        &json!({"name": "galaxy", "credential_type": source_type, "organization": acme,
                "inputs": {"url": "https://galaxy.example.com/", "token": "t0k3n"}}),
    ));
    let list = format!("/api/v2/organizations/{acme}/source_credentials/");
    admin
        .post(&list)
        .json(&json!({"id": source}))
        .call()
        .expect(204);
    let target = custom_type(
        &server,
        "Like a source",
        &json!({"fields": [
            {"id": "url", "label": "URL"},
            {"id": "token", "label": "Token", "secret": true},
        ]}),
    );
    let message = "You cannot change the credential type of the credential, as it may break the functionality of the resources using it.";
    for body in [
        json!({"credential_type": target}),
        json!({"credential_type": target, "inputs": {"url": "https://x.example.com/"}}),
    ] {
        let reply = admin
            .patch(&cred_path(source))
            .json(&body)
            .call()
            .expect(400);
        assert_eq!(reply.field_errors("credential_type"), [message]);
    }
    let reply = admin
        .put(&cred_path(source))
        .json(&json!({"name": "galaxy", "credential_type": target}))
        .call()
        .expect(400);
    assert_eq!(reply.field_errors("credential_type"), [message]);
    assert_eq!(
        admin.get_json(&cred_path(source))["credential_type"],
        source_type
    );
    // Echoing the current type is no change.
    admin
        .patch(&cred_path(source))
        .json(&json!({"credential_type": source_type, "description": "same type"}))
        .call()
        .expect(200);
    // Once out of the list, the type may change; the stored inputs (secret included) move
    // along, checked against the new type.
    admin
        .post(&list)
        .json(&json!({"id": source, "disassociate": true}))
        .call()
        .expect(204);
    let moved = admin
        .patch(&cred_path(source))
        .json(&json!({"credential_type": target}))
        .call()
        .expect(200)
        .json();
    assert_eq!(moved["credential_type"], target);
    assert_eq!(
        moved["inputs"],
        json!({"url": "https://galaxy.example.com/", "token": MASK})
    );
    assert!(
        stored_inputs(&server, source)["token"]
            .as_str()
            .is_some_and(|t| t.starts_with("$encrypted$AESGCM$"))
    );
}

fn changing_the_type_revalidates_the_inputs(backend: Backend) {
    let server = TestServer::start(backend);
    let acme = server.create_organization("Acme");
    let admin = server.admin();
    let id = id_of(&aws_credential(&server, "aws", acme, "pw-aws"));
    let custom = token_type(&server);
    // The aws inputs do not fit the custom type.
    let reply = admin
        .patch(&cred_path(id))
        .json(&json!({"credential_type": custom}))
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("inputs"),
        ["Additional properties are not allowed ('password', 'username' were unexpected)"]
    );
    // With fitting inputs it is fine.
    let record = admin
        .patch(&cred_path(id))
        .json(&json!({"credential_type": custom, "inputs": {"user": "u", "token": "tk"}}))
        .call()
        .expect(200)
        .json();
    assert_eq!(record["credential_type"], custom);
    assert_eq!(record["kind"], Value::Null);
    assert_eq!(record["inputs"], json!({"user": "u", "token": MASK}));
}

fn activity_stream_never_shows_a_secret(backend: Backend) {
    let server = TestServer::start(backend);
    let acme = server.create_organization("Acme");
    let first = "s3cr3t-activity-first";
    let second = "s3cr3t-activity-second";
    let admin = server.admin();
    let id = id_of(&aws_credential(&server, "tracked", acme, first));
    admin
        .patch(&cred_path(id))
        .json(&json!({"inputs": {"username": "AKIA2", "password": second}}))
        .call()
        .expect(200);
    let path = format!("{}activity_stream/", cred_path(id));
    let reply = admin.get(&path).call().expect(200);
    assert!(!reply.body.contains(first) && !reply.body.contains(second));
    let page = reply.json();
    let entries = page["results"].as_array().expect("results").clone();
    let mut operations: Vec<&str> = entries
        .iter()
        .filter_map(|e| e["operation"].as_str())
        .collect();
    operations.sort_unstable();
    assert_eq!(operations, ["create", "update"], "{page}");
    let created = entries
        .iter()
        .find(|e| e["operation"] == "create")
        .expect("create entry");
    assert_eq!(created["object1"], "credential");
    assert_eq!(
        created["changes"]["inputs"],
        json!({"username": "AKIA", "password": MASK}),
        "{created}"
    );
    let updated = entries
        .iter()
        .find(|e| e["operation"] == "update")
        .expect("update entry");
    assert_eq!(
        updated["changes"]["inputs"],
        json!([
            {"username": "AKIA", "password": MASK},
            {"username": "AKIA2", "password": MASK},
        ]),
        "{updated}"
    );
    admin.delete(&cred_path(id)).call().expect(204);
    let reply = admin
        .get("/api/v2/activity_stream/?page_size=200")
        .call()
        .expect(200);
    assert!(!reply.body.contains(first) && !reply.body.contains(second));
    let all = reply.json();
    assert!(
        all["results"]
            .as_array()
            .expect("results")
            .iter()
            .any(|e| e["operation"] == "delete"
                && e["object1"] == "credential"
                && e["changes"]["inputs"]["password"] == MASK),
        "{all}"
    );
}

fn read_scope_token_reads_but_cannot_write(backend: Backend) {
    let server = TestServer::start(backend);
    let acme = server.create_organization("Acme");
    let admin = server.admin();
    let id = id_of(&aws_credential(&server, "guarded", acme, "pw-guarded"));
    let aws = server.managed_type_id("aws");
    let read = admin.with_bearer(&admin.personal_token("read"));
    let record = read.get_json(&cred_path(id));
    assert_eq!(record["name"], "guarded");
    assert_eq!(capabilities(&record), (false, false));
    assert_eq!(listed(&read, CREDS), [id]);
    assert_denied(
        &read
            .post(CREDS)
            .json(
                &json!({"name": "nope", "credential_type": aws, "organization": acme,
                          "inputs": {"username": "u", "password": "p"}}),
            )
            .call(),
    );
    assert_denied(
        &read
            .post(&format!("/api/v2/credential_types/{aws}/credentials/"))
            .json(&json!({"name": "nope", "organization": acme,
                          "inputs": {"username": "u", "password": "p"}}))
            .call(),
    );
    assert_cannot_write(&server, &read, id);
    let options = read.options(CREDS).call().expect(200).json();
    assert!(options["actions"].get("POST").is_none(), "{options}");

    let write = admin.with_bearer(&admin.personal_token("write"));
    write
        .patch(&cred_path(id))
        .json(&json!({"description": "by token"}))
        .call()
        .expect(200);
    write.delete(&cred_path(id)).call().expect(204);
}

fn options_describes_the_fields(backend: Backend) {
    let server = TestServer::start(backend);
    server.create_user("grace", "pw-grace", false);
    let grace = server.as_user("grace", "pw-grace");
    for agent in [server.admin(), grace.clone()] {
        let reply = agent.options(CREDS).call().expect(200);
        let allow = reply.header("Allow").unwrap_or_default();
        assert!(allow.contains("POST"), "{allow}");
        let body = reply.json();
        let post = &body["actions"]["POST"];
        assert_eq!(post["inputs"]["type"], "json", "{body}");
        assert_eq!(post["inputs"]["filterable"], false, "{body}");
        assert_eq!(post["credential_type"]["required"], true, "{body}");
        assert_eq!(post["name"]["required"], true, "{body}");
        assert!(
            post["organization"].is_object() && post["user"].is_object(),
            "{body}"
        );
        assert!(body["object_roles"].is_array(), "{body}");
    }
    server.anonymous().options(CREDS).call().expect(401);
}

fn malformed_bodies_are_400_never_500(backend: Backend) {
    let server = TestServer::start(backend);
    let acme = server.create_organization("Acme");
    let custom = token_type(&server);
    let admin = server.admin();
    let reply = admin
        .post(CREDS)
        .json(
            &json!({"name": "x", "credential_type": custom, "organization": acme, "inputs": null}),
        )
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("inputs"),
        ["This field may not be null."]
    );
    let reply = admin
        .post(CREDS)
        .header("Content-Type", "application/json")
        .body("{\"name\": \"x\", ")
        .call()
        .expect(400);
    assert!(reply.detail().starts_with("JSON parse error - "));
    let reply = admin
        .post(CREDS)
        .header("Content-Type", "text/plain")
        .body("name=x")
        .call()
        .expect(415);
    assert!(
        reply.detail().contains("application/json"),
        "{}",
        reply.body
    );
    // Deep nesting inside inputs, as a value and as raw text.
    let mut deep = json!("x");
    for _ in 0..100 {
        deep = json!({ "a": deep });
    }
    let reply = admin
        .post(CREDS)
        .json(&json!({"name": "x", "credential_type": custom, "organization": acme, "inputs": {"user": deep}}))
        .call()
        .expect(400);
    let message = reply.json()["inputs"]["user"][0]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        message.starts_with("{'a': {'a': ") && message.ends_with("}} is not of type 'string'"),
        "{}",
        reply.body
    );
    let depth = 500_000;
    let raw = format!(
        "{{\"name\": \"x\", \"credential_type\": {custom}, \"organization\": {acme}, \"inputs\": {}{}}}",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    let reply = admin
        .post(CREDS)
        .header("Content-Type", "application/json")
        .body(raw)
        .call()
        .expect(400);
    assert!(
        reply.detail().starts_with("JSON parse error - "),
        "{}",
        reply.body
    );
    // Over the body limit.
    let reply = admin
        .post(CREDS)
        .json(
            &json!({"name": "x", "credential_type": custom, "organization": acme,
                      "inputs": {"user": "x".repeat(1_100_000)}}),
        )
        .call()
        .expect(413);
    assert!(reply.json()["detail"].is_string());
    assert_eq!(listed(&admin, CREDS), Vec::<i64>::new());
}

/// The key id a stored secret was sealed under.
fn sealed_by(server: &TestServer, id: i64, field: &str) -> acs_credential_types::KeyId {
    let stored = stored_inputs(server, id);
    let sealed = stored[field].as_str().expect("a stored secret");
    acs_credential_types::sealed_key_id(sealed).expect("a sealed value names its key")
}

/// A rotation writes the next key beside the key file, then renames it over the key file: a
/// running server seals under the next key from then on, and still opens what the old key
/// sealed, without a restart.
fn a_running_server_follows_a_new_key_file_without_a_restart(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let custom = token_type(&server);
    let admin = server.admin();
    let credential = |name: &str, token: &str| {
        id_of(&create(
            &admin,
            &json!({"name": name, "credential_type": custom, "organization": org,
                    "inputs": {"user": "u", "token": token}}),
        ))
    };
    let key_file = server.data_dir().join("secret_key");
    let old = std::fs::read(&key_file).expect("the key file");
    let old_id = acs_credential_types::InputCipher::from_secret_key(&old).current_key_id();
    let before = credential("before", "t0k3n-before");
    assert_eq!(sealed_by(&server, before, "token"), old_id);

    let next = [42_u8; 32];
    let next_id = acs_credential_types::InputCipher::from_secret_key(&next).current_key_id();
    std::fs::write(server.data_dir().join("secret_key.next"), next).expect("the next key");
    let during = credential("during", "t0k3n-during");
    assert_eq!(sealed_by(&server, during, "token"), next_id);
    // The old value still opens: an update that keeps it re-seals it under the next key.
    admin
        .patch(&cred_path(before))
        .json(&json!({"inputs": {"user": "u2", "token": MASK}}))
        .call()
        .expect(200);
    assert_eq!(sealed_by(&server, before, "token"), next_id);

    std::fs::rename(server.data_dir().join("secret_key.next"), &key_file).expect("renamed");
    let after = credential("after", "t0k3n-after");
    assert_eq!(sealed_by(&server, after, "token"), next_id);
    for id in [before, during] {
        admin
            .patch(&cred_path(id))
            .json(&json!({"inputs": {"user": "u3", "token": MASK}}))
            .call()
            .expect(200);
    }
    let cipher = acs_credential_types::InputCipher::from_secret_key(&next);
    let stored = stored_inputs(&server, before);
    assert_eq!(
        cipher
            .open("token", stored["token"].as_str().expect("sealed"))
            .as_deref(),
        Ok("t0k3n-before"),
        "the value survived both moves"
    );
}

//! `/api/v2/credential_types/`: the managed types present at first start, the record (with
//! `injectors` shown to superusers only), creation by superusers, the `inputs` and `injectors`
//! schema rules and their messages (reference §2 with the contract's `AUTOMATION_` prefix, env
//! blocklist and extra_vars rules), the managed and in-use protections, the `credentials/` and
//! `activity_stream/` sub-lists, OPTIONS, filters, read-scope tokens, and hostile documents
//! (YAML alias bombs, deep nesting, oversized bodies) that must never yield a 500.

use std::time::{Duration, Instant};

use acs_tests::{
    Agent, Backend, Call, LOGIN_HINT, Reply, TestServer, WWW_AUTHENTICATE, backend_tests, id_of,
    is_api_timestamp, results,
};
use serde_json::{Value, json};

backend_tests!(
    managed_types_exist_at_first_start,
    superuser_creates_a_custom_type_with_the_full_record,
    inputs_and_injectors_may_be_yaml_or_json_text,
    only_superusers_see_injectors,
    only_superusers_create_types,
    custom_kinds_are_cloud_or_net,
    input_schema_errors_use_the_reference_messages,
    reserved_field_ids_are_refused,
    injector_schema_errors_use_the_reference_messages,
    reserved_env_names_are_refused,
    automation_prefix_is_refused_in_files_and_extra_vars,
    extra_vars_values_must_be_strings_lists_or_objects,
    valid_injectors_are_accepted,
    duplicate_name_and_kind_is_400,
    managed_types_cannot_be_changed_or_deleted,
    in_use_types_keep_their_inputs,
    unused_types_change_and_delete_freely,
    changing_inputs_revalidates_stored_injectors,
    credentials_sublist_lists_and_creates_credentials_of_the_type,
    activity_stream_records_create_update_and_delete,
    activity_stream_shows_injectors_to_superusers_only,
    options_lists_all_kinds_but_offers_only_cloud_and_net,
    list_is_ordered_filterable_and_never_leaks_injectors,
    read_scope_token_reads_but_cannot_write,
    missing_type_is_404_and_anonymous_is_401,
    hostile_documents_are_400_never_500,
    oversized_bodies_are_413,
);

const TYPES: &str = "/api/v2/credential_types/";
const DENIED: &str = "You do not have permission to perform this action.";

/// The managed types the contract promises, with their kinds.
const MANAGED: &[(&str, &str)] = &[
    ("ssh", "ssh"),
    ("scm", "scm"),
    ("vault", "vault"),
    ("net", "net"),
    ("aws", "cloud"),
    ("gce", "cloud"),
    ("azure_rm", "cloud"),
    ("vmware", "cloud"),
    ("openstack", "cloud"),
    ("satellite6", "cloud"),
    ("rhv", "cloud"),
    ("controller", "cloud"),
    ("terraform", "cloud"),
    ("insights", "insights"),
    ("content_source_token", "source"),
];

fn type_path(id: i64) -> String {
    format!("/api/v2/credential_types/{id}/")
}

/// A custom cloud type with one secret field injected as an env variable.
fn token_type(name: &str) -> Value {
    json!({
        "name": name,
        "description": "a token",
        "kind": "cloud",
        "inputs": {"fields": [{"id": "api_token", "label": "Token", "secret": true}]},
        "injectors": {"env": {"MY_TOKEN": "{{ api_token }}"}},
    })
}

/// The inputs the reference's injector examples are written against.
fn example_inputs() -> Value {
    json!({"fields": [
        {"id": "username", "label": "Username"},
        {"id": "pass", "label": "Password", "secret": true},
        {"id": "awx_secret", "label": "Secret", "secret": true},
        {"id": "host", "label": "Host"},
    ]})
}

/// Creates a type as `agent` (expects 201) and returns the record.
#[track_caller]
fn create(agent: &Agent, body: &Value) -> Value {
    agent.post(TYPES).json(body).call().expect(201).json()
}

/// The id of the managed type with `namespace`.
#[track_caller]
fn managed_id(agent: &Agent, namespace: &str) -> i64 {
    let page = agent.get_json(&format!("{TYPES}?namespace={namespace}"));
    assert_eq!(page["count"], 1, "{namespace}: {page}");
    id_of(&page["results"][0])
}

/// Posts a type with `inputs` (and `injectors`, if given) and returns the 400 reply.
#[track_caller]
fn refused(agent: &Agent, inputs: &Value, injectors: Option<&Value>) -> Reply {
    let mut body = json!({"name": "Refused", "kind": "cloud", "inputs": inputs});
    if let Some(injectors) = injectors {
        body["injectors"] = injectors.clone();
    }
    agent.post(TYPES).json(&body).call().expect(400)
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

#[track_caller]
fn capabilities(record: &Value) -> (bool, bool) {
    let caps = &record["summary_fields"]["user_capabilities"];
    match (caps["edit"].as_bool(), caps["delete"].as_bool()) {
        (Some(edit), Some(delete)) => (edit, delete),
        _ => panic!("no user_capabilities in {record}"),
    }
}

/// Creates an organization-owned credential of type `type_id` as admin; returns its id.
#[track_caller]
fn create_credential(server: &TestServer, type_id: i64, org: i64, inputs: &Value) -> i64 {
    let record = server
        .admin()
        .post("/api/v2/credentials/")
        .json(&json!({
            "name": format!("cred-{type_id}-{}", inputs.to_string().len()),
            "credential_type": type_id,
            "organization": org,
            "inputs": inputs,
        }))
        .call()
        .expect(201)
        .json();
    id_of(&record)
}

fn managed_types_exist_at_first_start(backend: Backend) {
    let server = TestServer::start(backend);
    let page = server.admin().get_json(&format!("{TYPES}?page_size=200"));
    let all = results(&page);
    assert_eq!(page["count"], json!(all.len()), "{page}");
    for (namespace, kind) in MANAGED {
        let found: Vec<&Value> = all
            .iter()
            .filter(|t| t["namespace"] == json!(namespace))
            .collect();
        assert_eq!(found.len(), 1, "managed type {namespace}: {page}");
        let record = found[0];
        assert_eq!(record["kind"], json!(kind), "{record}");
        assert_eq!(record["managed"], true, "{record}");
        assert!(record["inputs"]["fields"].is_array(), "{record}");
    }
    // Every type present at first start is managed.
    assert!(all.iter().all(|t| t["managed"] == true), "{page}");
    // Ordered by kind, then name.
    let keys: Vec<(String, String)> = all
        .iter()
        .map(|t| {
            (
                t["kind"].as_str().unwrap_or_default().to_owned(),
                t["name"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted, "the list is ordered by kind, then name");

    let aws = all
        .iter()
        .find(|t| t["namespace"] == "aws")
        .expect("aws type");
    assert_eq!(aws["name"], "Amazon Web Services");
    let password = aws["inputs"]["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .find(|f| f["id"] == "password")
        .expect("aws password field");
    assert_eq!(password["secret"], true, "{aws}");
    assert_eq!(
        aws["injectors"]["env"]["AWS_ACCESS_KEY_ID"],
        "{{ username }}"
    );

    let source = all
        .iter()
        .find(|t| t["namespace"] == "content_source_token")
        .expect("content source type");
    let ids: Vec<&str> = source["inputs"]["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .filter_map(|f| f["id"].as_str())
        .collect();
    assert_eq!(ids, ["url", "auth_url", "token"], "{source}");
    assert_eq!(source["inputs"]["required"], json!(["url"]), "{source}");
    let token = &source["inputs"]["fields"][2];
    assert_eq!(token["secret"], true, "{source}");

    // The managed filter agrees: nothing else exists yet.
    let again = server
        .admin()
        .get_json(&format!("{TYPES}?managed=true&page_size=200"));
    assert_eq!(again["count"], json!(all.len()), "{again}");
}

fn superuser_creates_a_custom_type_with_the_full_record(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let mut body = token_type("My Cloud");
    // Not writable: ignored.
    body["managed"] = json!(true);
    body["namespace"] = json!("sneaky");
    let reply = admin.post(TYPES).json(&body).call().expect(201);
    let created = reply.json();
    let id = id_of(&created);
    assert_eq!(reply.header("Location"), Some(type_path(id)));
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
            "kind",
            "namespace",
            "managed",
            "inputs",
            "injectors",
        ]
    );
    assert_eq!(created["type"], "credential_type");
    assert_eq!(created["url"], type_path(id));
    assert_eq!(
        created["related"]["credentials"],
        format!("{}credentials/", type_path(id))
    );
    assert_eq!(
        created["related"]["activity_stream"],
        format!("{}activity_stream/", type_path(id))
    );
    assert_eq!(capabilities(&created), (true, true), "{created}");
    for stamp in ["created", "modified"] {
        assert!(
            is_api_timestamp(created[stamp].as_str().unwrap_or_default()),
            "{stamp}: {created}"
        );
    }
    assert_eq!(created["name"], "My Cloud");
    assert_eq!(created["description"], "a token");
    assert_eq!(created["kind"], "cloud");
    assert_eq!(created["namespace"], Value::Null);
    assert_eq!(created["managed"], false);
    // Normalised: every field gets an explicit type.
    assert_eq!(
        created["inputs"],
        json!({"fields": [{"id": "api_token", "label": "Token", "secret": true, "type": "string"}]})
    );
    assert_eq!(
        created["injectors"],
        json!({"env": {"MY_TOKEN": "{{ api_token }}"}})
    );
    // Read back identically.
    assert_eq!(admin.get_json(&type_path(id)), created);

    // Omitted documents default to empty objects.
    let bare = create(&admin, &json!({"name": "Bare", "kind": "net"}));
    assert_eq!(bare["inputs"], json!({}));
    assert_eq!(bare["injectors"], json!({}));
    assert_eq!(bare["description"], "");
}

fn inputs_and_injectors_may_be_yaml_or_json_text(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let yaml = create(
        &admin,
        &json!({
            "name": "From YAML",
            "kind": "cloud",
            "inputs": "fields:\n  - id: api_token\n    label: Token\n    secret: true\nrequired:\n  - api_token\n",
            "injectors": "env:\n  MY_TOKEN: '{{ api_token }}'\nextra_vars:\n  token: '{{ api_token }}'\n",
        }),
    );
    assert_eq!(
        yaml["inputs"],
        json!({
            "fields": [{"id": "api_token", "label": "Token", "secret": true, "type": "string"}],
            "required": ["api_token"],
        })
    );
    assert_eq!(
        yaml["injectors"],
        json!({"env": {"MY_TOKEN": "{{ api_token }}"}, "extra_vars": {"token": "{{ api_token }}"}})
    );
    let text = create(
        &admin,
        &json!({
            "name": "From JSON text",
            "kind": "net",
            "inputs": r#"{"fields": [{"id": "host", "label": "Host", "type": "string"}]}"#,
            "injectors": r#"{"env": {"NET_HOST": "{{ host }}"}}"#,
        }),
    );
    assert!(text["inputs"].is_object(), "{text}");
    assert_eq!(text["inputs"]["fields"][0]["id"], "host");
    assert_eq!(
        text["injectors"],
        json!({"env": {"NET_HOST": "{{ host }}"}})
    );
    // The stored documents are objects, not strings, when read back.
    let read = admin.get_json(&type_path(id_of(&yaml)));
    assert!(
        read["inputs"].is_object() && read["injectors"].is_object(),
        "{read}"
    );
    // Empty text is the empty document.
    let empty = create(
        &admin,
        &json!({"name": "Empty text", "kind": "cloud", "inputs": "", "injectors": "  "}),
    );
    assert_eq!(empty["inputs"], json!({}));
    assert_eq!(empty["injectors"], json!({}));
}

fn only_superusers_see_injectors(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let id = id_of(&create(&admin, &token_type("Hidden injectors")));
    let aws = managed_id(&admin, "aws");
    server.create_user("plain", "pw-plain", false);
    server.create_auditor("watcher", "pw-watcher");
    let org = server.create_organization("Acme");
    let boss = server.create_user("boss", "pw-boss", false);
    server.add_admin(org, boss);

    for (username, password) in [
        ("plain", "pw-plain"),
        ("watcher", "pw-watcher"),
        ("boss", "pw-boss"),
    ] {
        let agent = server.as_user(username, password);
        for path in [type_path(id), type_path(aws)] {
            let record = agent.get_json(&path);
            assert!(
                record.get("injectors").is_none(),
                "{username} sees injectors: {record}"
            );
            assert!(record["inputs"].is_object(), "{username}: {record}");
            assert_eq!(
                capabilities(&record),
                (false, false),
                "{username}: {record}"
            );
        }
        let page = agent.get_json(&format!("{TYPES}?page_size=200"));
        assert!(
            results(&page).iter().all(|t| t.get("injectors").is_none()),
            "{username} sees injectors in the list: {page}"
        );
        assert!(!page.to_string().contains("MY_TOKEN"), "{username}: {page}");
    }
    let record = admin.get_json(&type_path(id));
    assert_eq!(record["injectors"]["env"]["MY_TOKEN"], "{{ api_token }}");
    let page = admin.get_json(&format!("{TYPES}?page_size=200"));
    assert!(
        results(&page).iter().all(|t| t["injectors"].is_object()),
        "{page}"
    );
}

fn only_superusers_create_types(backend: Backend) {
    let server = TestServer::start(backend);
    server.create_user("plain", "pw-plain", false);
    server.create_auditor("watcher", "pw-watcher");
    let org = server.create_organization("Acme");
    let boss = server.create_user("boss", "pw-boss", false);
    server.add_admin(org, boss);
    let id = id_of(&create(&server.admin(), &token_type("Target")));

    for (username, password) in [
        ("plain", "pw-plain"),
        ("watcher", "pw-watcher"),
        ("boss", "pw-boss"),
    ] {
        let agent = server.as_user(username, password);
        agent.get(TYPES).call().expect(200);
        assert_denied(&agent.post(TYPES).json(&token_type("Nope")).call());
        assert_denied(
            &agent
                .patch(&type_path(id))
                .json(&json!({"name": "hijacked"}))
                .call(),
        );
        assert_denied(
            &agent
                .put(&type_path(id))
                .json(&token_type("hijacked"))
                .call(),
        );
        assert_denied(&agent.delete(&type_path(id)).call());
    }
    let anonymous = server.anonymous();
    for reply in [
        anonymous.post(TYPES).json(&token_type("Nope")).call(),
        anonymous
            .patch(&type_path(id))
            .json(&json!({"name": "x"}))
            .call(),
        anonymous.delete(&type_path(id)).call(),
        anonymous.get(TYPES).call(),
    ] {
        let reply = reply.expect(401);
        assert!(reply.detail().ends_with(LOGIN_HINT), "{}", reply.body);
        assert_eq!(
            reply.header("WWW-Authenticate").as_deref(),
            Some(WWW_AUTHENTICATE)
        );
    }
    let unchanged = server.admin().get_json(&type_path(id));
    assert_eq!(unchanged["name"], "Target");
    // A second superuser may create.
    server.create_user("root2", "pw-root2", true);
    create(
        &server.as_user("root2", "pw-root2"),
        &token_type("By root2"),
    );
}

fn custom_kinds_are_cloud_or_net(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    for kind in ["ssh", "vault", "scm", "insights", "source"] {
        let reply = admin
            .post(TYPES)
            .json(&json!({"name": format!("k-{kind}"), "kind": kind}))
            .call()
            .expect(400);
        assert_eq!(
            reply.field_errors("kind"),
            [format!("Must be 'cloud' or 'net', not {kind}")],
            "{}",
            reply.body
        );
    }
    let reply = admin
        .post(TYPES)
        .json(&json!({"name": "k8s", "kind": "kubernetes"}))
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("kind"),
        ["\"kubernetes\" is not a valid choice."]
    );
    let reply = admin.post(TYPES).json(&json!({})).call().expect(400);
    assert_eq!(reply.field_errors("name"), ["This field is required."]);
    assert_eq!(reply.field_errors("kind"), ["This field is required."]);
    let reply = admin
        .post(TYPES)
        .json(&json!({"name": "   ", "kind": "cloud"}))
        .call()
        .expect(400);
    assert_eq!(reply.field_errors("name"), ["This field may not be blank."]);
    let reply = admin
        .post(TYPES)
        .json(&json!({"name": "x".repeat(513), "kind": "cloud"}))
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("name"),
        ["Ensure this field has no more than 512 characters."]
    );

    let net = create(&admin, &json!({"name": "Router", "kind": "net"}));
    assert_eq!(net["kind"], "net");
    let cloud = create(&admin, &json!({"name": "Router", "kind": "cloud"}));
    assert_eq!(cloud["kind"], "cloud");
    // Changing to a kind a custom type may not have is refused too.
    let reply = admin
        .patch(&type_path(id_of(&net)))
        .json(&json!({"kind": "ssh"}))
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("kind"),
        ["Must be 'cloud' or 'net', not ssh"]
    );
}

fn input_schema_errors_use_the_reference_messages(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let field = |extra: Value| {
        let mut field = json!({"id": "username", "label": "Username"});
        for (key, value) in extra.as_object().expect("object") {
            field[key] = value.clone();
        }
        json!({"fields": [field]})
    };
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (
            json!({"fields": {}}),
            vec!["dict provided in relative path ['fields'], expected array"],
        ),
        (
            json!({"fields": 123}),
            vec!["int provided in relative path ['fields'], expected array"],
        ),
        (
            field(json!({"foo": "bar"})),
            vec![
                "Schema validation error in relative path ['fields', 0] (Additional properties are not allowed ('foo' was unexpected))",
            ],
        ),
        (
            field(json!({"help_text": 1})),
            vec!["int provided in relative path ['fields', 0, 'help_text'], expected string"],
        ),
        (
            json!({"fields": [{"id": "$invalid$", "label": "X"}]}),
            vec!["$invalid$ is an invalid variable name"],
        ),
        (
            json!({"fields": [{"id": "9x", "label": "X"}]}),
            vec!["9x is an invalid variable name"],
        ),
        (
            json!({"fields": [{"id": "x-y", "label": "X"}]}),
            vec!["x-y is an invalid variable name"],
        ),
        (
            field(json!({"type": "invalid-type"})),
            vec!["'invalid-type' is not one of ['string', 'boolean']"],
        ),
        (
            field(json!({"format": "vault_id"})),
            vec!["'vault_id' is not one of ['ssh_private_key', 'url']"],
        ),
        (
            field(json!({"choices": "not-a-list"})),
            vec!["str provided in relative path ['fields', 0, 'choices'], expected array"],
        ),
        (
            field(json!({"choices": []})),
            vec!["[] should be non-empty"],
        ),
        (
            field(json!({"choices": ["dup", "dup"]})),
            vec!["['dup', 'dup'] has non-unique elements"],
        ),
        (
            field(json!({"multiline": "bad"})),
            vec!["str provided in relative path ['fields', 0, 'multiline'], expected boolean"],
        ),
        (
            field(json!({"secret": "bad"})),
            vec!["str provided in relative path ['fields', 0, 'secret'], expected boolean"],
        ),
        (
            json!({"fields": [{"id": "username"}]}),
            vec!["'label' is a required property"],
        ),
        (
            json!({"fields": [{"label": "Username"}]}),
            vec!["'id' is a required property"],
        ),
        (
            json!({"feelds": {}}),
            vec![
                "Schema validation error in relative path [] (Additional properties are not allowed ('feelds' was unexpected))",
            ],
        ),
        (
            json!({"fields": [123, 234, 345]}),
            vec![
                "int provided in relative path ['fields', 0], expected dict",
                "int provided in relative path ['fields', 1], expected dict",
                "int provided in relative path ['fields', 2], expected dict",
            ],
        ),
        (
            json!({"required": "x"}),
            vec!["str provided in relative path ['required'], expected array"],
        ),
        (json!(true), vec!["bool provided, expected dict"]),
        (json!(100), vec!["int provided, expected dict"]),
        (json!([1, 2, 3, 4]), vec!["list provided, expected dict"]),
        (json!("malformed"), vec!["str provided, expected dict"]),
        (
            json!({"fields": [{"id": "a", "label": "A"}, {"id": "a", "label": "B"}]}),
            vec!["field IDs must be unique (a)"],
        ),
        (
            json!({"fields": [{"id": "a", "label": "Token"}, {"id": "b", "label": "Token"}]}),
            vec!["field labels must be unique (Token)"],
        ),
        (
            field(json!({"default": null})),
            vec!["None is not a string"],
        ),
        (
            field(json!({"default": true})),
            vec!["True is not a string"],
        ),
        (
            json!({"fields": [{"id": "flag", "label": "Flag", "type": "boolean", "default": "some default string"}]}),
            vec!["some default string is not a boolean"],
        ),
        (
            json!({"fields": [{"id": "flag", "label": "Flag", "type": "boolean", "choices": ["a"]}]}),
            vec!["choices not allowed for boolean type (flag)"],
        ),
        (
            json!({"fields": [{"id": "flag", "label": "Flag", "type": "boolean", "secret": true}]}),
            vec!["secret not allowed for boolean type (flag)"],
        ),
        (
            json!({"fields": [{"id": "flag", "label": "Flag", "type": "boolean", "multiline": true}]}),
            vec!["multiline not allowed for boolean type (flag)"],
        ),
        (
            json!({"fields": [{"id": "a", "label": "A"}], "dependencies": {"a": ["b"]}}),
            vec!["'dependencies' is not supported for custom credentials."],
        ),
        (
            field(json!({"ask_at_runtime": true})),
            vec!["'ask_at_runtime' is not supported for custom credentials."],
        ),
    ];
    for (inputs, expected) in cases {
        let reply = refused(&admin, &inputs, None);
        assert_eq!(
            reply.field_errors("inputs"),
            expected,
            "inputs {inputs}: {}",
            reply.body
        );
    }
    // Accepted shapes.
    for (n, inputs) in [
        json!({}),
        json!({"fields": []}),
        json!({"fields": [{"id": "a", "label": "A"}], "required": ["not_a_field"]}),
        field(json!({"format": "ssh_private_key", "multiline": true, "secret": true})),
        field(json!({"choices": ["su", "sudo"], "default": "su"})),
        json!({"fields": [{"id": "flag", "label": "Flag", "type": "boolean", "default": false}]}),
        json!({"fields": [{"id": "Svc", "label": "Case matters"}]}),
    ]
    .into_iter()
    .enumerate()
    {
        create(
            &admin,
            &json!({"name": format!("ok-{n}"), "kind": "cloud", "inputs": inputs}),
        );
    }
    // Nothing was created by the refused requests.
    let page = admin.get_json(&format!("{TYPES}?managed=false&page_size=200"));
    assert_eq!(page["count"], 7, "{page}");
}

fn reserved_field_ids_are_refused(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let reply = refused(
        &admin,
        &json!({"fields": [{"id": "svc", "label": "Service"}]}),
        None,
    );
    assert_eq!(
        reply.field_errors("inputs"),
        ["\"svc\" is a reserved field name"]
    );
    for id in ["AUTOMATION_TOKEN", "AUTOMATION_"] {
        let reply = refused(
            &admin,
            &json!({"fields": [{"id": id, "label": "Reserved"}]}),
            None,
        );
        assert_eq!(
            reply.field_errors("inputs"),
            [format!(
                "{id} uses the reserved prefix AUTOMATION_ and is not allowed in credentials."
            )],
            "{}",
            reply.body
        );
    }
    // Neither the prefix in lower case nor elsewhere in the id is reserved.
    create(
        &admin,
        &json!({"name": "not reserved", "kind": "cloud", "inputs": {"fields": [
            {"id": "automation_token", "label": "A"},
            {"id": "MY_AUTOMATION_TOKEN", "label": "B"},
        ]}}),
    );
    // The reserved rules apply to PATCH as well.
    let id = id_of(&create(&admin, &token_type("Patched")));
    let reply = admin
        .patch(&type_path(id))
        .json(&json!({"inputs": {"fields": [{"id": "AUTOMATION_X", "label": "X"}]}}))
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("inputs"),
        ["AUTOMATION_X uses the reserved prefix AUTOMATION_ and is not allowed in credentials."]
    );
}

fn injector_schema_errors_use_the_reference_messages(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let inputs = example_inputs();
    let exact: Vec<(Value, Vec<&str>)> = vec![
        (
            json!({"invalid-injector": {}}),
            vec![
                "Schema validation error in relative path [] (Additional properties are not allowed ('invalid-injector' was unexpected))",
            ],
        ),
        (
            json!({"file": 123}),
            vec!["int provided in relative path ['file'], expected dict"],
        ),
        (
            json!({"file": {"template": "{{username}}", "template.password": "{{pass}}"}}),
            vec!["Must use multi-file syntax when injecting multiple files"],
        ),
        (
            json!({"file": {"foo": "bar"}}),
            vec![
                "Schema validation error in relative path ['file'] ('foo' does not match any of the regexes: '^template(\\\\.[a-zA-Z_]+[a-zA-Z0-9_]*)?$')",
            ],
        ),
        (
            json!({"file": {"template": 5}}),
            vec!["int provided in relative path ['file', 'template'], expected string"],
        ),
        (
            json!({"env": {"99": "x"}}),
            vec![
                "Schema validation error in relative path ['env'] ('99' does not match any of the regexes: '^[a-zA-Z_]+[a-zA-Z0-9_]*$')",
            ],
        ),
        (
            json!({"env": {"X": 123}}),
            vec!["int provided in relative path ['env', 'X'], expected string"],
        ),
        (
            json!({"env": {"ENV_VAR": 123}, "mal": "formed"}),
            vec![
                "Schema validation error in relative path [] (Additional properties are not allowed ('mal' was unexpected))",
                "int provided in relative path ['env', 'ENV_VAR'], expected string",
            ],
        ),
        (
            json!({"env": true}),
            vec!["bool provided in relative path ['env'], expected dict"],
        ),
        (
            json!({"extra_vars": [1, 2]}),
            vec!["list provided in relative path ['extra_vars'], expected dict"],
        ),
        (json!(true), vec!["bool provided, expected dict"]),
        (json!([1, 2, 3, 4]), vec!["list provided, expected dict"]),
        (json!("malformed"), vec!["str provided, expected dict"]),
        (
            json!({"extra_vars": {"n": 5}}),
            vec!["5 is not valid under any of the given schemas"],
        ),
        (
            json!({"extra_vars": {"n": true}}),
            vec!["True is not valid under any of the given schemas"],
        ),
    ];
    for (injectors, expected) in exact {
        let reply = refused(&admin, &inputs, Some(&injectors));
        assert_eq!(
            reply.field_errors("injectors"),
            expected,
            "injectors {injectors}: {}",
            reply.body
        );
        assert!(
            reply.json().get("inputs").is_none(),
            "the inputs are valid: {}",
            reply.body
        );
    }
    // Template errors: the key and the reason, the reference's wording up to the reason.
    let prefixed: Vec<(Value, &str)> = vec![
        (
            json!({"env": {"X": "{{ nope }}"}}),
            "X uses an undefined field (",
        ),
        (
            json!({"env": {"AWX_MY_CLOUD_TOKEN": "{{api_tolkien}}"}}),
            "AWX_MY_CLOUD_TOKEN uses an undefined field (",
        ),
        (
            json!({"env": {"FROM_FILE": "{{svc.filename}}"}}),
            "FROM_FILE uses an undefined field (",
        ),
        (
            json!({"env": {"FROM_FILE": "{{svc.filename.cert}}"}}),
            "FROM_FILE uses an undefined field (",
        ),
        (
            json!({"file": {"template.cert": "{{username}}"}, "env": {"FROM_FILE": "{{svc.filename}}"}}),
            "FROM_FILE uses an undefined field (",
        ),
        (
            json!({"env": {"X": "{{ username"}}),
            "Syntax error rendering template for X inside of env (",
        ),
        (
            json!({"file": {"template": "{{#if username}}open"}}),
            "Syntax error rendering template for template inside of file (",
        ),
        (
            json!({"extra_vars": {"{{nope}}_x": "a"}}),
            "a key uses an undefined field (",
        ),
        (
            json!({"extra_vars": {"auth": {"user": "{{nope}}"}}}),
            "auth.user uses an undefined field (",
        ),
        (
            json!({"extra_vars": {"auth": ["{{host}}", "{{nope}}"]}}),
            "auth[1] uses an undefined field (",
        ),
    ];
    for (injectors, prefix) in prefixed {
        let reply = refused(&admin, &inputs, Some(&injectors));
        let messages = reply.field_errors("injectors");
        assert_eq!(messages.len(), 1, "injectors {injectors}: {}", reply.body);
        assert!(
            messages[0].starts_with(prefix) && messages[0].ends_with(')'),
            "injectors {injectors}: expected {prefix:?}…, got {messages:?}"
        );
    }
    // Constructs outside the template language: partials, unknown helpers, deep blocks.
    let deep_blocks = format!("{}x{}", "{{#if host}}".repeat(100), "{{/if}}".repeat(100));
    for (injectors, prefix) in [
        (
            json!({"env": {"X": "{{> evil}}"}}),
            "Unsupported template construct for X inside of env (partials are not supported)",
        ),
        (
            json!({"env": {"X": "{{lookup username 'x'}}"}}),
            "Unsupported template construct for X inside of env (",
        ),
        (
            json!({"extra_vars": {"k": "{{#each host}}x{{/each}}"}}),
            "Unsupported template construct for k inside of extra_vars (",
        ),
        (
            json!({"file": {"template": deep_blocks}}),
            "Unsupported template construct for template inside of file (",
        ),
    ] {
        let reply = refused(&admin, &inputs, Some(&injectors));
        let messages = reply.field_errors("injectors");
        assert!(
            messages.len() == 1 && messages[0].starts_with(prefix),
            "injectors {injectors}: expected {prefix:?}…, got {messages:?}"
        );
    }
    // The undefined name is named.
    let reply = refused(
        &admin,
        &inputs,
        Some(&json!({"env": {"AWX_MY_CLOUD_TOKEN": "{{api_tolkien}}"}})),
    );
    assert!(
        reply.field_errors("injectors")[0].contains("api_tolkien"),
        "{}",
        reply.body
    );
    // Non-ASCII env values are refused.
    let reply = refused(&admin, &inputs, Some(&json!({"env": {"DRAGON": "🐉"}})));
    let messages = reply.field_errors("injectors");
    assert!(
        messages.len() == 1 && messages[0].starts_with("'🐉' does not match '^["),
        "{messages:?}"
    );
    // Invalid inputs skip the injector checks: only the inputs are reported.
    let reply = refused(
        &admin,
        &json!({"fields": 1}),
        Some(&json!({"env": {"X": "{{ nope }}"}})),
    );
    assert_eq!(
        reply.field_errors("inputs"),
        ["int provided in relative path ['fields'], expected array"]
    );
    assert!(reply.json().get("injectors").is_none(), "{}", reply.body);
}

fn reserved_env_names_are_refused(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let inputs = example_inputs();
    let check = |name: &str, expected: String| {
        let reply = refused(
            &admin,
            &inputs,
            Some(&json!({"env": {name: "{{ awx_secret }}"}})),
        );
        assert_eq!(
            reply.field_errors("injectors"),
            [expected],
            "env {name}: {}",
            reply.body
        );
    };
    for name in ["ANSIBLE_SETTING", "ANSIBLE_CONFIG", "ANSIBLE_"] {
        check(
            name,
            format!(
                "Environment variable {name} may affect Ansible configuration so its use is not allowed in credentials."
            ),
        );
    }
    for name in [
        "LD_PRELOAD",
        "LD_LIBRARY_PATH",
        "PATH",
        "PYTHONPATH",
        "PYTHONHOME",
        "PYTHONSTARTUP",
        "PYTHONUNBUFFERED",
        "BASH_ENV",
        "ENV",
        "HOME",
        "SHELL",
        "JOB_ID",
        "INVENTORY_ID",
        "REST_API_TOKEN",
        "AWX_HOST",
        "VIRTUAL_ENV",
    ] {
        check(
            name,
            format!("Environment variable {name} is not allowed to be used in credentials."),
        );
    }
    for name in ["AUTOMATION_TOKEN", "AUTOMATION_"] {
        check(
            name,
            format!(
                "Environment variable {name} uses the reserved prefix AUTOMATION_ and is not allowed in credentials."
            ),
        );
    }
    // Names that merely resemble reserved ones are fine, as is TOWER_ (reference §2.3).
    create(
        &admin,
        &json!({
            "name": "Allowed env",
            "kind": "cloud",
            "inputs": inputs,
            "injectors": {"env": {
                "TOWER_HOST": "{{ host }}",
                "MY_ANSIBLE_THING": "{{ host }}",
                "MY_PATH": "{{ host }}",
                "HOMEDIR": "{{ host }}",
                "ansible_lower": "{{ host }}",
                "AWX_SECRET": "{{ awx_secret }}",
            }},
        }),
    );
}

fn automation_prefix_is_refused_in_files_and_extra_vars(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let inputs = example_inputs();
    let reply = refused(
        &admin,
        &inputs,
        Some(&json!({"file": {"template.AUTOMATION_CERT": "{{ username }}"}})),
    );
    assert_eq!(
        reply.field_errors("injectors"),
        [
            "File name AUTOMATION_CERT uses the reserved prefix AUTOMATION_ and is not allowed in credentials."
        ]
    );
    for (extra_vars, key) in [
        (
            json!({"AUTOMATION_TOKEN": "{{ pass }}"}),
            "AUTOMATION_TOKEN",
        ),
        (
            json!({"cloud": {"AUTOMATION_TOKEN": "{{ pass }}"}}),
            "AUTOMATION_TOKEN",
        ),
        (
            json!({"cloud": {"deeper": {"AUTOMATION_X": "a"}}}),
            "AUTOMATION_X",
        ),
        (
            json!({"cloud": ["a", {"AUTOMATION_IN_LIST": "b"}]}),
            "AUTOMATION_IN_LIST",
        ),
    ] {
        let reply = refused(&admin, &inputs, Some(&json!({"extra_vars": extra_vars})));
        assert_eq!(
            reply.field_errors("injectors"),
            [format!(
                "Extra variable {key} uses the reserved prefix AUTOMATION_ and is not allowed in credentials."
            )],
            "extra_vars {extra_vars}: {}",
            reply.body
        );
    }
    // ANSIBLE_ is only reserved in env (as in the reference).
    create(
        &admin,
        &json!({
            "name": "Extra vars ok",
            "kind": "cloud",
            "inputs": inputs,
            "injectors": {"extra_vars": {"ANSIBLE_X": "a", "automation": {"nested": "{{ host }}"}}},
        }),
    );
}

fn extra_vars_values_must_be_strings_lists_or_objects(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let inputs = example_inputs();
    for extra_vars in [
        json!({"l": [1, 2]}),
        json!({"l": ["a", true]}),
        json!({"l": ["a", null]}),
        json!({"l": [["a", 1.5]]}),
        json!({"o": {"n": 5}}),
        json!({"o": {"x-y": "a"}}),
        json!({"n": null}),
    ] {
        let reply = refused(&admin, &inputs, Some(&json!({"extra_vars": extra_vars})));
        let messages = reply.field_errors("injectors");
        assert!(
            !messages.is_empty()
                && messages
                    .iter()
                    .all(|m| m.contains("is not valid under any of the given schemas")),
            "extra_vars {extra_vars}: {}",
            reply.body
        );
    }
    let reply = refused(
        &admin,
        &inputs,
        Some(&json!({"extra_vars": {"auth": {"x-y": "a"}}})),
    );
    assert_eq!(
        reply.field_errors("injectors"),
        ["{'x-y': 'a'} is not valid under any of the given schemas"]
    );
    let created = create(
        &admin,
        &json!({
            "name": "Nested extra vars",
            "kind": "cloud",
            "inputs": inputs,
            "injectors": {"extra_vars": {
                "hosts": ["{{ host }}", "static", ["nested", "{{ username }}"]],
                "auth": {"user": "{{ username }}", "list": [{"k": "{{ pass }}"}]},
                "{{host}}_x": "a",
            }},
        }),
    );
    assert_eq!(
        created["injectors"]["extra_vars"]["hosts"][2],
        json!(["nested", "{{ username }}"])
    );
}

fn valid_injectors_are_accepted(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let inputs = example_inputs();
    for (n, injectors) in [
        json!({}),
        json!({"file": {"template": "{{username}}"}}),
        json!({"file": {"template.username": "{{username}}", "template.password": "{{pass}}"}}),
        json!({"file": {"template.cert": "{{ pass }}"}, "env": {"CERT": "{{svc.filename.cert}}"}}),
        json!({"file": {"template": "{{ pass }}"}, "env": {"CERT": "{{svc.filename}}"}}),
        json!({"env": {"AWX_SECRET_99": "{{awx_secret}}"}}),
        json!({"env": {"X": "{{#if host}}{{ host }}{{else}}none{{/if}}"}}),
        json!({"extra_vars": {"hostname_99": "{{host}}"}}),
    ]
    .into_iter()
    .enumerate()
    {
        let created = create(
            &admin,
            &json!({"name": format!("valid-{n}"), "kind": "net", "inputs": inputs, "injectors": injectors}),
        );
        assert_eq!(created["injectors"], injectors);
    }
}

fn duplicate_name_and_kind_is_400(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    create(&admin, &token_type("Twin"));
    let reply = admin
        .post(TYPES)
        .json(&token_type("Twin"))
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("__all__"),
        ["Credential type with this Name and Kind already exists."]
    );
    // The same name with another kind is another type.
    let mut net = token_type("Twin");
    net["kind"] = json!("net");
    let net = create(&admin, &net);
    // A managed type's name and kind are taken too.
    let reply = admin
        .post(TYPES)
        .json(&json!({"name": "Amazon Web Services", "kind": "cloud"}))
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("__all__"),
        ["Credential type with this Name and Kind already exists."]
    );
    // Renaming or re-kinding onto an existing pair is refused the same way.
    let reply = admin
        .patch(&type_path(id_of(&net)))
        .json(&json!({"kind": "cloud"}))
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("__all__"),
        ["Credential type with this Name and Kind already exists."]
    );
}

fn managed_types_cannot_be_changed_or_deleted(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    for (namespace, _) in MANAGED {
        let id = managed_id(&admin, namespace);
        let before = admin.get_json(&type_path(id));
        assert_eq!(capabilities(&before), (false, false), "{before}");
        let reply = admin
            .patch(&type_path(id))
            .json(&json!({"name": "renamed"}))
            .call()
            .expect(403);
        assert_eq!(
            reply.detail(),
            "Modifications not allowed for managed credential types"
        );
        let reply = admin
            .put(&type_path(id))
            .json(&json!({"name": "renamed", "kind": "cloud"}))
            .call()
            .expect(403);
        assert_eq!(
            reply.detail(),
            "Modifications not allowed for managed credential types"
        );
        let reply = admin.delete(&type_path(id)).call().expect(403);
        assert_eq!(
            reply.detail(),
            "Deletion not allowed for managed credential types"
        );
        assert_eq!(admin.get_json(&type_path(id)), before);
    }
}

fn in_use_types_keep_their_inputs(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let org = server.create_organization("Acme");
    let created = create(&admin, &token_type("In use"));
    let id = id_of(&created);
    let credential = create_credential(&server, id, org, &json!({"api_token": "t0k3n"}));

    // A change of the inputs is refused, by PATCH and by PUT.
    let changed_inputs = json!({"fields": [
        {"id": "api_token", "label": "Token", "secret": true},
        {"id": "extra", "label": "Extra"},
    ]});
    let reply = admin
        .patch(&type_path(id))
        .json(&json!({"inputs": changed_inputs}))
        .call()
        .expect(403);
    assert_eq!(
        reply.detail(),
        "Modifications to inputs are not allowed for credential types that are in use"
    );
    let mut put = token_type("In use");
    put["inputs"] = changed_inputs;
    let reply = admin.put(&type_path(id)).json(&put).call().expect(403);
    assert_eq!(
        reply.detail(),
        "Modifications to inputs are not allowed for credential types that are in use"
    );
    // PUT without inputs means empty inputs: a change as well.
    let reply = admin
        .put(&type_path(id))
        .json(&json!({"name": "In use", "kind": "cloud"}))
        .call()
        .expect(403);
    assert_eq!(
        reply.detail(),
        "Modifications to inputs are not allowed for credential types that are in use"
    );
    let unchanged = admin.get_json(&type_path(id));
    assert_eq!(unchanged["inputs"], created["inputs"]);

    // Renames, descriptions, injectors and cloud↔net are still allowed.
    let renamed = admin
        .patch(&type_path(id))
        .json(&json!({"name": "Still in use", "description": "changed"}))
        .call()
        .expect(200)
        .json();
    assert_eq!(renamed["name"], "Still in use");
    assert_eq!(renamed["description"], "changed");
    let reinjected = admin
        .patch(&type_path(id))
        .json(&json!({"injectors": {"env": {"OTHER_TOKEN": "{{ api_token }}"}}}))
        .call()
        .expect(200)
        .json();
    assert_eq!(
        reinjected["injectors"],
        json!({"env": {"OTHER_TOKEN": "{{ api_token }}"}})
    );
    let rekinded = admin
        .patch(&type_path(id))
        .json(&json!({"kind": "net"}))
        .call()
        .expect(200)
        .json();
    assert_eq!(rekinded["kind"], "net");
    // The same inputs without "type" keys are no change.
    admin
        .patch(&type_path(id))
        .json(
            &json!({"inputs": {"fields": [{"id": "api_token", "label": "Token", "secret": true}]}}),
        )
        .call()
        .expect(200);
    // Also as YAML text.
    admin
        .patch(&type_path(id))
        .json(&json!({"inputs": "fields:\n- id: api_token\n  label: Token\n  secret: true\n"}))
        .call()
        .expect(200);

    // Deletion is refused while a credential uses the type.
    let reply = admin.delete(&type_path(id)).call().expect(403);
    assert_eq!(
        reply.detail(),
        "Credential types that are in use cannot be deleted"
    );
    admin.get(&type_path(id)).call().expect(200);
    admin
        .delete(&format!("/api/v2/credentials/{credential}/"))
        .call()
        .expect(204);
    // Unused again: inputs may change and the type may go.
    admin
        .patch(&type_path(id))
        .json(&json!({"inputs": {"fields": [{"id": "api_token", "label": "Token"}, {"id": "extra", "label": "Extra"}]}, "injectors": {}}))
        .call()
        .expect(200);
    admin.delete(&type_path(id)).call().expect(204);
    admin.get(&type_path(id)).call().expect(404);
}

fn unused_types_change_and_delete_freely(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let id = id_of(&create(&admin, &token_type("Free")));
    let patched = admin
        .patch(&type_path(id))
        .json(&json!({"inputs": {"fields": [
            {"id": "api_token", "label": "Token", "secret": true},
            {"id": "region", "label": "Region", "choices": ["us", "eu"]},
        ], "required": ["api_token"]}}))
        .call()
        .expect(200)
        .json();
    assert_eq!(
        patched["inputs"]["fields"][1],
        json!({"id": "region", "label": "Region", "choices": ["us", "eu"], "type": "string"})
    );
    assert_eq!(patched["inputs"]["required"], json!(["api_token"]));
    // The injectors were kept.
    assert_eq!(
        patched["injectors"],
        json!({"env": {"MY_TOKEN": "{{ api_token }}"}})
    );
    // PUT replaces everything; omitted description and documents become empty.
    let put = admin
        .put(&type_path(id))
        .json(&json!({"name": "Free (put)", "kind": "net"}))
        .call()
        .expect(200)
        .json();
    assert_eq!(put["name"], "Free (put)");
    assert_eq!(put["kind"], "net");
    assert_eq!(put["description"], "");
    assert_eq!(put["inputs"], json!({}));
    assert_eq!(put["injectors"], json!({}));
    // PUT needs name and kind.
    let reply = admin
        .put(&type_path(id))
        .json(&json!({"description": "x"}))
        .call()
        .expect(400);
    assert_eq!(reply.field_errors("name"), ["This field is required."]);
    assert_eq!(reply.field_errors("kind"), ["This field is required."]);
    // Null documents are refused.
    let reply = admin
        .patch(&type_path(id))
        .json(&json!({"inputs": null}))
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("inputs"),
        ["This field may not be null."]
    );
    admin.delete(&type_path(id)).call().expect(204);
    admin.get(&type_path(id)).call().expect(404);
    admin.delete(&type_path(id)).call().expect(404);
}

fn changing_inputs_revalidates_stored_injectors(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let id = id_of(&create(
        &admin,
        &json!({
            "name": "Coupled",
            "kind": "cloud",
            "inputs": {"fields": [{"id": "a", "label": "A"}, {"id": "b", "label": "B"}]},
            "injectors": {"env": {"USES_B": "{{ b }}"}},
        }),
    ));
    let reply = admin
        .patch(&type_path(id))
        .json(&json!({"inputs": {"fields": [{"id": "a", "label": "A"}]}}))
        .call()
        .expect(400);
    let messages = reply.field_errors("injectors");
    assert_eq!(messages.len(), 1, "{}", reply.body);
    assert!(
        messages[0].starts_with("USES_B uses an undefined field (") && messages[0].contains('b'),
        "{messages:?}"
    );
    let unchanged = admin.get_json(&type_path(id));
    assert_eq!(
        unchanged["inputs"]["fields"].as_array().map(Vec::len),
        Some(2)
    );
    // Changing an injector to use a field that does not exist is refused too.
    let reply = admin
        .patch(&type_path(id))
        .json(&json!({"injectors": {"env": {"USES_C": "{{ c }}"}}}))
        .call()
        .expect(400);
    assert!(
        reply.field_errors("injectors")[0].starts_with("USES_C uses an undefined field ("),
        "{}",
        reply.body
    );
    // Dropping the field together with its injector is fine.
    let patched = admin
        .patch(&type_path(id))
        .json(&json!({
            "inputs": {"fields": [{"id": "a", "label": "A"}]},
            "injectors": {"env": {"USES_A": "{{ a }}"}},
        }))
        .call()
        .expect(200)
        .json();
    assert_eq!(patched["injectors"], json!({"env": {"USES_A": "{{ a }}"}}));
}

fn credentials_sublist_lists_and_creates_credentials_of_the_type(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let org = server.create_organization("Acme");
    let id = id_of(&create(&admin, &token_type("Listed")));
    let other = id_of(&create(&admin, &token_type("Other")));
    let path = format!("{}credentials/", type_path(id));
    assert_eq!(admin.get_json(&path)["count"], 0);

    let created = admin
        .post(&path)
        .json(&json!({"name": "via sublist", "organization": org, "inputs": {"api_token": "abc"}}))
        .call()
        .expect(201)
        .json();
    assert_eq!(created["credential_type"], id);
    assert_eq!(created["inputs"]["api_token"], "$encrypted$");
    // A credential_type in the body does not override the path.
    let forced = admin
        .post(&path)
        .json(&json!({"name": "forced", "organization": org, "credential_type": other}))
        .call()
        .expect(201)
        .json();
    assert_eq!(forced["credential_type"], id);
    create_credential(&server, other, org, &json!({"api_token": "zzz"}));

    let page = admin.get_json(&path);
    let names: Vec<&str> = page["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(names, ["forced", "via sublist"], "{page}");
    assert_eq!(page["count"], 2);
    assert!(!page.to_string().contains("abc"), "{page}");
    // Validation applies as on /credentials/.
    let reply = admin
        .post(&path)
        .json(&json!({"name": "bad", "organization": org, "inputs": {"nope": "x"}}))
        .call()
        .expect(400);
    assert_eq!(
        reply.field_errors("inputs"),
        ["Additional properties are not allowed ('nope' was unexpected)"]
    );
    admin
        .get("/api/v2/credential_types/999999/credentials/")
        .call()
        .expect(404);
    admin
        .post("/api/v2/credential_types/999999/credentials/")
        .json(&json!({"name": "x", "organization": org}))
        .call()
        .expect(404);
    // A plain user sees only their own credentials in the sub-list.
    let plain = server.create_user("plain", "pw-plain", false);
    let agent = server.as_user("plain", "pw-plain");
    assert_eq!(agent.get_json(&path)["count"], 0);
    agent
        .post(&path)
        .json(&json!({"name": "mine", "user": plain}))
        .call()
        .expect(201);
    let page = agent.get_json(&path);
    assert_eq!(page["count"], 1, "{page}");
    assert_eq!(page["results"][0]["name"], "mine");
}

fn activity_stream_records_create_update_and_delete(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let id = id_of(&create(&admin, &token_type("Tracked")));
    let path = format!("{}activity_stream/", type_path(id));
    let operations = |page: &Value| -> Vec<String> {
        let mut ops: Vec<String> = results(page)
            .iter()
            .map(|e| e["operation"].as_str().unwrap_or_default().to_owned())
            .collect();
        ops.sort();
        ops
    };
    let page = admin.get_json(&path);
    assert_eq!(operations(&page), ["create"], "{page}");
    assert_eq!(page["results"][0]["object1"], "credential_type");
    admin
        .patch(&type_path(id))
        .json(&json!({"description": "changed"}))
        .call()
        .expect(200);
    let page = admin.get_json(&path);
    assert_eq!(operations(&page), ["create", "update"], "{page}");
    let update = results(&page)
        .into_iter()
        .find(|e| e["operation"] == "update")
        .expect("update entry");
    assert_eq!(
        update["changes"]["description"],
        json!(["a token", "changed"]),
        "{update}"
    );
    admin.delete(&type_path(id)).call().expect(204);
    admin.get(&path).call().expect(404);
    let all = admin.get_json("/api/v2/activity_stream/?page_size=200");
    assert!(
        results(&all).iter().any(|e| e["operation"] == "delete"
            && e["object1"] == "credential_type"
            && e["changes"]["name"] == "Tracked"),
        "{all}"
    );
}

fn activity_stream_shows_injectors_to_superusers_only(backend: Backend) {
    // `injectors` is shown to superusers only; the activity stream (readable by every user for
    // credential types) must not hand it out either.
    let server = TestServer::start(backend);
    let admin = server.admin();
    let id = id_of(&create(&admin, &token_type("Audited")));
    admin
        .patch(&type_path(id))
        .json(&json!({"injectors": {"env": {"OTHER_TOKEN": "{{ api_token }}"}}}))
        .call()
        .expect(200);
    server.create_user("plain", "pw-plain", false);
    server.create_auditor("watcher", "pw-watcher");
    for (username, password) in [("plain", "pw-plain"), ("watcher", "pw-watcher")] {
        let agent = server.as_user(username, password);
        for path in [
            format!("{}activity_stream/", type_path(id)),
            "/api/v2/activity_stream/?page_size=200".to_owned(),
        ] {
            let page = agent.get_json(&path);
            let entries: Vec<Value> = results(&page)
                .into_iter()
                .filter(|e| e["object1"] == "credential_type")
                .collect();
            assert!(!entries.is_empty(), "{username} {path}: {page}");
            for entry in &entries {
                assert!(
                    entry["changes"].get("injectors").is_none(),
                    "{username} {path}: {entry}"
                );
            }
            let text = page.to_string();
            assert!(
                !text.contains("MY_TOKEN") && !text.contains("OTHER_TOKEN"),
                "{username} {path}: {page}"
            );
        }
    }
    // Superusers, who may read injectors, see their changes in the stream.
    let page = admin.get_json(&format!("{}activity_stream/", type_path(id)));
    let update = results(&page)
        .into_iter()
        .find(|e| e["operation"] == "update")
        .unwrap_or_else(|| panic!("no update entry in {page}"));
    assert!(
        update["changes"]["injectors"]
            .to_string()
            .contains("OTHER_TOKEN"),
        "{update}"
    );
    assert_eq!(
        update["related"]["credential_type"],
        json!([type_path(id)]),
        "{update}"
    );
}

fn options_lists_all_kinds_but_offers_only_cloud_and_net(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let reply = admin.options(TYPES).call().expect(200);
    let allow = reply.header("Allow").unwrap_or_default();
    assert!(allow.contains("GET") && allow.contains("POST"), "{allow}");
    let body = reply.json();
    let actions = &body["actions"];
    assert_eq!(
        actions["GET"]["kind"]["choices"],
        json!([
            ["ssh", "Machine"],
            ["vault", "Vault"],
            ["net", "Network"],
            ["scm", "Source Control"],
            ["cloud", "Cloud"],
            ["insights", "Insights"],
            ["source", "Content Source"],
        ]),
        "{body}"
    );
    assert_eq!(
        actions["POST"]["kind"]["choices"],
        json!([["net", "Network"], ["cloud", "Cloud"]]),
        "{body}"
    );
    for field in ["inputs", "injectors"] {
        assert_eq!(actions["POST"][field]["type"], "json", "{body}");
        assert_eq!(actions["GET"][field]["type"], "json", "{body}");
    }
    assert_eq!(actions["POST"]["name"]["required"], true, "{body}");
    assert_eq!(actions["POST"]["kind"]["required"], true, "{body}");

    // The detail offers PUT, with the custom kinds only.
    let id = id_of(&create(&admin, &token_type("Described")));
    let detail = admin.options(&type_path(id)).call().expect(200).json();
    assert_eq!(
        detail["actions"]["PUT"]["kind"]["choices"],
        json!([["net", "Network"], ["cloud", "Cloud"]]),
        "{detail}"
    );

    server.create_user("plain", "pw-plain", false);
    let plain = server.as_user("plain", "pw-plain");
    let body = plain.options(TYPES).call().expect(200).json();
    assert!(body["actions"]["GET"].is_object(), "{body}");
    assert!(body["actions"].get("POST").is_none(), "{body}");
    let detail = plain.options(&type_path(id)).call().expect(200).json();
    assert!(detail["actions"].get("PUT").is_none(), "{detail}");
    server.anonymous().options(TYPES).call().expect(401);
}

fn list_is_ordered_filterable_and_never_leaks_injectors(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    create(&admin, &token_type("Zulu"));
    let mut alpha = token_type("Alpha");
    alpha["kind"] = json!("net");
    create(&admin, &alpha);

    let page = admin.get_json(&format!("{TYPES}?namespace=aws"));
    assert_eq!(page["count"], 1, "{page}");
    assert_eq!(page["results"][0]["name"], "Amazon Web Services");
    let page = admin.get_json(&format!("{TYPES}?kind=source"));
    assert_eq!(page["count"], 1, "{page}");
    assert_eq!(page["results"][0]["namespace"], "content_source_token");
    let page = admin.get_json(&format!("{TYPES}?managed=false"));
    let names: Vec<&str> = page["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    // cloud before net.
    assert_eq!(names, ["Zulu", "Alpha"], "{page}");
    let page = admin.get_json(&format!("{TYPES}?name__icontains=zul"));
    assert_eq!(page["count"], 1, "{page}");
    let page = admin.get_json(&format!("{TYPES}?search=alpha"));
    assert_eq!(page["count"], 1, "{page}");
    let page = admin.get_json(&format!("{TYPES}?managed=false&order_by=-name"));
    assert_eq!(page["results"][0]["name"], "Zulu");

    // Unknown or document fields are refused without a crash.
    server.create_user("plain", "pw-plain", false);
    let plain = server.as_user("plain", "pw-plain");
    for query in [
        "injectors__icontains=MY_TOKEN",
        "injectors=x",
        "inputs__icontains=api_token",
        "order_by=injectors",
        "order_by=inputs",
        "nonsense=1",
    ] {
        for agent in [&admin, &plain] {
            let reply = agent.get(&format!("{TYPES}?{query}")).call();
            assert!(
                reply.status == 400 || reply.status == 403,
                "{query}: {} {}",
                reply.status,
                reply.body
            );
            assert!(
                reply.json().get("detail").is_some(),
                "{query}: {}",
                reply.body
            );
        }
    }
}

fn read_scope_token_reads_but_cannot_write(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let id = id_of(&create(&admin, &token_type("Guarded")));
    let read = admin.with_bearer(&admin.personal_token("read"));
    let record = read.get_json(&type_path(id));
    assert_eq!(record["name"], "Guarded");
    assert_eq!(capabilities(&record), (false, false), "{record}");
    read.get_json(TYPES);
    assert_denied(&read.post(TYPES).json(&token_type("Nope")).call());
    assert_denied(
        &read
            .patch(&type_path(id))
            .json(&json!({"name": "changed"}))
            .call(),
    );
    assert_denied(&read.put(&type_path(id)).json(&token_type("changed")).call());
    assert_denied(&read.delete(&type_path(id)).call());
    let options = read.options(TYPES).call().expect(200).json();
    assert!(options["actions"].get("POST").is_none(), "{options}");
    assert_eq!(admin.get_json(&type_path(id))["name"], "Guarded");

    let write = admin.with_bearer(&admin.personal_token("write"));
    create(&write, &token_type("By token"));
    write.delete(&type_path(id)).call().expect(204);
}

fn missing_type_is_404_and_anonymous_is_401(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    for path in [
        "/api/v2/credential_types/999999/",
        "/api/v2/credential_types/999999/activity_stream/",
    ] {
        let reply = admin.get(path).call().expect(404);
        assert!(reply.json()["detail"].is_string(), "{}", reply.body);
    }
    admin
        .patch("/api/v2/credential_types/999999/")
        .json(&json!({"name": "x"}))
        .call()
        .expect(404);
    admin
        .delete("/api/v2/credential_types/999999/")
        .call()
        .expect(404);
    let id = managed_id(&admin, "ssh");
    let reply = server.anonymous().get(&type_path(id)).call().expect(401);
    assert!(reply.detail().ends_with(LOGIN_HINT));
}

/// A YAML document whose aliases expand to billions of nodes.
fn alias_bomb() -> String {
    let mut text = String::from(
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"];
    for pair in names.windows(2) {
        let (previous, name) = (pair[0], pair[1]);
        let refs = vec![format!("*{previous}"); 9].join(",");
        text.push_str(&format!("{name}: &{name} [{refs}]\n"));
    }
    text
}

fn hostile_documents_are_400_never_500(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let post = |inputs: Value, injectors: Option<Value>| {
        let mut body = json!({"name": "hostile", "kind": "cloud", "inputs": inputs});
        if let Some(injectors) = injectors {
            body["injectors"] = injectors;
        }
        admin.post(TYPES).json(&body).call()
    };

    // A YAML alias bomb: refused quickly.
    for key in ["inputs", "injectors"] {
        let started = Instant::now();
        let reply = if key == "inputs" {
            post(json!(alias_bomb()), None)
        } else {
            post(json!({}), Some(json!(alias_bomb())))
        }
        .expect(400);
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the alias bomb took {:?}",
            started.elapsed()
        );
        let messages = reply.field_errors(key);
        assert!(
            messages.len() == 1 && messages[0].starts_with("Invalid YAML or JSON: "),
            "{key}: {}",
            reply.body
        );
    }

    // 5 000 levels of brackets inside a string, closed and unclosed.
    for text in [
        format!("{}{}", "[".repeat(5000), "]".repeat(5000)),
        "[".repeat(5000),
        format!("a: {}", "[".repeat(5000)),
        format!("{}1{}", "{\"a\":".repeat(5000), "}".repeat(5000)),
    ] {
        let reply = post(json!(text), None).expect(400);
        let messages = reply.field_errors("inputs");
        assert_eq!(messages.len(), 1, "{}", reply.body);
        assert!(
            messages[0] == "Document nesting is deeper than 32 levels."
                || messages[0].starts_with("Invalid YAML or JSON: "),
            "{}",
            reply.body
        );
    }
    let reply = post(
        json!(format!("{}{}", "[".repeat(5000), "]".repeat(5000))),
        None,
    )
    .expect(400);
    assert_eq!(
        reply.field_errors("inputs"),
        ["Document nesting is deeper than 32 levels."]
    );

    // A nested JSON value (not text) inside the body.
    let mut deep = json!(1);
    for _ in 0..100 {
        deep = json!([deep]);
    }
    let reply = post(deep.clone(), None).expect(400);
    assert_eq!(
        reply.field_errors("inputs"),
        ["Document nesting is deeper than 32 levels."]
    );
    let reply = post(json!({}), Some(json!({"extra_vars": {"x": deep}}))).expect(400);
    assert_eq!(
        reply.field_errors("injectors"),
        ["Document nesting is deeper than 32 levels."]
    );

    // A raw body nested almost up to the body limit: a JSON parse error.
    let depth = 500_000;
    let raw = format!(
        "{{\"name\": \"deep\", \"kind\": \"cloud\", \"inputs\": {}{}}}",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    assert!(raw.len() < 1 << 20);
    let reply = admin
        .post(TYPES)
        .header("Content-Type", "application/json")
        .body(raw)
        .call()
        .expect(400);
    assert!(
        reply.detail().starts_with("JSON parse error - "),
        "{}",
        reply.body
    );

    // Invalid YAML, and text over the document limit.
    let reply = post(json!("fields: [\n  - id: a\n label"), None).expect(400);
    let messages = reply.field_errors("inputs");
    assert!(
        messages.len() == 1 && messages[0].starts_with("Invalid YAML or JSON: "),
        "{}",
        reply.body
    );
    let reply = post(json!("a: !custom x"), None).expect(400);
    assert!(reply.field_errors("inputs")[0].starts_with("Invalid YAML or JSON: "));
    let reply = post(json!(format!("\"{}\"", "x".repeat(300_000))), None).expect(400);
    assert_eq!(
        reply.field_errors("inputs"),
        ["Document is larger than 262144 bytes."]
    );

    // Non-object documents.
    for (inputs, expected) in [
        (json!([1]), "list provided, expected dict"),
        (json!(5), "int provided, expected dict"),
        (json!(1.5), "float provided, expected dict"),
        (json!("[1, 2]"), "list provided, expected dict"),
        (json!("- a\n- b\n"), "list provided, expected dict"),
    ] {
        let reply = post(inputs.clone(), None).expect(400);
        assert_eq!(
            reply.field_errors("inputs"),
            [expected],
            "inputs {inputs}: {}",
            reply.body
        );
    }
    // Wrong types for the plain fields.
    let reply = admin
        .post(TYPES)
        .json(&json!({"name": 5, "kind": ["cloud"], "description": {}}))
        .call()
        .expect(400);
    assert_eq!(reply.field_errors("name"), ["Not a valid string."]);
    assert_eq!(reply.field_errors("kind"), ["Not a valid string."]);
    assert_eq!(reply.field_errors("description"), ["Not a valid string."]);
    // Bodies that are not objects.
    let reply = admin
        .post(TYPES)
        .header("Content-Type", "application/json")
        .body("[1, 2]")
        .call()
        .expect(400);
    assert!(reply.detail().starts_with("JSON parse error - "));
    let reply = admin
        .post(TYPES)
        .header("Content-Type", "application/json")
        .body("{\"name\": ")
        .call()
        .expect(400);
    assert!(reply.detail().starts_with("JSON parse error - "));
    // Nothing was created.
    let page = admin.get_json(&format!("{TYPES}?managed=false"));
    assert_eq!(page["count"], 0, "{page}");
}

fn oversized_bodies_are_413(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let body = json!({"name": "huge", "kind": "cloud", "inputs": "x".repeat(1_100_000)});
    let reply = admin.post(TYPES).json(&body).call().expect(413);
    assert!(reply.json()["detail"].is_string(), "{}", reply.body);
    let id = managed_id(&admin, "aws");
    admin.patch(&type_path(id)).json(&body).call().expect(413);
    let page = admin.get_json(&format!("{TYPES}?managed=false"));
    assert_eq!(page["count"], 0, "{page}");
}

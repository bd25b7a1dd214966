//! `/api/v2/organizations/<id>/source_credentials/`: an organization's content sources in
//! precedence order. `POST {"id": n}` appends, `{"id": n, "position": k}` moves or inserts at
//! 0-based `k`, `{"id": n, "disassociate": true}` removes; only `source` credentials may be
//! listed; only organization admins (and superusers) change the list; `/api/v2/settings/jobs/`
//! shows no content-source settings; `galaxy_credentials/`, the reference's name, is the same
//! list.

use acs_tests::{Agent, Backend, Call, Reply, TestServer, backend_tests, id_of};
use serde_json::{Value, json};

backend_tests!(
    sources_are_listed_in_append_order,
    appending_a_listed_source_is_a_no_op,
    position_moves_or_inserts,
    position_out_of_range_is_400,
    disassociate_removes_and_keeps_the_order,
    only_content_source_credentials_may_be_listed,
    malformed_requests_are_400,
    only_organization_admins_change_the_list,
    an_auditor_admin_cannot_list_another_organizations_token,
    the_list_shows_the_sources_the_caller_may_view,
    deleting_a_credential_removes_it_from_every_list,
    lists_are_per_organization,
    read_scope_token_cannot_change_the_list,
    changes_are_recorded_in_the_activity_stream,
    jobs_settings_show_no_content_source_settings,
    galaxy_credentials_is_the_same_list,
);

const DENIED: &str = "You do not have permission to perform this action.";
const MASK: &str = "$encrypted$";

fn list_path(org: i64) -> String {
    format!("/api/v2/organizations/{org}/source_credentials/")
}

/// Creates a content-source credential owned by `org` as admin; returns its id.
#[track_caller]
fn source(server: &TestServer, org: i64, name: &str) -> i64 {
    let record = server
        .admin()
        .post("/api/v2/credentials/")
        .json(&json!({
            "name": name,
            "credential_type": server.managed_type_id("content_source_token"),
            "organization": org,
            "inputs": {"url": format!("https://{name}.example.com/"), "token": format!("tok-{name}")},
        }))
        .call()
        .expect(201)
        .json();
    id_of(&record)
}

/// Posts `body` to the list of `org` as `agent` and returns the reply.
fn change(agent: &Agent, org: i64, body: &Value) -> Reply {
    agent.post(&list_path(org)).json(body).call()
}

/// Posts `body` and expects 204 with an empty body.
#[track_caller]
fn change_ok(agent: &Agent, org: i64, body: &Value) {
    let reply = change(agent, org, body).expect(204);
    assert!(reply.body.is_empty(), "{}", reply.body);
}

/// The ids listed for `org`, in order; `count` must agree.
#[track_caller]
fn order(agent: &Agent, org: i64) -> Vec<i64> {
    let page = agent.get_json(&list_path(org));
    let ids: Vec<i64> = page["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results in {page}"))
        .iter()
        .map(id_of)
        .collect();
    assert_eq!(page["count"], json!(ids.len()), "{page}");
    ids
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

fn sources_are_listed_in_append_order(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let admin = server.admin();
    assert_eq!(order(&admin, org), Vec::<i64>::new());
    // Created in alphabetical order, appended in another.
    let a = source(&server, org, "alpha");
    let b = source(&server, org, "bravo");
    let c = source(&server, org, "charlie");
    for id in [c, a, b] {
        change_ok(&admin, org, &json!({"id": id}));
    }
    assert_eq!(order(&admin, org), [c, a, b]);
    // `associate: true` is the same as a bare id.
    let d = source(&server, org, "delta");
    change_ok(&admin, org, &json!({"id": d, "associate": true}));
    assert_eq!(order(&admin, org), [c, a, b, d]);
    // The entries are full credential records, secrets masked.
    let page = admin.get_json(&list_path(org));
    let first = &page["results"][0];
    assert_eq!(first["type"], "credential");
    assert_eq!(first["name"], "charlie");
    assert_eq!(first["kind"], "content_source_token");
    assert_eq!(
        first["inputs"],
        json!({"url": "https://charlie.example.com/", "token": MASK})
    );
    assert!(!page.to_string().contains("tok-"), "{page}");
    // Paging keeps the order.
    let page = admin.get_json(&format!("{}?page_size=2&page=2", list_path(org)));
    let ids: Vec<i64> = page["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(id_of)
        .collect();
    assert_eq!(ids, [b, d], "{page}");
    assert_eq!(page["count"], 4);
}

fn appending_a_listed_source_is_a_no_op(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let admin = server.admin();
    let a = source(&server, org, "alpha");
    let b = source(&server, org, "bravo");
    change_ok(&admin, org, &json!({"id": a}));
    change_ok(&admin, org, &json!({"id": b}));
    change_ok(&admin, org, &json!({"id": a}));
    assert_eq!(order(&admin, org), [a, b]);
}

fn position_moves_or_inserts(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let admin = server.admin();
    let one = source(&server, org, "one");
    let two = source(&server, org, "two");
    let three = source(&server, org, "three");
    for id in [one, two, three] {
        change_ok(&admin, org, &json!({"id": id}));
    }
    change_ok(&admin, org, &json!({"id": three, "position": 0}));
    assert_eq!(order(&admin, org), [three, one, two]);
    change_ok(&admin, org, &json!({"id": three, "position": 2}));
    assert_eq!(order(&admin, org), [one, two, three]);
    change_ok(&admin, org, &json!({"id": one, "position": 1}));
    assert_eq!(order(&admin, org), [two, one, three]);
    // Moving to where it already is changes nothing.
    change_ok(&admin, org, &json!({"id": one, "position": 1}));
    assert_eq!(order(&admin, org), [two, one, three]);
    // An unlisted credential is inserted at the position; the end is a valid position.
    let four = source(&server, org, "four");
    change_ok(&admin, org, &json!({"id": four, "position": 1}));
    assert_eq!(order(&admin, org), [two, four, one, three]);
    let five = source(&server, org, "five");
    change_ok(&admin, org, &json!({"id": five, "position": 4}));
    assert_eq!(order(&admin, org), [two, four, one, three, five]);
    let six = source(&server, org, "six");
    change_ok(&admin, org, &json!({"id": six, "position": 0}));
    assert_eq!(order(&admin, org), [six, two, four, one, three, five]);
}

fn position_out_of_range_is_400(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let admin = server.admin();
    let one = source(&server, org, "one");
    let two = source(&server, org, "two");
    change_ok(&admin, org, &json!({"id": one}));
    change_ok(&admin, org, &json!({"id": two}));
    // A listed credential moves among 2 places (0..=1).
    let reply = change(&admin, org, &json!({"id": one, "position": 2})).expect(400);
    assert_eq!(
        reply.field_errors("position"),
        ["Ensure this value is less than or equal to 1."]
    );
    // A new one may go anywhere in 0..=2.
    let three = source(&server, org, "three");
    let reply = change(&admin, org, &json!({"id": three, "position": 3})).expect(400);
    assert_eq!(
        reply.field_errors("position"),
        ["Ensure this value is less than or equal to 2."]
    );
    for position in [json!(-1), json!("first"), json!(1.5), json!(true)] {
        let reply = change(&admin, org, &json!({"id": three, "position": position})).expect(400);
        assert_eq!(
            reply.field_errors("position"),
            ["A valid non-negative integer is required."],
            "position {position}"
        );
    }
    let reply = change(
        &admin,
        org,
        &json!({"id": one, "position": 0, "disassociate": true}),
    )
    .expect(400);
    assert_eq!(
        reply.field_errors("position"),
        ["A removed credential has no position."]
    );
    assert_eq!(order(&admin, org), [one, two]);
}

fn disassociate_removes_and_keeps_the_order(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let admin = server.admin();
    let ids: Vec<i64> = ["a", "b", "c", "d", "e"]
        .into_iter()
        .map(|name| source(&server, org, name))
        .collect();
    for id in &ids {
        change_ok(&admin, org, &json!({"id": id}));
    }
    change_ok(&admin, org, &json!({"id": ids[2], "disassociate": true}));
    assert_eq!(order(&admin, org), [ids[0], ids[1], ids[3], ids[4]]);
    // The credential itself remains.
    admin
        .get(&format!("/api/v2/credentials/{}/", ids[2]))
        .call()
        .expect(200);
    // Removing an unlisted credential is a no-op.
    change_ok(&admin, org, &json!({"id": ids[2], "disassociate": true}));
    assert_eq!(order(&admin, org), [ids[0], ids[1], ids[3], ids[4]]);
    // After a removal, positions stay dense: moving to the end works.
    change_ok(&admin, org, &json!({"id": ids[0], "position": 3}));
    assert_eq!(order(&admin, org), [ids[1], ids[3], ids[4], ids[0]]);
    change_ok(&admin, org, &json!({"id": ids[2]}));
    assert_eq!(order(&admin, org), [ids[1], ids[3], ids[4], ids[0], ids[2]]);
    // `disassociate: false` appends.
    change_ok(&admin, org, &json!({"id": ids[1], "disassociate": true}));
    change_ok(&admin, org, &json!({"id": ids[1], "disassociate": false}));
    assert_eq!(order(&admin, org), [ids[3], ids[4], ids[0], ids[2], ids[1]]);
}

fn only_content_source_credentials_may_be_listed(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let admin = server.admin();
    let aws = id_of(
        &admin
            .post("/api/v2/credentials/")
            .json(&json!({"name": "aws", "credential_type": server.managed_type_id("aws"), "organization": org,
                          "inputs": {"username": "u", "password": "p"}}))
            .call()
            .expect(201)
            .json(),
    );
    let machine = id_of(
        &admin
            .post("/api/v2/credentials/")
            .json(&json!({"name": "machine", "credential_type": server.managed_type_id("ssh"), "organization": org}))
            .call()
            .expect(201)
            .json(),
    );
    let custom_type = id_of(
        &admin
            .post("/api/v2/credential_types/")
            .json(&json!({"name": "Look-alike", "kind": "cloud", "inputs": {"fields": [{"id": "url", "label": "URL"}]}}))
            .call()
            .expect(201)
            .json(),
    );
    let custom = id_of(
        &admin
            .post("/api/v2/credentials/")
            .json(&json!({"name": "custom", "credential_type": custom_type, "organization": org}))
            .call()
            .expect(201)
            .json(),
    );
    for (id, type_name) in [
        (aws, "Amazon Web Services"),
        (machine, "Machine"),
        (custom, "Look-alike"),
    ] {
        for body in [json!({"id": id}), json!({"id": id, "position": 0})] {
            let reply = change(&admin, org, &body).expect(400);
            assert_eq!(
                reply.field_errors("id"),
                [format!(
                    "Credential must be a content source credential, not {type_name}."
                )],
                "{body}"
            );
        }
    }
    assert_eq!(order(&admin, org), Vec::<i64>::new());
}

fn malformed_requests_are_400(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let admin = server.admin();
    for body in [
        json!({}),
        json!({"id": null}),
        json!({"disassociate": true}),
    ] {
        let reply = change(&admin, org, &body).expect(400);
        assert_eq!(
            reply.field_errors("id"),
            ["Credential 'id' field is missing."],
            "{body}"
        );
    }
    for body in [
        json!({"id": "x"}),
        json!({"id": 0}),
        json!({"id": -3}),
        json!({"id": [1]}),
    ] {
        let reply = change(&admin, org, &body).expect(400);
        assert_eq!(
            reply.field_errors("id"),
            ["A valid integer is required."],
            "{body}"
        );
    }
    let reply = change(&admin, org, &json!({"id": 999_999})).expect(400);
    assert_eq!(
        reply.field_errors("id"),
        ["Invalid pk \"999999\" - object does not exist."]
    );
    let reply = change(&admin, org, &json!({"id": 999_999, "disassociate": true})).expect(400);
    assert_eq!(
        reply.field_errors("id"),
        ["Invalid pk \"999999\" - object does not exist."]
    );
    let id = source(&server, org, "alpha");
    let reply = change(&admin, org, &json!({"id": id, "disassociate": "maybe"})).expect(400);
    assert_eq!(
        reply.field_errors("disassociate"),
        ["Must be a valid boolean."]
    );
    let reply = admin
        .post(&list_path(org))
        .header("Content-Type", "application/json")
        .body("[1, 2]")
        .call()
        .expect(400);
    assert!(reply.detail().starts_with("JSON parse error - "));
    let reply = admin
        .post(&list_path(org))
        .header("Content-Type", "application/json")
        .body("{\"id\": ")
        .call()
        .expect(400);
    assert!(reply.detail().starts_with("JSON parse error - "));
    // A missing organization is 404.
    admin.get(&list_path(999_999)).call().expect(404);
    change(&admin, 999_999, &json!({"id": id})).expect(404);
    assert_eq!(order(&admin, org), Vec::<i64>::new());
}

fn only_organization_admins_change_the_list(backend: Backend) {
    let server = TestServer::start(backend);
    let acme = server.create_organization("Acme");
    let other = server.create_organization("Other");
    let boss = server.create_user("boss", "pw-boss", false);
    server.add_admin(acme, boss);
    let member = server.create_user("member", "pw-member", false);
    server.add_member(acme, member);
    server.create_user("stranger", "pw-stranger", false);
    server.create_auditor("watcher", "pw-watcher");
    let mine = source(&server, acme, "mine");
    let theirs = source(&server, other, "theirs");
    let admin = server.admin();
    change_ok(&admin, acme, &json!({"id": mine}));

    for (username, password) in [
        ("member", "pw-member"),
        ("watcher", "pw-watcher"),
        ("stranger", "pw-stranger"),
    ] {
        let agent = server.as_user(username, password);
        for body in [
            json!({"id": mine, "disassociate": true}),
            json!({"id": mine, "position": 0}),
            json!({"id": theirs}),
        ] {
            assert_denied(&change(&agent, acme, &body));
        }
    }
    assert_eq!(order(&admin, acme), [mine]);

    let agent = server.as_user("boss", "pw-boss");
    // The admin may not list a credential they cannot see.
    assert_denied(&change(&agent, acme, &json!({"id": theirs})));
    // Nor change another organization's list.
    assert_denied(&change(&agent, other, &json!({"id": theirs})));
    let second = source(&server, acme, "second");
    change_ok(&agent, acme, &json!({"id": second}));
    change_ok(&agent, acme, &json!({"id": second, "position": 0}));
    assert_eq!(order(&agent, acme), [second, mine]);
    change_ok(&agent, acme, &json!({"id": mine, "disassociate": true}));
    assert_eq!(order(&agent, acme), [second]);
    // A superuser may list any organization's source in any organization.
    change_ok(&admin, acme, &json!({"id": theirs}));
    assert_eq!(order(&admin, acme), [second, theirs]);
}

/// A system auditor sees every credential; administering organization Acme as well must not
/// let them put Other's Galaxy token into Acme's project updates: listing a source needs the
/// right to use it.
fn an_auditor_admin_cannot_list_another_organizations_token(backend: Backend) {
    let server = TestServer::start(backend);
    let acme = server.create_organization("Acme");
    let other = server.create_organization("Other");
    let watcher = server.create_auditor("watcher", "pw-watcher-1");
    server.add_admin(acme, watcher);
    let watcher = server.as_user("watcher", "pw-watcher-1");
    let theirs = source(&server, other, "theirs");
    let mine = source(&server, acme, "mine");
    // They see it, and may change Acme's list...
    watcher
        .get(&format!("/api/v2/credentials/{theirs}/"))
        .call()
        .expect(200);
    change_ok(&watcher, acme, &json!({"id": mine}));
    // ...but not with Other's token in it.
    assert_denied(&change(&watcher, acme, &json!({"id": theirs})));
    assert_eq!(order(&watcher, acme), [mine]);
}

/// The list shows the sources the caller may view: an auditor all of them, a plain member
/// none that its detail would refuse him (as the reference filters them by read access).
fn the_list_shows_the_sources_the_caller_may_view(backend: Backend) {
    let server = TestServer::start(backend);
    let acme = server.create_organization("Acme");
    let member = server.create_user("member", "pw-member", false);
    server.add_member(acme, member);
    server.create_user("stranger", "pw-stranger", false);
    server.create_auditor("watcher", "pw-watcher");
    let id = source(&server, acme, "shared");
    change_ok(&server.admin(), acme, &json!({"id": id}));
    let watcher = server.as_user("watcher", "pw-watcher");
    let reply = watcher.get(&list_path(acme)).call().expect(200);
    assert!(!reply.body.contains("tok-shared"), "{}", reply.body);
    assert_eq!(order(&watcher, acme), [id]);
    let member = server.as_user("member", "pw-member");
    member
        .get(&format!("/api/v2/credentials/{id}/"))
        .call()
        .expect(403);
    assert_eq!(order(&member, acme), Vec::<i64>::new());
    let stranger = server.as_user("stranger", "pw-stranger");
    assert_denied(&stranger.get(&list_path(acme)).call());
    let reply = server.anonymous().get(&list_path(acme)).call().expect(401);
    assert!(reply.json()["detail"].is_string());
}

fn deleting_a_credential_removes_it_from_every_list(backend: Backend) {
    let server = TestServer::start(backend);
    let acme = server.create_organization("Acme");
    let other = server.create_organization("Other");
    let admin = server.admin();
    let a = source(&server, acme, "a");
    let b = source(&server, acme, "b");
    let c = source(&server, acme, "c");
    for id in [a, b, c] {
        change_ok(&admin, acme, &json!({"id": id}));
    }
    change_ok(&admin, other, &json!({"id": b}));
    admin
        .delete(&format!("/api/v2/credentials/{b}/"))
        .call()
        .expect(204);
    assert_eq!(order(&admin, acme), [a, c]);
    assert_eq!(order(&admin, other), Vec::<i64>::new());
    // Positions stay dense after the deletion.
    change_ok(&admin, acme, &json!({"id": a, "position": 1}));
    assert_eq!(order(&admin, acme), [c, a]);
}

fn lists_are_per_organization(backend: Backend) {
    let server = TestServer::start(backend);
    let acme = server.create_organization("Acme");
    let other = server.create_organization("Other");
    let admin = server.admin();
    let a = source(&server, acme, "a");
    let b = source(&server, acme, "b");
    change_ok(&admin, acme, &json!({"id": a}));
    change_ok(&admin, acme, &json!({"id": b}));
    change_ok(&admin, other, &json!({"id": b}));
    change_ok(&admin, other, &json!({"id": a}));
    assert_eq!(order(&admin, acme), [a, b]);
    assert_eq!(order(&admin, other), [b, a]);
    change_ok(&admin, other, &json!({"id": a, "disassociate": true}));
    assert_eq!(order(&admin, acme), [a, b]);
    assert_eq!(order(&admin, other), [b]);
}

fn read_scope_token_cannot_change_the_list(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let admin = server.admin();
    let id = source(&server, org, "guarded");
    let read = admin.with_bearer(&admin.personal_token("read"));
    assert_denied(&change(&read, org, &json!({"id": id})));
    assert_eq!(order(&read, org), Vec::<i64>::new());
    change_ok(&admin, org, &json!({"id": id}));
    assert_denied(&change(
        &read,
        org,
        &json!({"id": id, "disassociate": true}),
    ));
    assert_eq!(order(&read, org), [id]);
}

fn changes_are_recorded_in_the_activity_stream(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("Acme");
    let admin = server.admin();
    let id = source(&server, org, "tracked");
    change_ok(&admin, org, &json!({"id": id}));
    change_ok(&admin, org, &json!({"id": id, "disassociate": true}));
    let page = admin.get_json(&format!("/api/v2/credentials/{id}/activity_stream/"));
    let mut operations: Vec<&str> = page["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|e| e["operation"].as_str())
        .collect();
    operations.sort_unstable();
    assert_eq!(
        operations,
        ["associate", "create", "disassociate"],
        "{page}"
    );
    assert!(!page.to_string().contains("tok-tracked"), "{page}");
    let page = admin.get_json(&format!("/api/v2/organizations/{org}/activity_stream/"));
    assert!(
        page["results"]
            .as_array()
            .expect("results")
            .iter()
            .any(|e| e["operation"] == "associate" && e["object2"] == "organization"),
        "{page}"
    );
}

fn jobs_settings_show_no_content_source_settings(backend: Backend) {
    let server = TestServer::start(backend);
    let settings = server.admin().get_json("/api/v2/settings/jobs/");
    let keys: Vec<&String> = settings
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {settings}"))
        .keys()
        .collect();
    assert!(!keys.is_empty(), "{settings}");
    // The category is real: it holds the executables' settings.
    assert!(
        keys.iter().any(|k| k.as_str() == "ANSIBLE_GALAXY_PATH"),
        "{settings}"
    );
    for key in keys {
        for banned in ["GALAXY_SERVER", "PRIMARY_GALAXY", "CONTENT_SOURCE"] {
            assert!(!key.contains(banned), "{key} in {settings}");
        }
    }
    // Nor can such a setting be written.
    let reply = server
        .admin()
        .patch("/api/v2/settings/jobs/")
        .json(&json!({"PRIMARY_GALAXY_URL": "https://galaxy.example.com/"}))
        .call();
    assert_ne!(reply.status, 500, "{}", reply.body);
    let after = server.admin().get_json("/api/v2/settings/jobs/");
    assert!(after.get("PRIMARY_GALAXY_URL").is_none(), "{after}");
}

/// The reference's name for the list, which its collection reads (`related`) and changes: the
/// same list, in the same order, changed through either name.
fn galaxy_credentials_is_the_same_list(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let org = server.create_organization("Acme");
    let first = source(&server, org, "first");
    let second = source(&server, org, "second");
    change_ok(&admin, org, &json!({"id": first}));
    let galaxy = format!("/api/v2/organizations/{org}/galaxy_credentials/");
    let record = admin.get_json(&format!("/api/v2/organizations/{org}/"));
    assert_eq!(record["related"]["galaxy_credentials"], json!(galaxy));
    admin
        .post(&galaxy)
        .json(&json!({"id": second, "position": 0}))
        .call()
        .expect(204);
    assert_eq!(order(&admin, org), [second, first]);
    let through_galaxy: Vec<i64> = admin.get_json(&galaxy)["results"]
        .as_array()
        .expect("a page")
        .iter()
        .map(id_of)
        .collect();
    assert_eq!(through_galaxy, [second, first]);
    admin
        .post(&galaxy)
        .json(&json!({"id": second, "disassociate": true}))
        .call()
        .expect(204);
    assert_eq!(order(&admin, org), [first]);
    // The same guard: a member who is not an admin changes neither.
    let member = server.create_user("member", "Member-pass-1", false);
    admin
        .post(&format!("/api/v2/organizations/{org}/users/"))
        .json(&json!({"id": member}))
        .call()
        .expect(204);
    let member = server.as_user("member", "Member-pass-1");
    assert_denied(&member.post(&galaxy).json(&json!({"id": second})).call());
    assert_eq!(order(&admin, org), [first]);
}

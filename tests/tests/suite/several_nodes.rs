//! Several nodes on one PostgreSQL database (the scaling story): what one node does, the
//! other honours within the consistency bound (100 ms) — a session, a revoked token, a changed
//! password, a changed setting — and a cancel of a job the other node runs.

use std::time::{Duration, Instant};

use acs_tests::ansible::{AutomationServer, wait_for_run};
use acs_tests::{Backend, Call, SESSION_COOKIE, TestServer, honoured_within_bound, id_of};
use serde_json::json;

#[test]
fn what_one_node_changes_the_other_honours_within_the_bound() {
    let first = TestServer::start(Backend::Postgres);
    let second = first.start_peer();
    let user = first.create_user("nomad", "N0mad-pass-1", false);

    // A session made on one node works on the other.
    let browser = first.client();
    let login = first.login(&browser, "nomad", "N0mad-pass-1");
    let me = second
        .anonymous()
        .get("/api/v2/me/")
        .header("Cookie", format!("{SESSION_COOKIE}={}", login.session))
        .call()
        .expect(200)
        .json();
    assert_eq!(me["results"][0]["username"], "nomad");

    // A token revoked through one node is refused by the other within the bound.
    let basic = first.anonymous().with_basic("nomad", "N0mad-pass-1");
    let created = basic
        .post(&format!("/api/v2/users/{user}/personal_tokens/"))
        .json(&json!({"scope": "write"}))
        .call()
        .expect(201)
        .json();
    let token = created["token"].as_str().expect("a token").to_owned();
    second
        .anonymous()
        .with_bearer(&token)
        .get("/api/v2/me/")
        .call()
        .expect(200);
    first
        .admin()
        .delete(&format!("/api/v2/tokens/{}/", id_of(&created)))
        .call()
        .expect(204);
    honoured_within_bound(Instant::now(), 401, || {
        second
            .anonymous()
            .with_bearer(&token)
            .get("/api/v2/me/")
            .call()
            .status
    });

    // A password changed through one node: the other refuses the old one within the bound.
    let on_second = second.anonymous().with_basic("nomad", "N0mad-pass-1");
    on_second.get("/api/v2/me/").call().expect(200);
    first
        .admin()
        .patch(&format!("/api/v2/users/{user}/"))
        .json(&json!({"password": "N0mad-pass-2"}))
        .call()
        .expect(200);
    let changed_at = Instant::now();
    honoured_within_bound(changed_at, 401, || {
        on_second.get("/api/v2/me/").call().status
    });
    second
        .anonymous()
        .with_basic("nomad", "N0mad-pass-2")
        .get("/api/v2/me/")
        .call()
        .expect(200);
    // ... and the change ended, there too, the session made before it.
    honoured_within_bound(changed_at, 401, || {
        second
            .anonymous()
            .get("/api/v2/me/")
            .header("Cookie", format!("{SESSION_COOKIE}={}", login.session))
            .call()
            .status
    });
    let login = first.login(&first.client(), "nomad", "N0mad-pass-2");

    // A setting changed on one node applies on the other.
    first
        .admin()
        .patch("/api/v2/settings/authentication/")
        .json(&json!({"AUTH_BASIC_ENABLED": false}))
        .call()
        .expect(200);
    honoured_within_bound(Instant::now(), 401, || {
        second
            .anonymous()
            .with_basic("nomad", "N0mad-pass-2")
            .get("/api/v2/me/")
            .call()
            .status
    });
    assert_eq!(
        second
            .anonymous()
            .get("/api/v2/me/")
            .header("Cookie", format!("{SESSION_COOKIE}={}", login.session))
            .call()
            .expect(200)
            .json()["results"][0]["username"],
        "nomad",
        "sessions are not Basic"
    );
}

#[test]
fn a_cancel_sent_to_another_node_stops_the_job() {
    let fixture = AutomationServer::start(Backend::Postgres, &[]);
    let peer = fixture.server.start_peer();
    let admin = fixture.server.admin();
    fixture.project_file(
        "slow",
        "slow.yml",
        "- hosts: all\n  gather_facts: false\n  tasks:\n    - ansible.builtin.command: sleep 120\n",
    );
    let organization = fixture.server.create_organization("nodes");
    let project = fixture.create_project(&admin, organization, "slow");
    let inventory = fixture.create_local_inventory(&admin, organization);
    let template = id_of(
        &admin
            .post("/api/v2/job_templates/")
            .json(&json!({"name": "slow", "project": project, "inventory": inventory, "playbook": "slow.yml"}))
            .call()
            .expect(201)
            .json(),
    );
    let path = acs_tests::ansible::launch(&admin, template);
    let on_peer = peer.admin();
    let started = Instant::now();
    while on_peer.get_json(&path)["status"] != "running" {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the job never ran"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    on_peer.post(&format!("{path}cancel/")).call().expect(202);
    let job = wait_for_run(&admin, &path);
    assert_eq!(job["status"], "canceled", "{job}");
    assert!(
        job["execution_node"]
            .as_str()
            .is_some_and(|node| !node.starts_with("peer-")),
        "the first node ran it: {job}"
    );
}

/// A role granted through one node lets its holder in on the other, and revoked there, is
/// refused by the other within the bound.
#[test]
fn a_role_revoked_on_one_node_is_honoured_by_the_other_within_the_bound() {
    let fixture = AutomationServer::start(Backend::Postgres, &[]);
    let first = &fixture.server;
    let second = first.start_peer();
    let admin = first.admin();
    let organization = first.create_organization("Ops");
    fixture.project_file("ping", "site.yml", acs_tests::ansible::PING_PLAYBOOK);
    let project = fixture.create_project(&admin, organization, "ping");
    let template = admin
        .post("/api/v2/job_templates/")
        .json(&json!({"name": "deploy", "project": project, "playbook": "site.yml"}))
        .call()
        .expect(201)
        .json();
    let execute = template["summary_fields"]["object_roles"]["execute_role"]["id"]
        .as_i64()
        .expect("the execute role");
    let alice = first.create_user("alice", "Alice-pass-1", false);
    let path = format!("/api/v2/job_templates/{}/", id_of(&template));
    let on_second = second.as_user("alice", "Alice-pass-1");
    on_second.get(&path).call().expect(403);
    admin
        .post(&format!("/api/v2/roles/{execute}/users/"))
        .json(&json!({ "id": alice }))
        .call()
        .expect(204);
    honoured_within_bound(Instant::now(), 200, || on_second.get(&path).call().status);
    admin
        .post(&format!("/api/v2/roles/{execute}/users/"))
        .json(&json!({ "id": alice, "disassociate": true }))
        .call()
        .expect(204);
    let stale = honoured_within_bound(Instant::now(), 403, || on_second.get(&path).call().status);
    eprintln!("the revoke reached the other node after {stale:?}");
}

/// A user added to a team through one node holds the team's roles on the other; removed
/// from the team there, the other refuses them within the bound.
#[test]
fn leaving_a_team_on_one_node_takes_its_roles_on_the_other_within_the_bound() {
    let first = TestServer::start(Backend::Postgres);
    let second = first.start_peer();
    let admin = first.admin();
    let organization = first.create_organization("Ops");
    let inventory = id_of(
        &admin
            .post("/api/v2/inventories/")
            .json(&json!({"name": "edge", "organization": organization}))
            .call()
            .expect(201)
            .json(),
    );
    let team = id_of(
        &admin
            .post("/api/v2/teams/")
            .json(&json!({"name": "on-call", "organization": organization}))
            .call()
            .expect(201)
            .json(),
    );
    let read = first.query_i64(&format!(
        "SELECT id FROM roles WHERE kind = 'inventory' AND object_id = {inventory} \
         AND field = 'read_role'"
    ));
    admin
        .post(&format!("/api/v2/teams/{team}/roles/"))
        .json(&json!({ "id": read }))
        .call()
        .expect(204);
    let alice = first.create_user("alice", "Alice-pass-1", false);
    let path = format!("/api/v2/inventories/{inventory}/");
    let on_second = second.as_user("alice", "Alice-pass-1");
    on_second.get(&path).call().expect(403);
    let members = format!("/api/v2/teams/{team}/users/");
    admin
        .post(&members)
        .json(&json!({ "id": alice }))
        .call()
        .expect(204);
    honoured_within_bound(Instant::now(), 200, || on_second.get(&path).call().status);
    admin
        .post(&members)
        .json(&json!({ "id": alice, "disassociate": true }))
        .call()
        .expect(204);
    let stale = honoured_within_bound(Instant::now(), 403, || on_second.get(&path).call().status);
    eprintln!("leaving the team reached the other node after {stale:?}");
}

/// A directory login on one node that changes the user's memberships (by the directory's
/// groups) is honoured by the other within the bound, for a session the other already
/// serves; and so is the removal at a later login.
#[test]
fn memberships_a_directory_login_changes_on_one_node_hold_on_the_other_within_the_bound() {
    let directory = acs_tests::ldap::Directory::start();
    directory.add_user("hana", "h4na-dir-pw", "Hana", "Dir", "hana@example.com");
    directory.add_user("ivo", "1vo-dir-pw", "Ivo", "Dir", "ivo@example.com");
    directory.add_group("ops", &["ivo"]);
    let first = TestServer::start(Backend::Postgres);
    let second = first.start_peer();
    directory.configure(&first);
    let organization = first.create_organization("Ops");
    first
        .admin()
        .patch("/api/v2/settings/ldap/")
        .json(&json!({
            "AUTH_LDAP_GROUP_SEARCH": [directory.groups_dn(), "SCOPE_SUBTREE", "(objectClass=groupOfNames)"],
            "AUTH_LDAP_ORGANIZATION_MAP": {"Ops": {"admins": directory.group_dn("ops")}},
        }))
        .call()
        .expect(200);
    let browser = first.client();
    let session = first.login(&browser, "hana", "h4na-dir-pw").session;
    let path = format!("/api/v2/organizations/{organization}/");
    let csrf = browser.cookie("csrftoken").expect("a csrftoken");
    let probe = || {
        second
            .anonymous()
            .patch(&path)
            .header(
                "Cookie",
                format!("{SESSION_COOKIE}={session}; csrftoken={csrf}"),
            )
            .header("X-CSRFToken", &csrf)
            .header("Referer", format!("{}/", second.base))
            .json(&json!({"description": "edited by hana"}))
            .call()
            .status
    };
    let refused = probe();
    assert_eq!(refused, 403, "not yet an admin");

    directory.add_group_member("ops", "hana");
    first
        .anonymous()
        .with_basic("hana", "h4na-dir-pw")
        .get("/api/v2/me/")
        .call()
        .expect(200);
    honoured_within_bound(Instant::now(), 200, probe);

    directory.remove_group_member("ops", "hana");
    first
        .anonymous()
        .with_basic("hana", "h4na-dir-pw")
        .get("/api/v2/me/")
        .call()
        .expect(200);
    let stale = honoured_within_bound(Instant::now(), refused, probe);
    eprintln!("the directory's removal reached the other node after {stale:?}");
}

/// `/api/v2/ping/` on either node lists both (by their heartbeats), and names itself.
#[test]
fn ping_lists_every_node_alive() {
    let first = TestServer::start(Backend::Postgres);
    let second = first.start_peer();
    let on_first = first.anonymous().get_json("/api/v2/ping/");
    let on_second = second.anonymous().get_json("/api/v2/ping/");
    assert_eq!(on_first["ha"], true, "{on_first}");
    assert_ne!(on_first["active_node"], on_second["active_node"]);
    let nodes = |ping: &serde_json::Value| -> Vec<String> {
        ping["instances"]
            .as_array()
            .expect("instances")
            .iter()
            .map(|instance| instance["node"].as_str().expect("a node").to_owned())
            .collect()
    };
    assert_eq!(nodes(&on_first), nodes(&on_second));
    for ping in [&on_first, &on_second] {
        let listed = nodes(ping);
        assert_eq!(listed.len(), 2, "{ping}");
        assert!(listed.contains(&ping["active_node"].as_str().expect("a name").to_owned()));
    }
}

//! Roles on one object, as a user holds them: `execute` on one job template launches it and
//! does nothing more; `admin` on a template and `use` on a credential attach that credential
//! (which then shows to her, its secret masked, and stays hers to use, not to change);
//! `read` on one inventory shows that inventory only. Each next to the request that must be
//! refused. The first tests grant roles by SQL, as an operator would; the last ones through
//! the API, as an organization admin does.

use acs_tests::ansible::{AutomationServer, PING_PLAYBOOK, launch, wait_for_run};
use acs_tests::{Agent, Backend, Call, TestServer, backend_tests, id_of};
use serde_json::{Value, json};

backend_tests!(
    execute_on_one_template_launches_it_and_nothing_more,
    use_on_a_credential_lets_a_template_admin_attach_it,
    read_on_one_inventory_shows_that_inventory_only,
    an_organization_admin_grants_and_revokes_execute,
    credential_and_system_roles_are_refused_by_rule,
    organization_sub_admins_create_and_creators_administer,
    an_inventory_organizations_auditor_reads_the_templates_on_its_inventories,
);

/// Grants `user` role `field` of object `kind` `id` (SQL, honoured by every node within the
/// change bound).
fn grant(server: &TestServer, user: i64, kind: &str, id: i64, field: &str) {
    server.execute_sql(&format!(
        "INSERT INTO role_members (role_id, user_id) SELECT id, {user} FROM roles \
         WHERE kind = '{kind}' AND object_id = {id} AND field = '{field}'"
    ));
}

/// Revokes what [`grant`] granted.
fn revoke(server: &TestServer, user: i64, kind: &str, id: i64, field: &str) {
    server.execute_sql(&format!(
        "DELETE FROM role_members WHERE user_id = {user} AND role_id = (SELECT id FROM roles \
         WHERE kind = '{kind}' AND object_id = {id} AND field = '{field}')"
    ));
}

/// An organization with a ping project, a local inventory and two templates on them, made by
/// the admin; and alice, who belongs to no organization.
struct Fixture {
    automation: AutomationServer,
    organization: i64,
    templates: [i64; 2],
    alice_id: i64,
    alice: Agent,
}

fn fixture(backend: Backend) -> Fixture {
    let automation = AutomationServer::start(backend, &[]);
    let server = &automation.server;
    let admin = server.admin();
    let organization = server.create_organization("Ops");
    automation.project_file("ping", "site.yml", PING_PLAYBOOK);
    let project = automation.create_project(&admin, organization, "ping");
    let inventory = automation.create_local_inventory(&admin, organization);
    let templates = ["deploy", "rollback"].map(|name| {
        id_of(
            &admin
                .post("/api/v2/job_templates/")
                .json(&json!({
                    "name": name, "project": project, "inventory": inventory,
                    "playbook": "site.yml",
                }))
                .call()
                .expect(201)
                .json(),
        )
    });
    let alice_id = server.create_user("alice", "Alice-pass-1", false);
    let alice = server.as_user("alice", "Alice-pass-1");
    Fixture {
        automation,
        organization,
        templates,
        alice_id,
        alice,
    }
}

fn ids(page: &Value) -> Vec<i64> {
    page["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(id_of)
        .collect()
}

fn execute_on_one_template_launches_it_and_nothing_more(backend: Backend) {
    let Fixture {
        automation,
        templates: [deploy, rollback],
        alice_id,
        alice,
        ..
    } = fixture(backend);
    let server = &automation.server;
    let deploy_path = format!("/api/v2/job_templates/{deploy}/");
    // Before the grant she sees and runs nothing.
    alice.get(&deploy_path).call().expect(403);
    alice
        .post(&format!("{deploy_path}launch/"))
        .json(&json!({}))
        .call()
        .expect(403);

    // A token and a session made before the grant: their principals are built on first use
    // (a cache miss), where PostgreSQL reads the grants with the credential's row.
    let token = alice.with_bearer(&alice.personal_token("write"));
    let browser = server.client();
    server.login(&browser, "alice", "Alice-pass-1");

    grant(server, alice_id, "job_template", deploy, "execute_role");
    assert_eq!(ids(&alice.get_json("/api/v2/job_templates/")), [deploy]);
    for (by, agent) in [("token", &token), ("session", &browser)] {
        let listed = ids(&agent.get_json("/api/v2/job_templates/"));
        assert_eq!(listed, [deploy], "by {by}");
    }
    let record = alice.get_json(&deploy_path);
    assert_eq!(
        record["summary_fields"]["user_capabilities"]["edit"], false,
        "{record}"
    );
    let job = wait_for_run(&alice, &launch(&alice, deploy));
    assert_eq!(job["status"], "successful", "{job}");
    assert_eq!(
        ids(&alice.get_json(&format!("{deploy_path}jobs/"))),
        [id_of(&job)]
    );
    // Launching is all: no edit, no delete, no other template.
    alice
        .patch(&deploy_path)
        .json(&json!({"name": "mine"}))
        .call()
        .expect(403);
    alice.delete(&deploy_path).call().expect(403);
    alice
        .get(&format!("/api/v2/job_templates/{rollback}/"))
        .call()
        .expect(403);
    alice
        .post(&format!("/api/v2/job_templates/{rollback}/launch/"))
        .json(&json!({}))
        .call()
        .expect(403);
    // Her own run is hers to cancel (it has ended: 405, not 403); one who only reads the
    // template may not cancel it, nor delete it.
    let cancel = format!("/api/v2/jobs/{}/cancel/", id_of(&job));
    alice.post(&cancel).json(&json!({})).call().expect(405);
    let reader_id = server.create_user("rita", "Rita-pass-1", false);
    grant(server, reader_id, "job_template", deploy, "read_role");
    let reader = server.as_user("rita", "Rita-pass-1");
    reader.get(&cancel).call().expect(200);
    reader.post(&cancel).json(&json!({})).call().expect(403);
    reader
        .delete(&format!("/api/v2/jobs/{}/", id_of(&job)))
        .call()
        .expect(403);

    // Revoked, the next launch is refused.
    revoke(server, alice_id, "job_template", deploy, "execute_role");
    alice
        .post(&format!("{deploy_path}launch/"))
        .json(&json!({}))
        .call()
        .expect(403);
    assert_eq!(
        alice.get_json("/api/v2/job_templates/")["count"],
        0,
        "nothing shows once revoked"
    );
}

fn use_on_a_credential_lets_a_template_admin_attach_it(backend: Backend) {
    let Fixture {
        automation,
        organization,
        templates: [deploy, _],
        alice_id,
        alice,
    } = fixture(backend);
    let server = &automation.server;
    let admin = server.admin();
    let ssh = server.managed_type_id("ssh");
    let machine = |name: &str| -> i64 {
        id_of(
            &admin
                .post("/api/v2/credentials/")
                .json(&json!({
                    "name": name, "organization": organization, "credential_type": ssh,
                    "inputs": {"username": "deploy", "password": "s3cret-pw"},
                }))
                .call()
                .expect(201)
                .json(),
        )
    };
    let (usable, other) = (machine("usable"), machine("other"));
    grant(server, alice_id, "job_template", deploy, "admin_role");
    grant(server, alice_id, "credential", usable, "use_role");
    let attach = |credential: i64| {
        alice
            .post(&format!("/api/v2/job_templates/{deploy}/credentials/"))
            .json(&json!({ "id": credential }))
            .call()
    };
    // Without `use` the credential cannot be attached; with it, it can.
    assert_eq!(attach(other).status, 403);
    assert_eq!(attach(usable).status, 204);
    // She sees the credential she may use, its secret never; not the other one.
    assert_eq!(ids(&alice.get_json("/api/v2/credentials/")), [usable]);
    let shown = alice.get_json(&format!("/api/v2/credentials/{usable}/"));
    assert_eq!(shown["inputs"]["username"], "deploy", "{shown}");
    assert_eq!(shown["inputs"]["password"], "$encrypted$", "{shown}");
    assert!(!shown.to_string().contains("s3cret-pw"), "{shown}");
    alice
        .get(&format!("/api/v2/credentials/{other}/"))
        .call()
        .expect(403);
    // `use` is not `admin`: the credential itself stays out of her hands.
    alice
        .patch(&format!("/api/v2/credentials/{usable}/"))
        .json(&json!({"inputs": {"username": "mine", "password": "$encrypted$"}}))
        .call()
        .expect(403);
    alice
        .delete(&format!("/api/v2/credentials/{usable}/"))
        .call()
        .expect(403);
    // As the template's admin she edits and runs it.
    alice
        .patch(&format!("/api/v2/job_templates/{deploy}/"))
        .json(&json!({"description": "with the deploy key"}))
        .call()
        .expect(200);
    let job = wait_for_run(&alice, &launch(&alice, deploy));
    assert_eq!(job["status"], "successful", "{job}");
}

fn read_on_one_inventory_shows_that_inventory_only(backend: Backend) {
    let Fixture {
        automation,
        organization,
        alice_id,
        alice,
        ..
    } = fixture(backend);
    let server = &automation.server;
    let admin = server.admin();
    let first = ids(&admin.get_json("/api/v2/inventories/"))[0];
    let second = id_of(
        &admin
            .post("/api/v2/inventories/")
            .json(&json!({"name": "staging", "organization": organization}))
            .call()
            .expect(201)
            .json(),
    );
    grant(server, alice_id, "inventory", first, "read_role");
    assert_eq!(ids(&alice.get_json("/api/v2/inventories/")), [first]);
    let hosts = alice.get_json(&format!("/api/v2/inventories/{first}/hosts/"));
    assert_eq!(hosts["count"], 1, "{hosts}");
    alice
        .get(&format!("/api/v2/inventories/{second}/"))
        .call()
        .expect(403);
    // Reading is not using: a template of hers cannot run against it.
    alice
        .patch(&format!("/api/v2/inventories/{first}/"))
        .json(&json!({"description": "mine"}))
        .call()
        .expect(403);
    assert_eq!(alice.get_json("/api/v2/projects/")["count"], 0);
}

/// The role of `field` in `record`'s `summary_fields.object_roles`.
fn role_id(record: &Value, field: &str) -> i64 {
    record["summary_fields"]["object_roles"][field]["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("no {field} in {record}"))
}

/// An organization admin grants `execute` on a template through the API (both of the
/// reference's ways) and revokes it; the grant works at once and is in the activity stream.
/// Another organization's admin, a `read` token and a malformed body are refused.
fn an_organization_admin_grants_and_revokes_execute(backend: Backend) {
    let Fixture {
        automation,
        organization,
        templates: [deploy, _],
        alice_id,
        alice,
    } = fixture(backend);
    let server = &automation.server;
    let bob = server.create_user("bob", "Bob-pass-1", false);
    server.add_admin(organization, bob);
    let bob_agent = server.as_user("bob", "Bob-pass-1");
    let other = server.create_organization("Elsewhere");
    let carol = server.create_user("carol", "Carol-pass-1", false);
    server.add_admin(other, carol);
    let carol_agent = server.as_user("carol", "Carol-pass-1");

    let record = bob_agent.get_json(&format!("/api/v2/job_templates/{deploy}/"));
    let roles: Vec<&String> = record["summary_fields"]["object_roles"]
        .as_object()
        .expect("object_roles")
        .keys()
        .collect();
    assert_eq!(roles, ["admin_role", "execute_role", "read_role"]);
    let execute = role_id(&record, "execute_role");
    let role = bob_agent.get(&format!("/api/v2/roles/{execute}/")).call();
    assert_eq!(role.status, 200, "{}", role.body);
    assert!(
        role.header("warning")
            .is_some_and(|w| w.starts_with("299 awx"))
    );
    let role = role.json();
    assert_eq!(role["name"], "Execute", "{role}");
    assert_eq!(
        role["summary_fields"]["resource_type"], "job_template",
        "{role}"
    );
    assert_eq!(
        role["related"]["job_template"],
        format!("/api/v2/job_templates/{deploy}/")
    );

    let users_of_role = format!("/api/v2/roles/{execute}/users/");
    // Refused: an admin of another organization, a read token, a body without an id.
    carol_agent
        .post(&users_of_role)
        .json(&json!({ "id": alice_id }))
        .call()
        .expect(403);
    let read_token = bob_agent.personal_token("read");
    bob_agent
        .with_bearer(&read_token)
        .post(&users_of_role)
        .json(&json!({ "id": alice_id }))
        .call()
        .expect(403);
    let reply = bob_agent.post(&users_of_role).json(&json!({})).call();
    assert_eq!(reply.status, 400, "{}", reply.body);
    assert_eq!(reply.json(), json!({"msg": "User 'id' field is missing."}));
    let reply = bob_agent
        .post(&users_of_role)
        .json(&json!({"id": "x"}))
        .call();
    assert_eq!(
        reply.json(),
        json!({"msg": "\"id\" field must be an integer."})
    );
    alice
        .post(&format!("/api/v2/job_templates/{deploy}/launch/"))
        .json(&json!({}))
        .call()
        .expect(403);

    // Granted: she launches at once, and both lists show it.
    bob_agent
        .post(&users_of_role)
        .json(&json!({ "id": alice_id }))
        .call()
        .expect(204);
    let job = wait_for_run(&alice, &launch(&alice, deploy));
    assert_eq!(job["status"], "successful", "{job}");
    assert_eq!(
        bob_agent.get_json(&users_of_role)["results"][0]["username"],
        "alice"
    );
    let hers = bob_agent.get_json(&format!("/api/v2/users/{alice_id}/roles/"));
    assert_eq!(ids(&hers), [execute], "{hers}");
    let entries = server
        .admin()
        .get_json("/api/v2/activity_stream/?operation=associate&order_by=-id");
    let entry = &entries["results"][0];
    assert_eq!(entry["changes"]["role"], "execute_role", "{entry}");

    // Revoked through the user's roles, as awxkit does: the next launch is refused.
    bob_agent
        .post(&format!("/api/v2/users/{alice_id}/roles/"))
        .json(&json!({ "id": execute, "disassociate": true }))
        .call()
        .expect(204);
    alice
        .post(&format!("/api/v2/job_templates/{deploy}/launch/"))
        .json(&json!({}))
        .call()
        .expect(403);
    // Revoking again changes nothing and succeeds.
    bob_agent
        .post(&format!("/api/v2/users/{alice_id}/roles/"))
        .json(&json!({ "id": execute, "disassociate": true }))
        .call()
        .expect(204);
}

/// Credential roles go only to members of the credential's organization; system roles are
/// the user flags, not grants.
fn credential_and_system_roles_are_refused_by_rule(backend: Backend) {
    let Fixture {
        automation,
        organization,
        alice_id,
        ..
    } = fixture(backend);
    let server = &automation.server;
    let admin = server.admin();
    let credential = admin
        .post("/api/v2/credentials/")
        .json(&json!({
            "name": "deploy key", "organization": organization,
            "credential_type": server.managed_type_id("ssh"),
            "inputs": {"username": "deploy"},
        }))
        .call()
        .expect(201)
        .json();
    let use_role = role_id(&credential, "use_role");
    let reply = admin
        .post(&format!("/api/v2/roles/{use_role}/users/"))
        .json(&json!({ "id": alice_id }))
        .call();
    assert_eq!(reply.status, 400, "{}", reply.body);
    assert_eq!(
        reply.json(),
        json!({"msg": "You cannot grant credential access to a user not in the credentials' organization"})
    );
    server.add_member(organization, alice_id);
    admin
        .post(&format!("/api/v2/roles/{use_role}/users/"))
        .json(&json!({ "id": alice_id }))
        .call()
        .expect(204);
    let system = server
        .query_i64("SELECT id FROM roles WHERE kind = 'system' AND field = 'system_administrator'");
    let reply = admin
        .post(&format!("/api/v2/users/{alice_id}/roles/"))
        .json(&json!({ "id": system }))
        .call();
    assert_eq!(reply.status, 400, "{}", reply.body);
    let user = admin.get_json(&format!("/api/v2/users/{alice_id}/"));
    assert_eq!(user["is_superuser"], false);
    let reply = admin
        .post(&format!("/api/v2/users/{alice_id}/roles/"))
        .json(&json!({ "id": 999_999 }))
        .call();
    assert_eq!(reply.status, 400, "{}", reply.body);
    assert_eq!(
        reply.json()["detail"],
        "Role matching query does not exist."
    );
}

/// An organization's `project_admin` creates projects there (and others may not); who creates
/// a template from a project they may use becomes the template's admin.
fn organization_sub_admins_create_and_creators_administer(backend: Backend) {
    let Fixture {
        automation,
        organization,
        alice_id,
        alice,
        ..
    } = fixture(backend);
    let server = &automation.server;
    automation.project_file("more", "site.yml", PING_PLAYBOOK);
    let project = json!({"name": "more", "organization": organization, "local_path": "more"});
    alice
        .post("/api/v2/projects/")
        .json(&project)
        .call()
        .expect(403);
    grant(
        server,
        alice_id,
        "organization",
        organization,
        "project_admin_role",
    );
    let created = alice
        .post("/api/v2/projects/")
        .json(&project)
        .call()
        .expect(201)
        .json();
    let project_id = id_of(&created);
    // A project admin does not administer templates, nor make inventories.
    alice
        .post("/api/v2/inventories/")
        .json(&json!({"name": "hers", "organization": organization}))
        .call()
        .expect(403);
    let template = alice
        .post("/api/v2/job_templates/")
        .json(&json!({"name": "hers", "project": project_id, "playbook": "site.yml"}))
        .call()
        .expect(201)
        .json();
    // The answer already shows her the admin she now is.
    assert_eq!(
        template["summary_fields"]["user_capabilities"]["edit"], true,
        "{template}"
    );
    let path = format!("/api/v2/job_templates/{}/", id_of(&template));
    revoke(
        server,
        alice_id,
        "organization",
        organization,
        "project_admin_role",
    );
    // The project stays out of reach, the template she made is hers to change.
    alice
        .patch(&format!("/api/v2/projects/{project_id}/"))
        .json(&json!({"description": "mine"}))
        .call()
        .expect(403);
    alice
        .patch(&path)
        .json(&json!({"description": "mine"}))
        .call()
        .expect(200);
    let admins = alice.get_json(&format!(
        "/api/v2/roles/{}/users/",
        role_id(&alice.get_json(&path), "admin_role")
    ));
    assert_eq!(admins["results"][0]["username"], "alice", "{admins}");
}

/// As in the reference, a job template's `read_role` has its inventory's organization's
/// `auditor_role` as a parent: that auditor sees the template (list, detail, roles) and its
/// jobs, and nothing more of it, nor the templates on other inventories or their jobs.
fn an_inventory_organizations_auditor_reads_the_templates_on_its_inventories(backend: Backend) {
    let Fixture {
        automation,
        organization,
        templates: [deploy, _],
        alice_id,
        alice,
    } = fixture(backend);
    let server = &automation.server;
    let admin = server.admin();
    let dev = server.create_organization("Dev");
    let inventory = automation.create_local_inventory(&admin, dev);
    let project = admin.get_json(&format!("/api/v2/job_templates/{deploy}/"))["project"].clone();
    let template = id_of(
        &admin
            .post("/api/v2/job_templates/")
            .json(&json!({
                "name": "on dev", "project": project, "inventory": inventory,
                "playbook": "site.yml",
            }))
            .call()
            .expect(201)
            .json(),
    );
    let path = format!("/api/v2/job_templates/{template}/");
    let job = wait_for_run(&admin, &launch(&admin, template));
    let other_job = wait_for_run(&admin, &launch(&admin, deploy));
    let job_path = format!("/api/v2/jobs/{}/", id_of(&job));
    alice.get(&path).call().expect(403);
    alice.get(&job_path).call().expect(403);

    grant(server, alice_id, "organization", dev, "auditor_role");
    assert_eq!(ids(&alice.get_json("/api/v2/job_templates/")), [template]);
    // The template's jobs show with it, and no job of another inventory's template.
    alice.get(&job_path).call().expect(200);
    assert_eq!(ids(&alice.get_json("/api/v2/jobs/")), [id_of(&job)]);
    assert_eq!(ids(&alice.get_json(&format!("{path}jobs/"))), [id_of(&job)]);
    alice
        .get(&format!("/api/v2/jobs/{}/", id_of(&other_job)))
        .call()
        .expect(403);
    let record = alice.get_json(&path);
    assert_eq!(record["organization"], organization, "{record}");
    assert_eq!(
        record["summary_fields"]["user_capabilities"]["edit"], false,
        "{record}"
    );
    alice
        .patch(&path)
        .json(&json!({"name": "mine"}))
        .call()
        .expect(403);
    alice
        .post(&format!("{path}launch/"))
        .json(&json!({}))
        .call()
        .expect(403);
    alice
        .get(&format!("/api/v2/job_templates/{deploy}/"))
        .call()
        .expect(403);
    let roles = alice.get_json(&format!(
        "/api/v2/roles/?object_id={template}&page_size=200"
    ));
    let templates_roles = roles["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|role| role["summary_fields"]["resource_type"] == "job_template")
        .count();
    assert_eq!(templates_roles, 3, "{roles}");
    alice
        .get(&format!("{path}object_roles/"))
        .call()
        .expect(200);
}

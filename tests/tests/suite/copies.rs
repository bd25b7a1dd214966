//! `/api/v2/credentials/<id>/copy/`, the reference's copy: `GET` says whether the caller may
//! copy; `POST {"name"}` makes a credential of the same type, owner and inputs, its secrets
//! copied sealed (never opened, shown masked), recorded in the activity stream; a caller who
//! may not both change the original and create for its owner is refused and nothing is made.
//! Job templates, inventories and projects copy as a creation from their own fields would
//! (same checks), with what belongs with them: a template's credentials the copier may use,
//! an inventory's hosts.

use acs_tests::ansible::{AutomationServer, PING_PLAYBOOK};
use acs_tests::{Agent, Backend, Call, TestServer, backend_tests, id_of};
use serde_json::{Value, json};

fn a_credential_is_copied_with_its_secrets_sealed(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let organization = server.create_organization("Acme");
    let boss = server.create_user("boss", "Boss-pass-1", false);
    server.add_admin(organization, boss);
    let original = admin
        .post("/api/v2/credentials/")
        .json(&json!({
            "name": "deploy key", "organization": organization, "description": "for deploys",
            "credential_type": server.managed_type_id("ssh"),
            "inputs": {"username": "deploy", "password": "s3cret-deploy-pw"},
        }))
        .call()
        .expect(201)
        .json();
    let id = id_of(&original);
    let copy_path = format!("/api/v2/credentials/{id}/copy/");
    assert_eq!(original["related"]["copy"], json!(copy_path));
    assert_eq!(
        original["summary_fields"]["user_capabilities"]["copy"],
        true
    );

    let boss = server.as_user("boss", "Boss-pass-1");
    assert_eq!(boss.get_json(&copy_path)["can_copy"], true);
    let copy = boss
        .post(&copy_path)
        .json(&json!({"name": "deploy key (copy)"}))
        .call()
        .expect(201)
        .json();
    let copy_id = id_of(&copy);
    assert_ne!(copy_id, id);
    assert_eq!(copy["name"], "deploy key (copy)");
    assert_eq!(copy["organization"], organization);
    assert_eq!(copy["description"], "for deploys");
    assert_eq!(copy["credential_type"], original["credential_type"]);
    assert_eq!(
        copy["inputs"],
        json!({"username": "deploy", "password": "$encrypted$"})
    );
    // The secret is the original's, still sealed: the same stored text, no plaintext.
    let stored = |id: i64| {
        server.query_i64(&format!(
            "SELECT COUNT(*) FROM credentials a, credentials b WHERE a.id = {id} AND b.id = {} AND a.inputs = b.inputs",
            copy_id
        ))
    };
    assert_eq!(stored(id), 1, "the copy holds the original's sealed inputs");
    assert_eq!(
        server.query_i64("SELECT COUNT(*) FROM credentials WHERE inputs LIKE '%s3cret-deploy-pw%'"),
        0
    );
    let created = admin.get_json(&format!(
        "/api/v2/credentials/{copy_id}/activity_stream/?operation=create"
    ));
    assert_eq!(created["count"], 1, "{created}");

    // A name is needed, and must be free within the organization and type.
    let missing = boss.post(&copy_path).json(&json!({})).call().expect(400);
    assert!(
        missing.body.contains("This field is required."),
        "{}",
        missing.body
    );
    let taken = boss
        .post(&copy_path)
        .json(&json!({"name": "deploy key"}))
        .call()
        .expect(400);
    assert!(taken.body.contains("already exists"), "{}", taken.body);
}

fn copying_needs_the_original_and_its_owner(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let organization = server.create_organization("Acme");
    let user = server.create_user("user", "User-pass-1", false);
    server.add_member(organization, user);
    let original = admin
        .post("/api/v2/credentials/")
        .json(&json!({
            "name": "deploy key", "organization": organization,
            "credential_type": server.managed_type_id("ssh"),
            "inputs": {"username": "deploy", "password": "s3cret-deploy-pw"},
        }))
        .call()
        .expect(201)
        .json();
    let id = id_of(&original);
    // Allowed to use it (and so to see it), not to administer it.
    let use_role = original["summary_fields"]["object_roles"]["use_role"]["id"]
        .as_i64()
        .expect("the use role");
    admin
        .post(&format!("/api/v2/roles/{use_role}/users/"))
        .json(&json!({"id": user}))
        .call()
        .expect(204);
    let user = server.as_user("user", "User-pass-1");
    let copy_path = format!("/api/v2/credentials/{id}/copy/");
    assert_eq!(user.get_json(&copy_path)["can_copy"], false);
    assert_eq!(
        user.get_json(&format!("/api/v2/credentials/{id}/"))["summary_fields"]["user_capabilities"]
            ["copy"],
        false
    );
    user.post(&copy_path)
        .json(&json!({"name": "mine now"}))
        .call()
        .expect(403);
    // A stranger cannot even see it.
    server.create_user("mallory", "Mallory-pass-1", false);
    let mallory = server.as_user("mallory", "Mallory-pass-1");
    let refused = mallory
        .post(&copy_path)
        .json(&json!({"name": "mine now"}))
        .call();
    assert!(matches!(refused.status, 403 | 404), "{}", refused.body);
    assert_eq!(
        admin.get_json("/api/v2/credentials/?name=mine%20now")["count"],
        0,
        "nothing was made"
    );
}

/// Grants `user` the role `field` of the record at `path`.
fn grant(admin: &Agent, path: &str, field: &str, user: i64) {
    let record: Value = admin.get_json(path);
    let role = record["summary_fields"]["object_roles"][field]["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("{field} of {path}: {record}"));
    admin
        .post(&format!("/api/v2/roles/{role}/users/"))
        .json(&json!({"id": user}))
        .call()
        .expect(204);
}

fn automation_resources_are_copied_with_what_belongs_with_them(backend: Backend) {
    let fixture = AutomationServer::start(backend, &[]);
    let server = &fixture.server;
    let admin = server.admin();
    let organization = server.create_organization("Ops");
    fixture.project_file("ping", "site.yml", PING_PLAYBOOK);
    fixture.project_file("ping-two", "site.yml", PING_PLAYBOOK);
    let project = fixture.create_project(&admin, organization, "ping");
    let inventory = id_of(
        &admin
            .post("/api/v2/inventories/")
            .json(&json!({"name": "edge", "organization": organization}))
            .call()
            .expect(201)
            .json(),
    );
    for (name, variables) in [("web1", "port: 80"), ("web2", "port: 8080")] {
        admin
            .post("/api/v2/hosts/")
            .json(&json!({"name": name, "inventory": inventory, "variables": variables}))
            .call()
            .expect(201);
    }
    let credential = id_of(
        &admin
            .post("/api/v2/credentials/")
            .json(&json!({"name": "deploy key", "organization": organization, "credential_type": server.managed_type_id("ssh"), "inputs": {"username": "deploy"}}))
            .call()
            .expect(201)
            .json(),
    );
    let template = admin
        .post("/api/v2/job_templates/")
        .json(&json!({"name": "deploy", "project": project, "inventory": inventory, "playbook": "site.yml", "extra_vars": "{\"a\": 1}"}))
        .call()
        .expect(201)
        .json();
    let template_id = id_of(&template);
    assert_eq!(
        template["related"]["copy"],
        json!(format!("/api/v2/job_templates/{template_id}/copy/"))
    );
    admin
        .post(&format!("/api/v2/job_templates/{template_id}/credentials/"))
        .json(&json!({"id": credential}))
        .call()
        .expect(204);

    // An admin's copy of the template keeps everything, its credential included.
    let copy = admin
        .post(&format!("/api/v2/job_templates/{template_id}/copy/"))
        .json(&json!({"name": "deploy again"}))
        .call()
        .expect(201)
        .json();
    let copy_id = id_of(&copy);
    assert_ne!(copy_id, template_id);
    for field in [
        "project",
        "inventory",
        "playbook",
        "extra_vars",
        "organization",
    ] {
        assert_eq!(copy[field], template[field], "{field}: {copy}");
    }
    assert_eq!(
        admin.ids_at(&format!("/api/v2/job_templates/{copy_id}/credentials/")),
        [credential]
    );

    // A user who may use the project and inventory, not the credential: the copy leaves it out.
    let planner = server.create_user("planner", "Planner-pass-1", false);
    grant(
        &admin,
        &format!("/api/v2/projects/{project}/"),
        "use_role",
        planner,
    );
    grant(
        &admin,
        &format!("/api/v2/inventories/{inventory}/"),
        "use_role",
        planner,
    );
    grant(
        &admin,
        &format!("/api/v2/job_templates/{template_id}/"),
        "read_role",
        planner,
    );
    let planner = server.as_user("planner", "Planner-pass-1");
    let capability = |agent: &Agent, path: &str| {
        agent.get_json(path)["summary_fields"]["user_capabilities"]["copy"].clone()
    };
    let template_path = format!("/api/v2/job_templates/{template_id}/");
    assert_eq!(capability(&planner, &template_path), true);
    assert_eq!(capability(&admin, &template_path), true);
    for path in [
        format!("/api/v2/projects/{project}/"),
        format!("/api/v2/inventories/{inventory}/"),
    ] {
        assert_eq!(capability(&admin, &path), true, "{path}");
        // Using it is not creating in its organization.
        assert_eq!(capability(&planner, &path), false, "{path}");
    }
    let check = planner.get_json(&format!("/api/v2/job_templates/{template_id}/copy/"));
    assert_eq!(check["can_copy"], true, "{check}");
    assert_eq!(check["can_copy_without_user_input"], false, "{check}");
    assert_eq!(
        check["credentials_unable_to_copy"][0]["id"], credential,
        "{check}"
    );
    let theirs = id_of(
        &planner
            .post(&format!("/api/v2/job_templates/{template_id}/copy/"))
            .json(&json!({"name": "planner's deploy"}))
            .call()
            .expect(201)
            .json(),
    );
    assert!(
        admin
            .ids_at(&format!("/api/v2/job_templates/{theirs}/credentials/"))
            .is_empty()
    );
    // Its creator administers the copy, as any template they make.
    planner
        .patch(&format!("/api/v2/job_templates/{theirs}/"))
        .json(&json!({"description": "mine"}))
        .call()
        .expect(200);

    // Someone who may only read the template may not copy it; nothing is made.
    let reader = server.create_user("reader", "Reader-pass-1", false);
    grant(
        &admin,
        &format!("/api/v2/job_templates/{template_id}/"),
        "read_role",
        reader,
    );
    let reader = server.as_user("reader", "Reader-pass-1");
    assert_eq!(
        reader.get_json(&format!("/api/v2/job_templates/{template_id}/copy/"))["can_copy"],
        false
    );
    assert_eq!(capability(&reader, &template_path), false);
    // The list shows the same as the record.
    let listed = reader.get_json("/api/v2/job_templates/?name=deploy");
    assert_eq!(
        listed["results"][0]["summary_fields"]["user_capabilities"]["copy"], false,
        "{listed}"
    );
    reader
        .post(&format!("/api/v2/job_templates/{template_id}/copy/"))
        .json(&json!({"name": "reader's deploy"}))
        .call()
        .expect(403);
    assert_eq!(
        admin.get_json("/api/v2/job_templates/?name=reader%27s%20deploy")["count"],
        0
    );

    // An inventory's copy has its hosts, variables and all.
    let inventory_copy = admin
        .post(&format!("/api/v2/inventories/{inventory}/copy/"))
        .json(&json!({"name": "edge again"}))
        .call()
        .expect(201)
        .json();
    let hosts = admin.get_json(&format!(
        "/api/v2/inventories/{}/hosts/?order_by=name",
        id_of(&inventory_copy)
    ));
    assert_eq!(hosts["count"], 2, "{hosts}");
    assert_eq!(hosts["results"][1]["name"], "web2");
    assert_eq!(hosts["results"][1]["variables"], "port: 8080");
    assert_eq!(
        admin.get_json(&format!("/api/v2/inventories/{inventory}/hosts/"))["count"],
        2
    );

    // A project's directory is its own: the copy needs another one, given in the body.
    let taken = admin
        .post(&format!("/api/v2/projects/{project}/copy/"))
        .json(&json!({"name": "ping again"}))
        .call()
        .expect(400);
    assert!(taken.body.contains("already being used"), "{}", taken.body);
    let project_copy = admin
        .post(&format!("/api/v2/projects/{project}/copy/"))
        .json(&json!({"name": "ping again", "local_path": "ping-two"}))
        .call()
        .expect(201)
        .json();
    assert_eq!(project_copy["local_path"], "ping-two");
    // A name is needed.
    let missing = admin
        .post(&format!("/api/v2/inventories/{inventory}/copy/"))
        .json(&json!({}))
        .call()
        .expect(400);
    assert!(
        missing.body.contains("This field is required."),
        "{}",
        missing.body
    );
}

backend_tests!(
    a_credential_is_copied_with_its_secrets_sealed,
    copying_needs_the_original_and_its_owner,
    automation_resources_are_copied_with_what_belongs_with_them,
);

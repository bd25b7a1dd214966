//! Projects, inventories, hosts, inventory sources and job templates through the API: who may
//! see and change them, and a clear 400 naming the field for every kind of bad input.

use acs_tests::ansible::AutomationServer;
use acs_tests::{Agent, Backend, Call, backend_tests, id_of};
use serde_json::{Value, json};

struct World {
    fixture: AutomationServer,
    admin: Agent,
    organization: i64,
    other_organization: i64,
}

fn world(backend: Backend) -> World {
    let fixture = AutomationServer::start(backend, &[]);
    fixture.project_file("site", "site.yml", "- hosts: all\n  tasks: []\n");
    fixture.project_file("other", "site.yml", "- hosts: all\n  tasks: []\n");
    let admin = fixture.server.admin();
    let organization = fixture.server.create_organization("one");
    let other_organization = fixture.server.create_organization("two");
    World {
        fixture,
        admin,
        organization,
        other_organization,
    }
}

fn created(agent: &Agent, path: &str, body: Value) -> i64 {
    let reply = agent.post(path).json(&body).call().expect(201);
    let record = reply.json();
    assert_eq!(
        reply.location().as_deref(),
        record["url"].as_str(),
        "{record}"
    );
    id_of(&record)
}

fn errors(agent: &Agent, path: &str, body: Value, field: &str) -> Vec<String> {
    agent
        .post(path)
        .json(&body)
        .call()
        .expect(400)
        .field_errors(field)
}

fn projects_validate_their_directory(backend: Backend) {
    let w = world(backend);
    let path = "/api/v2/projects/";
    let missing = w
        .admin
        .post(path)
        .json(&json!({}))
        .call()
        .expect(400)
        .json();
    for field in ["name", "organization", "local_path"] {
        assert_eq!(
            missing[field],
            json!(["This field is required."]),
            "{missing}"
        );
    }
    let base = json!({"name": "p", "organization": w.organization});
    let with = |extra: Value| {
        let mut body = base.clone();
        for (key, value) in extra.as_object().into_iter().flatten() {
            body[key] = value.clone();
        }
        body
    };
    let nowhere = errors(
        &w.admin,
        path,
        with(json!({"local_path": "nowhere"})),
        "local_path",
    );
    assert_eq!(
        nowhere,
        vec!["Invalid path choice: nowhere is not a directory of projects."],
        "the message names no path of the server"
    );
    let root = w.fixture.server.admin().get_json("/api/v2/settings/jobs/")["PROJECTS_ROOT"]
        .as_str()
        .expect("PROJECTS_ROOT")
        .to_owned();
    assert!(!nowhere[0].contains(&root), "{nowhere:?}");
    for escape in ["../site", "/etc", "site/sub", ".", ""] {
        errors(
            &w.admin,
            path,
            with(json!({"local_path": escape})),
            "local_path",
        );
    }
    // A git project needs its repository (git projects have tests of their own).
    let scm = errors(
        &w.admin,
        path,
        with(json!({"local_path": "site", "scm_type": "git"})),
        "scm_url",
    );
    assert_eq!(scm, ["A git project needs scm_url."], "{scm:?}");
    let scm = errors(
        &w.admin,
        path,
        with(json!({"local_path": "site", "scm_type": "svn"})),
        "scm_type",
    );
    assert!(scm[0].contains("not a valid choice"), "{scm:?}");
    let unknown = errors(
        &w.admin,
        path,
        json!({"name": "p", "organization": 9999, "local_path": "site"}),
        "organization",
    );
    assert_eq!(
        unknown,
        vec!["Invalid pk \"9999\" - object does not exist."]
    );
    errors(
        &w.admin,
        path,
        with(json!({"local_path": "site", "name": 5})),
        "name",
    );

    let project = created(&w.admin, path, with(json!({"local_path": "site"})));
    let taken = errors(
        &w.admin,
        path,
        with(json!({"local_path": "other"})),
        "__all__",
    );
    assert_eq!(
        taken,
        vec!["Project with this Organization and Name already exists."]
    );
    let detail = format!("/api/v2/projects/{project}/");
    let renamed = w
        .admin
        .patch(&detail)
        .json(&json!({"name": "renamed"}))
        .call()
        .expect(200)
        .json();
    assert_eq!(
        (renamed["name"].clone(), renamed["local_path"].clone()),
        (json!("renamed"), json!("site"))
    );
    w.admin
        .patch(&detail)
        .json(&json!({"local_path": "../x"}))
        .call()
        .expect(400);
    w.admin
        .put(&detail)
        .json(&json!({"name": "put"}))
        .call()
        .expect(400);
    let options = w.admin.options(path).call().expect(200).json();
    assert!(
        options["actions"]["POST"]["local_path"].is_object(),
        "{options}"
    );
    w.admin.get("/api/v2/projects/0/").call().expect(404);
    w.admin.get("/api/v2/projects/-1/").call().expect(404);
    w.admin.get("/api/v2/projects/?bogus=1").call().expect(400);
    w.admin
        .get("/api/v2/projects/?name__icontains=REN")
        .call()
        .expect(200);
    let activity = w.admin.get_json("/api/v2/activity_stream/?object1=project");
    assert!(activity["count"].as_i64().unwrap_or(0) >= 2, "{activity}");
    w.admin.delete(&detail).call().expect(204);
    w.admin.get(&detail).call().expect(404);
}

fn organization_roles_decide_access(backend: Backend) {
    let w = world(backend);
    let server = &w.fixture.server;
    let admin_id = server.create_user("orgadmin", "Passw0rd-orgadmin", false);
    server.add_admin(w.organization, admin_id);
    let member_id = server.create_user("member", "Passw0rd-member", false);
    server.add_member(w.organization, member_id);
    server.create_user("outsider", "Passw0rd-outsider", false);
    let org_admin = server.as_user("orgadmin", "Passw0rd-orgadmin");
    let member = server.as_user("member", "Passw0rd-member");
    let outsider = server.as_user("outsider", "Passw0rd-outsider");

    let project = created(
        &org_admin,
        "/api/v2/projects/",
        json!({"name": "p", "organization": w.organization, "local_path": "site"}),
    );
    org_admin
        .post("/api/v2/projects/")
        .json(&json!({"name": "p", "organization": w.other_organization, "local_path": "other"}))
        .call()
        .expect(403);
    member
        .post("/api/v2/projects/")
        .json(&json!({"name": "q", "organization": w.organization, "local_path": "site"}))
        .call()
        .expect(403);
    let detail = format!("/api/v2/projects/{project}/");
    let seen = member.get_json(&detail);
    assert_eq!(seen["summary_fields"]["user_capabilities"]["edit"], false);
    member
        .patch(&detail)
        .json(&json!({"name": "x"}))
        .call()
        .expect(403);
    member.delete(&detail).call().expect(403);
    assert_eq!(member.get_json("/api/v2/projects/")["count"], 1);
    assert_eq!(outsider.get_json("/api/v2/projects/")["count"], 0);
    outsider.get(&detail).call().expect(403);

    // An admin cannot move a project to an organization it does not administer.
    org_admin
        .patch(&detail)
        .json(&json!({"organization": w.other_organization}))
        .call()
        .expect(403);
    // Nor build a job template on an inventory of another organization.
    let foreign_inventory = created(
        &w.admin,
        "/api/v2/inventories/",
        json!({"name": "i", "organization": w.other_organization}),
    );
    org_admin
        .post("/api/v2/job_templates/")
        .json(&json!({"name": "t", "project": project, "inventory": foreign_inventory, "playbook": "site.yml"}))
        .call()
        .expect(403);
    // An inventory's hosts and sources: listed and added only through an inventory the caller
    // may see (403), and one that exists (404); in its own, the path fixes the inventory.
    let foreign_hosts = format!("/api/v2/inventories/{foreign_inventory}/hosts/");
    org_admin.get(&foreign_hosts).call().expect(403);
    org_admin
        .post(&foreign_hosts)
        .json(&json!({"name": "h"}))
        .call()
        .expect(403);
    org_admin
        .post("/api/v2/inventories/999999/inventory_sources/")
        .json(&json!({"name": "s", "source_path": "hosts"}))
        .call()
        .expect(404);
    assert_eq!(w.admin.get_json(&foreign_hosts)["count"], 0);
    let own_inventory = created(
        &org_admin,
        "/api/v2/inventories/",
        json!({"name": "mine", "organization": w.organization}),
    );
    let own_hosts = format!("/api/v2/inventories/{own_inventory}/hosts/");
    let host = created(
        &org_admin,
        &own_hosts,
        json!({"name": "h", "inventory": foreign_inventory}),
    );
    assert_eq!(
        org_admin.get_json(&format!("/api/v2/hosts/{host}/"))["inventory"],
        own_inventory
    );
    assert_eq!(member.get_json(&own_hosts)["count"], 1);
    let template = created(
        &org_admin,
        "/api/v2/job_templates/",
        json!({"name": "t", "project": project, "playbook": "site.yml"}),
    );
    assert_eq!(
        member.get_json(&format!("/api/v2/job_templates/{template}/"))["organization"],
        w.organization
    );
    // A credential the admin cannot manage cannot be attached.
    let foreign_credential = created(
        &w.admin,
        "/api/v2/credentials/",
        json!({"name": "c", "organization": w.other_organization, "credential_type": server.managed_type_id("ssh"), "inputs": {}}),
    );
    org_admin
        .post(&format!("/api/v2/job_templates/{template}/credentials/"))
        .json(&json!({"id": foreign_credential}))
        .call()
        .expect(403);
}

fn hosts_and_job_templates_check_their_fields(backend: Backend) {
    let w = world(backend);
    let project = created(
        &w.admin,
        "/api/v2/projects/",
        json!({"name": "p", "organization": w.organization, "local_path": "site"}),
    );
    let inventory = created(
        &w.admin,
        "/api/v2/inventories/",
        json!({"name": "i", "organization": w.organization}),
    );
    let other_inventory = created(
        &w.admin,
        "/api/v2/inventories/",
        json!({"name": "j", "organization": w.organization}),
    );
    let hosts = format!("/api/v2/inventories/{inventory}/hosts/");
    let bad_yaml = errors(
        &w.admin,
        &hosts,
        json!({"name": "h", "variables": "a: ["}),
        "variables",
    );
    assert!(
        bad_yaml[0].starts_with("Cannot parse as YAML or JSON"),
        "{bad_yaml:?}"
    );
    let not_mapping = errors(
        &w.admin,
        &hosts,
        json!({"name": "h", "variables": "- a"}),
        "variables",
    );
    assert_eq!(not_mapping, vec!["Must be a YAML or JSON mapping."]);
    errors(
        &w.admin,
        &hosts,
        json!({"name": "h", "variables": 5}),
        "variables",
    );
    let host = created(
        &w.admin,
        &hosts,
        json!({"name": "h", "variables": {"port": 22}}),
    );
    let record = w.admin.get_json(&format!("/api/v2/hosts/{host}/"));
    assert_eq!(record["inventory"], inventory);
    assert_eq!(record["variables"], "{\"port\":22}");
    let moved = w
        .admin
        .patch(&format!("/api/v2/hosts/{host}/"))
        .json(&json!({"inventory": other_inventory}))
        .call()
        .expect(400)
        .field_errors("inventory");
    assert_eq!(moved, vec!["A host cannot move to another inventory."]);
    assert_eq!(
        w.admin
            .get_json(&format!("/api/v2/inventories/{inventory}/"))["total_hosts"],
        1
    );
    let nested = "a:\n  - ".to_owned() + &"[".repeat(5000);
    errors(
        &w.admin,
        &hosts,
        json!({"name": "deep", "variables": nested}),
        "variables",
    );

    let templates = "/api/v2/job_templates/";
    let base = json!({"name": "t", "project": project, "inventory": inventory});
    let with = |extra: Value| {
        let mut body = base.clone();
        for (key, value) in extra.as_object().into_iter().flatten() {
            body[key] = value.clone();
        }
        body
    };
    assert_eq!(
        errors(
            &w.admin,
            templates,
            with(json!({"playbook": "missing.yml"})),
            "playbook"
        ),
        vec!["Playbook not found for project."]
    );
    for escape in ["../other/site.yml", "/etc/passwd", "./site.yml"] {
        errors(
            &w.admin,
            templates,
            with(json!({"playbook": escape})),
            "playbook",
        );
    }
    errors(
        &w.admin,
        templates,
        with(json!({"playbook": "site.yml", "extra_vars": "{"})),
        "extra_vars",
    );
    errors(
        &w.admin,
        templates,
        with(json!({"playbook": "site.yml", "project": "x"})),
        "project",
    );
    let template = created(
        &w.admin,
        templates,
        with(json!({"playbook": "site.yml", "extra_vars": "a: 1"})),
    );
    let detail = format!("/api/v2/job_templates/{template}/");
    let cleared = w
        .admin
        .patch(&detail)
        .json(&json!({"inventory": null}))
        .call()
        .expect(200)
        .json();
    assert_eq!(cleared["inventory"], Value::Null);
    let refused = w
        .admin
        .post(&format!("{detail}launch/"))
        .json(&json!({}))
        .call()
        .expect(400)
        .json();
    assert_eq!(
        refused["resources_needed_to_start"],
        json!(["Job Template Inventory is missing or undefined."])
    );
    let requirements = w.admin.get_json(&format!("{detail}launch/"));
    assert_eq!(requirements["can_start_without_user_input"], false);
    w.admin
        .post(&format!("{detail}launch/"))
        .body("[1]")
        .header("Content-Type", "application/json")
        .call()
        .expect(400);

    w.admin.get("/api/v2/jobs/12345/").call().expect(404);
    w.admin.get("/api/v2/jobs/12345/stdout/").call().expect(404);
    w.admin
        .post("/api/v2/jobs/12345/cancel/")
        .call()
        .expect(404);
    w.admin.delete("/api/v2/jobs/").call().expect(405);
    assert_eq!(w.admin.get_json("/api/v2/project_updates/")["count"], 0);
}

/// An admin of organization two tries to put a project of two on the directory of a project
/// of one: it would read one's inventory files, run its playbooks and install into it.
fn a_directory_belongs_to_one_project(backend: Backend) {
    let w = world(backend);
    let server = &w.fixture.server;
    let bob = server.create_user("bob", "Passw0rd-bob-of-two", false);
    server.add_admin(w.other_organization, bob);
    let bob = server.as_user("bob", "Passw0rd-bob-of-two");
    const TAKEN: &str = "This path is already being used by another manual project.";

    let ones = created(
        &w.admin,
        "/api/v2/projects/",
        json!({"name": "one's", "organization": w.organization, "local_path": "site"}),
    );
    let taken = errors(
        &bob,
        "/api/v2/projects/",
        json!({"name": "two's", "organization": w.other_organization, "local_path": "site"}),
        "local_path",
    );
    assert_eq!(taken, vec![TAKEN]);
    // Not for a superuser either: a directory has one project.
    let taken = errors(
        &w.admin,
        "/api/v2/projects/",
        json!({"name": "again", "organization": w.organization, "local_path": "site"}),
        "local_path",
    );
    assert_eq!(taken, vec![TAKEN]);

    // A free directory is fine; moving onto a used one is refused and changes nothing.
    let twos = created(
        &bob,
        "/api/v2/projects/",
        json!({"name": "two's", "organization": w.other_organization, "local_path": "other"}),
    );
    let twos_path = format!("/api/v2/projects/{twos}/");
    let moved = bob
        .patch(&twos_path)
        .json(&json!({"local_path": "site"}))
        .call()
        .expect(400)
        .field_errors("local_path");
    assert_eq!(moved, vec![TAKEN]);
    assert_eq!(bob.get_json(&twos_path)["local_path"], "other");

    // A project keeps its own directory through a full update.
    w.admin
        .put(&format!("/api/v2/projects/{ones}/"))
        .json(&json!({"name": "one's", "organization": w.organization, "local_path": "site"}))
        .call()
        .expect(200);
    // Once one's project leaves the directory, it is free for two.
    w.admin
        .delete(&format!("/api/v2/projects/{ones}/"))
        .call()
        .expect(204);
    bob.patch(&twos_path)
        .json(&json!({"local_path": "site"}))
        .call()
        .expect(200);
}

/// `GET /api/v2/config/`: project creators are offered the directories no project uses
/// (the reference's `project_local_paths`); only those who read the `jobs` settings see the
/// projects root itself, and plain members see neither.
fn config_offers_unused_directories_to_project_creators(backend: Backend) {
    let w = world(backend);
    let root = w.fixture.projects_root.path();
    for dir in ["free-b", "free-a", ".hidden"] {
        std::fs::create_dir(root.join(dir)).expect("a directory");
    }
    created(
        &w.admin,
        "/api/v2/projects/",
        json!({"name": "site", "organization": w.organization, "local_path": "site"}),
    );
    let server = &w.fixture.server;
    let alice = server.create_user("alice", "Alice-pass-1", false);
    server.add_admin(w.other_organization, alice);
    let bob = server.create_user("bob", "Bob-pass-1", false);
    server.add_member(w.organization, bob);
    server.create_auditor("audrey", "Audrey-pass-1");
    let unused = json!(["free-a", "free-b", "other"]);
    let root_text = root.display().to_string();

    let config = w.admin.get_json("/api/v2/config/");
    assert_eq!(config["project_local_paths"], unused, "{config}");
    assert_eq!(config["project_base_dir"], root_text.as_str(), "{config}");
    let config = server
        .as_user("audrey", "Audrey-pass-1")
        .get_json("/api/v2/config/");
    assert_eq!(config["project_base_dir"], root_text.as_str(), "{config}");

    let config = server
        .as_user("alice", "Alice-pass-1")
        .get_json("/api/v2/config/");
    assert_eq!(config["project_local_paths"], unused, "{config}");
    assert!(config.get("project_base_dir").is_none(), "{config}");
    assert!(!config.to_string().contains(&root_text), "{config}");

    let config = server
        .as_user("bob", "Bob-pass-1")
        .get_json("/api/v2/config/");
    assert!(config.get("project_local_paths").is_none(), "{config}");
    assert!(config.get("project_base_dir").is_none(), "{config}");
    assert_eq!(
        config["version"],
        w.admin.get_json("/api/v2/ping/")["version"]
    );

    server.anonymous().get("/api/v2/config/").call().expect(401);
}

backend_tests!(
    config_offers_unused_directories_to_project_creators,
    a_directory_belongs_to_one_project,
    projects_validate_their_directory,
    organization_roles_decide_access,
    hosts_and_job_templates_check_their_fields,
);

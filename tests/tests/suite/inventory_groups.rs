//! Inventory groups, as the reference serves them: `/api/v2/groups/` and
//! `/inventories/<id>/groups/`, with their hosts (`/groups/<id>/hosts/`), child groups
//! (`/groups/<id>/children/`) and a host's groups (`/hosts/<id>/groups/`); memberships never
//! cross inventories nor form a cycle; a disabled host is left out of runs; the run's
//! inventory, read by the real `ansible-playbook`, holds the groups and their variables.

use acs_tests::ansible::{AutomationServer, REPORTING_PLAYBOOK, read_report, wait_for_run};
use acs_tests::{Agent, Backend, Call, Reply, TestServer, backend_tests, id_of};
use serde_json::{Value, json};

fn create(agent: &Agent, path: &str, body: Value) -> i64 {
    id_of(&agent.post(path).json(&body).call().expect(201).json())
}

fn associate(agent: &Agent, path: &str, id: i64) -> Reply {
    agent.post(path).json(&json!({ "id": id })).call()
}

fn names_at(agent: &Agent, path: &str) -> Vec<String> {
    agent.get_json(path)["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|item| item["name"].as_str().unwrap_or_default().to_owned())
        .collect()
}

fn groups_hold_hosts_and_child_groups_within_their_inventory(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let organization = server.create_organization("Acme");
    let inventory = create(
        &admin,
        "/api/v2/inventories/",
        json!({"name": "prod", "organization": organization}),
    );
    let other = create(
        &admin,
        "/api/v2/inventories/",
        json!({"name": "stage", "organization": organization}),
    );
    let hosts = format!("/api/v2/inventories/{inventory}/hosts/");
    let web1 = create(&admin, &hosts, json!({"name": "web1"}));
    let db1 = create(&admin, &hosts, json!({"name": "db1", "enabled": false}));
    let elsewhere = create(
        &admin,
        &format!("/api/v2/inventories/{other}/hosts/"),
        json!({"name": "web9"}),
    );
    let web = admin
        .post(&format!("/api/v2/inventories/{inventory}/groups/"))
        .json(&json!({"name": "web", "variables": "tier: web\n"}))
        .call()
        .expect(201)
        .json();
    assert_eq!(web["type"], "group");
    assert_eq!(web["inventory"], inventory);
    assert_eq!(web["variables"], "tier: web\n");
    assert_eq!(
        web["related"]["hosts"],
        format!("{}hosts/", web["url"].as_str().unwrap())
    );
    let web = id_of(&web);
    let prod = create(
        &admin,
        "/api/v2/groups/",
        json!({"name": "everything", "inventory": inventory}),
    );

    // Names: unique within the inventory, never a host's, never ansible's own.
    for (body, message) in [
        (
            json!({"name": "web", "inventory": inventory}),
            "Group with this Name and Inventory already exists.",
        ),
        (
            json!({"name": "web1", "inventory": inventory}),
            "A Host with that name already exists.",
        ),
        (
            json!({"name": "all", "inventory": inventory}),
            "Invalid group name.",
        ),
    ] {
        let refused = admin.post("/api/v2/groups/").json(&body).call().expect(400);
        assert!(refused.body.contains(message), "{body}: {}", refused.body);
    }
    let refused = admin
        .post(&hosts)
        .json(&json!({"name": "web"}))
        .call()
        .expect(400);
    assert!(
        refused
            .body
            .contains("A Group with that name already exists."),
        "{}",
        refused.body
    );
    // The same name in another inventory is another group.
    create(
        &admin,
        "/api/v2/groups/",
        json!({"name": "web", "inventory": other}),
    );

    // Hosts in a group, from either side; adding twice changes nothing.
    let group_hosts = format!("/api/v2/groups/{web}/hosts/");
    associate(&admin, &group_hosts, web1).expect(204);
    associate(&admin, &group_hosts, web1).expect(204);
    associate(&admin, &format!("/api/v2/hosts/{db1}/groups/"), prod).expect(204);
    assert_eq!(names_at(&admin, &group_hosts), ["web1"]);
    assert_eq!(
        names_at(&admin, &format!("/api/v2/hosts/{web1}/groups/")),
        ["web"]
    );
    assert_eq!(
        names_at(&admin, &format!("/api/v2/groups/{prod}/hosts/")),
        ["db1"]
    );
    let db = admin.get_json(&format!("/api/v2/hosts/{db1}/"));
    assert_eq!(db["enabled"], false);
    assert_eq!(
        db["related"]["groups"],
        format!("/api/v2/hosts/{db1}/groups/")
    );

    // A body without an id makes the member in the group's inventory and adds it.
    let made = admin
        .post(&group_hosts)
        .json(&json!({"name": "web2", "variables": {"port": 8080}}))
        .call()
        .expect(201)
        .json();
    assert_eq!(made["inventory"], inventory);
    assert_eq!(names_at(&admin, &group_hosts), ["web1", "web2"]);

    // Child groups: no group beneath itself, however deep.
    let children = format!("/api/v2/groups/{prod}/children/");
    associate(&admin, &children, web).expect(204);
    assert_eq!(names_at(&admin, &children), ["web"]);
    let canary = create(
        &admin,
        &format!("/api/v2/groups/{web}/children/"),
        json!({"name": "canary"}),
    );
    for (parent, child) in [(canary, prod), (web, prod), (web, web)] {
        let cycle = associate(&admin, &format!("/api/v2/groups/{parent}/children/"), child)
            .expect(400)
            .json();
        assert_eq!(cycle, json!({"error": "Cyclical Group association."}));
    }

    // Never across inventories; an id that names nothing is refused by name.
    let across = associate(&admin, &group_hosts, elsewhere)
        .expect(400)
        .json();
    assert_eq!(
        across,
        json!({"error": "A group and what it holds must be in the same inventory."})
    );
    let missing = associate(&admin, &group_hosts, 999_999).expect(400);
    assert!(missing.body.contains("\"id\""), "{}", missing.body);
    assert_eq!(names_at(&admin, &group_hosts), ["web1", "web2"]);

    // Lists filter as the reference's clients ask; the inventory counts its groups.
    assert_eq!(
        names_at(
            &admin,
            &format!("/api/v2/groups/?inventory={inventory}&name=web")
        ),
        ["web"]
    );
    assert_eq!(
        admin.get_json(&format!("/api/v2/inventories/{inventory}/"))["total_groups"],
        3
    );

    // Taking out, recorded once each way.
    admin
        .post(&group_hosts)
        .json(&json!({"id": web1, "disassociate": true}))
        .call()
        .expect(204);
    assert_eq!(names_at(&admin, &group_hosts), ["web2"]);
    let stream = admin.get_json("/api/v2/activity_stream/?object1=group&operation=disassociate");
    assert_eq!(stream["count"], 1, "{stream}");
    // web1 and web2 into web, web and canary under groups; db1 from the host's side.
    let associated = admin.get_json("/api/v2/activity_stream/?object1=group&operation=associate");
    assert_eq!(associated["count"], 4, "{associated}");
    let associated = admin.get_json("/api/v2/activity_stream/?object1=host&operation=associate");
    assert_eq!(associated["count"], 1, "{associated}");

    // Deleting a group leaves its hosts and children in the inventory.
    admin
        .delete(&format!("/api/v2/groups/{web}/"))
        .call()
        .expect(204);
    assert_eq!(admin.get_json(&hosts)["count"], 3);
    assert_eq!(names_at(&admin, &children), Vec::<String>::new());
    assert_eq!(
        admin.get_json(&format!("/api/v2/groups/{canary}/"))["name"],
        "canary"
    );
}

fn only_who_may_change_the_inventory_changes_its_groups(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let acme = server.create_organization("Acme");
    let rival = server.create_organization("Rival");
    let boss = server.create_user("boss", "Boss-pass-1", false);
    server.add_admin(acme, boss);
    let mallory = server.create_user("mallory", "Mallory-pass-1", false);
    server.add_admin(rival, mallory);
    let viewer = server.create_user("viewer", "Viewer-pass-1", false);
    let inventory = create(
        &admin,
        "/api/v2/inventories/",
        json!({"name": "prod", "organization": acme}),
    );
    let host = create(
        &admin,
        &format!("/api/v2/inventories/{inventory}/hosts/"),
        json!({"name": "web1"}),
    );
    let group = create(
        &admin,
        "/api/v2/groups/",
        json!({"name": "web", "inventory": inventory}),
    );
    let theirs = create(
        &admin,
        "/api/v2/inventories/",
        json!({"name": "theirs", "organization": rival}),
    );
    let their_group = create(
        &admin,
        "/api/v2/groups/",
        json!({"name": "web", "inventory": theirs}),
    );
    let group_hosts = format!("/api/v2/groups/{group}/hosts/");

    // Another organization's admin neither sees nor changes the group.
    let mallory = server.as_user("mallory", "Mallory-pass-1");
    mallory
        .get(&format!("/api/v2/groups/{group}/"))
        .call()
        .expect(403);
    mallory.get(&group_hosts).call().expect(403);
    associate(&mallory, &group_hosts, host).expect(403);
    assert_eq!(mallory.get_json("/api/v2/groups/")["count"], 1);
    // Nor puts one of her groups over it, nor learns it exists.
    let probe = associate(
        &mallory,
        &format!("/api/v2/groups/{their_group}/children/"),
        group,
    )
    .expect(400);
    assert!(probe.body.contains("does not exist"), "{}", probe.body);
    mallory
        .post("/api/v2/groups/")
        .json(&json!({"name": "mine", "inventory": inventory}))
        .call()
        .expect(403);

    // Who may only read the inventory reads its groups' members but does not change them.
    let read_role = admin.get_json(&format!("/api/v2/inventories/{inventory}/"))["summary_fields"]
        ["object_roles"]["read_role"]["id"]
        .as_i64()
        .expect("the inventory's read role");
    associate(&admin, &format!("/api/v2/roles/{read_role}/users/"), viewer).expect(204);
    let viewer = server.as_user("viewer", "Viewer-pass-1");
    assert_eq!(viewer.get_json(&group_hosts)["count"], 0);
    associate(&viewer, &group_hosts, host).expect(403);
    viewer
        .post(&group_hosts)
        .json(&json!({"name": "sneaky"}))
        .call()
        .expect(403);

    // The organization's admin does.
    let boss = server.as_user("boss", "Boss-pass-1");
    associate(&boss, &group_hosts, host).expect(204);
    assert_eq!(names_at(&boss, &group_hosts), ["web1"]);
    assert_eq!(admin.get_json(&group_hosts)["count"], 1);
}

fn a_copied_inventory_keeps_its_groups_and_memberships(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let organization = server.create_organization("Acme");
    let inventory = create(
        &admin,
        "/api/v2/inventories/",
        json!({"name": "prod", "organization": organization}),
    );
    let host = create(
        &admin,
        &format!("/api/v2/inventories/{inventory}/hosts/"),
        json!({"name": "web1"}),
    );
    let parent = create(
        &admin,
        "/api/v2/groups/",
        json!({"name": "prod", "inventory": inventory, "variables": "env: prod"}),
    );
    let child = create(
        &admin,
        &format!("/api/v2/groups/{parent}/children/"),
        json!({"name": "web"}),
    );
    associate(&admin, &format!("/api/v2/groups/{child}/hosts/"), host).expect(204);
    let copy = admin
        .post(&format!("/api/v2/inventories/{inventory}/copy/"))
        .json(&json!({"name": "prod (copy)"}))
        .call()
        .expect(201)
        .json();
    let copy = id_of(&copy);
    let groups = admin.get_json(&format!("/api/v2/inventories/{copy}/groups/?order_by=name"));
    assert_eq!(groups["count"], 2, "{groups}");
    let copied = |name: &str| -> Value {
        groups["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|group| group["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no copied group {name}: {groups}"))
    };
    assert_eq!(copied("prod")["variables"], "env: prod");
    let (copied_parent, copied_child) = (id_of(&copied("prod")), id_of(&copied("web")));
    assert_ne!(copied_parent, parent);
    assert_eq!(
        names_at(&admin, &format!("/api/v2/groups/{copied_parent}/children/")),
        ["web"]
    );
    let members = admin.get_json(&format!("/api/v2/groups/{copied_child}/hosts/"));
    assert_eq!(members["count"], 1);
    assert_eq!(members["results"][0]["inventory"], copy);
    // The original's memberships are its own still.
    assert_eq!(
        admin.get_json(&format!("/api/v2/groups/{child}/hosts/"))["results"][0]["id"],
        host
    );
}

fn a_run_sees_the_groups_their_variables_and_only_enabled_hosts(backend: Backend) {
    let fixture = AutomationServer::start(backend, &[]);
    let admin = fixture.server.admin();
    let report = fixture.report_path("report.json");
    fixture.project_file("site", "site.yml", REPORTING_PLAYBOOK);
    let organization = fixture.server.create_organization("automation");
    let project = fixture.create_project(&admin, organization, "site");
    let inventory = fixture.create_local_inventory(&admin, organization);
    let localhost = admin.get_json(&format!("/api/v2/inventories/{inventory}/hosts/"))["results"]
        [0]["id"]
        .as_i64()
        .expect("localhost");
    // Sorted before localhost, so the reporting task (run once, on the first host) would
    // run on it if it were in the run; it cannot be reached.
    create(
        &admin,
        &format!("/api/v2/inventories/{inventory}/hosts/"),
        json!({"name": "ghost", "enabled": false, "variables": "ansible_host: 192.0.2.1"}),
    );
    let prod = create(
        &admin,
        "/api/v2/groups/",
        json!({"name": "prod", "inventory": inventory,
               "variables": "env: prod\nshared: from-prod\n"}),
    );
    let web = create(
        &admin,
        &format!("/api/v2/groups/{prod}/children/"),
        json!({"name": "web", "variables": {"tier": "web", "shared": "from-web"}}),
    );
    associate(&admin, &format!("/api/v2/groups/{web}/hosts/"), localhost).expect(204);
    let extra_vars = json!({
        "report_path": report.display().to_string(),
        "report_vars": ["env", "tier", "shared", "group_names"],
    });
    let template = create(
        &admin,
        "/api/v2/job_templates/",
        json!({"name": "report", "project": project, "inventory": inventory,
               "playbook": "site.yml", "extra_vars": extra_vars.to_string()}),
    );
    let job = acs_tests::ansible::launch(&admin, template);
    let finished = wait_for_run(&admin, &job);
    assert_eq!(
        finished["status"],
        "successful",
        "{finished}\n{}",
        acs_tests::ansible::run_stdout(&admin, &finished)
    );
    let report = read_report(&report);
    assert_eq!(
        report["vars"],
        json!({"env": "prod", "tier": "web", "shared": "from-web",
               "group_names": ["prod", "web"]}),
        "{report}"
    );
}

backend_tests!(
    groups_hold_hosts_and_child_groups_within_their_inventory,
    only_who_may_change_the_inventory_changes_its_groups,
    a_copied_inventory_keeps_its_groups_and_memberships,
    a_run_sees_the_groups_their_variables_and_only_enabled_hosts,
);

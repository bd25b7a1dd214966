//! Teams as a resource: made, renamed and deleted by their organization's admins (never
//! moved to another organization), seen by the organization's members, their names unique
//! within an organization; and their three roles, which make a user a team's member or
//! admin. Each refusal next to the request that succeeds.

use acs_tests::ansible::{AutomationServer, PING_PLAYBOOK, launch, wait_for_run};
use acs_tests::{Agent, Backend, Call, TestServer, backend_tests, id_of};
use serde_json::{Value, json};

backend_tests!(
    organization_admins_make_rename_and_delete_their_teams,
    members_see_their_organizations_teams_and_team_admins_manage_them,
    team_members_run_what_the_team_may_and_lose_it_on_leaving,
    team_grants_are_refused_by_rule_and_by_who_asks,
    what_a_team_holds_shows_in_lists_and_access_lists,
);

/// Two organizations; olga administers A, mark is a member of A, nina of B.
struct Fixture {
    server: TestServer,
    a: i64,
    b: i64,
    olga: Agent,
    mark_id: i64,
    mark: Agent,
    nina: Agent,
}

fn fixture(backend: Backend) -> Fixture {
    let server = TestServer::start(backend);
    let a = server.create_organization("A");
    let b = server.create_organization("B");
    let olga_id = server.create_user("olga", "Olga-pass-1", false);
    server.add_admin(a, olga_id);
    let mark_id = server.create_user("mark", "Mark-pass-1", false);
    server.add_member(a, mark_id);
    let nina_id = server.create_user("nina", "Nina-pass-1", false);
    server.add_member(b, nina_id);
    Fixture {
        olga: server.as_user("olga", "Olga-pass-1"),
        mark: server.as_user("mark", "Mark-pass-1"),
        nina: server.as_user("nina", "Nina-pass-1"),
        server,
        a,
        b,
        mark_id,
    }
}

fn create_team(agent: &Agent, organization: i64, name: &str) -> Value {
    agent
        .post("/api/v2/teams/")
        .json(&json!({ "name": name, "organization": organization }))
        .call()
        .expect(201)
        .json()
}

fn names(page: &Value) -> Vec<String> {
    page["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|team| team["name"].as_str().expect("name").to_owned())
        .collect()
}

/// The id of role `field` in a record's `summary_fields.object_roles`.
fn role_id(record: &Value, field: &str) -> i64 {
    record["summary_fields"]["object_roles"][field]["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("no {field} in {record}"))
}

fn organization_admins_make_rename_and_delete_their_teams(backend: Backend) {
    let Fixture {
        server,
        a,
        b,
        olga,
        mark,
        ..
    } = fixture(backend);
    let team = create_team(&olga, a, "ops");
    assert_eq!(team["type"], "team", "{team}");
    assert_eq!(team["organization"], a, "{team}");
    assert_eq!(team["description"], "", "{team}");
    let roles: Vec<&String> = team["summary_fields"]["object_roles"]
        .as_object()
        .expect("object_roles")
        .keys()
        .collect();
    assert_eq!(roles, ["admin_role", "member_role", "read_role"], "{team}");
    assert_eq!(
        team["summary_fields"]["user_capabilities"],
        json!({ "edit": true, "delete": true })
    );
    let id = id_of(&team);
    let path = format!("/api/v2/teams/{id}/");
    assert_eq!(team["related"]["users"], format!("{path}users/"), "{team}");
    assert_eq!(team["related"]["roles"], format!("{path}roles/"), "{team}");

    // A name is unique within its organization, not across them.
    let taken = olga
        .post("/api/v2/teams/")
        .json(&json!({ "name": "ops", "organization": a }))
        .call()
        .expect(400);
    assert_eq!(
        taken.field_errors("__all__"),
        ["Team with this Organization and Name already exists."]
    );
    create_team(&server.admin(), b, "ops");
    // Nobody makes teams in an organization they do not administer.
    for (agent, organization) in [(&mark, a), (&olga, b)] {
        agent
            .post("/api/v2/teams/")
            .json(&json!({ "name": "mine", "organization": organization }))
            .call()
            .expect(403);
    }
    olga.post("/api/v2/teams/")
        .json(&json!({ "name": "nowhere" }))
        .call()
        .expect(400);

    // Renamed, never moved.
    let moved = olga
        .patch(&path)
        .json(&json!({ "organization": b }))
        .call()
        .expect(403);
    assert_eq!(moved.detail(), "Unable to change organization on a team.");
    let renamed = olga
        .patch(&path)
        .json(&json!({ "name": "operations", "organization": a }))
        .call()
        .expect(200)
        .json();
    assert_eq!(renamed["name"], "operations");
    mark.patch(&path)
        .json(&json!({ "name": "mine" }))
        .call()
        .expect(403);
    let found = olga.get_json(&format!("/api/v2/teams/?name=operations&organization={a}"));
    assert_eq!(found["count"], 1, "{found}");
    let activity = olga.get_json(&format!("{path}activity_stream/"));
    assert!(
        activity["count"].as_i64().is_some_and(|count| count >= 2),
        "created and renamed: {activity}"
    );

    mark.delete(&path).call().expect(403);
    olga.delete(&path).call().expect(204);
    olga.get(&path).call().expect(404);
    // Its roles went with it.
    let left = server.query_i64(&format!(
        "SELECT COUNT(*) FROM roles WHERE kind = 'team' AND object_id = {id}"
    ));
    assert_eq!(left, 0);
}

fn members_see_their_organizations_teams_and_team_admins_manage_them(backend: Backend) {
    let Fixture {
        server,
        a,
        b,
        olga,
        mark_id,
        mark,
        nina,
    } = fixture(backend);
    let ops = create_team(&olga, a, "ops");
    create_team(&server.admin(), b, "builders");
    assert_eq!(names(&mark.get_json("/api/v2/teams/")), ["ops"]);
    assert_eq!(names(&nina.get_json("/api/v2/teams/")), ["builders"]);
    let path = format!("/api/v2/teams/{}/", id_of(&ops));
    nina.get(&path).call().expect(403);
    let record = mark.get_json(&path);
    assert_eq!(
        record["summary_fields"]["user_capabilities"]["edit"], false,
        "{record}"
    );

    // Nobody grants themself a team's roles; the organization's admin does.
    let admin_role = format!("/api/v2/roles/{}/users/", role_id(&ops, "admin_role"));
    mark.post(&admin_role)
        .json(&json!({ "id": mark_id }))
        .call()
        .expect(403);
    olga.post(&admin_role)
        .json(&json!({ "id": mark_id }))
        .call()
        .expect(204);
    // As the team's admin, mark renames it, and sees he is on its access list.
    mark.patch(&path)
        .json(&json!({ "description": "on call" }))
        .call()
        .expect(200);
    let access = mark.get_json(&format!("{path}access_list/"));
    let listed: Vec<&str> = access["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|user| user["username"].as_str())
        .collect();
    assert!(listed.contains(&"mark"), "{access}");
    let object_roles = mark.get_json(&format!("{path}object_roles/"));
    assert_eq!(object_roles["count"], 3, "{object_roles}");
    // Revoked, he may not.
    olga.post(&admin_role)
        .json(&json!({ "id": mark_id, "disassociate": true }))
        .call()
        .expect(204);
    mark.patch(&path)
        .json(&json!({ "description": "mine" }))
        .call()
        .expect(403);
}

fn ids(page: &Value) -> Vec<i64> {
    page["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(id_of)
        .collect()
}

fn team_members_run_what_the_team_may_and_lose_it_on_leaving(backend: Backend) {
    let automation = AutomationServer::start(backend, &[]);
    let server = &automation.server;
    let admin = server.admin();
    let ops = server.create_organization("Ops");
    let olga_id = server.create_user("olga", "Olga-pass-1", false);
    server.add_admin(ops, olga_id);
    let olga = server.as_user("olga", "Olga-pass-1");
    let mark_id = server.create_user("mark", "Mark-pass-1", false);
    let mark = server.as_user("mark", "Mark-pass-1");
    automation.project_file("ping", "site.yml", PING_PLAYBOOK);
    let project = automation.create_project(&admin, ops, "ping");
    let inventory = automation.create_local_inventory(&admin, ops);
    let template = admin
        .post("/api/v2/job_templates/")
        .json(&json!({
            "name": "deploy", "project": project, "inventory": inventory,
            "playbook": "site.yml",
        }))
        .call()
        .expect(201)
        .json();
    let deploy = id_of(&template);
    let execute = role_id(&template, "execute_role");
    let team = create_team(&olga, ops, "on-call");
    let team_id = id_of(&team);
    let team_path = format!("/api/v2/teams/{team_id}/");

    // The team may run the template; mark, not yet in it, may not.
    let granted = olga
        .post(&format!("{team_path}roles/"))
        .json(&json!({ "id": execute }))
        .call();
    assert_eq!(granted.status, 204, "{}", granted.body);
    assert!(
        granted
            .header("warning")
            .is_some_and(|w| w.starts_with("299 awx"))
    );
    assert_eq!(
        ids(&olga.get_json(&format!("{team_path}roles/"))),
        [execute]
    );
    assert_eq!(
        ids(&olga.get_json(&format!("/api/v2/roles/{execute}/teams/"))),
        [team_id]
    );
    mark.post(&format!("/api/v2/job_templates/{deploy}/launch/"))
        .json(&json!({}))
        .call()
        .expect(403);

    olga.post(&format!("{team_path}users/"))
        .json(&json!({ "id": mark_id }))
        .call()
        .expect(204);
    assert_eq!(
        olga.get_json(&format!("{team_path}users/"))["results"][0]["username"],
        "mark"
    );
    let job = wait_for_run(&mark, &launch(&mark, deploy));
    assert_eq!(job["status"], "successful", "{job}");
    assert_eq!(ids(&mark.get_json("/api/v2/job_templates/")), [deploy]);
    // Execute, and nothing more.
    mark.patch(&format!("/api/v2/job_templates/{deploy}/"))
        .json(&json!({ "name": "mine" }))
        .call()
        .expect(403);

    // Out of the team, out of its roles, at once.
    olga.post(&format!("{team_path}users/"))
        .json(&json!({ "id": mark_id, "disassociate": true }))
        .call()
        .expect(204);
    mark.post(&format!("/api/v2/job_templates/{deploy}/launch/"))
        .json(&json!({}))
        .call()
        .expect(403);
    assert_eq!(
        ids(&mark.get_json("/api/v2/job_templates/")),
        Vec::<i64>::new()
    );

    // Back in, then the role revoked from the team through the role's teams.
    olga.post(&format!("{team_path}users/"))
        .json(&json!({ "id": mark_id }))
        .call()
        .expect(204);
    mark.get(&format!("/api/v2/job_templates/{deploy}/"))
        .call()
        .expect(200);
    olga.post(&format!("/api/v2/roles/{execute}/teams/"))
        .json(&json!({ "id": team_id, "disassociate": true }))
        .call()
        .expect(204);
    mark.get(&format!("/api/v2/job_templates/{deploy}/"))
        .call()
        .expect(403);
    let entries = admin.get_json("/api/v2/activity_stream/?operation=disassociate&order_by=-id");
    let entry = &entries["results"][0];
    assert_eq!(entry["changes"]["role"], "execute_role", "{entry}");
}

fn team_grants_are_refused_by_rule_and_by_who_asks(backend: Backend) {
    let Fixture {
        server,
        a,
        b,
        olga,
        mark_id,
        mark,
        ..
    } = fixture(backend);
    let admin = server.admin();
    let team = create_team(&olga, a, "ops");
    let team_id = id_of(&team);
    let team_roles = format!("/api/v2/teams/{team_id}/roles/");
    let organization = admin.get_json(&format!("/api/v2/organizations/{a}/"));
    let ssh = server.managed_type_id("ssh");
    let credential = |organization: i64| -> Value {
        admin
            .post("/api/v2/credentials/")
            .json(&json!({
                "name": format!("key of {organization}"), "organization": organization,
                "credential_type": ssh, "inputs": {"username": "deploy"},
            }))
            .call()
            .expect(201)
            .json()
    };
    let ours = credential(a);
    let theirs = credential(b);
    let system_auditor = server.query_i64("SELECT id FROM roles WHERE field = 'system_auditor'");

    // Refused whoever asks, superusers included.
    let refusals = [
        (
            role_id(&organization, "member_role"),
            "You cannot assign an Organization participation role as a child role for a Team.",
        ),
        (
            role_id(&organization, "admin_role"),
            "You cannot assign an Organization participation role as a child role for a Team.",
        ),
        (
            system_auditor,
            "You cannot grant system-level permissions to a team.",
        ),
        (
            role_id(&theirs, "use_role"),
            "You cannot grant credential access to a team when the Organization field isn't \
             set, or belongs to a different organization",
        ),
    ];
    for (role, message) in refusals {
        let reply = admin.post(&team_roles).json(&json!({ "id": role })).call();
        assert_eq!(reply.status, 400, "{}", reply.body);
        assert_eq!(reply.json(), json!({ "msg": message }));
    }
    let reply = admin
        .post(&format!(
            "/api/v2/roles/{}/teams/",
            role_id(&theirs, "use_role")
        ))
        .json(&json!({ "id": team_id }))
        .call();
    assert_eq!(reply.status, 400, "{}", reply.body);
    let reply = admin
        .post(&team_roles)
        .json(&json!({ "id": 999_999 }))
        .call();
    assert_eq!(reply.status, 400, "{}", reply.body);
    assert_eq!(reply.detail(), "Role matching query does not exist.");
    // The credential of the team's own organization, and an organization-wide role, go.
    olga.post(&team_roles)
        .json(&json!({ "id": role_id(&ours, "use_role") }))
        .call()
        .expect(204);
    olga.post(&team_roles)
        .json(&json!({ "id": role_id(&organization, "inventory_admin_role") }))
        .call()
        .expect(204);

    // A plain member adds nobody, himself included; a read token grants nothing.
    let members = format!("/api/v2/teams/{team_id}/users/");
    mark.post(&members)
        .json(&json!({ "id": mark_id }))
        .call()
        .expect(403);
    let read_token = olga.personal_token("read");
    olga.with_bearer(&read_token)
        .post(&members)
        .json(&json!({ "id": mark_id }))
        .call()
        .expect(403);
    // The team's admin adds members, and grants the team nothing she does not administer.
    let tess_id = server.create_user("tess", "Tess-pass-1", false);
    server.add_member(a, tess_id);
    let tess = server.as_user("tess", "Tess-pass-1");
    olga.post(&format!(
        "/api/v2/roles/{}/users/",
        role_id(&team, "admin_role")
    ))
    .json(&json!({ "id": tess_id }))
    .call()
    .expect(204);
    tess.post(&members)
        .json(&json!({ "id": mark_id }))
        .call()
        .expect(204);
    tess.post(&team_roles)
        .json(&json!({ "id": role_id(&organization, "execute_role") }))
        .call()
        .expect(403);
    // Through the team, mark now administers the organization's inventories: he makes one.
    mark.post("/api/v2/inventories/")
        .json(&json!({ "name": "edge", "organization": a }))
        .call()
        .expect(201);
    // The team deleted, what it held is gone with it.
    olga.delete(&format!("/api/v2/teams/{team_id}/"))
        .call()
        .expect(204);
    mark.post("/api/v2/inventories/")
        .json(&json!({ "name": "core", "organization": a }))
        .call()
        .expect(403);
    let left = server.query_i64(&format!(
        "SELECT COUNT(*) FROM team_roles WHERE team_id = {team_id}"
    ));
    assert_eq!(left, 0);
}

fn what_a_team_holds_shows_in_lists_and_access_lists(backend: Backend) {
    let Fixture {
        server,
        a,
        olga,
        mark_id,
        mark,
        nina,
        ..
    } = fixture(backend);
    let admin = server.admin();
    let team = create_team(&olga, a, "ops");
    let team_id = id_of(&team);
    let team_path = format!("/api/v2/teams/{team_id}/");
    // Made under the organization, a team is the organization's.
    let second = olga
        .post(&format!("/api/v2/organizations/{a}/teams/"))
        .json(&json!({ "name": "second" }))
        .call()
        .expect(201)
        .json();
    assert_eq!(second["organization"], a, "{second}");
    assert_eq!(
        names(&olga.get_json(&format!("/api/v2/organizations/{a}/teams/"))),
        ["ops", "second"]
    );
    nina.get(&format!("/api/v2/organizations/{a}/teams/"))
        .call()
        .expect(403);

    let scratch = tempfile::tempdir().expect("a scratch directory");
    std::fs::create_dir_all(scratch.path().join("site")).expect("a project directory");
    admin
        .patch("/api/v2/settings/jobs/")
        .json(&json!({ "PROJECTS_ROOT": scratch.path() }))
        .call()
        .expect(200);
    let project = admin
        .post("/api/v2/projects/")
        .json(&json!({ "name": "site", "organization": a, "local_path": "site" }))
        .call()
        .expect(201)
        .json();
    let inventory = admin
        .post("/api/v2/inventories/")
        .json(&json!({ "name": "edge", "organization": a }))
        .call()
        .expect(201)
        .json();
    let credential = admin
        .post("/api/v2/credentials/")
        .json(&json!({
            "name": "key", "organization": a,
            "credential_type": server.managed_type_id("ssh"), "inputs": {"username": "deploy"},
        }))
        .call()
        .expect(201)
        .json();
    for role in [
        role_id(&project, "use_role"),
        role_id(&inventory, "read_role"),
        role_id(&credential, "admin_role"),
    ] {
        olga.post(&format!("{team_path}roles/"))
            .json(&json!({ "id": role }))
            .call()
            .expect(204);
    }
    olga.post(&format!("{team_path}users/"))
        .json(&json!({ "id": mark_id }))
        .call()
        .expect(204);

    assert_eq!(
        names(&mark.get_json(&format!("/api/v2/users/{mark_id}/teams/"))),
        ["ops"]
    );
    assert_eq!(
        ids(&olga.get_json(&format!("{team_path}projects/"))),
        [id_of(&project)]
    );
    assert_eq!(
        ids(&olga.get_json(&format!("{team_path}credentials/"))),
        [id_of(&credential)]
    );
    assert_eq!(
        names(&olga.get_json(&format!(
            "/api/v2/credentials/{}/owner_teams/",
            id_of(&credential)
        ))),
        ["ops"]
    );

    // The inventory's access list names the team mark reads it through.
    let access = olga.get_json(&format!(
        "/api/v2/inventories/{}/access_list/",
        id_of(&inventory)
    ));
    let entry = access["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|user| user["username"] == "mark")
        .unwrap_or_else(|| panic!("mark is not listed: {access}"));
    let direct = &entry["summary_fields"]["direct_access"];
    let through_team = direct
        .as_array()
        .expect("direct_access")
        .iter()
        .find(|element| element["role"]["team_id"] == team_id)
        .unwrap_or_else(|| panic!("no entry through the team: {entry}"));
    assert_eq!(through_team["role"]["team_name"], "ops", "{through_team}");
    assert_eq!(
        through_team["role"]["team_organization_name"], "A",
        "{through_team}"
    );
    assert_eq!(through_team["descendant_roles"], json!(["read_role"]));
    assert_eq!(through_team["role"]["user_capabilities"]["unattach"], true);
}

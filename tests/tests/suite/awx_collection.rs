//! The reference controller's own Ansible collection, `awx.awx` 24.6.1, run by the real
//! `ansible-playbook` against a live server: its `settings` module reads
//! `GET /api/v2/settings/all/`, compares, and sends `PATCH /api/v2/settings/all/`, after
//! getting a token with `POST /api/v2/tokens/` (HTTP Basic) and deleting it at the end.

use acs_tests::awx_collection::run_playbook;
use acs_tests::{Backend, Call, TestServer, backend_tests};
use serde_json::{Value, json};

backend_tests!(
    settings_module_sets_settings_idempotently,
    role_module_grants_and_revokes_idempotently,
    team_and_role_modules_manage_teams_and_their_roles,
    credential_module_copies_and_finds_by_id,
    job_launch_module_gives_the_prompted_values,
    inventory_host_and_group_modules_build_an_inventory_idempotently,
    organization_user_and_host_modules_by_name_and_by_id,
);

/// (a) one setting by `name`/`value`, (b) several with `settings:`, (c) the same again, which
/// must change nothing, (d) an invalid value; then every registered result is written to
/// `report_path` as JSON.
const PLAYBOOK: &str = r#"- hosts: localhost
  connection: local
  gather_facts: false
  vars:
    ansible_python_interpreter: "{{ ansible_playbook_python }}"
  module_defaults:
    awx.awx.settings:
      controller_host: "{{ controller_host }}"
      controller_username: "{{ controller_username }}"
      controller_password: "{{ controller_password }}"
      validate_certs: false
  tasks:
    - name: One setting by name and value
      awx.awx.settings:
        name: SESSION_COOKIE_AGE
        value: "900"
      register: by_name

    - name: Several settings at once
      awx.awx.settings:
        settings: "{{ several }}"
      register: several_first

    - name: The same settings again
      awx.awx.settings:
        settings: "{{ several }}"
      register: several_again

    - name: An invalid value
      awx.awx.settings:
        name: SESSION_COOKIE_AGE
        value: "30"
      register: invalid
      ignore_errors: true

    - name: Report the results
      ansible.builtin.copy:
        dest: "{{ report_path }}"
        content: >-
          {{ {'by_name': by_name, 'several_first': several_first,
              'several_again': several_again, 'invalid': invalid} | to_json }}
"#;

/// Settings of three categories, with a list and a nested object: what GET returns for them
/// must compare equal to what was sent, or (c) would report a change.
fn several() -> Value {
    json!({
        "SESSIONS_PER_USER": 5,
        "CORS_ALLOWED_ORIGIN_REGEXES": ["^https://app\\.example$"],
        "DEFAULT_JOB_TIMEOUT": 3600,
        "AUTH_LDAP_USER_ATTR_MAP": { "first_name": "givenName", "email": "mail" },
        // The reference's names: one for a setting ACS names otherwise, one it has as is.
        "AWX_ISOLATION_SHOW_PATHS": ["/usr/share/zoneinfo"],
        "PROJECT_UPDATE_VVV": true,
    })
}

/// Runs `playbook` in `workdir` with `vars` and a `report_path` of its own, asserts it
/// succeeded, and returns the report it wrote with the run's log (for messages).
fn played(workdir: &std::path::Path, playbook: &str, mut vars: Value) -> (Value, String) {
    let report_path = workdir.join("report.json");
    vars["report_path"] = json!(report_path);
    let output = run_playbook(workdir, playbook, &vars);
    let log = format!(
        "ansible-playbook {}\n--- stdout\n{}\n--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{log}");
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(&report_path)
            .unwrap_or_else(|error| panic!("no report ({error}):\n{log}")),
    )
    .unwrap_or_else(|error| panic!("the report is not JSON ({error}):\n{log}"));
    (report, log)
}

fn settings_module_sets_settings_idempotently(backend: Backend) {
    let server = TestServer::start(backend);
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let (report, log) = played(
        scratch.path(),
        PLAYBOOK,
        json!({
            "controller_host": server.base,
            "controller_username": "admin",
            "controller_password": server.admin_password,
            "several": several(),
        }),
    );

    // No task warned (a token the module could not delete, say).
    for task in ["by_name", "several_first", "several_again", "invalid"] {
        let warnings = &report[task]["warnings"];
        assert!(
            warnings.is_null() || warnings == &json!([]),
            "{task} warned: {warnings}\n{log}"
        );
    }

    // (a) The value, given as text, reaches the server as the integer 900.
    let by_name = &report["by_name"];
    assert_eq!(by_name["changed"], true, "{by_name}");
    assert_eq!(by_name["value"], 900, "{by_name}");
    assert_eq!(
        by_name["old_values"],
        json!({ "SESSION_COOKIE_AGE": 1800 }),
        "{by_name}"
    );
    assert_eq!(
        by_name["new_values"],
        json!({ "SESSION_COOKIE_AGE": 900 }),
        "{by_name}"
    );

    // (b) Several at once, answered with the values stored.
    let first = &report["several_first"];
    assert_eq!(first["changed"], true, "{first}");
    assert_eq!(first["values"], several(), "{first}");
    assert_eq!(first["new_values"], several(), "{first}");

    // (c) GET /api/v2/settings/all/ returns what was sent: nothing to change.
    let again = &report["several_again"];
    assert_eq!(again["changed"], false, "{again}");
    assert_eq!(again["old_values"], json!({}), "{again}");
    assert_eq!(again["new_values"], json!({}), "{again}");

    // (d) The 400 reaches the task with the field's message.
    let invalid = &report["invalid"];
    assert_eq!(invalid["failed"], true, "{invalid}");
    assert_eq!(
        invalid["msg"], "Unable to update settings, see response",
        "{invalid}"
    );
    assert_eq!(invalid["response"]["status_code"], 400, "{invalid}");
    let reasons = &invalid["response"]["json"]["SESSION_COOKIE_AGE"];
    assert!(
        reasons[0]
            .as_str()
            .is_some_and(|reason| reason.contains("greater than or equal to 60")),
        "{invalid}"
    );

    // The API shows what the module set, each in its own category, and kept 900.
    let admin = server.admin();
    let authentication = admin.get_json("/api/v2/settings/authentication/");
    assert_eq!(
        authentication["SESSION_COOKIE_AGE"], 900,
        "{authentication}"
    );
    assert_eq!(authentication["SESSIONS_PER_USER"], 5, "{authentication}");
    assert_eq!(
        authentication["CORS_ALLOWED_ORIGIN_REGEXES"],
        json!(["^https://app\\.example$"]),
        "{authentication}"
    );
    let jobs = admin.get_json("/api/v2/settings/jobs/");
    assert_eq!(jobs["DEFAULT_JOB_TIMEOUT"], 3600, "{jobs}");
    assert_eq!(jobs["PROJECT_UPDATE_VVV"], true, "{jobs}");
    for name in ["AWX_ISOLATION_SHOW_PATHS", "JOB_ISOLATION_SHOW_PATHS"] {
        assert_eq!(jobs[name], json!(["/usr/share/zoneinfo"]), "{name}: {jobs}");
    }
    let ldap = admin.get_json("/api/v2/settings/ldap/");
    assert_eq!(
        ldap["AUTH_LDAP_USER_ATTR_MAP"],
        json!({ "first_name": "givenName", "email": "mail" }),
        "{ldap}"
    );

    // Each task got a token and deleted it at its end: none is left.
    let tokens = admin.get_json("/api/v2/tokens/");
    assert_eq!(tokens["count"], 0, "tokens left behind: {tokens}");
}

/// The `role` module granting `execute` on a template, `use` on a credential and `admin` on
/// a project, each idempotent on a second run; then revoking; and a role the project lacks,
/// refused with the project's role names in declaration order.
const ROLE_PLAYBOOK: &str = r#"- hosts: localhost
  connection: local
  gather_facts: false
  vars:
    ansible_python_interpreter: "{{ ansible_playbook_python }}"
  module_defaults:
    awx.awx.role:
      controller_host: "{{ controller_host }}"
      controller_username: "{{ controller_username }}"
      controller_password: "{{ controller_password }}"
      validate_certs: false
  tasks:
    - name: Execute on the template
      awx.awx.role: {user: alice, role: execute, job_templates: [deploy], state: present}
      register: execute_first
    - name: Execute on the template again
      awx.awx.role: {user: alice, role: execute, job_templates: [deploy], state: present}
      register: execute_again
    - name: Use on the credential
      awx.awx.role: {user: alice, role: use, credentials: [deploy key], state: present}
      register: use_first
    - name: Use on the credential again
      awx.awx.role: {user: alice, role: use, credentials: [deploy key], state: present}
      register: use_again
    - name: Admin on the project
      awx.awx.role: {user: alice, role: admin, projects: [roles project], state: present}
      register: admin_first
    - name: Admin on the project again
      awx.awx.role: {user: alice, role: admin, projects: [roles project], state: present}
      register: admin_again
    - name: Execute revoked
      awx.awx.role: {user: alice, role: execute, job_templates: [deploy], state: absent}
      register: execute_revoked
    - name: A role projects do not have
      awx.awx.role: {user: alice, role: adhoc, projects: [roles project], state: present}
      register: wrong_role
      ignore_errors: true
    - name: Report the results
      ansible.builtin.copy:
        dest: "{{ report_path }}"
        content: >-
          {{ {'execute_first': execute_first, 'execute_again': execute_again,
              'use_first': use_first, 'use_again': use_again,
              'admin_first': admin_first, 'admin_again': admin_again,
              'execute_revoked': execute_revoked, 'wrong_role': wrong_role} | to_json }}
"#;

fn role_module_grants_and_revokes_idempotently(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let organization = server.create_organization("Roles");
    let alice = server.create_user("alice", "Alice-pass-1", false);
    server.add_member(organization, alice);
    let scratch = tempfile::tempdir().expect("a scratch directory");
    // A project on a directory of its own, and a template with no inventory.
    let root = scratch.path().join("projects");
    std::fs::create_dir_all(root.join("roles")).expect("the project directory");
    std::fs::write(root.join("roles/site.yml"), "- hosts: all\n  tasks: []\n").expect("a playbook");
    admin
        .patch("/api/v2/settings/jobs/")
        .json(&json!({ "PROJECTS_ROOT": root }))
        .call()
        .expect(200);
    let project = acs_tests::id_of(
        &admin
            .post("/api/v2/projects/")
            .json(&json!({"name": "roles project", "organization": organization, "local_path": "roles"}))
            .call()
            .expect(201)
            .json(),
    );
    let template = acs_tests::id_of(
        &admin
            .post("/api/v2/job_templates/")
            .json(&json!({"name": "deploy", "project": project, "playbook": "site.yml"}))
            .call()
            .expect(201)
            .json(),
    );
    let credential = acs_tests::id_of(
        &admin
            .post("/api/v2/credentials/")
            .json(&json!({
                "name": "deploy key", "organization": organization,
                "credential_type": server.managed_type_id("ssh"),
                "inputs": {"username": "deploy"},
            }))
            .call()
            .expect(201)
            .json(),
    );
    let (report, log) = played(
        scratch.path(),
        ROLE_PLAYBOOK,
        json!({
            "controller_host": server.base,
            "controller_username": "admin",
            "controller_password": server.admin_password,
        }),
    );
    for (task, changed) in [
        ("execute_first", true),
        ("execute_again", false),
        ("use_first", true),
        ("use_again", false),
        ("admin_first", true),
        ("admin_again", false),
        ("execute_revoked", true),
    ] {
        assert_eq!(
            report[task]["changed"], changed,
            "{task}: {}\n{log}",
            report[task]
        );
    }
    let wrong = &report["wrong_role"];
    assert_eq!(wrong["failed"], true, "{wrong}");
    let message = wrong["msg"].as_str().unwrap_or_default();
    assert!(message.contains("has no role adhoc_role"), "{message}");
    assert!(
        message.contains("available roles: admin_role, use_role, update_role, read_role"),
        "{message}"
    );
    // What the module left: use on the credential and admin on the project (beside her
    // membership), not execute.
    let held = admin.get_json(&format!("/api/v2/users/{alice}/roles/"));
    let mut names: Vec<String> = held["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|role| {
            let summary = &role["summary_fields"];
            format!(
                "{} {} {}",
                summary["resource_type"].as_str().unwrap_or_default(),
                summary["resource_id"],
                role["name"].as_str().unwrap_or_default()
            )
        })
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            format!("credential {credential} Use"),
            format!("organization {organization} Member"),
            format!("project {project} Admin"),
        ],
        "{held}"
    );
    let on_template = admin.get_json(&format!("/api/v2/job_templates/{template}/"));
    let execute = &on_template["summary_fields"]["object_roles"]["execute_role"]["id"];
    assert_eq!(
        admin.get_json(&format!("/api/v2/roles/{execute}/users/"))["count"],
        0
    );
}

/// The `team` module (create, exists, rename, absent, each idempotent; a missing
/// organization refused) and the `role` module with `target_team` (a member, an admin) and
/// `team` (the team granted `execute` on a template, then revoked).
const TEAM_PLAYBOOK: &str = r#"- hosts: localhost
  connection: local
  gather_facts: false
  vars:
    ansible_python_interpreter: "{{ ansible_playbook_python }}"
  module_defaults:
    awx.awx.team: &controller
      controller_host: "{{ controller_host }}"
      controller_username: "{{ controller_username }}"
      controller_password: "{{ controller_password }}"
      validate_certs: false
    awx.awx.role: *controller
  tasks:
    - name: A team
      awx.awx.team: {name: on-call, organization: Ops, state: present}
      register: created
    - name: The team again
      awx.awx.team: {name: on-call, organization: Ops, state: present}
      register: created_again
    - name: The team exists
      awx.awx.team: {name: on-call, organization: Ops, state: exists}
      register: exists
    - name: Renamed
      awx.awx.team: {name: on-call, new_name: oncall, organization: Ops, description: pager}
      register: renamed
    - name: Alice joins it
      awx.awx.role: {user: alice, role: member, target_team: oncall, state: present}
      register: member_first
    - name: Alice joins it again
      awx.awx.role: {user: alice, role: member, target_team: oncall, state: present}
      register: member_again
    - name: Bob administers it
      awx.awx.role: {user: bob, role: admin, target_team: oncall, state: present}
      register: team_admin
    - name: The team may run the template
      awx.awx.role: {team: oncall, role: execute, job_templates: [deploy], state: present}
      register: execute_first
    - name: The team may run the template, again
      awx.awx.role: {team: oncall, role: execute, job_templates: [deploy], state: present}
      register: execute_again
    - name: Report the grants
      ansible.builtin.copy:
        dest: "{{ report_path }}"
        content: >-
          {{ {'created': created, 'created_again': created_again, 'exists': exists,
              'renamed': renamed, 'member_first': member_first, 'member_again': member_again,
              'team_admin': team_admin, 'execute_first': execute_first,
              'execute_again': execute_again} | to_json }}
"#;

/// The second half, after the first half's grants are checked on the server.
const TEAM_REMOVAL_PLAYBOOK: &str = r#"- hosts: localhost
  connection: local
  gather_facts: false
  vars:
    ansible_python_interpreter: "{{ ansible_playbook_python }}"
  module_defaults:
    awx.awx.team: &controller
      controller_host: "{{ controller_host }}"
      controller_username: "{{ controller_username }}"
      controller_password: "{{ controller_password }}"
      validate_certs: false
    awx.awx.role: *controller
  tasks:
    - name: The execute role revoked from the team
      awx.awx.role: {team: oncall, role: execute, job_templates: [deploy], state: absent}
      register: execute_revoked
    - name: A team of a missing organization
      awx.awx.team: {name: stray, organization: Nowhere, state: present}
      register: no_organization
      ignore_errors: true
    - name: Deleted
      awx.awx.team: {name: oncall, organization: Ops, state: absent}
      register: deleted
    - name: Deleted again
      awx.awx.team: {name: oncall, organization: Ops, state: absent}
      register: deleted_again
    - name: Exists makes it again
      awx.awx.team: {name: oncall, organization: Ops, state: exists}
      register: recreated
    - name: Report the removals
      ansible.builtin.copy:
        dest: "{{ report_path }}"
        content: >-
          {{ {'execute_revoked': execute_revoked, 'no_organization': no_organization,
              'deleted': deleted, 'deleted_again': deleted_again,
              'recreated': recreated} | to_json }}
"#;

fn team_and_role_modules_manage_teams_and_their_roles(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let organization = server.create_organization("Ops");
    let alice = server.create_user("alice", "Alice-pass-1", false);
    let bob = server.create_user("bob", "Bob-pass-1", false);
    server.add_member(organization, bob);
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let root = scratch.path().join("projects");
    std::fs::create_dir_all(root.join("ops")).expect("the project directory");
    std::fs::write(root.join("ops/site.yml"), "- hosts: all\n  tasks: []\n").expect("a playbook");
    admin
        .patch("/api/v2/settings/jobs/")
        .json(&json!({ "PROJECTS_ROOT": root }))
        .call()
        .expect(200);
    let project = acs_tests::id_of(
        &admin
            .post("/api/v2/projects/")
            .json(&json!({"name": "ops", "organization": organization, "local_path": "ops"}))
            .call()
            .expect(201)
            .json(),
    );
    let template = acs_tests::id_of(
        &admin
            .post("/api/v2/job_templates/")
            .json(&json!({"name": "deploy", "project": project, "playbook": "site.yml"}))
            .call()
            .expect(201)
            .json(),
    );
    let vars = json!({
        "controller_host": server.base,
        "controller_username": "admin",
        "controller_password": server.admin_password,
    });
    let (report, log) = played(scratch.path(), TEAM_PLAYBOOK, vars.clone());
    for (task, changed) in [
        ("created", true),
        ("created_again", false),
        ("exists", false),
        ("renamed", true),
        ("member_first", true),
        ("member_again", false),
        ("team_admin", true),
        ("execute_first", true),
        ("execute_again", false),
    ] {
        assert_eq!(
            report[task]["changed"], changed,
            "{task}: {}\n{log}",
            report[task]
        );
    }
    let team = report["created"]["id"].as_i64().expect("the team's id");
    assert_eq!(report["exists"]["id"], team, "{log}");
    let record = admin.get_json(&format!("/api/v2/teams/{team}/"));
    assert_eq!(
        (&record["name"], &record["description"]),
        (&json!("oncall"), &json!("pager")),
        "{record}"
    );
    let members = admin.get_json(&format!("/api/v2/teams/{team}/users/"));
    assert_eq!(acs_tests::usernames(&members), ["alice"], "{members}");
    let admins = record["summary_fields"]["object_roles"]["admin_role"]["id"].clone();
    let admins = admin.get_json(&format!("/api/v2/roles/{admins}/users/"));
    assert_eq!(acs_tests::usernames(&admins), ["bob"], "{admins}");
    // Alice, in the team, sees the template the team may run.
    let alice_agent = server.as_user("alice", "Alice-pass-1");
    alice_agent
        .get(&format!("/api/v2/job_templates/{template}/"))
        .call()
        .expect(200);
    let _ = alice;

    let (report, log) = played(scratch.path(), TEAM_REMOVAL_PLAYBOOK, vars);
    for (task, changed) in [
        ("execute_revoked", true),
        ("deleted", true),
        ("deleted_again", false),
        ("recreated", true),
    ] {
        assert_eq!(
            report[task]["changed"], changed,
            "{task}: {}\n{log}",
            report[task]
        );
    }
    let stray = &report["no_organization"];
    assert_eq!(stray["failed"], true, "{stray}");
    assert_eq!(stray["changed"], false, "{stray}");
    assert!(
        stray["msg"]
            .as_str()
            .unwrap_or_default()
            .contains("Nowhere"),
        "{stray}"
    );
    assert_eq!(stray["total_results"], 0, "{stray}");
    alice_agent
        .get(&format!("/api/v2/job_templates/{template}/"))
        .call()
        .expect(403);
}

/// The `credential` module's `copy_from` (a `POST` to the record's `related.copy`), then the
/// same credential again (no change), then looked up by id, which the module sends as
/// `?or__id=<id>&or__name=<id>`.
const CREDENTIAL_PLAYBOOK: &str = r#"- hosts: localhost
  connection: local
  gather_facts: false
  vars:
    ansible_python_interpreter: "{{ ansible_playbook_python }}"
  module_defaults:
    awx.awx.credential:
      controller_host: "{{ controller_host }}"
      controller_username: "{{ controller_username }}"
      controller_password: "{{ controller_password }}"
      validate_certs: false
  tasks:
    - name: Copy the credential
      awx.awx.credential:
        name: deploy key copy
        copy_from: deploy key
        organization: Copies
        credential_type: Machine
      register: copied
    - name: The copy again
      awx.awx.credential:
        name: deploy key copy
        copy_from: deploy key
        organization: Copies
        credential_type: Machine
      register: copied_again
    - name: The original, by id
      awx.awx.credential:
        name: "{{ original_id }}"
        organization: Copies
        credential_type: Machine
        description: found by id
      register: by_id
    - name: Report the results
      ansible.builtin.copy:
        dest: "{{ report_path }}"
        content: "{{ {'copied': copied, 'copied_again': copied_again, 'by_id': by_id} | to_json }}"
"#;

fn credential_module_copies_and_finds_by_id(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let organization = server.create_organization("Copies");
    let original = acs_tests::id_of(
        &admin
            .post("/api/v2/credentials/")
            .json(&json!({
                "name": "deploy key", "organization": organization,
                "credential_type": server.managed_type_id("ssh"),
                "inputs": {"username": "deploy", "password": "s3cret-deploy-pw"},
            }))
            .call()
            .expect(201)
            .json(),
    );
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let (report, log) = played(
        scratch.path(),
        CREDENTIAL_PLAYBOOK,
        json!({
            "controller_host": server.base,
            "controller_username": "admin",
            "controller_password": server.admin_password,
            "original_id": original.to_string(),
        }),
    );
    assert_eq!(report["copied"]["changed"], true, "{log}");
    assert_eq!(report["copied_again"]["changed"], false, "{log}");
    assert_eq!(report["by_id"]["changed"], true, "{log}");
    let copies = admin.get_json("/api/v2/credentials/?name=deploy%20key%20copy");
    assert_eq!(copies["count"], 1, "{copies}");
    let copy = &copies["results"][0];
    assert_eq!(copy["organization"], organization, "{copy}");
    assert_eq!(copy["inputs"]["password"], "$encrypted$", "{copy}");
    let original = admin.get_json(&format!("/api/v2/credentials/{original}/"));
    assert_eq!(original["description"], "found by id", "{original}");
    assert_eq!(original["name"], "deploy key", "{original}");
}

/// The `job_launch` module with the values its template prompts for (it refuses, before
/// sending anything, one the template does not prompt for, reading the template's
/// `ask_*_on_launch`).
const LAUNCH_PLAYBOOK: &str = r#"- hosts: localhost
  connection: local
  gather_facts: false
  vars:
    ansible_python_interpreter: "{{ ansible_playbook_python }}"
  module_defaults:
    awx.awx.job_launch:
      controller_host: "{{ controller_host }}"
      controller_username: "{{ controller_username }}"
      controller_password: "{{ controller_password }}"
      validate_certs: false
  tasks:
    - name: Launch with prompts
      awx.awx.job_launch:
        job_template: deploy
        organization: Launches
        inventory: second
        credentials: [other]
        limit: "db*"
        extra_vars: {b: 3}
      register: launched
    - name: A value the template does not prompt for
      awx.awx.job_launch:
        job_template: deploy
        organization: Launches
        job_type: check
      register: refused
      ignore_errors: true
    - name: Report the results
      ansible.builtin.copy:
        dest: "{{ report_path }}"
        content: "{{ {'launched': launched, 'refused': refused} | to_json }}"
"#;

fn job_launch_module_gives_the_prompted_values(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let organization = server.create_organization("Launches");
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let root = scratch.path().join("projects");
    std::fs::create_dir_all(root.join("site")).expect("the project directory");
    std::fs::write(root.join("site/site.yml"), "- hosts: all\n  tasks: []\n").expect("a playbook");
    admin
        .patch("/api/v2/settings/jobs/")
        .json(&json!({ "PROJECTS_ROOT": root }))
        .call()
        .expect(200);
    let created = |path: &str, body: Value| {
        acs_tests::id_of(&admin.post(path).json(&body).call().expect(201).json())
    };
    let project = created(
        "/api/v2/projects/",
        json!({"name": "site", "organization": organization, "local_path": "site"}),
    );
    let first = created(
        "/api/v2/inventories/",
        json!({"name": "first", "organization": organization}),
    );
    let second = created(
        "/api/v2/inventories/",
        json!({"name": "second", "organization": organization}),
    );
    let machine = server.managed_type_id("ssh");
    let usual = created(
        "/api/v2/credentials/",
        json!({"name": "usual", "organization": organization, "credential_type": machine, "inputs": {"username": "u"}}),
    );
    let other = created(
        "/api/v2/credentials/",
        json!({"name": "other", "organization": organization, "credential_type": machine, "inputs": {"username": "o"}}),
    );
    let template = created(
        "/api/v2/job_templates/",
        json!({
            "name": "deploy", "project": project, "inventory": first, "playbook": "site.yml",
            "extra_vars": "a: 1", "ask_limit_on_launch": true, "ask_inventory_on_launch": true,
            "ask_credential_on_launch": true, "ask_variables_on_launch": true,
        }),
    );
    admin
        .post(&format!("/api/v2/job_templates/{template}/credentials/"))
        .json(&json!({"id": usual}))
        .call()
        .expect(204);
    let (report, log) = played(
        scratch.path(),
        LAUNCH_PLAYBOOK,
        json!({
            "controller_host": server.base,
            "controller_username": "admin",
            "controller_password": server.admin_password,
        }),
    );
    let launched = &report["launched"];
    assert_eq!(launched["changed"], true, "{launched}\n{log}");
    let job = admin.get_json(&format!("/api/v2/jobs/{}/", launched["id"]));
    assert_eq!(job["inventory"], second, "{job}");
    assert_eq!(job["limit"], "db*", "{job}");
    assert_eq!(job["credentials"], json!([other]), "{job}");
    let variables: Value =
        serde_json::from_str(job["extra_vars"].as_str().expect("text")).expect("JSON");
    assert_eq!(variables, json!({"a": 1, "b": 3}), "{job}");
    let refused = &report["refused"];
    assert_eq!(refused["failed"], true, "{refused}");
    assert_eq!(
        refused["errors"],
        json!([
            "The field job_type was specified but the job template does not allow for it to be overridden"
        ]),
        "{refused}"
    );
}

/// The `inventory`, `host` and `group` modules building an inventory with nested groups
/// (hosts and children looked up by name within the inventory, then associated through the
/// group's `related.hosts` and `related.children`), the same again (no change), one group's
/// members replaced, and a group removed.
const INVENTORY_PLAYBOOK: &str = r#"- hosts: localhost
  connection: local
  gather_facts: false
  vars:
    ansible_python_interpreter: "{{ ansible_playbook_python }}"
    controller: &controller
      controller_host: "{{ controller_host }}"
      controller_username: "{{ controller_username }}"
      controller_password: "{{ controller_password }}"
      validate_certs: false
  module_defaults:
    awx.awx.inventory: *controller
    awx.awx.host: *controller
    awx.awx.group: *controller
  tasks:
    - name: Build it
      block:
        - awx.awx.inventory: {name: fleet, organization: Fleet}
        - awx.awx.host: {name: web1, inventory: fleet, variables: {port: 80}}
        - awx.awx.host: {name: web2, inventory: fleet, enabled: false}
        - awx.awx.host: {name: db1, inventory: fleet}
        - awx.awx.group: {name: web, inventory: fleet, hosts: [web1, web2], variables: {tier: web}}
        - awx.awx.group: {name: db, inventory: fleet, hosts: [db1]}
        - awx.awx.group: {name: prod, inventory: fleet, children: [web, db]}
    - name: The same again
      block:
        - awx.awx.host: {name: web1, inventory: fleet, variables: {port: 80}}
          register: host_again
        - awx.awx.group: {name: web, inventory: fleet, hosts: [web1, web2], variables: {tier: web}}
          register: group_again
        - awx.awx.group: {name: prod, inventory: fleet, children: [web, db]}
          register: children_again
    - awx.awx.group: {name: web, inventory: fleet, hosts: [web1]}
      register: replaced
    - awx.awx.group: {name: db, inventory: fleet, state: absent}
      register: removed
    - name: Report the results
      ansible.builtin.copy:
        dest: "{{ report_path }}"
        content: >-
          {{ {'host_again': host_again, 'group_again': group_again,
              'children_again': children_again, 'replaced': replaced,
              'removed': removed} | to_json }}
"#;

fn inventory_host_and_group_modules_build_an_inventory_idempotently(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    server.create_organization("Fleet");
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let (report, log) = played(
        scratch.path(),
        INVENTORY_PLAYBOOK,
        json!({
            "controller_host": server.base,
            "controller_username": "admin",
            "controller_password": server.admin_password,
        }),
    );
    for again in ["host_again", "group_again", "children_again"] {
        assert_eq!(
            report[again]["changed"], false,
            "{again}: {}\n{log}",
            report[again]
        );
    }
    assert_eq!(report["replaced"]["changed"], true, "{log}");
    assert_eq!(report["removed"]["changed"], true, "{log}");
    let group = |name: &str| -> Value {
        admin.get_json(&format!("/api/v2/groups/?name={name}"))["results"][0].clone()
    };
    let web = group("web");
    assert_eq!(web["variables"], r#"{"tier": "web"}"#, "{web}");
    let members = |path: String| -> Vec<String> {
        admin.get_json(&path)["results"]
            .as_array()
            .expect("results")
            .iter()
            .map(|item| item["name"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    assert_eq!(
        members(format!("/api/v2/groups/{}/hosts/", web["id"])),
        ["web1"]
    );
    let prod = group("prod");
    assert_eq!(
        members(format!("/api/v2/groups/{}/children/", prod["id"])),
        ["web"]
    );
    assert_eq!(admin.get_json("/api/v2/groups/?name=db")["count"], 0);
    let web2 = admin.get_json("/api/v2/hosts/?name=web2");
    assert_eq!(web2["results"][0]["enabled"], false, "{web2}");
}

/// The `organization` module setting the organization's `galaxy_credentials` in order (then
/// the same again: no change), and the `user` and `host` modules given an id where a name
/// goes (the collection looks every reference up by "id or name").
const BY_ID_PLAYBOOK: &str = r#"- hosts: localhost
  connection: local
  gather_facts: false
  vars:
    ansible_python_interpreter: "{{ ansible_playbook_python }}"
    controller: &controller
      controller_host: "{{ controller_host }}"
      controller_username: "{{ controller_username }}"
      controller_password: "{{ controller_password }}"
      validate_certs: false
  module_defaults:
    awx.awx.organization: *controller
    awx.awx.user: *controller
    awx.awx.host: *controller
  tasks:
    - awx.awx.organization: {name: Galaxy, galaxy_credentials: [second hub, first hub]}
      register: sources
    - awx.awx.organization: {name: Galaxy, galaxy_credentials: [second hub, first hub]}
      register: sources_again
    - awx.awx.user: {username: "{{ alice_id }}", email: alice@example.com}
      register: user_by_id
    - awx.awx.host: {name: "{{ host_id }}", inventory: "{{ inventory_id }}", description: by id}
      register: host_by_id
    - name: Report the results
      ansible.builtin.copy:
        dest: "{{ report_path }}"
        content: >-
          {{ {'sources': sources, 'sources_again': sources_again,
              'user_by_id': user_by_id, 'host_by_id': host_by_id} | to_json }}
"#;

fn organization_user_and_host_modules_by_name_and_by_id(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let organization = server.create_organization("Galaxy");
    let source = |name: &str| -> i64 {
        acs_tests::id_of(
            &admin
                .post("/api/v2/credentials/")
                .json(&json!({
                    "name": name, "organization": organization,
                    "credential_type": server.managed_type_id("content_source_token"),
                    "inputs": {"url": "https://hub.example.com/", "token": "tok"},
                }))
                .call()
                .expect(201)
                .json(),
        )
    };
    let (first, second) = (source("first hub"), source("second hub"));
    let alice = server.create_user("alice", "Alice-pass-1", false);
    let inventory = acs_tests::id_of(
        &admin
            .post("/api/v2/inventories/")
            .json(&json!({"name": "fleet", "organization": organization}))
            .call()
            .expect(201)
            .json(),
    );
    let host = acs_tests::id_of(
        &admin
            .post(&format!("/api/v2/inventories/{inventory}/hosts/"))
            .json(&json!({"name": "web1"}))
            .call()
            .expect(201)
            .json(),
    );
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let (report, log) = played(
        scratch.path(),
        BY_ID_PLAYBOOK,
        json!({
            "controller_host": server.base,
            "controller_username": "admin",
            "controller_password": server.admin_password,
            "alice_id": alice.to_string(),
            "host_id": host.to_string(),
            "inventory_id": inventory.to_string(),
        }),
    );
    assert_eq!(report["sources"]["changed"], true, "{log}");
    assert_eq!(report["sources_again"]["changed"], false, "{log}");
    let listed: Vec<i64> = admin.get_json(&format!(
        "/api/v2/organizations/{organization}/galaxy_credentials/"
    ))["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|credential| credential["id"].as_i64())
        .collect();
    assert_eq!(listed, [second, first], "{log}");
    assert_eq!(report["user_by_id"]["changed"], true, "{log}");
    let alice = admin.get_json(&format!("/api/v2/users/{alice}/"));
    assert_eq!(alice["email"], "alice@example.com", "{alice}");
    assert_eq!(alice["username"], "alice", "{alice}");
    assert_eq!(report["host_by_id"]["changed"], true, "{log}");
    let host = admin.get_json(&format!("/api/v2/hosts/{host}/"));
    assert_eq!(
        (host["name"].clone(), host["description"].clone()),
        (json!("web1"), json!("by id"))
    );
}

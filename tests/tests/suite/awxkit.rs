//! The reference CLI, awxkit 24.6.1's `awx`, against a running server (session login, OPTIONS
//! probes, lists and paging as in awxkit-client-contract §4.3). `ACS_AWX_BIN` names the `awx`
//! executable; scripts/test-all.sh installs it and sets the variable.

use std::path::PathBuf;
use std::process::Command;

use acs_tests::{Backend, Call, TestServer, backend_tests};
use serde_json::{Value, json};

backend_tests!(
    awx_users_create_modify_delete,
    awx_users_list_prints_json,
    awx_users_list_human_format,
    awx_users_list_all_follows_next,
    awx_me,
    awx_activity_stream_and_settings_list,
    awx_login_token_lists_users,
    awx_login_with_client_credentials_uses_the_password_grant,
    awx_credential_types_create_parses_json_documents,
    awx_credentials_create_masks_the_secret,
    awx_builds_and_launches_a_job_template,
    awx_users_grant_and_revoke_a_role,
    awx_teams_create_grant_and_revoke,
    awx_export_and_import_carry_a_configuration_to_another_controller,
);

fn awx_bin() -> PathBuf {
    let Some(path) = std::env::var_os("ACS_AWX_BIN").filter(|p| !p.is_empty()) else {
        panic!(
            "ACS_AWX_BIN is not set: these tests need awxkit 24.6.1's `awx` CLI. \
             Run scripts/test-all.sh (it installs awxkit into .venv and sets ACS_AWX_BIN), \
             or set ACS_AWX_BIN=<repo>/.venv/bin/awx after scripts/setup-test-env.sh"
        )
    };
    let path = PathBuf::from(path);
    assert!(
        path.is_file(),
        "ACS_AWX_BIN={} does not exist: run scripts/test-all.sh (or scripts/setup-test-env.sh) to install awxkit 24.6.1",
        path.display()
    );
    path
}

/// Runs `awx` as admin with `args` after the connection options; asserts exit 0 and returns
/// stdout.
fn awx(server: &TestServer, args: &[&str]) -> String {
    let credentials = [
        "--conf.username",
        "admin",
        "--conf.password",
        &server.admin_password,
    ];
    run_awx(server, &credentials, args)
}

/// Runs `awx` against `server` with the given credential options, then `args`.
fn run_awx(server: &TestServer, credentials: &[&str], args: &[&str]) -> String {
    run_awx_reading(server, credentials, args, None)
}

/// [`run_awx`], with `input` on its standard input.
fn run_awx_reading(
    server: &TestServer,
    credentials: &[&str],
    args: &[&str],
    input: Option<&str>,
) -> String {
    let mut command = Command::new(awx_bin());
    command
        .args(["--conf.host", &server.base, "--conf.color", "false"])
        .args(credentials)
        .args(args)
        .env("PYTHONWARNINGS", "ignore")
        .env_remove("CONTROLLER_HOST")
        .env_remove("CONTROLLER_USERNAME")
        .env_remove("CONTROLLER_PASSWORD")
        .env_remove("CONTROLLER_OAUTH_TOKEN")
        .env_remove("TOWER_HOST")
        .env_remove("TOWER_USERNAME")
        .env_remove("TOWER_PASSWORD")
        .env_remove("TOWER_OAUTH_TOKEN");
    let output = match input {
        None => command.output(),
        Some(input) => {
            use std::io::Write as _;
            let mut child = command
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap_or_else(|error| panic!("running awx failed: {error}"));
            let mut stdin = child.stdin.take().expect("awx's standard input");
            stdin
                .write_all(input.as_bytes())
                .expect("awx reads its input");
            drop(stdin);
            child.wait_with_output()
        }
    }
    .unwrap_or_else(|error| panic!("running awx failed: {error}"));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        output.status.success(),
        "awx {args:?} exited with {}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        output.status
    );
    stdout
}

fn awx_json(server: &TestServer, args: &[&str]) -> Value {
    let stdout = awx(server, args);
    serde_json::from_str(&stdout)
        .unwrap_or_else(|error| panic!("awx {args:?} printed no JSON ({error}):\n{stdout}"))
}

fn listed_usernames(output: &Value) -> Vec<String> {
    output["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results in {output}"))
        .iter()
        .filter_map(|user| user["username"].as_str().map(str::to_owned))
        .collect()
}

fn awx_users_list_prints_json(backend: Backend) {
    let server = TestServer::start(backend);
    let output = awx_json(&server, &["users", "list"]);
    assert_eq!(listed_usernames(&output), ["admin"], "{output}");
    assert_eq!(output["count"], 1, "{output}");
}

fn awx_users_list_human_format(backend: Backend) {
    let server = TestServer::start(backend);
    server.create_user("hopper", "pw-hopper", false);
    let stdout = awx(
        &server,
        &["-f", "human", "--conf.color", "false", "users", "list"],
    );
    assert!(stdout.contains("admin"), "{stdout}");
    assert!(stdout.contains("hopper"), "{stdout}");
    assert!(
        stdout.contains("username"),
        "the human table has a username column: {stdout}"
    );
}

fn awx_users_list_all_follows_next(backend: Backend) {
    let server = TestServer::start(backend);
    let mut expected: Vec<String> = (1..=30).map(|n| format!("cli{n:02}")).collect();
    for name in &expected {
        server.create_user(name, "pw-cli", false);
    }
    expected.push("admin".into());
    let output = awx_json(&server, &["users", "list", "--all"]);
    let mut listed = listed_usernames(&output);
    listed.sort();
    expected.sort();
    assert_eq!(listed, expected, "{output}");
}

fn awx_me(backend: Backend) {
    let server = TestServer::start(backend);
    let output = awx_json(&server, &["me"]);
    let text = output.to_string();
    assert!(text.contains("\"admin\""), "{output}");
    assert_eq!(listed_usernames(&output), ["admin"], "{output}");
}

fn awx_users_create_modify_delete(backend: Backend) {
    // awxkit offers `modify` and `delete` only when `OPTIONS /api/v2/users/1/` lists PUT and
    // DELETE in `Allow`.
    let server = TestServer::start(backend);
    let created = awx_json(
        &server,
        &[
            "users",
            "create",
            "--username",
            "clinew",
            "--password",
            "pw-clinew",
            "--first_name",
            "Cli",
        ],
    );
    let id = created["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("no id in {created}"));
    assert_eq!(created["username"], "clinew", "{created}");
    server
        .as_user("clinew", "pw-clinew")
        .get("/api/v2/me/")
        .call()
        .expect(200);

    let modified = awx_json(
        &server,
        &[
            "users",
            "modify",
            &id.to_string(),
            "--first_name",
            "Changed",
        ],
    );
    assert_eq!(modified["first_name"], "Changed", "{modified}");

    awx(&server, &["users", "delete", &id.to_string()]);
    server
        .admin()
        .get(&format!("/api/v2/users/{id}/"))
        .call()
        .expect(404);
}

fn awx_login_token_lists_users(backend: Backend) {
    // `awx login` creates a personal token with Basic credentials; `--conf.token` then sends
    // it as a bearer token and never logs in.
    let server = TestServer::start(backend);
    server.create_user("turing", "pw-turing", false);
    let login: Value = serde_json::from_str(&awx(&server, &["login"]))
        .unwrap_or_else(|error| panic!("awx login printed no JSON: {error}"));
    let token = login["token"]
        .as_str()
        .unwrap_or_else(|| panic!("no token in {login}"))
        .to_owned();
    let listed = run_awx(&server, &["--conf.token", &token], &["users", "list"]);
    let output: Value = serde_json::from_str(&listed)
        .unwrap_or_else(|error| panic!("users list printed no JSON ({error}): {listed}"));
    let mut names = listed_usernames(&output);
    names.sort();
    assert_eq!(names, ["admin", "turing"], "{output}");
    // The token is a personal token of admin, described as awxkit describes it.
    let tokens = server
        .admin()
        .get_json("/api/v2/users/admin/personal_tokens/");
    assert_eq!(tokens["count"], 1, "{tokens}");
    assert_eq!(tokens["results"][0]["description"], "AWX CLI");
    assert_eq!(tokens["results"][0]["scope"], "write");
}

fn awx_login_with_client_credentials_uses_the_password_grant(backend: Backend) {
    // With `--conf.client_id` (and a secret for a confidential client) `awx login` asks
    // `/api/o/token/` for a password grant instead of creating a personal token.
    let server = TestServer::start(backend);
    let org = server.create_organization("cli");
    let confidential = server.oauth_client(org, "awx-confidential", "password", "confidential");
    let public = server.oauth_client(org, "awx-public", "password", "public");
    let logins = [
        vec![
            "login",
            "--conf.client_id",
            confidential.client_id.as_str(),
            "--conf.client_secret",
            confidential.client_secret.as_str(),
            "--conf.scope",
            "read",
        ],
        vec!["login", "--conf.client_id", public.client_id.as_str()],
    ];
    for (args, client) in logins.iter().zip([&confidential, &public]) {
        let login: Value = serde_json::from_str(&awx(&server, args))
            .unwrap_or_else(|error| panic!("awx login printed no JSON: {error}"));
        let token = login["token"]
            .as_str()
            .unwrap_or_else(|| panic!("no token in {login}"))
            .to_owned();
        let me = run_awx(&server, &["--conf.token", &token], &["me"]);
        assert!(me.contains("\"admin\""), "{me}");
        let tokens = server
            .admin()
            .get_json(&format!("/api/v2/applications/{}/tokens/", client.id));
        assert_eq!(tokens["count"], 1, "{tokens}");
    }
    let read_token = server
        .admin()
        .get_json(&format!("/api/v2/applications/{}/tokens/", confidential.id));
    assert_eq!(read_token["results"][0]["scope"], "read");
}

/// `awx credential_types create` with `--inputs`/`--injectors` as JSON text; returns the record.
fn awx_create_token_type(server: &TestServer, name: &str) -> Value {
    awx_json(
        server,
        &[
            "credential_types",
            "create",
            "--name",
            name,
            "--kind",
            "cloud",
            "--inputs",
            r#"{"fields":[{"id":"api_token","label":"Token","secret":true}]}"#,
            "--injectors",
            r#"{"env":{"MY_TOKEN":"{{ api_token }}"}}"#,
        ],
    )
}

fn awx_credential_types_create_parses_json_documents(backend: Backend) {
    // OPTIONS types `inputs` and `injectors` as `json`, so awxkit sends them as objects; the
    // server stores and returns objects, never strings.
    let server = TestServer::start(backend);
    let created = awx_create_token_type(&server, "CLI token");
    let id = created["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("no id in {created}"));
    assert_eq!(created["name"], "CLI token", "{created}");
    assert_eq!(created["kind"], "cloud", "{created}");
    assert_eq!(created["managed"], false, "{created}");
    assert_eq!(
        created["inputs"],
        json!({"fields": [{"id": "api_token", "label": "Token", "secret": true, "type": "string"}]}),
        "{created}"
    );
    assert_eq!(
        created["injectors"],
        json!({"env": {"MY_TOKEN": "{{ api_token }}"}}),
        "{created}"
    );
    let stored = server
        .admin()
        .get_json(&format!("/api/v2/credential_types/{id}/"));
    assert!(stored["inputs"].is_object(), "{stored}");
    assert!(stored["injectors"].is_object(), "{stored}");
    assert_eq!(stored["inputs"], created["inputs"]);
    // `list` finds it by name.
    let listed = awx_json(
        &server,
        &["credential_types", "list", "--name", "CLI token"],
    );
    assert_eq!(listed["count"], 1, "{listed}");
    assert_eq!(listed["results"][0]["id"], id, "{listed}");
}

fn awx_credentials_create_masks_the_secret(backend: Backend) {
    let server = TestServer::start(backend);
    let org = server.create_organization("CLI org");
    let credential_type = awx_create_token_type(&server, "CLI token");
    let type_id = credential_type["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("no id in {credential_type}"))
        .to_string();
    let secret = "t-cli-secret-value-0123456789";
    let inputs = format!(r#"{{"api_token":"{secret}"}}"#);
    let stdout = awx(
        &server,
        &[
            "credentials",
            "create",
            "--name",
            "CLI credential",
            "--credential_type",
            &type_id,
            "--organization",
            &org.to_string(),
            "--inputs",
            &inputs,
        ],
    );
    assert!(
        !stdout.contains(secret),
        "awx printed the secret:\n{stdout}"
    );
    let created: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|error| panic!("credentials create printed no JSON ({error}):\n{stdout}"));
    let id = created["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("no id in {created}"));
    assert_eq!(created["name"], "CLI credential", "{created}");
    assert_eq!(created["organization"], org, "{created}");
    assert_eq!(created["credential_type"].to_string(), type_id, "{created}");
    assert_eq!(
        created["inputs"],
        json!({"api_token": "$encrypted$"}),
        "{created}"
    );
    let read = server
        .admin()
        .get_json(&format!("/api/v2/credentials/{id}/"));
    assert_eq!(
        read["inputs"],
        json!({"api_token": "$encrypted$"}),
        "{read}"
    );
    let listed = awx(&server, &["credentials", "list"]);
    assert!(!listed.contains(secret), "{listed}");
    assert!(listed.contains("CLI credential"), "{listed}");
}

/// The whole path an admin scripts: project, inventory, host and job template made with
/// `awx … create`, `awx job_templates launch --wait` waiting on the real `ansible-playbook`,
/// the output read with `awx jobs stdout`, a project update, and a finished job deleted.
fn awx_builds_and_launches_a_job_template(backend: Backend) {
    let fixture = acs_tests::ansible::AutomationServer::start(backend, &[]);
    fixture.project_file(
        "cli",
        "hello.yml",
        "- hosts: all\n  gather_facts: false\n  tasks:\n    - ansible.builtin.debug:\n        msg: hello from the CLI\n",
    );
    let server = &fixture.server;
    let org = server.create_organization("cli").to_string();
    let id = |value: Value| {
        value["id"]
            .as_i64()
            .unwrap_or_else(|| panic!("no id in {value}"))
            .to_string()
    };
    let project = id(awx_json(
        server,
        &[
            "projects",
            "create",
            "--name",
            "cli",
            "--organization",
            &org,
            "--local_path",
            "cli",
        ],
    ));
    let inventory = id(awx_json(
        server,
        &[
            "inventory",
            "create",
            "--name",
            "cli",
            "--organization",
            &org,
        ],
    ));
    awx_json(
        server,
        &[
            "hosts",
            "create",
            "--name",
            "localhost",
            "--inventory",
            &inventory,
            "--variables",
            r#"{"ansible_connection": "local", "ansible_python_interpreter": "{{ ansible_playbook_python }}"}"#,
        ],
    );
    let template = id(awx_json(
        server,
        &[
            "job_templates",
            "create",
            "--name",
            "cli",
            "--project",
            &project,
            "--inventory",
            &inventory,
            "--playbook",
            "hello.yml",
        ],
    ));
    let launched = awx_json(
        server,
        &[
            "job_templates",
            "launch",
            &template,
            "--wait",
            "--interval",
            "2.5",
        ],
    );
    assert_eq!(launched["status"], "successful", "{launched}");
    let job = id(launched);
    let stdout = awx(server, &["jobs", "stdout", &job]);
    assert!(stdout.contains("hello from the CLI"), "{stdout}");
    let listed = awx(server, &["jobs", "list", "-f", "human"]);
    assert!(listed.contains("cli"), "{listed}");
    let update = awx_json(
        server,
        &[
            "projects",
            "update",
            &project,
            "--wait",
            "--interval",
            "2.5",
        ],
    );
    assert_eq!(update["status"], "successful", "{update}");
    awx(server, &["jobs", "delete", &job]);
    assert_eq!(server.admin().get_json("/api/v2/jobs/")["count"], 0);
}

/// `awx activity_stream list` and `awx settings list`: both resources are in the API root, so
/// awxkit offers them, and it asks each with OPTIONS first.
fn awx_activity_stream_and_settings_list(backend: Backend) {
    let server = TestServer::start(backend);
    server.create_user("grace", "pw-grace-12345", false);
    let activity = awx_json(&server, &["activity_stream", "list"]);
    assert!(
        activity["results"]
            .as_array()
            .is_some_and(|entries| entries.iter().any(|entry| entry["operation"] == "create")),
        "{activity}"
    );
    let settings = awx(&server, &["settings", "list"]);
    assert!(settings.contains("SESSION_COOKIE_AGE"), "{settings}");
}

/// `awx users grant|revoke <user> --job_template <id> --role execute`: awxkit reads the role
/// names from OPTIONS, the role id from the template's `summary_fields.object_roles`, and
/// posts to `/users/<id>/roles/`; the grant is what lets the user launch.
fn awx_users_grant_and_revoke_a_role(backend: Backend) {
    let fixture = acs_tests::ansible::AutomationServer::start(backend, &[]);
    fixture.project_file("grant", "site.yml", acs_tests::ansible::PING_PLAYBOOK);
    let server = &fixture.server;
    let admin = server.admin();
    let org = server.create_organization("granting");
    let project = fixture.create_project(&admin, org, "grant");
    let inventory = fixture.create_local_inventory(&admin, org);
    let template = acs_tests::id_of(
        &admin
            .post("/api/v2/job_templates/")
            .json(&serde_json::json!({
                "name": "deploy", "project": project, "inventory": inventory,
                "playbook": "site.yml",
            }))
            .call()
            .expect(201)
            .json(),
    );
    let alice = server.create_user("alice", "Alice-pass-1", false);
    let template_arg = template.to_string();
    let alice_arg = alice.to_string();
    let launch = |agent: &acs_tests::Agent| {
        agent
            .post(&format!("/api/v2/job_templates/{template}/launch/"))
            .json(&serde_json::json!({}))
            .call()
            .status
    };
    let alice_agent = server.as_user("alice", "Alice-pass-1");
    assert_eq!(launch(&alice_agent), 403);
    awx(
        server,
        &[
            "users",
            "grant",
            &alice_arg,
            "--job_template",
            &template_arg,
            "--role",
            "execute",
        ],
    );
    assert_eq!(launch(&alice_agent), 201);
    awx(
        server,
        &[
            "users",
            "revoke",
            &alice_arg,
            "--job_template",
            &template_arg,
            "--role",
            "execute",
        ],
    );
    assert_eq!(launch(&alice_agent), 403);
}

/// `awx teams create`, then `awx teams grant|revoke <team> --job_template <id> --role
/// execute` (posted to `/teams/<id>/roles/`): a member of the team launches while the team
/// holds the role, and not once it is revoked.
fn awx_teams_create_grant_and_revoke(backend: Backend) {
    let fixture = acs_tests::ansible::AutomationServer::start(backend, &[]);
    fixture.project_file("teams", "site.yml", acs_tests::ansible::PING_PLAYBOOK);
    let server = &fixture.server;
    let admin = server.admin();
    let org = server.create_organization("teamwork");
    let project = fixture.create_project(&admin, org, "teams");
    let inventory = fixture.create_local_inventory(&admin, org);
    let template = acs_tests::id_of(
        &admin
            .post("/api/v2/job_templates/")
            .json(&serde_json::json!({
                "name": "deploy", "project": project, "inventory": inventory,
                "playbook": "site.yml",
            }))
            .call()
            .expect(201)
            .json(),
    );
    let created = awx_json(
        server,
        &[
            "teams",
            "create",
            "--name",
            "on-call",
            "--organization",
            &org.to_string(),
        ],
    );
    assert_eq!(created["name"], "on-call", "{created}");
    let team = acs_tests::id_of(&created);
    let alice = server.create_user("alice", "Alice-pass-1", false);
    admin
        .post(&format!("/api/v2/teams/{team}/users/"))
        .json(&serde_json::json!({ "id": alice }))
        .call()
        .expect(204);
    let alice_agent = server.as_user("alice", "Alice-pass-1");
    let launch = || {
        alice_agent
            .post(&format!("/api/v2/job_templates/{template}/launch/"))
            .json(&serde_json::json!({}))
            .call()
            .status
    };
    assert_eq!(launch(), 403);
    let team_arg = team.to_string();
    let template_arg = template.to_string();
    for (verb, launched) in [("grant", 201), ("revoke", 403)] {
        awx(
            server,
            &[
                "teams",
                verb,
                &team_arg,
                "--job_template",
                &template_arg,
                "--role",
                "execute",
            ],
        );
        assert_eq!(launch(), launched, "after {verb}");
    }
}

/// `awx export` from one controller and `awx import` into a fresh one (configuration as
/// code). The export walks every collection: organizations, users, teams, a custom credential
/// type, a credential (its secret left behind, as the reference's export does), a git
/// project (served by a real `git daemon` on a test host), an inventory with hosts and nested
/// groups, and a job template with its credential and its options. The import brings them to
/// a fresh controller with their references resolved by name (the project checked out by its
/// first update, which awxkit waits for before the template that needs its playbook; users
/// without a password to sign in with until one is set); importing again doubles nothing.
/// Role memberships are not carried, as with the reference (awxkit's export skips the role
/// lists, which carry the reference's deprecation warning).
fn awx_export_and_import_carry_a_configuration_to_another_controller(backend: Backend) {
    let repositories = tempfile::tempdir().expect("a directory of repositories");
    let (_work, first) = acs_tests::git_server::repository_with_playbook(
        repositories.path(),
        "site.git",
        "- hosts: all\n  tasks: []\n",
    );
    let test_host = acs_tests::netns::TestHost::start();
    let _daemon = acs_tests::git_server::serve(&test_host, repositories.path());
    let url = format!("git://{}/site.git", test_host.address);
    let source = acs_tests::ansible::AutomationServer::start(backend, &[]);
    let source = &source.server;
    let admin = source.admin();
    let organization = source.create_organization("Exported");
    let alice = source.create_user("alice", "Alice-pass-1", false);
    source.add_member(organization, alice);
    let created = |path: &str, body: Value| -> i64 {
        acs_tests::id_of(&admin.post(path).json(&body).call().expect(201).json())
    };
    created(
        "/api/v2/teams/",
        json!({"name": "operators", "organization": organization}),
    );
    let kind = created(
        "/api/v2/credential_types/",
        json!({"name": "Pager", "kind": "cloud",
               "inputs": {"fields": [{"id": "token", "label": "Token", "secret": true}]},
               "injectors": {"env": {"PAGER_TOKEN": "{{ token }}"}}}),
    );
    let credential = created(
        "/api/v2/credentials/",
        json!({"name": "pager", "organization": organization, "credential_type": kind,
               "inputs": {"token": "s3cret-pager-token"}}),
    );
    let project = admin
        .post("/api/v2/projects/")
        .json(
            &json!({"name": "site", "organization": organization, "scm_type": "git",
                      "scm_url": url}),
        )
        .call()
        .expect(201)
        .json();
    acs_tests::ansible::wait_for_run(
        &admin,
        &format!(
            "/api/v2/project_updates/{}/",
            project["summary_fields"]["current_update"]["id"]
        ),
    );
    let project = acs_tests::id_of(&project);
    let inventory = created(
        "/api/v2/inventories/",
        json!({"name": "fleet", "organization": organization}),
    );
    let host = created(
        &format!("/api/v2/inventories/{inventory}/hosts/"),
        json!({"name": "web1", "variables": "port: 80"}),
    );
    let prod = created(
        "/api/v2/groups/",
        json!({"name": "prod", "inventory": inventory, "variables": "env: prod"}),
    );
    let web = created(
        &format!("/api/v2/groups/{prod}/children/"),
        json!({"name": "web"}),
    );
    admin
        .post(&format!("/api/v2/groups/{web}/hosts/"))
        .json(&json!({"id": host}))
        .call()
        .expect(204);
    let template = created(
        "/api/v2/job_templates/",
        json!({"name": "deploy", "project": project, "inventory": inventory,
               "playbook": "site.yml", "verbosity": 2, "job_tags": "deploy"}),
    );
    admin
        .post(&format!("/api/v2/job_templates/{template}/credentials/"))
        .json(&json!({"id": credential}))
        .call()
        .expect(204);

    let exported = awx(source, &["export"]);
    assert!(!exported.contains("s3cret-pager-token"), "{exported}");
    let document: Value = serde_json::from_str(&exported)
        .unwrap_or_else(|error| panic!("awx export printed no JSON ({error}):\n{exported}"));
    let exported_template = &document["job_templates"][0];
    assert_eq!(exported_template["name"], "deploy", "{document:#}");
    assert_eq!(exported_template["verbosity"], 2, "{document:#}");
    assert_eq!(exported_template["project"]["name"], "site", "{document:#}");
    assert_eq!(
        exported_template["related"]["credentials"][0]["name"], "pager",
        "{document:#}"
    );
    let exported_inventory = &document["inventory"][0];
    assert_eq!(
        exported_inventory["related"]["hosts"][0]["name"], "web1",
        "{document:#}"
    );
    let groups = exported_inventory["related"]["groups"].to_string();
    for name in ["\"prod\"", "\"web\"", "env: prod"] {
        assert!(groups.contains(name), "{name}: {document:#}");
    }
    assert_eq!(document["projects"][0]["scm_url"], url, "{document:#}");

    let target = acs_tests::ansible::AutomationServer::start(backend, &[]);
    let target = &target.server;
    let credentials = [
        "--conf.username",
        "admin",
        "--conf.password",
        &target.admin_password,
    ];
    let input = document.to_string();
    run_awx_reading(target, &credentials, &["import"], Some(&input));
    let imported = target.admin();
    let one = |path: &str| -> Value {
        let page = imported.get_json(path);
        assert_eq!(page["count"], 1, "{path}: {page}");
        page["results"][0].clone()
    };
    let organization = one("/api/v2/organizations/?name=Exported");
    let team = one("/api/v2/teams/?name=operators");
    assert_eq!(team["organization"], organization["id"], "{team}");
    one("/api/v2/users/?username=alice");
    for password in ["Alice-pass-1", "", "!"] {
        target
            .as_user("alice", password)
            .get("/api/v2/me/")
            .call()
            .expect(401);
    }
    let kind = one("/api/v2/credential_types/?name=Pager");
    assert_eq!(
        kind["injectors"]["env"]["PAGER_TOKEN"], "{{ token }}",
        "{kind}"
    );
    let credential = one("/api/v2/credentials/?name=pager");
    assert_eq!(credential["credential_type"], kind["id"], "{credential}");
    assert_eq!(
        credential["organization"], organization["id"],
        "{credential}"
    );
    let inventory = one("/api/v2/inventories/?name=fleet");
    let host = one(&format!("/api/v2/inventories/{}/hosts/", inventory["id"]));
    assert_eq!(host["variables"], "port: 80", "{host}");
    let prod = one("/api/v2/groups/?name=prod");
    assert_eq!(prod["variables"], "env: prod", "{prod}");
    let web = one(&format!("/api/v2/groups/{}/children/", prod["id"]));
    assert_eq!(web["name"], "web", "{web}");
    let in_web = one(&format!("/api/v2/groups/{}/hosts/", web["id"]));
    assert_eq!(in_web["name"], "web1", "{in_web}");
    let project = one("/api/v2/projects/?name=site");
    assert_eq!(project["scm_url"], url, "{project}");
    assert_eq!(project["status"], "successful", "{project}");
    assert_eq!(project["scm_revision"], first, "{project}");
    let template = one("/api/v2/job_templates/?name=deploy");
    assert_eq!(template["project"], project["id"], "{template}");
    assert_eq!(template["inventory"], inventory["id"], "{template}");
    assert_eq!(
        (template["verbosity"].clone(), template["job_tags"].clone()),
        (json!(2), json!("deploy"))
    );
    let attached = one(&format!(
        "/api/v2/job_templates/{}/credentials/",
        template["id"]
    ));
    assert_eq!(attached["id"], credential["id"], "{attached}");

    // Again: the same records, none doubled.
    run_awx_reading(target, &credentials, &["import"], Some(&input));
    one("/api/v2/inventories/?name=fleet");
    one("/api/v2/projects/?name=site");
    one("/api/v2/job_templates/?name=deploy");
    one("/api/v2/groups/?name=web");
    one(&format!("/api/v2/groups/{}/hosts/", web["id"]));
}

//! Projects from git: a project with `scm_type: git` is checked out by its updates, inside
//! the run's sandbox and network, from a real `git daemon` on a test host (a network
//! namespace of its own, as a git server elsewhere would be). Creating one starts its first
//! update, one update of a project runs at a time, and each records the commit
//! (`scm_revision`), a later one fetches what was pushed since, `scm_branch` picks a branch,
//! a job runs the checkout, and a repository that is not there fails the update with git's
//! words. The API refuses the URLs the reference refuses, and a password in a URL. A Source
//! Control credential authenticates the update against a password-protected HTTP git server
//! and appears nowhere: not in the output, the records, nor the checkout; so does an SSH key
//! (plain, or encrypted with its passphrase) against a real `sshd`.

use std::process::Command;

use acs_tests::ansible::{AutomationServer, PING_PLAYBOOK, run_stdout, wait_for_run};
use acs_tests::git_server::{
    Daemon, commit, git, key_pair, repository_with_playbook, serve, serve_ssh,
};
use acs_tests::netns::TestHost;
use acs_tests::{Agent, Backend, Call, backend_tests, id_of};
use serde_json::{Value, json};

/// Waits for the update a new project's record names (`summary_fields.current_update`) to
/// end; the update's record and its output.
fn first_update(admin: &Agent, project: &Value) -> (Value, String) {
    let id = &project["summary_fields"]["current_update"]["id"];
    assert!(id.is_i64(), "a new git project's update: {project}");
    let update = wait_for_run(admin, &format!("/api/v2/project_updates/{id}/"));
    let stdout = run_stdout(admin, &update);
    (update, stdout)
}

/// Creates the git project `body` describes and waits for its first update, which must
/// succeed; the project's record as the creation answered it.
fn checked_out(admin: &Agent, body: &Value) -> Value {
    let project = admin
        .post("/api/v2/projects/")
        .json(body)
        .call()
        .expect(201)
        .json();
    let (done, stdout) = first_update(admin, &project);
    assert_eq!(done["status"], "successful", "{done}\n{stdout}");
    project
}

/// Starts an update of `project` and waits for it to end; the record and its output.
fn update(admin: &Agent, project: i64) -> (Value, String) {
    let started = admin
        .post(&format!("/api/v2/projects/{project}/update/"))
        .call()
        .expect(202)
        .json();
    let update = wait_for_run(
        admin,
        &format!("/api/v2/project_updates/{}/", started["project_update"]),
    );
    let stdout = run_stdout(admin, &update);
    (update, stdout)
}

fn a_git_project_is_checked_out_and_fetched_by_its_updates(backend: Backend) {
    let repositories = tempfile::tempdir().expect("a directory of repositories");
    let bare = repositories.path().join("site.git");
    std::fs::create_dir(&bare).expect("the bare repository");
    git(&bare, &["init", "--quiet", "--bare"]);
    let work_dir = tempfile::tempdir().expect("a work tree");
    let work = work_dir.path();
    git(
        work,
        &["clone", "--quiet", &bare.display().to_string(), "."],
    );
    let first = commit(work, "site.yml", PING_PLAYBOOK, "first");
    git(work, &["checkout", "--quiet", "-b", "release"]);
    let release = commit(work, "VERSION", "release\n", "on release");
    git(work, &["checkout", "--quiet", "main"]);
    let test_host = TestHost::start();
    let _daemon = serve(&test_host, repositories.path());
    let url = format!("git://{}/site.git", test_host.address);

    let fixture = AutomationServer::start(backend, &[]);
    let server = &fixture.server;
    let admin = server.admin();
    let organization = server.create_organization("Git");
    let project = admin
        .post("/api/v2/projects/")
        .json(
            &json!({"name": "Git site", "organization": organization, "scm_type": "git",
                      "scm_url": url, "scm_clean": true}),
        )
        .call()
        .expect(201)
        .json();
    let id = id_of(&project);
    assert_eq!(
        project["local_path"],
        format!("_{id}__git_site"),
        "{project}"
    );
    assert_eq!(project["status"], "pending", "{project}");
    assert_eq!(project["scm_revision"], "", "{project}");
    let checkout = fixture
        .projects_root
        .path()
        .join(project["local_path"].as_str().expect("local_path"));

    // The first update, started by the creation, clones the default branch and records its
    // commit.
    let (done, stdout) = first_update(&admin, &project);
    assert_eq!(done["status"], "successful", "{done}\n{stdout}");
    assert!(stdout.contains(&format!("Checked out {first}")), "{stdout}");
    let project = admin.get_json(&format!("/api/v2/projects/{id}/"));
    assert_eq!(project["scm_revision"], first, "{project}");
    assert_eq!(project["status"], "successful", "{project}");
    assert_eq!(project["last_update_failed"], false, "{project}");
    assert!(checkout.join("site.yml").is_file());
    assert!(!checkout.join("VERSION").exists());

    // A job runs the checkout.
    let inventory = fixture.create_local_inventory(&admin, organization);
    let template = id_of(
        &admin
            .post("/api/v2/job_templates/")
            .json(
                &json!({"name": "ping", "project": id, "inventory": inventory,
                          "playbook": "site.yml"}),
            )
            .call()
            .expect(201)
            .json(),
    );
    let job = wait_for_run(&admin, &acs_tests::ansible::launch(&admin, template));
    assert_eq!(job["status"], "successful", "{job}");

    // What is pushed since, the next update fetches; what was left behind goes (scm_clean).
    let second = commit(
        work,
        "site.yml",
        &format!("{PING_PLAYBOOK}# second\n"),
        "second",
    );
    std::fs::write(checkout.join("stray.txt"), "left behind").expect("a stray file");
    let (done, stdout) = update(&admin, id);
    assert_eq!(done["status"], "successful", "{done}\n{stdout}");
    let project = admin.get_json(&format!("/api/v2/projects/{id}/"));
    assert_eq!(project["scm_revision"], second, "{project}");
    assert!(!checkout.join("stray.txt").exists(), "scm_clean left it");

    // scm_branch picks another branch.
    admin
        .patch(&format!("/api/v2/projects/{id}/"))
        .json(&json!({"scm_branch": "release"}))
        .call()
        .expect(200);
    let (done, stdout) = update(&admin, id);
    assert_eq!(done["status"], "successful", "{done}\n{stdout}");
    let project = admin.get_json(&format!("/api/v2/projects/{id}/"));
    assert_eq!(project["scm_revision"], release, "{project}");
    assert!(checkout.join("VERSION").is_file());

    // scm_refspec fetches what no branch holds (a pull request's head), and scm_branch names it.
    git(work, &["checkout", "--quiet", "--detach"]);
    std::fs::write(work.join("PROPOSAL"), "proposed\n").expect("a file");
    git(work, &["add", "PROPOSAL"]);
    git(work, &["commit", "--quiet", "-m", "proposal"]);
    git(
        work,
        &["push", "--quiet", "origin", "HEAD:refs/pull/7/head"],
    );
    let proposal = git(work, &["rev-parse", "HEAD"]);
    git(work, &["checkout", "--quiet", "main"]);
    admin
        .patch(&format!("/api/v2/projects/{id}/"))
        .json(
            &json!({"scm_refspec": "+refs/pull/*:refs/remotes/origin/pull/*",
                      "scm_branch": "pull/7/head"}),
        )
        .call()
        .expect(200);
    let (done, stdout) = update(&admin, id);
    assert_eq!(done["status"], "successful", "{done}\n{stdout}");
    let project = admin.get_json(&format!("/api/v2/projects/{id}/"));
    assert_eq!(project["scm_revision"], proposal, "{project}");
    assert!(checkout.join("PROPOSAL").is_file());
    admin
        .patch(&format!("/api/v2/projects/{id}/"))
        .json(&json!({"scm_refspec": "", "scm_branch": "release"}))
        .call()
        .expect(200);
    let (done, stdout) = update(&admin, id);
    assert_eq!(done["status"], "successful", "{done}\n{stdout}");

    // A copy is checked out into a directory of its own by an update of its own.
    let copy = admin
        .post(&format!("/api/v2/projects/{id}/copy/"))
        .json(&json!({"name": "Git site copy"}))
        .call()
        .expect(201)
        .json();
    let (done, stdout) = first_update(&admin, &copy);
    assert_eq!(done["status"], "successful", "{done}\n{stdout}");
    let copy = admin.get_json(&format!("/api/v2/projects/{}/", copy["id"]));
    assert_eq!(copy["scm_revision"], release, "{copy}");
    assert_eq!(
        copy["local_path"],
        format!("_{}__git_site_copy", copy["id"]),
        "{copy}"
    );

    // A repository that is not there fails the update, in git's words.
    let missing = admin
        .post("/api/v2/projects/")
        .json(
            &json!({"name": "missing", "organization": organization, "scm_type": "git",
                      "scm_url": format!("git://{}/missing.git", test_host.address)}),
        )
        .call()
        .expect(201)
        .json();
    let (done, stdout) = first_update(&admin, &missing);
    let missing = id_of(&missing);
    assert_eq!(done["status"], "failed", "{done}\n{stdout}");
    assert!(stdout.contains("missing.git"), "{stdout}");
    let project = admin.get_json(&format!("/api/v2/projects/{missing}/"));
    assert_eq!(project["status"], "failed", "{project}");
    assert_eq!(project["last_update_failed"], true, "{project}");
    assert_eq!(project["scm_revision"], "", "{project}");
}

fn git_urls_and_values_are_checked_before_they_reach_git(backend: Backend) {
    let fixture = AutomationServer::start(backend, &[]);
    let server = &fixture.server;
    let admin = server.admin();
    let organization = server.create_organization("Git");
    let boss = server.create_user("boss", "Boss-pass-1", false);
    server.add_admin(organization, boss);
    let boss = server.as_user("boss", "Boss-pass-1");
    let project = |extra: Value| {
        let mut body = json!({"name": "p", "organization": organization, "scm_type": "git",
                              "scm_url": "https://git.example.com/ops/site.git"});
        for (key, value) in extra.as_object().expect("an object") {
            body[key] = value.clone();
        }
        body
    };
    for (extra, field, message) in [
        (json!({"scm_url": ""}), "scm_url", "needs scm_url"),
        (json!({"scm_url": "file:///etc"}), "scm_url", "superusers"),
        (
            json!({"scm_url": "https://deploy:hunter2@git.example.com/site"}),
            "scm_url",
            "credential",
        ),
        (
            json!({"scm_url": "--upload-pack=touch /tmp/x"}),
            "scm_url",
            "\"-\"",
        ),
        (json!({"scm_branch": "--orphan"}), "scm_branch", "\"-\""),
        (json!({"scm_type": "svn"}), "scm_type", "not a valid choice"),
        (
            json!({"scm_update_cache_timeout": "soon"}),
            "scm_update_cache_timeout",
            "valid integer",
        ),
    ] {
        let errors = boss
            .post("/api/v2/projects/")
            .json(&project(extra.clone()))
            .call()
            .expect(400)
            .field_errors(field);
        assert!(
            errors.iter().any(|error| error.contains(message)),
            "{extra}: {errors:?}"
        );
    }
    assert!(
        !server
            .admin()
            .get_json("/api/v2/projects/")
            .to_string()
            .contains("hunter2")
    );
    // A superuser may use the server's own disk; the directory is still ACS's to name.
    let local = admin
        .post("/api/v2/projects/")
        .json(&project(
            json!({"scm_url": "file:///srv/git/site", "local_path": "elsewhere"}),
        ))
        .call()
        .expect(201)
        .json();
    assert!(
        local["local_path"]
            .as_str()
            .is_some_and(|path| path.starts_with('_') && path.ends_with("__p")),
        "{local}"
    );
    // A git project made a local one again needs its directory.
    let errors = admin
        .patch(&format!("/api/v2/projects/{}/", id_of(&local)))
        .json(&json!({"scm_type": ""}))
        .call()
        .expect(400)
        .field_errors("local_path");
    assert!(!errors.is_empty());
}

/// Git's smart HTTP protocol (`git http-backend`) behind HTTP Basic authentication, as a
/// hosted git server answers: `server.py <repositories> <username> <password> <address>`
/// listens on port 8080 and answers 401 to any other credentials.
const HTTP_SERVER: &str = r#"import base64, http.server, os, subprocess, sys
root, user, password, address = sys.argv[1:5]
expected = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()

class Git(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.git()

    def do_POST(self):
        self.git()

    def git(self):
        if self.headers.get("Authorization") != expected:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="git"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        path, _, query = self.path.partition("?")
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        env = dict(os.environ, GIT_PROJECT_ROOT=root, GIT_HTTP_EXPORT_ALL="1", PATH_INFO=path,
                   QUERY_STRING=query, REQUEST_METHOD=self.command, REMOTE_USER=user,
                   CONTENT_TYPE=self.headers.get("Content-Type", ""),
                   CONTENT_LENGTH=str(length),
                   HTTP_CONTENT_ENCODING=self.headers.get("Content-Encoding", ""))
        out = subprocess.run(["git", "http-backend"], input=body, env=env,
                             capture_output=True).stdout
        head, _, rest = out.partition(b"\r\n\r\n")
        status, headers = 200, []
        for line in head.decode().split("\r\n"):
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(rest)))
        self.end_headers()
        self.wfile.write(rest)

http.server.ThreadingHTTPServer((address, 8080), Git).serve_forever()
"#;

fn a_source_control_credential_authenticates_the_update_and_stays_secret(backend: Backend) {
    let repositories = tempfile::tempdir().expect("a directory of repositories");
    let bare = repositories.path().join("private.git");
    std::fs::create_dir(&bare).expect("the bare repository");
    git(&bare, &["init", "--quiet", "--bare"]);
    let work_dir = tempfile::tempdir().expect("a work tree");
    let work = work_dir.path();
    git(
        work,
        &["clone", "--quiet", &bare.display().to_string(), "."],
    );
    let first = commit(work, "site.yml", PING_PLAYBOOK, "first");
    let token = "s3cret-git-token-4821";
    let script = repositories.path().join("server.py");
    std::fs::write(&script, HTTP_SERVER).expect("the server's script");
    let test_host = TestHost::start();
    let address = test_host.address.to_string();
    let _server = Daemon(test_host.spawn(
        "python3",
        &[
            &script.display().to_string(),
            &repositories.path().display().to_string(),
            "deploy",
            token,
            &address,
        ],
    ));
    let started = std::time::Instant::now();
    while std::net::TcpStream::connect((test_host.address, 8080)).is_err() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "no HTTP server"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let url = format!("http://{address}:8080/private.git");

    let fixture = AutomationServer::start(backend, &[]);
    let server = &fixture.server;
    let admin = server.admin();
    let organization = server.create_organization("Git");
    let credential = |name: &str, password: &str| -> i64 {
        id_of(
            &admin
                .post("/api/v2/credentials/")
                .json(&json!({"name": name, "organization": organization,
                              "credential_type": server.managed_type_id("scm"),
                              "inputs": {"username": "deploy", "password": password}}))
                .call()
                .expect(201)
                .json(),
        )
    };
    let (right, wrong) = (
        credential("deploy token", token),
        credential("old token", "expired-token-1"),
    );
    let project = |name: &str, credential: Value| -> Value {
        admin
            .post("/api/v2/projects/")
            .json(
                &json!({"name": name, "organization": organization, "scm_type": "git",
                          "scm_url": url, "credential": credential}),
            )
            .call()
            .expect(201)
            .json()
    };

    let record = project("with", json!(right));
    assert_eq!(record["credential"], right, "{record}");
    let (done, stdout) = first_update(&admin, &record);
    let with = id_of(&record);
    assert_eq!(done["status"], "successful", "{done}\n{stdout}");
    assert_eq!(
        admin.get_json(&format!("/api/v2/projects/{with}/"))["scm_revision"],
        first
    );

    // Without it, or with a wrong one, the update fails at once (no prompt waits).
    for (name, credential) in [("without", Value::Null), ("wrong", json!(wrong))] {
        let (done, stdout) = first_update(&admin, &project(name, credential));
        assert_eq!(done["status"], "failed", "{name}: {done}\n{stdout}");
        assert!(
            stdout.contains("Authentication failed") || stdout.contains("could not read"),
            "{name}: {stdout}"
        );
        assert!(!stdout.contains("expired-token-1"), "{stdout}");
    }

    // The token is nowhere the API shows, nor in the run's records.
    for path in [
        "/api/v2/project_updates/".to_owned(),
        format!("/api/v2/projects/{with}/"),
        format!("/api/v2/credentials/{right}/"),
    ] {
        let shown = admin.get(&path).call().expect(200).body;
        assert!(!shown.contains(token), "{path}: {shown}");
    }
    for update in admin.get_json("/api/v2/project_updates/")["results"]
        .as_array()
        .expect("updates")
    {
        assert!(!run_stdout(&admin, update).contains(token));
    }
    let git_config = fixture
        .projects_root
        .path()
        .join(format!("_{with}__with/.git/config"));
    let git_config = std::fs::read_to_string(git_config).unwrap_or_default();
    assert!(!git_config.contains(token), "the token is in .git/config");

    // Only a Source Control credential the caller may use, on a git project.
    let machine = id_of(
        &admin
            .post("/api/v2/credentials/")
            .json(&json!({"name": "machine", "organization": organization,
                          "credential_type": server.managed_type_id("ssh"),
                          "inputs": {"username": "root"}}))
            .call()
            .expect(201)
            .json(),
    );
    let errors = admin
        .patch(&format!("/api/v2/projects/{with}/"))
        .json(&json!({"credential": machine}))
        .call()
        .expect(400)
        .field_errors("credential");
    assert_eq!(errors, ["Credential kind must be 'scm'."]);
    let boss = server.create_user("boss", "Boss-pass-1", false);
    server.add_admin(server.create_organization("Other"), boss);
    let theirs = admin.get_json("/api/v2/organizations/?name=Other")["results"][0]["id"].clone();
    server
        .as_user("boss", "Boss-pass-1")
        .post("/api/v2/projects/")
        .json(
            &json!({"name": "borrow", "organization": theirs, "scm_type": "git",
                      "scm_url": url, "credential": right}),
        )
        .call()
        .expect(403);
}

/// An update over SSH with the key a Source Control credential holds, against a real `sshd`
/// on a test host: a plain key, an encrypted key with its passphrase, the username from the
/// credential or from the URL; a key the server does not know fails with ssh's words. The key
/// and the passphrase appear nowhere: not in the output, the checkout nor the project's
/// directory.
fn a_deploy_key_authenticates_the_update_over_ssh(backend: Backend) {
    let repositories = tempfile::tempdir().expect("a directory of repositories");
    let (work, first) = repository_with_playbook(repositories.path(), "site.git", PING_PLAYBOOK);
    let keys = tempfile::tempdir().expect("a directory of keys");
    let (plain, plain_public) = key_pair(keys.path(), "deploy", "");
    let passphrase = "unlock-phrase-7730";
    let (locked, locked_public) = key_pair(keys.path(), "locked", passphrase);
    let (stranger, _) = key_pair(keys.path(), "stranger", "");
    let sshd_dir = tempfile::tempdir().expect("sshd's directory");
    let test_host = TestHost::start();
    let _sshd = serve_ssh(
        &test_host,
        sshd_dir.path(),
        &format!("{plain_public}{locked_public}"),
    );
    let login = Command::new("id").arg("-un").output().expect("id runs");
    let login = String::from_utf8_lossy(&login.stdout).trim().to_owned();
    let path = repositories.path().join("site.git").display().to_string();
    let url = format!("ssh://{}:2222{path}", test_host.address);

    let fixture = AutomationServer::start(backend, &[]);
    let server = &fixture.server;
    let admin = server.admin();
    let organization = server.create_organization("Git");
    let project = |name: &str, url: &str, inputs: Value| -> Value {
        let credential = admin
            .post("/api/v2/credentials/")
            .json(&json!({"name": name, "organization": organization,
                          "credential_type": server.managed_type_id("scm"), "inputs": inputs}))
            .call()
            .expect(201)
            .json();
        admin
            .post("/api/v2/projects/")
            .json(
                &json!({"name": name, "organization": organization, "scm_type": "git",
                          "scm_url": url, "credential": id_of(&credential)}),
            )
            .call()
            .expect(201)
            .json()
    };
    let secret_line = |key: &str| key.lines().nth(1).expect("a key's body").to_owned();
    let secrets = [
        secret_line(&plain),
        secret_line(&locked),
        secret_line(&stranger),
        passphrase.to_owned(),
    ];
    let assert_secret = |stdout: &str| {
        for secret in &secrets {
            assert!(!stdout.contains(secret.as_str()), "a secret in: {stdout}");
        }
    };

    let with_user_in_url = format!("ssh://{login}@{}:2222{path}", test_host.address);
    let accepted = [
        project(
            "plain",
            &url,
            json!({"username": login, "ssh_key_data": plain}),
        ),
        project(
            "locked",
            &url,
            json!({"username": login, "ssh_key_data": locked, "ssh_key_unlock": passphrase}),
        ),
        project(
            "user in url",
            &with_user_in_url,
            json!({"ssh_key_data": plain}),
        ),
    ];
    for record in &accepted {
        let (done, stdout) = first_update(&admin, record);
        assert_eq!(done["status"], "successful", "{record}\n{done}\n{stdout}");
        assert_secret(&stdout);
        let id = id_of(record);
        assert_eq!(
            admin.get_json(&format!("/api/v2/projects/{id}/"))["scm_revision"],
            first
        );
    }

    // A later update fetches over the same key.
    let second = commit(work.path(), "NEWS", "second\n", "second");
    let plain_id = id_of(&accepted[0]);
    let (done, stdout) = update(&admin, plain_id);
    assert_eq!(done["status"], "successful", "{done}\n{stdout}");
    assert_eq!(
        admin.get_json(&format!("/api/v2/projects/{plain_id}/"))["scm_revision"],
        second
    );

    // A key the server does not know: ssh's refusal, at once.
    let refused = project(
        "stranger",
        &url,
        json!({"username": login, "ssh_key_data": stranger}),
    );
    let (done, stdout) = first_update(&admin, &refused);
    assert_eq!(done["status"], "failed", "{done}\n{stdout}");
    assert!(stdout.contains("Permission denied"), "{stdout}");
    assert_secret(&stdout);

    // Nothing of the keys is left in the projects' directories.
    let mut files = vec![fixture.projects_root.path().to_path_buf()];
    while let Some(file) = files.pop() {
        if file.is_dir() {
            files.extend(
                std::fs::read_dir(&file)
                    .expect("a directory")
                    .map(|entry| entry.expect("an entry").path()),
            );
        } else if let Ok(text) = std::fs::read_to_string(&file) {
            assert_secret(&text);
            assert!(!text.contains("OPENSSH PRIVATE KEY"), "{}", file.display());
        }
    }
}

/// A playbook that says which commit of the repository it is (`version`).
fn versioned_playbook(version: &str) -> String {
    format!(
        "- hosts: all\n  gather_facts: false\n  tasks:\n    - ansible.builtin.debug:\n        msg: \"playbook {version}\"\n"
    )
}

/// `scm_update_on_launch`: a launch updates the project first and the job (its
/// `project_update`) waits for that update, so it runs what was pushed just before; within
/// `scm_update_cache_timeout` of a successful update a launch does not update; a failed update
/// fails its job before it starts, in the reference's words; a manual project takes neither.
fn a_launch_updates_its_project_first_when_asked(backend: Backend) {
    let repositories = tempfile::tempdir().expect("a directory of repositories");
    let (work, _) =
        repository_with_playbook(repositories.path(), "site.git", &versioned_playbook("one"));
    let test_host = TestHost::start();
    let _daemon = serve(&test_host, repositories.path());
    let url = format!("git://{}/site.git", test_host.address);

    let fixture = AutomationServer::start(backend, &[]);
    let server = &fixture.server;
    let admin = server.admin();
    let organization = server.create_organization("Git");
    let project = checked_out(
        &admin,
        &json!({"name": "site", "organization": organization, "scm_type": "git",
                "scm_url": url, "scm_update_on_launch": true}),
    );
    assert_eq!(project["scm_update_on_launch"], true, "{project}");
    assert_eq!(project["scm_update_cache_timeout"], 0, "{project}");
    let first = &project["summary_fields"]["current_update"]["id"];
    let id = id_of(&project);
    let inventory = fixture.create_local_inventory(&admin, organization);
    let template = id_of(
        &admin
            .post("/api/v2/job_templates/")
            .json(
                &json!({"name": "site", "project": id, "inventory": inventory,
                          "playbook": "site.yml"}),
            )
            .call()
            .expect(201)
            .json(),
    );
    let launched = |admin: &Agent| -> (Value, String) {
        let job = wait_for_run(admin, &acs_tests::ansible::launch(admin, template));
        let stdout = run_stdout(admin, &job);
        (job, stdout)
    };

    // What was pushed a moment ago is what the job runs, after its own update.
    let second = commit(work.path(), "site.yml", &versioned_playbook("two"), "two");
    let (job, stdout) = launched(&admin);
    assert_eq!(job["status"], "successful", "{job}\n{stdout}");
    assert!(stdout.contains("playbook two"), "{stdout}");
    let update = admin.get_json(&format!(
        "/api/v2/project_updates/{}/",
        job["project_update"]
    ));
    assert_eq!(update["status"], "successful", "{update}");
    assert_eq!(update["project"], id, "{update}");
    assert_ne!(&update["id"], first);
    assert!(
        update["finished"].as_str() <= job["started"].as_str(),
        "the job started before its update ended: {update} {job}"
    );
    assert_eq!(
        job["related"]["project_update"],
        format!("/api/v2/project_updates/{}/", update["id"])
    );
    assert_eq!(
        admin.get_json(&format!("/api/v2/projects/{id}/"))["scm_revision"],
        second
    );
    let behind = admin.get_json(&format!("/api/v2/jobs/?project_update={}", update["id"]));
    assert_eq!(behind["count"], 1, "{behind}");

    // Within the cache timeout a launch runs the checkout it has.
    admin
        .patch(&format!("/api/v2/projects/{id}/"))
        .json(&json!({"scm_update_cache_timeout": 3600}))
        .call()
        .expect(200);
    commit(
        work.path(),
        "site.yml",
        &versioned_playbook("three"),
        "three",
    );
    let (job, stdout) = launched(&admin);
    assert_eq!(job["status"], "successful", "{job}\n{stdout}");
    assert_eq!(job["project_update"], Value::Null, "{job}");
    assert!(stdout.contains("playbook two"), "{stdout}");

    // A failed update fails the job before it starts.
    admin
        .patch(&format!("/api/v2/projects/{id}/"))
        .json(&json!({"scm_update_cache_timeout": 0,
                      "scm_url": format!("git://{}/gone.git", test_host.address)}))
        .call()
        .expect(200);
    let (job, _) = launched(&admin);
    assert_eq!(job["status"], "failed", "{job}");
    assert_eq!(job["started"], Value::Null, "{job}");
    assert_eq!(
        job["job_explanation"],
        format!(
            r#"Previous Task Failed: {{"job_type": "project_update", "job_name": "site", "job_id": "{}"}}"#,
            job["project_update"]
        )
    );

    // A manual project neither updates on launch nor has submodules to track.
    let errors = admin
        .patch(&format!("/api/v2/projects/{id}/"))
        .json(&json!({"scm_type": "", "local_path": "elsewhere", "scm_update_on_launch": true}))
        .call()
        .expect(400)
        .field_errors("scm_update_on_launch");
    assert_eq!(errors, ["Only a git project takes this."]);
    let errors = admin
        .patch(&format!("/api/v2/projects/{id}/"))
        .json(&json!({"scm_update_cache_timeout": -1}))
        .call()
        .expect(400)
        .field_errors("scm_update_cache_timeout");
    assert_eq!(errors, ["Ensure this value is greater than or equal to 0."]);
}

/// A repository's submodules come with its checkout, at the commit it records; with
/// `scm_track_submodules`, at the head of their branch.
fn submodules_come_at_their_commit_or_tracked(backend: Backend) {
    let repositories = tempfile::tempdir().expect("a directory of repositories");
    let (library, recorded) =
        repository_with_playbook(repositories.path(), "library.git", PING_PLAYBOOK);
    let (site, _) = repository_with_playbook(repositories.path(), "site.git", PING_PLAYBOOK);
    let test_host = TestHost::start();
    let _daemon = serve(&test_host, repositories.path());
    let library_url = format!("git://{}/library.git", test_host.address);
    git(
        site.path(),
        &["submodule", "--quiet", "add", &library_url, "library"],
    );
    git(site.path(), &["commit", "--quiet", "-m", "the library"]);
    git(site.path(), &["push", "--quiet", "origin", "HEAD"]);
    let head = commit(
        library.path(),
        "NEWS",
        "later\n",
        "after the site recorded it",
    );

    let fixture = AutomationServer::start(backend, &[]);
    let server = &fixture.server;
    let admin = server.admin();
    let organization = server.create_organization("Git");
    let project = checked_out(
        &admin,
        &json!({"name": "site", "organization": organization, "scm_type": "git",
                "scm_url": format!("git://{}/site.git", test_host.address)}),
    );
    let checkout = fixture
        .projects_root
        .path()
        .join(project["local_path"].as_str().expect("local_path"));
    let submodule_head = || git(&checkout.join("library"), &["rev-parse", "HEAD"]);
    assert_eq!(submodule_head(), recorded);
    assert!(!checkout.join("library/NEWS").exists());

    let id = id_of(&project);
    let tracked = admin
        .patch(&format!("/api/v2/projects/{id}/"))
        .json(&json!({"scm_track_submodules": true}))
        .call()
        .expect(200)
        .json();
    assert_eq!(tracked["scm_track_submodules"], true, "{tracked}");
    let (done, stdout) = update(&admin, id);
    assert_eq!(done["status"], "successful", "{done}\n{stdout}");
    assert_eq!(submodule_head(), head);
}

/// `allow_override`: where the project allows it, a template runs another branch, tag or
/// commit (`scm_branch`) or prompts for one at launch (`ask_scm_branch_on_launch`); the job
/// checks it out in its own copy, the project's checkout stays as it is. Where the project
/// does not, both are refused, and the project keeps allowing it while templates use it.
fn a_template_runs_another_branch_where_the_project_allows_it(backend: Backend) {
    let repositories = tempfile::tempdir().expect("a directory of repositories");
    let (work, _) =
        repository_with_playbook(repositories.path(), "site.git", &versioned_playbook("one"));
    git(work.path(), &["tag", "v1"]);
    git(work.path(), &["push", "--quiet", "origin", "v1"]);
    git(work.path(), &["checkout", "--quiet", "-b", "feature"]);
    commit(
        work.path(),
        "site.yml",
        &versioned_playbook("feature"),
        "feature",
    );
    git(work.path(), &["checkout", "--quiet", "main"]);
    commit(work.path(), "site.yml", &versioned_playbook("two"), "two");
    let test_host = TestHost::start();
    let _daemon = serve(&test_host, repositories.path());

    let fixture = AutomationServer::start(backend, &[]);
    let server = &fixture.server;
    let admin = server.admin();
    let organization = server.create_organization("Git");
    let project = checked_out(
        &admin,
        &json!({"name": "site", "organization": organization, "scm_type": "git",
                "scm_url": format!("git://{}/site.git", test_host.address)}),
    );
    let id = id_of(&project);
    let inventory = fixture.create_local_inventory(&admin, organization);
    let template = |name: &str, more: Value| {
        let mut body = json!({"name": name, "project": id, "inventory": inventory,
                              "playbook": "site.yml"});
        for (key, value) in more.as_object().expect("an object") {
            body[key] = value.clone();
        }
        admin.post("/api/v2/job_templates/").json(&body).call()
    };
    for (field, value) in [
        ("scm_branch", json!("feature")),
        ("ask_scm_branch_on_launch", json!(true)),
    ] {
        let errors = template("refused", json!({ field: value }))
            .expect(400)
            .field_errors(field);
        assert_eq!(errors, ["Project does not allow overriding branch."]);
    }
    admin
        .patch(&format!("/api/v2/projects/{id}/"))
        .json(&json!({"allow_override": true}))
        .call()
        .expect(200);
    let on_feature = id_of(
        &template("feature", json!({"scm_branch": "feature"}))
            .expect(201)
            .json(),
    );
    let prompting = template("prompting", json!({"ask_scm_branch_on_launch": true}))
        .expect(201)
        .json();
    assert_eq!(prompting["ask_scm_branch_on_launch"], true, "{prompting}");
    let prompting = id_of(&prompting);
    let ran = |template: i64, body: Value| -> (Value, String) {
        let launched = admin
            .post(&format!("/api/v2/job_templates/{template}/launch/"))
            .json(&body)
            .call()
            .expect(201)
            .json();
        let job = wait_for_run(&admin, &format!("/api/v2/jobs/{}/", launched["job"]));
        let stdout = run_stdout(&admin, &job);
        (job, stdout)
    };

    let (job, stdout) = ran(on_feature, json!({}));
    assert_eq!(job["status"], "successful", "{job}\n{stdout}");
    assert_eq!(job["scm_branch"], "feature", "{job}");
    assert!(stdout.contains("playbook feature"), "{stdout}");
    let checkout = fixture
        .projects_root
        .path()
        .join(project["local_path"].as_str().expect("local_path"));
    assert!(
        std::fs::read_to_string(checkout.join("site.yml"))
            .expect("the project's playbook")
            .contains("playbook two"),
        "the job changed the project's checkout"
    );
    for (branch, said) in [("v1", "playbook one"), ("", "playbook two")] {
        let (job, stdout) = ran(prompting, json!({"scm_branch": branch}));
        assert_eq!(job["status"], "successful", "{branch}: {job}\n{stdout}");
        assert!(stdout.contains(said), "{branch}: {stdout}");
    }
    let (job, stdout) = ran(prompting, json!({"scm_branch": "nowhere"}));
    assert_eq!(job["status"], "failed", "{job}\n{stdout}");
    assert!(stdout.contains("nowhere"), "{stdout}");

    // The project keeps allowing it while templates use it.
    let errors = admin
        .patch(&format!("/api/v2/projects/{id}/"))
        .json(&json!({"allow_override": false}))
        .call()
        .expect(400)
        .field_errors("allow_override");
    assert_eq!(
        errors,
        [format!(
            "One or more job templates depend on branch override behavior for this project (ids: {on_feature} {prompting})."
        )]
    );
}

/// Waits in its own copy of the project for a file `go`, then says what `marker.txt` holds.
const GATED_PLAYBOOK: &str = r#"- hosts: all
  gather_facts: false
  tasks:
    - ansible.builtin.wait_for:
        path: "{{ playbook_dir }}/go"
        timeout: 120
    - ansible.builtin.debug:
        msg: "marker {{ lookup('file', 'marker.txt') }}"
"#;

/// A job runs from its own copy of the project: an update while it runs is not held back by
/// it, and does not change what the job reads.
fn a_running_job_keeps_the_checkout_it_started_with(backend: Backend) {
    let repositories = tempfile::tempdir().expect("a directory of repositories");
    let (work, _) = repository_with_playbook(repositories.path(), "site.git", GATED_PLAYBOOK);
    commit(work.path(), "marker.txt", "one", "one");
    let test_host = TestHost::start();
    let _daemon = serve(&test_host, repositories.path());

    let fixture = AutomationServer::start(backend, &[]);
    let server = &fixture.server;
    let admin = server.admin();
    let organization = server.create_organization("Git");
    let project = checked_out(
        &admin,
        &json!({"name": "site", "organization": organization, "scm_type": "git",
                "scm_url": format!("git://{}/site.git", test_host.address)}),
    );
    let id = id_of(&project);
    let inventory = fixture.create_local_inventory(&admin, organization);
    let template = id_of(
        &admin
            .post("/api/v2/job_templates/")
            .json(
                &json!({"name": "site", "project": id, "inventory": inventory,
                          "playbook": "site.yml"}),
            )
            .call()
            .expect(201)
            .json(),
    );
    let job_path = acs_tests::ansible::launch(&admin, template);
    acs_tests::ansible::wait_until_running(&admin, &job_path);

    commit(work.path(), "marker.txt", "two", "two");
    let (done, stdout) = update(&admin, id);
    assert_eq!(done["status"], "successful", "{done}\n{stdout}");
    let checkout = fixture
        .projects_root
        .path()
        .join(project["local_path"].as_str().expect("local_path"));
    assert_eq!(
        std::fs::read_to_string(checkout.join("marker.txt")).expect("the marker"),
        "two"
    );
    let running = admin.get_json(&job_path);
    assert_eq!(
        running["status"], "running",
        "the update waited for the job"
    );
    let copy = std::path::PathBuf::from(running["job_cwd"].as_str().expect("job_cwd"));
    assert_ne!(copy, checkout);
    std::fs::write(copy.join("go"), "").expect("the gate");
    let job = wait_for_run(&admin, &job_path);
    let stdout = run_stdout(&admin, &job);
    assert_eq!(job["status"], "successful", "{job}\n{stdout}");
    assert!(stdout.contains("marker one"), "{stdout}");
    assert!(!copy.exists(), "the job's copy outlived it");
}

/// The awx.awx `project` module making a git project and waiting for its first update (it
/// waits on the `summary_fields.current_update` of the creation's answer), then the same
/// again, which changes nothing; then an inventory, a template on the project and a launch
/// that waits for its job (which waited for the update its launch started).
const PROJECT_PLAYBOOK: &str = r#"- hosts: localhost
  connection: local
  gather_facts: false
  vars:
    ansible_python_interpreter: "{{ ansible_playbook_python }}"
  module_defaults:
    group/awx.awx.controller:
      controller_host: "{{ controller_host }}"
      controller_username: "{{ controller_username }}"
      controller_password: "{{ controller_password }}"
      validate_certs: false
  tasks:
    - awx.awx.project: &project
        name: site
        organization: Git
        scm_type: git
        scm_url: "{{ url }}"
        scm_update_on_launch: true
        wait: true
      register: made
    - awx.awx.project: *project
      register: again
    - awx.awx.inventory: {name: here, organization: Git}
    - awx.awx.host:
        name: localhost
        inventory: here
        variables:
          ansible_connection: local
          ansible_python_interpreter: "{{ '{{ ansible_playbook_python }}' }}"
    - awx.awx.job_template:
        name: site
        organization: Git
        project: site
        inventory: here
        playbook: site.yml
    - awx.awx.job_launch: {job_template: site, organization: Git, wait: true}
      register: launched
    - ansible.builtin.copy:
        dest: "{{ report_path }}"
        content: "{{ {'made': made, 'again': again, 'launched': launched} | to_json }}"
"#;

fn the_collections_project_module_waits_for_the_first_update(backend: Backend) {
    let repositories = tempfile::tempdir().expect("a directory of repositories");
    let bare = repositories.path().join("site.git");
    std::fs::create_dir(&bare).expect("the bare repository");
    git(&bare, &["init", "--quiet", "--bare"]);
    let work_dir = tempfile::tempdir().expect("a work tree");
    let work = work_dir.path();
    git(
        work,
        &["clone", "--quiet", &bare.display().to_string(), "."],
    );
    let first = commit(work, "site.yml", PING_PLAYBOOK, "first");
    let test_host = TestHost::start();
    let _daemon = serve(&test_host, repositories.path());
    let fixture = AutomationServer::start(backend, &[]);
    let server = &fixture.server;
    server.create_organization("Git");
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let report = scratch.path().join("report.json");
    let output = acs_tests::awx_collection::run_playbook(
        scratch.path(),
        PROJECT_PLAYBOOK,
        &json!({
            "controller_host": server.base,
            "controller_username": "admin",
            "controller_password": server.admin_password,
            "url": format!("git://{}/site.git", test_host.address),
            "report_path": report,
        }),
    );
    let log = format!("{output:?}");
    assert!(output.status.success(), "{log}");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("the report")).expect("JSON");
    assert_eq!(report["made"]["changed"], true, "{log}");
    assert_eq!(report["again"]["changed"], false, "{log}");
    let project = server.admin().get_json("/api/v2/projects/?name=site")["results"][0].clone();
    assert_eq!(project["status"], "successful", "{project}");
    assert_eq!(project["scm_revision"], first, "{project}");
    assert_eq!(report["launched"]["status"], "successful", "{log}");
    // The launch updated the project first (scm_update_on_launch), and the job waited.
    let job = server
        .admin()
        .get_json(&format!("/api/v2/jobs/{}/", report["launched"]["id"]));
    assert_eq!(job["status"], "successful", "{job}");
    assert!(job["project_update"].is_i64(), "{job}");
}

backend_tests!(
    a_git_project_is_checked_out_and_fetched_by_its_updates,
    git_urls_and_values_are_checked_before_they_reach_git,
    a_source_control_credential_authenticates_the_update_and_stays_secret,
    a_deploy_key_authenticates_the_update_over_ssh,
    a_launch_updates_its_project_first_when_asked,
    submodules_come_at_their_commit_or_tracked,
    a_template_runs_another_branch_where_the_project_allows_it,
    a_running_job_keeps_the_checkout_it_started_with,
    the_collections_project_module_waits_for_the_first_update,
);

//! Projects from git: a project with `scm_type: git` is checked out by its updates, inside
//! the run's sandbox and network, from a real `git daemon` on a test host (a network
//! namespace of its own, as a git server elsewhere would be). The update records the commit
//! (`scm_revision`), a later one fetches what was pushed since, `scm_branch` picks a branch,
//! a job runs the checkout, and a repository that is not there fails the update with git's
//! words. The API refuses the URLs the reference refuses, and a password in a URL.

use std::path::Path;
use std::process::Command;

use acs_tests::ansible::{AutomationServer, PING_PLAYBOOK, run_stdout, wait_for_run};
use acs_tests::netns::TestHost;
use acs_tests::{Agent, Backend, Call, backend_tests, id_of};
use serde_json::{Value, json};

/// Runs git in `dir` as the repository's author; returns its standard output.
fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args([
            "-c",
            "user.name=Author",
            "-c",
            "user.email=author@example.com",
        ])
        .args(["-c", "init.defaultBranch=main", "-c", "safe.directory=*"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(output.status.success(), "git {args:?}: {output:?}");
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// Commits `content` as `file` on the work tree's current branch and pushes it; returns the
/// commit.
fn commit(work: &Path, file: &str, content: &str, message: &str) -> String {
    std::fs::write(work.join(file), content).expect("a file");
    git(work, &["add", "."]);
    git(work, &["commit", "--quiet", "-m", message]);
    git(work, &["push", "--quiet", "origin", "HEAD"]);
    git(work, &["rev-parse", "HEAD"])
}

/// A git daemon serving `base` on the test host, stopped on drop.
struct Daemon(std::process::Child);

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(host: &TestHost, base: &Path) -> Daemon {
    let base = base.display().to_string();
    let listen = format!("--listen={}", host.address);
    let base_path = format!("--base-path={base}");
    let daemon = Daemon(host.spawn(
        "git",
        &[
            "daemon",
            "--reuseaddr",
            "--export-all",
            "--informative-errors",
            &listen,
            &base_path,
            &base,
        ],
    ));
    let started = std::time::Instant::now();
    while std::net::TcpStream::connect((host.address, 9418)).is_err() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "git daemon never listened"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    daemon
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
    assert_eq!(project["status"], "never updated", "{project}");
    assert_eq!(project["scm_revision"], "", "{project}");
    let checkout = fixture
        .projects_root
        .path()
        .join(project["local_path"].as_str().expect("local_path"));

    // The first update clones the default branch and records its commit.
    let (done, stdout) = update(&admin, id);
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

    // A repository that is not there fails the update, in git's words.
    let missing = id_of(
        &admin
            .post("/api/v2/projects/")
            .json(
                &json!({"name": "missing", "organization": organization, "scm_type": "git",
                          "scm_url": format!("git://{}/missing.git", test_host.address)}),
            )
            .call()
            .expect(201)
            .json(),
    );
    let (done, stdout) = update(&admin, missing);
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
            json!({"scm_update_on_launch": true}),
            "scm_update_on_launch",
            "not",
        ),
        (json!({"credential": 1}), "credential", "not"),
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

backend_tests!(
    a_git_project_is_checked_out_and_fetched_by_its_updates,
    git_urls_and_values_are_checked_before_they_reach_git,
);

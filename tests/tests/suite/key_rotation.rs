//! `rotate_secret_key` beside a live server: ten thousand credentials, secret settings, a
//! client creating and updating credentials and jobs running through the rotation; a database
//! dump searched for anything the old key still opens; a rotation killed and run again; a
//! server started with the retired key.

use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use acs_credential_types::InputCipher;
use acs_credential_types::cipher::{SEALED_PREFIX, sealed_key_id};
use acs_tests::ansible::{
    AutomationServer, REPORTING_PLAYBOOK, launch, read_report, wait_for_run, wait_until_running,
};
use acs_tests::{Agent, Backend, Call, TestServer, backend_tests, id_of};
use serde_json::{Value, json};

backend_tests!(
    a_rotation_beside_a_live_server_moves_every_secret_to_the_new_key,
    a_killed_rotation_loses_nothing_and_a_second_run_finishes_it,
    a_rotation_ended_at_each_step_finishes_when_run_again_beside_two_writing_nodes,
    a_node_the_next_key_never_reached_seals_nothing_under_the_retired_key,
    a_next_key_written_while_a_job_runs_stays_hidden_from_it,
);

/// Credentials written straight into the database before the rotation.
const BULK: usize = 10_000;

/// The labels the test's values are sealed under.
const LABELS: [&str; 3] = [
    "token",
    "setting:AUTH_LDAP_BIND_PASSWORD",
    "setting:OIDC_PROVIDERS:corp",
];

/// How a command ended.
#[derive(Debug)]
struct Outcome {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn rotate(server: &TestServer, args: &[&str]) -> Outcome {
    let output = server
        .management_command("rotate_secret_key")
        .args(args)
        .output()
        .expect("rotate_secret_key runs");
    let outcome = Outcome {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    assert!(!outcome.stderr.contains("panicked"), "{outcome:?}");
    outcome
}

fn key_file(server: &TestServer) -> std::path::PathBuf {
    server.data_dir().join("secret_key")
}

/// A credential type with a plain `user` and a secret `token`, injected as `MY_TOKEN`.
fn token_type(admin: &Agent) -> i64 {
    id_of(
        &admin
            .post("/api/v2/credential_types/")
            .json(&json!({
                "name": "Token", "kind": "cloud",
                "inputs": {"fields": [
                    {"id": "user", "label": "User"},
                    {"id": "token", "label": "Token", "secret": true},
                ]},
                "injectors": {"env": {"MY_TOKEN": "{{ token }}"}},
            }))
            .call()
            .expect(201)
            .json(),
    )
}

fn create_credential(
    admin: &Agent,
    organization: i64,
    type_id: i64,
    name: &str,
    token: &str,
) -> i64 {
    id_of(
        &admin
            .post("/api/v2/credentials/")
            .json(&json!({
                "name": name, "organization": organization, "credential_type": type_id,
                "inputs": {"user": "u", "token": token},
            }))
            .call()
            .expect(201)
            .json(),
    )
}

/// Writes [`BULK`] credentials of `type_id` straight into the database, their tokens sealed
/// under the server's key as the server would seal them.
fn bulk_credentials(server: &TestServer, organization: i64, type_id: i64) {
    let key = std::fs::read(key_file(server)).expect("the key file");
    let cipher = InputCipher::from_secret_key(&key);
    let rng = ring::rand::SystemRandom::new();
    let at = "'2024-01-01 00:00:00'";
    for chunk in (0..BULK).collect::<Vec<_>>().chunks(1_000) {
        let rows: Vec<String> = chunk
            .iter()
            .map(|i| {
                let token = cipher
                    .seal(&rng, "token", &format!("bulk-s3cret-{i}"))
                    .expect("sealed");
                let inputs = json!({"user": format!("u{i}"), "token": token});
                format!("('bulk {i}', '', {type_id}, {organization}, '{inputs}', {at}, {at})")
            })
            .collect();
        server.execute_sql_now(&format!(
            "INSERT INTO credentials (name, description, credential_type_id, organization_id, \
               inputs, created, modified) VALUES {}",
            rows.join(", ")
        ));
    }
}

/// The LDAP bind password and an OpenID provider's client secret, both sealed.
fn secret_settings(admin: &Agent) {
    admin
        .patch("/api/v2/settings/ldap/")
        .json(&json!({"AUTH_LDAP_BIND_PASSWORD": "bind-s3cret"}))
        .call()
        .expect(200);
    admin
        .patch("/api/v2/settings/oidc/")
        .json(&json!({"OIDC_PROVIDERS": [{
            "name": "corp", "label": "Corp", "issuer": "https://id.example.com",
            "client_id": "acs", "client_secret": "oidc-s3cret",
        }]}))
        .call()
        .expect(200);
}

/// Every sealed value in a dump of the database (SQLite's `.dump`, `pg_dump`).
fn sealed_values_in_dump(server: &TestServer) -> Vec<String> {
    let output = match server.database() {
        acs_storage::Database::Sqlite(path) => {
            Command::new("sqlite3").arg(&path).arg(".dump").output()
        }
        acs_storage::Database::Postgres(url) => Command::new("pg_dump").arg(&url).output(),
    }
    .expect("the dump tool runs");
    assert!(output.status.success(), "{output:?}");
    let dump = String::from_utf8_lossy(&output.stdout);
    let mut values = Vec::new();
    let mut rest = dump.as_ref();
    while let Some(start) = rest.find(SEALED_PREFIX) {
        let value: String = rest[start..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || "$+/=".contains(*c))
            .collect();
        rest = &rest[start + value.len()..];
        values.push(value);
    }
    values
}

/// `sealed` without its key id, so a cipher tries its own keys on it whatever key it names.
fn without_key_id(sealed: &str) -> String {
    let rest = &sealed[SEALED_PREFIX.len()..];
    let payload = rest.split_once('$').map_or(rest, |(_, payload)| payload);
    format!("{SEALED_PREFIX}{payload}")
}

/// Asserts that the old key opens nothing in a dump, and the new key every value there.
fn dump_holds_nothing_the_old_key_opens(server: &TestServer, old_key: &[u8], at_least: usize) {
    let old = InputCipher::from_secret_key(old_key);
    let new = InputCipher::from_secret_key(&std::fs::read(key_file(server)).expect("the key"));
    let values = sealed_values_in_dump(server);
    assert!(
        values.len() >= at_least,
        "{} sealed values in the dump",
        values.len()
    );
    for value in &values {
        let bare = without_key_id(value);
        for label in LABELS {
            assert!(old.open(label, &bare).is_err(), "the old key opens {value}");
        }
        assert_eq!(sealed_key_id(value), Some(new.current_key_id()), "{value}");
        assert!(
            LABELS.iter().any(|label| new.open(label, value).is_ok()),
            "{value}"
        );
    }
}

/// A job template of `organization` running `playbook` (written with `content` into a project
/// of its own) on a local inventory with `extra_vars`; returns its id.
fn playbook_template(
    fixture: &AutomationServer,
    admin: &Agent,
    organization: i64,
    (playbook, content): (&str, &str),
    extra_vars: &Value,
) -> i64 {
    let directory = playbook.trim_end_matches(".yml");
    fixture.project_file(directory, playbook, content);
    let project = fixture.create_project(admin, organization, directory);
    let inventory = fixture.create_local_inventory(admin, organization);
    id_of(
        &admin
            .post("/api/v2/job_templates/")
            .json(&json!({
                "name": directory, "project": project, "inventory": inventory,
                "playbook": playbook, "extra_vars": extra_vars.to_string(),
            }))
            .call()
            .expect(201)
            .json(),
    )
}

/// A reporting job template of `organization` using `credential`; returns its id.
fn job_template(
    fixture: &AutomationServer,
    admin: &Agent,
    organization: i64,
    credential: i64,
) -> i64 {
    let report = fixture.report_path("report.json");
    let template = playbook_template(
        fixture,
        admin,
        organization,
        ("site.yml", REPORTING_PLAYBOOK),
        &json!({"report_path": report, "report_env": ["MY_TOKEN"]}),
    );
    admin
        .post(&format!("/api/v2/job_templates/{template}/credentials/"))
        .json(&json!({ "id": credential }))
        .call()
        .expect(204);
    template
}

/// Runs the template to its end; returns the finished job.
fn run_job(admin: &Agent, template: i64) -> Value {
    wait_for_run(admin, &launch(admin, template))
}

/// What a client did while the rotation ran.
#[derive(Debug, Default)]
struct Traffic {
    created: AtomicUsize,
    updated: AtomicUsize,
    jobs: AtomicUsize,
}

fn a_rotation_beside_a_live_server_moves_every_secret_to_the_new_key(backend: Backend) {
    let fixture = AutomationServer::start(backend, &[]);
    let server = &fixture.server;
    let admin = server.admin();
    let organization = server.create_organization("Acme");
    let type_id = token_type(&admin);
    let job_credential = create_credential(&admin, organization, type_id, "job", "j0b-s3cret");
    let template = job_template(&fixture, &admin, organization, job_credential);
    bulk_credentials(server, organization, type_id);
    secret_settings(&admin);
    let old_key = std::fs::read(key_file(server)).expect("the key file");
    // On PostgreSQL a second node, sharing the database and the key file, serves too.
    let peer = (backend == Backend::Postgres).then(|| server.start_peer());
    let writers: Vec<Agent> = std::iter::once(admin.clone())
        .chain(peer.as_ref().map(TestServer::admin))
        .collect();

    let done = AtomicBool::new(false);
    let traffic = Traffic::default();
    let started = Instant::now();
    let outcome = std::thread::scope(|scope| {
        // A client writing, through each node in turn: new credentials, and updates that keep
        // a stored secret (which the node must open, under whichever key sealed it).
        scope.spawn(|| {
            while !done.load(Ordering::Acquire) {
                let n = traffic.created.fetch_add(1, Ordering::AcqRel);
                let writer = &writers[n % writers.len()];
                create_credential(writer, organization, type_id, &format!("live {n}"), "l1ve");
                writer
                    .patch(&format!("/api/v2/credentials/{job_credential}/"))
                    .json(&json!({"inputs": {"user": format!("u{n}"), "token": "$encrypted$"}}))
                    .call()
                    .expect(200);
                traffic.updated.fetch_add(1, Ordering::AcqRel);
            }
        });
        // Jobs, each given the secret opened from the database.
        scope.spawn(|| {
            while !done.load(Ordering::Acquire) {
                let job = run_job(&admin, template);
                assert_eq!(job["status"], "successful", "{job}");
                let report = read_report(&fixture.report_path("report.json"));
                assert_eq!(report["env"]["MY_TOKEN"], "j0b-s3cret", "{report}");
                traffic.jobs.fetch_add(1, Ordering::AcqRel);
            }
        });
        // Let the client and a job get going first.
        std::thread::sleep(Duration::from_secs(1));
        let outcome = rotate(server, &["--settle", "1"]);
        done.store(true, Ordering::Release);
        outcome
    });
    eprintln!(
        "rotation beside traffic took {:?}: {traffic:?}\n{}{}",
        started.elapsed(),
        outcome.stdout,
        outcome.stderr
    );
    assert_eq!(outcome.code, Some(0), "{outcome:?}");
    assert!(traffic.jobs.load(Ordering::Acquire) >= 1, "{traffic:?}");
    assert!(traffic.updated.load(Ordering::Acquire) >= 1, "{traffic:?}");

    // The key file holds the new key; the next file is gone.
    let new_key = std::fs::read(key_file(server)).expect("the key file");
    assert_ne!(new_key, old_key);
    assert!(!server.data_dir().join("secret_key.next").exists());
    let (old_id, new_id) = (
        InputCipher::from_secret_key(&old_key).current_key_id(),
        InputCipher::from_secret_key(&new_key).current_key_id(),
    );
    let summary = outcome.stdout.trim_end();
    let moved: usize = summary
        .strip_prefix("Re-encrypted ")
        .and_then(|rest| rest.split_once(' '))
        .and_then(|(count, _)| count.parse().ok())
        .unwrap_or_else(|| panic!("{summary}"));
    assert!(moved >= BULK, "{summary}");
    assert!(
        summary.ends_with(&format!(
            " credential inputs, 2 setting secrets, 0 sign-in secrets under key {new_id}; \
             the old key {old_id} is retired."
        )),
        "{summary}"
    );

    // Every value, including those the client wrote during the rotation, is under the new key.
    let credentials =
        usize::try_from(server.query_i64("SELECT COUNT(*) FROM credentials")).expect("a count");
    let check = rotate(server, &["--check"]);
    assert_eq!(check.code, Some(0), "{check:?}");
    assert_eq!(
        check.stdout,
        format!(
            "Key {new_id} (the key file's): {credentials} credential inputs, \
             2 setting secrets, 0 sign-in secrets\n"
        )
    );
    dump_holds_nothing_the_old_key_opens(server, &old_key, credentials + 2);

    // One activity-stream entry says what moved, naming the keys by id only.
    let page =
        admin.get_json("/api/v2/activity_stream/?operation=update&order_by=-id&page_size=20");
    let entries: Vec<&Value> = page["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|entry| entry["changes"]["command"] == "rotate_secret_key")
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    let changes = &entries[0]["changes"];
    assert_eq!(changes["from_key"], old_id.to_string(), "{changes}");
    assert_eq!(changes["to_key"], new_id.to_string(), "{changes}");
    assert_eq!(changes["credential_inputs"], moved, "{changes}");
    assert_eq!(changes["setting_secrets"], 2, "{changes}");
    assert!(changes.get("completed").is_none(), "{changes}");

    // The server seals under the new key and opens what it sealed before.
    let job = run_job(&admin, template);
    assert_eq!(job["status"], "successful", "{job}");
    assert_eq!(
        read_report(&fixture.report_path("report.json"))["env"]["MY_TOKEN"],
        "j0b-s3cret"
    );
}

/// Polls until `probe` holds, for at most a minute.
fn wait_until(what: &str, probe: impl Fn() -> bool) {
    let started = Instant::now();
    while !probe() {
        assert!(started.elapsed() < Duration::from_secs(60), "never: {what}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Stored credential inputs sealed under the key with id `id`.
fn sealed_under(server: &TestServer, id: &str) -> i64 {
    server.query_i64(&format!(
        "SELECT COUNT(*) FROM credentials WHERE inputs LIKE '%$encrypted$AESGCM${id}$%'"
    ))
}

fn a_killed_rotation_loses_nothing_and_a_second_run_finishes_it(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let organization = server.create_organization("Acme");
    let type_id = token_type(&admin);
    bulk_credentials(&server, organization, type_id);
    secret_settings(&admin);
    let old_key = std::fs::read(key_file(&server)).expect("the key file");
    let total = i64::try_from(BULK).expect("a count");

    // The next key first, as for nodes that each hold a copy of the key files.
    let prepared = rotate(&server, &["--prepare"]);
    assert_eq!(prepared.code, Some(0), "{prepared:?}");
    let next_file = server.data_dir().join("secret_key.next");
    let next_id = InputCipher::from_secret_key(&std::fs::read(&next_file).expect("the next key"))
        .current_key_id()
        .to_string();
    assert!(
        prepared
            .stdout
            .starts_with(&format!("The next key {next_id} is now in ")),
        "{prepared:?}"
    );
    assert_eq!(
        sealed_under(&server, &next_id),
        0,
        "--prepare moves nothing"
    );

    let mut child = server
        .management_command("rotate_secret_key")
        .args(["--settle", "60"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("rotate_secret_key starts");
    wait_until("values move", || sealed_under(&server, &next_id) > 0);
    child.kill().expect("SIGKILL");
    let _ = child.wait();
    let moved = sealed_under(&server, &next_id);
    eprintln!("killed with {moved} of {total} credentials moved");
    assert!(moved > 0);

    // Both keys are on disk, the server opens every value under either.
    assert_eq!(std::fs::read(key_file(&server)).expect("the key"), old_key);
    let check = rotate(&server, &["--check"]);
    assert_eq!(check.code, Some(0), "{check:?}");
    assert!(
        check
            .stdout
            .contains(&format!("Key {next_id} (the next key")),
        "{check:?}"
    );
    let last = server.query_i64("SELECT MAX(id) FROM credentials");
    for id in [1, last] {
        admin
            .patch(&format!("/api/v2/credentials/{id}/"))
            .json(&json!({"inputs": {"user": "after the kill", "token": "$encrypted$"}}))
            .call()
            .expect(200);
    }

    // A second run resumes with the same next key and finishes.
    let again = rotate(&server, &["--settle", "0"]);
    assert_eq!(again.code, Some(0), "{again:?}");
    let first_line = again.stderr.lines().next().unwrap_or_default();
    assert!(
        first_line.starts_with("Resuming the rotation from key "),
        "{again:?}"
    );
    assert!(
        first_line.ends_with(&format!(" to key {next_id}.")),
        "{again:?}"
    );
    assert_eq!(sealed_under(&server, &next_id), total);
    assert!(!next_file.exists());
    dump_holds_nothing_the_old_key_opens(&server, &old_key, BULK + 2);
    old_key_opens_nothing_after_a_restart(server, &old_key, last);
}

/// A server restarted with the retired key cannot open a secret, and says so clearly; it
/// seals nothing under that key either. Back on the key in force, it repairs the credential.
fn old_key_opens_nothing_after_a_restart(mut server: TestServer, old_key: &[u8], id: i64) {
    let new_key = std::fs::read(key_file(&server)).expect("the key in force");
    std::fs::write(key_file(&server), old_key).expect("the old key back");
    server.restart();
    let reply = server
        .admin()
        .patch(&format!("/api/v2/credentials/{id}/"))
        .json(&json!({"inputs": {"user": "u", "token": "$encrypted$"}}))
        .call();
    assert_eq!(reply.status, 400, "{}", reply.body);
    assert_eq!(
        reply.json(),
        json!({"inputs": {"token": [
            "The stored value cannot be opened with this server's secret key (was the key \
             file replaced?). Send the secret again."
        ]}})
    );
    let reply = server
        .admin()
        .patch(&format!("/api/v2/credentials/{id}/"))
        .json(&json!({"inputs": {"user": "u", "token": "n3w"}}))
        .call();
    assert_eq!(reply.status, 503, "{}", reply.body);
    let old_id = InputCipher::from_secret_key(old_key).current_key_id();
    let detail = reply.json()["detail"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        detail.starts_with(&format!(
            "this server's secret key {old_id} was retired by a key rotation"
        )),
        "{detail}"
    );
    // Sending the secret again, on the key in force, repairs the credential.
    std::fs::write(key_file(&server), new_key).expect("the key in force back");
    server
        .admin()
        .patch(&format!("/api/v2/credentials/{id}/"))
        .json(&json!({"inputs": {"user": "u", "token": "n3w"}}))
        .call()
        .expect(200);
}

/// A playbook that waits for `go_path`, then reports whether each of `probe_paths` exists.
const PROBING_PLAYBOOK: &str = r#"- hosts: all
  gather_facts: false
  tasks:
    - name: Wait for the test
      ansible.builtin.wait_for:
        path: "{{ go_path }}"
        timeout: 60
      delegate_to: localhost
      run_once: true
    - name: Look for the files
      ansible.builtin.stat:
        path: "{{ item }}"
      loop: "{{ probe_paths }}"
      register: probes
      delegate_to: localhost
      run_once: true
    - name: Report
      ansible.builtin.copy:
        dest: "{{ report_path }}"
        content: "{{ probes.results | map(attribute='stat.exists') | list | to_json }}"
      delegate_to: localhost
      run_once: true
"#;

/// With the key file in a directory of its own outside the data directory, a rotation that
/// starts while a job runs writes the next key where the job cannot see it.
fn a_next_key_written_while_a_job_runs_stays_hidden_from_it(backend: Backend) {
    // Outside the temporary directories (which runs get empty anyway) and the data directory.
    let outside = tempfile::tempdir_in(outside_the_temporary_directories()).expect("a directory");
    let key_dir = outside.path().join("keys");
    std::fs::create_dir(&key_dir).expect("the key directory");
    let neighbour = outside.path().join("neighbour");
    std::fs::write(&neighbour, "visible").expect("a visible file");
    let key_file = key_dir.join("secret_key");
    let key_var = key_file.display().to_string();
    let fixture = AutomationServer::start(backend, &[("ACS_SECRET_KEY_FILE", key_var.as_str())]);
    let admin = fixture.server.admin();
    let organization = fixture.server.create_organization("Acme");
    let go = fixture.report_path("go");
    let report = fixture.report_path("probes.json");
    let next_file = key_dir.join("secret_key.next");
    let probes = [&neighbour, &key_file, &next_file];
    let template = playbook_template(
        &fixture,
        &admin,
        organization,
        ("probe.yml", PROBING_PLAYBOOK),
        &json!({"go_path": go, "report_path": report, "probe_paths": probes}),
    );
    let job = launch(&admin, template);
    wait_until_running(&admin, &job);

    let mut command = fixture.server.management_command("rotate_secret_key");
    let prepared = command
        .env("ACS_SECRET_KEY_FILE", &key_file)
        .arg("--prepare")
        .output()
        .expect("rotate_secret_key runs");
    assert!(prepared.status.success(), "{prepared:?}");
    assert!(next_file.exists());
    std::fs::write(&go, "go").expect("the go file");

    let finished = wait_for_run(&admin, &job);
    assert_eq!(finished["status"], "successful", "{finished}");
    // The neighbour shows the job looked where the keys are; neither key is there for it.
    assert_eq!(read_report(&report), json!([true, false, false]));
}

/// A directory runs see as the host has it: the build's own scratch directory, unless the
/// checkout lives in a temporary directory (a clone under `/tmp`), whose contents no run sees;
/// then `/var/lib/acs-tests`, which the suite (run as root, as CI runs it) may create.
fn outside_the_temporary_directories() -> std::path::PathBuf {
    let scratch = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let temporary = [
        std::path::PathBuf::from("/tmp"),
        "/var/tmp".into(),
        std::env::temp_dir(),
    ];
    let resolved = |path: &std::path::Path| std::fs::canonicalize(path).unwrap_or(path.into());
    let scratch_resolved = resolved(&scratch);
    if !temporary
        .iter()
        .any(|dir| scratch_resolved.starts_with(resolved(dir)))
    {
        return scratch;
    }
    let fallback = std::path::PathBuf::from("/var/lib/acs-tests");
    std::fs::create_dir_all(&fallback).unwrap_or_else(|error| {
        panic!(
            "the checkout is in a temporary directory, which runs see empty, and {} cannot be \
             made for a directory outside it ({error}): run the suite as root or from a \
             checkout elsewhere",
            fallback.display()
        )
    });
    fallback
}

/// Every step at which a debug build of `rotate_secret_key` ends itself when asked (see its
/// `FaultPoint`), in the order the rotation reaches them.
const STEPS: [&str; 10] = [
    "began",
    "pass-1",
    "batch-1",
    "settling",
    "pass-2",
    "batch-2",
    "key-replaced",
    "pass-3",
    "batch-3",
    "retiring",
];

/// The exit status of a rotation ended at a step.
const ENDED_AT_STEP: i32 = 86;

/// The token each credential was last given through the API, by id.
type Written = Mutex<BTreeMap<i64, String>>;

/// Every credential's token, opened from the database under `key` alone.
fn tokens_under(server: &TestServer, key: &[u8]) -> BTreeMap<i64, String> {
    let cipher = InputCipher::from_secret_key(key);
    let mut conn = server.database().connect().expect("a connection");
    acs_storage::sealed::credential_inputs_after(&mut conn, 0, 100_000)
        .expect("the credentials")
        .into_iter()
        .map(|row| {
            let inputs: Value = serde_json::from_str(&row.inputs).expect("JSON inputs");
            let sealed = inputs["token"].as_str().expect("a token");
            let token = cipher
                .open("token", sealed)
                .unwrap_or_else(|error| panic!("credential {}: {error}", row.id));
            (row.id, token)
        })
        .collect()
}

/// A rotation ended abruptly at each of its steps in turn, each time run again to its end,
/// while two nodes create credentials and replace their secrets: after every step, every value
/// opens under the key file's key alone and holds what the API last wrote.
fn a_rotation_ended_at_each_step_finishes_when_run_again_beside_two_writing_nodes(
    backend: Backend,
) {
    let server = TestServer::start(backend);
    let peer = server.start_peer();
    let admin = server.admin();
    let organization = server.create_organization("Acme");
    let type_id = token_type(&admin);
    secret_settings(&admin);
    let written = Written::default();
    for n in 0..20 {
        let token = format!("first-{n}");
        let id = create_credential(&admin, organization, type_id, &format!("c{n}"), &token);
        written.lock().expect("the record").insert(id, token);
    }
    let writers = [admin.clone(), peer.admin()];
    let done = AtomicBool::new(false);
    let writes = AtomicUsize::new(0);

    std::thread::scope(|scope| {
        scope.spawn(|| {
            while !done.load(Ordering::Acquire) {
                let n = writes.fetch_add(1, Ordering::AcqRel);
                let writer = &writers[n % writers.len()];
                let token = format!("w{n}");
                // Each write happens under the record's lock, so the record always holds
                // what the database holds.
                let mut record = written.lock().expect("the record");
                if n.is_multiple_of(5) {
                    let id =
                        create_credential(writer, organization, type_id, &format!("w{n}"), &token);
                    record.insert(id, token);
                } else {
                    let ids: Vec<i64> = record.keys().copied().collect();
                    let id = ids[n % ids.len()];
                    writer
                        .patch(&format!("/api/v2/credentials/{id}/"))
                        .json(&json!({"inputs": {"user": "u", "token": token}}))
                        .call()
                        .expect(200);
                    record.insert(id, token);
                }
                drop(record);
                // A lock released and taken again at once would starve the checks.
                std::thread::sleep(Duration::from_millis(2));
            }
        });
        for step in STEPS {
            let ended = rotate_ending_at(&server, step);
            assert_eq!(ended.code, Some(ENDED_AT_STEP), "{step}: {ended:?}");
            let finished = rotate(&server, &["--settle", "0"]);
            assert_eq!(finished.code, Some(0), "after {step}: {finished:?}");
            assert!(
                finished
                    .stderr
                    .starts_with("Resuming the rotation from key "),
                "after {step}: {finished:?}"
            );
            let key = std::fs::read(key_file(&server)).expect("the key file");
            assert!(
                !server.data_dir().join("secret_key.next").exists(),
                "{step}"
            );
            assert!(
                !server.data_dir().join("secret_key.previous").exists(),
                "{step}"
            );
            // No write runs while the database is read.
            let record = written.lock().expect("the record");
            assert_eq!(tokens_under(&server, &key), *record, "after {step}");
        }
        done.store(true, Ordering::Release);
    });
    let total = writes.load(Ordering::Acquire);
    eprintln!(
        "{total} writes through two nodes beside {} rotations",
        STEPS.len()
    );
    assert!(total >= STEPS.len(), "{total} writes");
    let check = rotate(&server, &["--check"]);
    assert_eq!(check.code, Some(0), "{check:?}");
    assert_eq!(
        check.stdout.lines().count(),
        1,
        "one key seals everything: {check:?}"
    );
}

fn rotate_ending_at(server: &TestServer, step: &str) -> Outcome {
    let output = server
        .management_command("rotate_secret_key")
        .args(["--settle", "0"])
        .env("ACS_TEST_ROTATION_EXIT_AT", step)
        .output()
        .expect("rotate_secret_key runs");
    Outcome {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// A node with a copy of the key files that the rotation's next key never reached: once the
/// rotation retired its key, it refuses (503, naming the key) every write that would seal a
/// value under it, and writes nothing; a write that seals nothing still succeeds, and so does
/// the same sealing write through a node that holds the key.
fn a_node_the_next_key_never_reached_seals_nothing_under_the_retired_key(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let organization = server.create_organization("Acme");
    let type_id = token_type(&admin);
    let id = create_credential(&admin, organization, type_id, "c", "before");
    let copy = tempfile::tempdir().expect("a directory");
    let lagging_key = copy.path().join("secret_key");
    std::fs::copy(key_file(&server), &lagging_key).expect("a copy of the key file");
    let old_id = InputCipher::from_secret_key(&std::fs::read(&lagging_key).expect("the key"))
        .current_key_id();
    let lagging = server.start_peer_with_key_file(&lagging_key);
    let stale = lagging.admin();

    let rotated = rotate(&server, &["--settle", "0"]);
    assert_eq!(rotated.code, Some(0), "{rotated:?}");
    let new_key = std::fs::read(key_file(&server)).expect("the key file");

    let retired = format!(
        "this server's secret key {old_id} was retired by a key rotation, and the key now in \
         force never reached it: nothing was saved. Copy the deployment's key files to this node."
    );
    let reply = stale
        .patch(&format!("/api/v2/credentials/{id}/"))
        .json(&json!({"inputs": {"user": "u", "token": "stale"}}))
        .call();
    assert_eq!(reply.status, 503, "{}", reply.body);
    assert_eq!(reply.json()["detail"], retired.as_str());
    let reply = stale
        .post("/api/v2/credentials/")
        .json(&json!({
            "name": "stale", "organization": organization, "credential_type": type_id,
            "inputs": {"user": "u", "token": "stale"},
        }))
        .call();
    assert_eq!(reply.status, 503, "{}", reply.body);
    let reply = stale
        .patch("/api/v2/settings/ldap/")
        .json(&json!({"AUTH_LDAP_BIND_PASSWORD": "stale"}))
        .call();
    assert_eq!(reply.status, 503, "{}", reply.body);
    assert_eq!(server.query_i64("SELECT COUNT(*) FROM credentials"), 1);
    assert_eq!(
        tokens_under(&server, &new_key),
        BTreeMap::from([(id, "before".to_owned())])
    );
    // The stored value is under a key the node lacks: it is refused by field, not a 500.
    let reply = stale
        .patch(&format!("/api/v2/credentials/{id}/"))
        .json(&json!({"inputs": {"user": "u", "token": "$encrypted$"}}))
        .call();
    assert_eq!(reply.status, 400, "{}", reply.body);
    // Nothing sealed, nothing refused.
    stale
        .patch(&format!("/api/v2/credentials/{id}/"))
        .json(&json!({"description": "renamed by the lagging node"}))
        .call()
        .expect(200);
    // The node holding the key writes the same secret.
    admin
        .patch(&format!("/api/v2/credentials/{id}/"))
        .json(&json!({"inputs": {"user": "u", "token": "after"}}))
        .call()
        .expect(200);
    assert_eq!(
        tokens_under(&server, &new_key),
        BTreeMap::from([(id, "after".to_owned())])
    );
}

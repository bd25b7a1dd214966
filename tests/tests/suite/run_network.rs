//! Each run's network of its own (`JOB_ISOLATION_NETWORK`), tried as an attacker: an
//! organization admin's job runs shell commands on the controller (a host variable templated
//! through `lookup('pipe')`) and tries the host's services: a listener the test opens on every
//! host address, PostgreSQL over TCP and over its unix socket. Each attempt is checked from
//! the outside (the listener's count, the databases PostgreSQL holds). The same job still
//! reaches a machine it manages (a test host in a network namespace of its own); with
//! `"none"` it reaches nothing; with `"host"` it reaches the listener and PostgreSQL, which
//! proves the probe, not a probe that reaches nothing; without slirp4netns the run ends in
//! `error` and nothing of it runs. A project update, in the same network, fetches from a git
//! server elsewhere and reaches nothing of the host.

use std::net::Ipv4Addr;
use std::path::Path;
use std::process::Command;

use acs_tests::ansible::{AutomationServer, launch, wait_for_run};
use acs_tests::netns::{Listener, TestHost, host_addresses};
use acs_tests::{Agent, Backend, Call, backend_tests};
use serde_json::json;

/// The attacker's commands: every host address tried at the listener's port, PostgreSQL over
/// TCP and its socket (each creating a database named `victim_db`…), then the test host.
fn probe(report: &Path, port: u16, addresses: &[Ipv4Addr], database: &str, egress: &str) -> String {
    let mut script = format!(
        "#!/bin/bash\nexec > '{}' 2>&1\nid\n\
         try() {{ if timeout 5 bash -c \"exec 3<>/dev/tcp/$1/$2 && head -n1 <&3\" 2>/dev/null; then echo \"reached $1\"; else echo \"refused $1\"; fi; }}\n\
         try 127.0.0.1 {port}\ntry 10.0.2.2 {port}\n",
        report.display()
    );
    for address in addresses {
        script.push_str(&format!("try {address} {port}\n"));
    }
    script.push_str(&format!(
        "timeout 10 psql -h 127.0.0.1 -U postgres -d postgres -c 'CREATE DATABASE {database}_tcp' && echo 'psql over tcp created'\n\
         timeout 10 psql -h /var/run/postgresql -U postgres -d postgres -c 'CREATE DATABASE {database}_socket' && echo 'psql over the socket created'\n\
         ls -a /run /var/run\n\
         echo \"egress: $(timeout 10 bash -c 'exec 3<>/dev/tcp/{egress} && head -n1 <&3' 2>&1)\"\n"
    ));
    script
}

/// The databases PostgreSQL on the host holds whose names start with `prefix`.
fn databases_named(prefix: &str) -> Vec<String> {
    let output = Command::new("psql")
        .args([
            "-h",
            "127.0.0.1",
            "-U",
            "postgres",
            "-d",
            "postgres",
            "-tAc",
        ])
        .arg(format!(
            "SELECT datname FROM pg_database WHERE datname LIKE '{prefix}%' ORDER BY 1"
        ))
        .output()
        .expect("psql (PostgreSQL's client) runs");
    assert!(output.status.success(), "{output:?}");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

fn drop_databases(prefix: &str) {
    for name in databases_named(prefix) {
        let _ = Command::new("psql")
            .args(["-h", "127.0.0.1", "-U", "postgres", "-d", "postgres", "-c"])
            .arg(format!("DROP DATABASE {name}"))
            .status();
    }
}

/// Runs the template once under `network` and returns the probe's report.
fn run_with_network(
    fixture: &AutomationServer,
    agent: &Agent,
    template: i64,
    network: &str,
) -> String {
    let report = fixture.report_path("network.txt");
    let _ = std::fs::remove_file(&report);
    fixture
        .server
        .admin()
        .patch("/api/v2/settings/jobs/")
        .json(&json!({"JOB_ISOLATION_NETWORK": network}))
        .call()
        .expect(200);
    let job = wait_for_run(agent, &launch(agent, template));
    assert_eq!(job["status"], "successful", "{network}: {job}");
    std::fs::read_to_string(&report)
        .unwrap_or_else(|error| panic!("{network}: the probe wrote no report ({error}): {job}"))
}

fn a_job_reaches_the_machines_it_manages_and_nothing_of_the_host(backend: Backend) {
    let fixture = AutomationServer::start(backend, &[]);
    let on_host = Listener::on_host("host-listener");
    let test_host = TestHost::start();
    let managed = test_host.listen("test-host");
    let port = on_host.address.port();
    // Read after the test host's pair exists: its host end is one of the host's addresses.
    let addresses = host_addresses();
    assert!(addresses.contains(&test_host.host_side), "{addresses:?}");
    let database = format!("acs_pwned_{}", std::process::id());
    drop_databases(&database);
    let egress = format!("{}/{}", managed.address.ip(), managed.address.port());
    let script = probe(
        &fixture.report_path("network.txt"),
        port,
        &addresses,
        &database,
        &egress,
    );
    let (mallory, template) = fixture.attacker_template(&script);

    // The default: a network of its own, with egress.
    let report = run_with_network(&fixture, &mallory, template, "isolated");
    assert!(report.contains("uid=65534"), "{report}");
    assert_eq!(on_host.accepted(), 0, "the run reached the host:\n{report}");
    for address in ["127.0.0.1".to_owned(), "10.0.2.2".to_owned()]
        .into_iter()
        .chain(addresses.iter().map(Ipv4Addr::to_string))
    {
        assert!(
            report.contains(&format!("refused {address}\n")),
            "{address}:\n{report}"
        );
    }
    assert!(!report.contains("psql over"), "{report}");
    assert_eq!(databases_named(&database), Vec::<String>::new(), "{report}");
    assert!(report.contains("egress: test-host\n"), "{report}");
    assert_eq!(managed.accepted(), 1, "{report}");

    // No network: not even the managed machine.
    let report = run_with_network(&fixture, &mallory, template, "none");
    assert!(!report.contains("egress: test-host"), "{report}");
    assert_eq!(managed.accepted(), 1, "{report}");
    assert_eq!(on_host.accepted(), 0, "{report}");

    // The host's network, an operator's opt-out: the same probe reaches the listener and
    // PostgreSQL (its socket stays hidden with `/run`).
    let report = run_with_network(&fixture, &mallory, template, "host");
    let reached = on_host.accepted();
    drop_databases(&database);
    assert!(reached > 0, "{report}");
    assert!(report.contains("reached 127.0.0.1\n"), "{report}");
    assert!(report.contains("psql over tcp created"), "{report}");
    assert!(!report.contains("psql over the socket created"), "{report}");
}

/// A project update runs in the same network of its own: an organization admin's git
/// project pointed at the host's services (loopback, slirp's host alias, every host address)
/// fails without reaching them, while one on a git server elsewhere (a test host) is fetched;
/// on the host's network the same URL reaches the listener, which proves the probe.
fn a_project_update_reaches_its_git_server_and_nothing_of_the_host(backend: Backend) {
    let fixture = AutomationServer::start(backend, &[]);
    let on_host = Listener::on_host("host-listener");
    let test_host = TestHost::start();
    let repositories = tempfile::tempdir().expect("a directory of repositories");
    acs_tests::git_server::repository_with_playbook(
        repositories.path(),
        "site.git",
        acs_tests::ansible::PING_PLAYBOOK,
    );
    let _daemon = acs_tests::git_server::serve(&test_host, repositories.path());
    let addresses = host_addresses();
    let server = &fixture.server;
    let organization = server.create_organization("attackers");
    let mallory = server.create_user("mallory", "Mallory-pass-1", false);
    server.add_admin(organization, mallory);
    let mallory = server.as_user("mallory", "Mallory-pass-1");
    let updated = |name: &str, url: String| -> serde_json::Value {
        let project = mallory
            .post("/api/v2/projects/")
            .json(
                &json!({"name": name, "organization": organization, "scm_type": "git",
                          "scm_url": url}),
            )
            .call()
            .expect(201)
            .json();
        let update = &project["summary_fields"]["current_update"]["id"];
        wait_for_run(&mallory, &format!("/api/v2/project_updates/{update}/"))
    };

    let port = on_host.address.port();
    for (index, address) in ["127.0.0.1".to_owned(), "10.0.2.2".to_owned()]
        .into_iter()
        .chain(addresses.iter().map(Ipv4Addr::to_string))
        .enumerate()
    {
        let update = updated(
            &format!("host {index}"),
            format!("git://{address}:{port}/site.git"),
        );
        assert_eq!(update["status"], "failed", "{address}: {update}");
        assert_eq!(on_host.accepted(), 0, "an update reached {address}");
    }
    let fetched = updated("elsewhere", format!("git://{}/site.git", test_host.address));
    assert_eq!(fetched["status"], "successful", "{fetched}");

    server
        .admin()
        .patch("/api/v2/settings/jobs/")
        .json(&json!({"JOB_ISOLATION_NETWORK": "host"}))
        .call()
        .expect(200);
    let update = updated("on the host", format!("git://127.0.0.1:{port}/site.git"));
    assert_eq!(update["status"], "failed", "{update}");
    assert!(
        on_host.accepted() > 0,
        "the probe reached nothing: {update}"
    );
}

fn without_slirp4netns_an_isolated_run_ends_in_error_and_nothing_runs(backend: Backend) {
    let fixture = AutomationServer::start(
        backend,
        &[(
            "ACS_JOB_ISOLATION_SLIRP4NETNS_PATH",
            "/nonexistent/slirp4netns",
        )],
    );
    let report = fixture.report_path("network.txt");
    let script = format!("#!/bin/bash\necho ran > '{}'\n", report.display());
    let (mallory, template) = fixture.attacker_template(&script);
    let job = wait_for_run(&mallory, &launch(&mallory, template));
    assert_eq!(job["status"], "error", "{job}");
    let explanation = job["job_explanation"].as_str().unwrap_or_default();
    assert!(
        explanation.contains("/nonexistent/slirp4netns") && explanation.contains("\"none\""),
        "{job}"
    );
    assert!(!report.exists(), "the job ran without its network");

    // A bad value is refused with the field and the reason.
    let refused = fixture
        .server
        .admin()
        .patch("/api/v2/settings/jobs/")
        .json(&json!({"JOB_ISOLATION_NETWORK": "bridge"}))
        .call()
        .expect(400)
        .json();
    assert!(
        refused["JOB_ISOLATION_NETWORK"][0]
            .as_str()
            .is_some_and(|reason| reason.contains("not a valid choice")),
        "{refused}"
    );
}

backend_tests!(
    a_job_reaches_the_machines_it_manages_and_nothing_of_the_host,
    a_project_update_reaches_its_git_server_and_nothing_of_the_host,
    without_slirp4netns_an_isolated_run_ends_in_error_and_nothing_runs,
);

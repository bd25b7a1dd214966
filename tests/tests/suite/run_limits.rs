//! A run's resources are bounded (the `JOB_ISOLATION_*` limits): an organization admin's
//! job that fills `/tmp` with 3 GiB stops at the in-memory cap, one that forks 10 000
//! sleeping children stops at the process limit; each fails saying which limit it met, the
//! server answers throughout, and the next job runs normally.

use acs_tests::ansible::{AutomationServer, launch, run_stdout as stdout, wait_for_run};
use acs_tests::{Agent, Backend, Call, backend_tests, id_of};
use serde_json::json;

const FILL_TMP: &str = "- hosts: all\n  gather_facts: false\n  tasks:\n    - ansible.builtin.command: dd if=/dev/zero of=/tmp/fill bs=1M count=3072\n";

/// dash (Debian's `/bin/sh`, which the shell module runs) gives up at the first fork that
/// fails, where bash would retry for a while.
const FORK_MANY: &str = "- hosts: all\n  gather_facts: false\n  tasks:\n    - ansible.builtin.shell: \"i=0; while [ $i -lt 10000 ]; do sleep 120 & i=$((i+1)); done\"\n";

const HARMLESS: &str = "- hosts: all\n  gather_facts: false\n  tasks:\n    - ansible.builtin.command: echo still-fine\n      register: said\n    - ansible.builtin.debug:\n        var: said.stdout\n";

fn template(agent: &Agent, project: i64, inventory: i64, playbook: &str) -> i64 {
    id_of(
        &agent
            .post("/api/v2/job_templates/")
            .json(&json!({"name": playbook, "project": project, "inventory": inventory, "playbook": playbook}))
            .call()
            .expect(201)
            .json(),
    )
}

fn a_run_stops_at_its_limits_and_the_next_runs_normally(backend: Backend) {
    let fixture = AutomationServer::start(backend, &[]);
    let server = &fixture.server;
    let organization = server.create_organization("greedy");
    let mallory = server.create_user("mallory", "Mallory-pass-1", false);
    server.add_admin(organization, mallory);
    let agent = server.as_user("mallory", "Mallory-pass-1");
    for (file, playbook) in [
        ("fill.yml", FILL_TMP),
        ("fork.yml", FORK_MANY),
        ("fine.yml", HARMLESS),
    ] {
        fixture.project_file("greedy", file, playbook);
    }
    let project = fixture.create_project(&agent, organization, "greedy");
    let inventory = fixture.create_local_inventory(&agent, organization);

    // The default cap: 1024 MiB in /tmp.
    let job = wait_for_run(
        &agent,
        &launch(&agent, template(&agent, project, inventory, "fill.yml")),
    );
    let output = stdout(&agent, &job);
    assert_eq!(job["status"], "failed", "{job}\n{output}");
    assert!(output.contains("No space left on device"), "{output}");
    let explanation = job["job_explanation"].as_str().unwrap_or_default();
    assert!(
        explanation.contains("JOB_ISOLATION_TMPFS_MB") && explanation.contains("1024 MiB"),
        "{job}"
    );
    server.admin().get("/api/v2/ping/").call().expect(200);

    // A lower process limit than the default (4096), still far above what a playbook needs:
    // runs of other tests on this machine share the run user's count.
    server
        .admin()
        .patch("/api/v2/settings/jobs/")
        .json(&json!({"JOB_ISOLATION_MAX_PROCESSES": 1000}))
        .call()
        .expect(200);
    let job = wait_for_run(
        &agent,
        &launch(&agent, template(&agent, project, inventory, "fork.yml")),
    );
    let output = stdout(&agent, &job);
    assert_eq!(job["status"], "failed", "{job}\n{output}");
    assert!(output.contains("Cannot fork"), "{output}");
    let explanation = job["job_explanation"].as_str().unwrap_or_default();
    assert!(
        explanation.contains("JOB_ISOLATION_MAX_PROCESSES") && explanation.contains("1000"),
        "{job}\n{output}"
    );
    server.admin().get("/api/v2/ping/").call().expect(200);

    let job = wait_for_run(
        &agent,
        &launch(&agent, template(&agent, project, inventory, "fine.yml")),
    );
    let output = stdout(&agent, &job);
    assert_eq!(job["status"], "successful", "{job}\n{output}");
    assert!(
        output.contains("\"said.stdout\": \"still-fine\""),
        "{output}"
    );
    assert_eq!(job["job_explanation"], "", "{job}");
}

backend_tests!(a_run_stops_at_its_limits_and_the_next_runs_normally);

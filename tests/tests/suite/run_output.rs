//! A run's output is read a page at a time: the events of a job with a multi-megabyte output
//! cost the server the page, not the output, measured on the real server process (its peak
//! resident memory while it answers), on both databases.

use acs_tests::process::ServerProcess;
use acs_tests::{Backend, Call, backend_tests, id_of};
use diesel::connection::SimpleConnection;
use serde_json::{Value, json};

/// Lines of the output, each about 80 bytes: about 24 MiB in all.
const LINES: i64 = 300_000;

/// A finished job of `organization` with [`LINES`] lines of output, written behind the
/// server's back (no run makes that much output in a test's time).
fn seed_large_output(server: &ServerProcess, organization: i64) {
    let mut conn = server.database().connect().expect("a connection");
    let last = LINES - 1;
    let lines = match server.backend {
        Backend::Sqlite => format!(
            "WITH RECURSIVE n (i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < {last}) \
             INSERT INTO unified_job_lines (unified_job_id, line, text) \
             SELECT 1, i, printf('%06d %s', i, hex(randomblob(36))) || char(10) FROM n;"
        ),
        Backend::Postgres => format!(
            "INSERT INTO unified_job_lines (unified_job_id, line, text) \
             SELECT 1, i, lpad(i::text, 6, '0') || ' ' || md5(i::text) || md5((i + 1)::text) \
             || md5((i + 2)::text)::varchar(8) || E'\\n' FROM generate_series(0, {last}) AS i;"
        ),
    };
    conn.batch_execute(&format!(
        "INSERT INTO unified_jobs (id, kind, name, status, organization_id, created, modified) \
         VALUES (1, 'job', 'loud', 'successful', {organization}, \
                 '2026-01-01 00:00:00', '2026-01-01 00:00:00'); {lines}"
    ))
    .expect("the large output");
}

fn events_of_a_large_output_cost_one_page(backend: Backend) {
    let server = ServerProcess::start(backend, &[]);
    let admin = server.admin();
    let organization = id_of(
        &admin
            .post("/api/v2/organizations/")
            .json(&json!({"name": "loud"}))
            .call()
            .expect(201)
            .json(),
    );
    seed_large_output(&server, organization);
    let events = "/api/v2/jobs/1/job_events/";
    let pages = [
        format!("{events}?page_size=50"),
        format!("{events}?order_by=-start_line&page_size=50"),
        format!("{events}?start_line__gte={}", LINES - 10),
        format!("{events}?page={}&page_size=200", LINES / 200),
    ];
    let fetch = |path: &str| -> Value { admin.get(path).call().expect(200).json() };

    let first = fetch(&pages[0]);
    assert_eq!(first["count"], LINES, "{first}");
    assert_eq!(first["results"][0]["start_line"], 0);
    assert!(
        first["results"][0]["stdout"]
            .as_str()
            .unwrap_or_default()
            .starts_with("000000 ")
    );
    let last = fetch(&pages[1]);
    assert_eq!(last["results"][0]["start_line"], LINES - 1, "{last}");
    let tail = fetch(&pages[2]);
    assert_eq!(tail["count"], 10, "{tail}");

    // Every connection of the pool and every worker warmed up, then the peak measured.
    for _ in 0..10 {
        for page in &pages {
            fetch(page);
        }
    }
    server.reset_peak_memory();
    let (before, _) = server.memory_kib();
    for _ in 0..20 {
        for page in &pages {
            fetch(page);
        }
    }
    let (_, peak) = server.memory_kib();
    let grown = peak.saturating_sub(before);
    // The output is about 24 MiB; one request that held it would show here many times over.
    assert!(
        grown < 4 * 1024,
        "answering 80 pages of events raised the server's resident memory by {grown} KiB (from {before} KiB)"
    );
}

backend_tests!(events_of_a_large_output_cost_one_page);

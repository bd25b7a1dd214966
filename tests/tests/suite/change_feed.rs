//! The change feed (`acs_storage::change_feed`): servers learn of changes made elsewhere
//! without reading the change counters on every request, within the consistency bound of
//! `docs/architecture.md` (100 ms), and fall back to reading them on every request while the
//! feed is broken.

use std::time::{Duration, Instant};

use acs_tests::{
    Agent, Backend, CHANGE_BOUND, Call, TestServer, honoured_within_bound, management_binary,
};
use serde_json::json;

/// A write-scoped personal token of `agent`'s user, described as `description`.
fn token(agent: &Agent, description: &str) -> String {
    let me = agent.get_json("/api/v2/me/")["results"][0]["id"].clone();
    agent
        .post(&format!("/api/v2/users/{me}/personal_tokens/"))
        .json(&json!({ "scope": "write", "description": description }))
        .call()
        .expect(201)
        .json()["token"]
        .as_str()
        .expect("a token")
        .to_owned()
}

fn summary(delays: &mut [Duration]) -> String {
    delays.sort();
    format!(
        "median {:?}, max {:?} over {}",
        delays[delays.len() / 2],
        delays[delays.len() - 1],
        delays.len()
    )
}

#[test]
fn a_revocation_through_one_server_reaches_the_other_within_the_bound() {
    let first = TestServer::start(Backend::Postgres);
    let second = first.start_peer();
    let admin = first.admin();
    let mut delays = Vec::new();
    for round in 0..20 {
        let token = token(&admin, &format!("round {round}"));
        // Cached on the second server before the revocation.
        assert_eq!(second.bearer_me_status(&token), 200);
        let id = first.query_i64("SELECT MAX(id) FROM access_tokens");
        admin
            .delete(&format!("/api/v2/tokens/{id}/"))
            .call()
            .expect(204);
        let revoked_at = Instant::now();
        // The server that revoked it honours it at once.
        assert_eq!(first.bearer_me_status(&token), 401);
        delays.push(honoured_within_bound(revoked_at, 401, || {
            second.bearer_me_status(&token)
        }));
    }
    eprintln!(
        "the other server refused a revoked token after: {}",
        summary(&mut delays)
    );
}

#[test]
fn revoke_oauth2_tokens_reaches_live_servers_within_the_bound() {
    let first = TestServer::start(Backend::Postgres);
    let second = first.start_peer();
    let admin = first.admin();
    let mut delays = Vec::new();
    for round in 0..5 {
        let token = token(&admin, &format!("round {round}"));
        assert_eq!(first.bearer_me_status(&token), 200);
        assert_eq!(second.bearer_me_status(&token), 200);
        let status = first
            .management_command("revoke_oauth2_tokens")
            .status()
            .expect("revoke_oauth2_tokens runs");
        assert!(status.success(), "{status}");
        let revoked_at = Instant::now();
        for server in [&first, &second] {
            delays.push(honoured_within_bound(revoked_at, 401, || {
                server.bearer_me_status(&token)
            }));
        }
    }
    eprintln!(
        "servers refused tokens revoked by {} after: {}",
        management_binary("revoke_oauth2_tokens").display(),
        summary(&mut delays)
    );
}

#[test]
fn an_emptied_token_table_reaches_live_servers_within_the_bound() {
    let first = TestServer::start(Backend::Postgres);
    let second = first.start_peer();
    let admin = first.admin();
    let token = token(&admin, "emptied");
    for server in [&first, &second] {
        assert_eq!(server.bearer_me_status(&token), 200);
    }
    // An operator's emergency revocation by SQL, from outside either server.
    first.execute_sql_now("TRUNCATE access_tokens CASCADE");
    let emptied_at = Instant::now();
    for server in [&first, &second] {
        honoured_within_bound(emptied_at, 401, || server.bearer_me_status(&token));
    }
}

/// The feed's own PostgreSQL sessions on the server's database.
const FEED_SESSIONS: &str = "FROM pg_stat_activity WHERE application_name = 'acs-change-feed' \
     AND datname = current_database()";

/// Waits up to 5 s for the feed to hold its one session on the server's database.
fn wait_for_feed_session(server: &TestServer, failure: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while server.query_i64(&format!("SELECT COUNT(*) {FEED_SESSIONS}")) != 1 {
        assert!(Instant::now() < deadline, "{failure}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_lost_feed_falls_back_to_reading_the_counters_until_it_is_back() {
    let server = TestServer::start(Backend::Postgres);
    let admin = server.admin();
    let tokens: Vec<String> = (0..5)
        .map(|round| token(&admin, &format!("fallback {round}")))
        .collect();
    // The feed connects on a thread of its own once the server is up; until then requests
    // read the counters themselves, as they do below while it is down.
    wait_for_feed_session(&server, "the feed never connected");

    server.execute_sql_now(&format!("SELECT pg_terminate_backend(pid) {FEED_SESSIONS}"));
    // The feed finds out at its next read (every 10 ms) and reconnects a second later.
    std::thread::sleep(Duration::from_millis(200));
    for (round, token) in tokens.iter().enumerate() {
        // Served, and so cached under counters that this very request read and published.
        assert_eq!(server.bearer_me_status(token), 200);
        server.execute_sql_now(&format!(
            "DELETE FROM access_tokens WHERE description = 'fallback {round}'"
        ));
        // No wait: without a feed each request reads the counters itself. Trusting the
        // counters published a few milliseconds ago would serve the cached principal.
        assert_eq!(
            server.bearer_me_status(token),
            401,
            "round {round}: a revoked token served while the feed was down"
        );
    }

    wait_for_feed_session(&server, "the feed never reconnected");
    // Back, and bounded again.
    std::thread::sleep(CHANGE_BOUND);
    let token = token(&admin, "after");
    assert_eq!(server.bearer_me_status(&token), 200);
    server.execute_sql_now("DELETE FROM access_tokens WHERE description = 'after'");
    honoured_within_bound(Instant::now(), 401, || server.bearer_me_status(&token));
}

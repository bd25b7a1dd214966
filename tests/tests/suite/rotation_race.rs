//! Refresh-token rotation at the storage level, under real concurrency on both backends: of
//! many connections marking one refresh token used at once, exactly one wins (contract §4:
//! "exactly one succeeds"), and what it revoked is refused by the running server within the
//! consistency bound (the rotation is SQL behind the server's back, as another server's is).

use std::sync::{Arc, Barrier};
use std::time::Instant;

use acs_tests::{Backend, Call, TestServer, backend_tests, honoured_within_bound};
use diesel::Connection;
use serde_json::json;

backend_tests!(one_of_twenty_concurrent_rotations_wins);

/// Connections racing for one refresh token.
const RACERS: usize = 20;

fn one_of_twenty_concurrent_rotations_wins(backend: Backend) {
    let server = TestServer::start(backend);
    let alice_id = server.create_user("alice", "pw-alice-1", false);
    let org = server.create_organization("cli-org");
    server.add_member(org, alice_id);
    let app = server.password_application(org, "cli", Some(alice_id));
    let alice = server.as_user("alice", "pw-alice-1");
    let created = alice
        .post(&format!("/api/v2/applications/{app}/tokens/"))
        .json(&json!({ "scope": "write" }))
        .call()
        .expect(201)
        .json();
    let access = created["token"].as_str().expect("a token").to_owned();
    let refresh = acs_oauth2::PlainSecret::new(
        created["refresh_token"]
            .as_str()
            .expect("a refresh token")
            .to_owned(),
    );
    let bearer = |token: &str| {
        server
            .anonymous()
            .with_bearer(token)
            .get("/api/v2/me/")
            .call()
            .status
    };
    // Used once, so the server holds the principal in its cache.
    assert_eq!(bearer(&access), 200);

    let database = server.database();
    let token = {
        let mut conn = database.connect().expect("a connection");
        acs_storage::refresh_tokens::find_by_digest(&mut conn, refresh.digest().as_bytes())
            .expect("a lookup")
            .expect("the refresh token is stored")
    };
    assert!(token.access_token_id.is_some());
    // Every racer holds its own connection before the start, so they really overlap.
    let barrier = Arc::new(Barrier::new(RACERS));
    let racers: Vec<_> = (0..RACERS)
        .map(|_| {
            let mut conn = database.connect().expect("a connection");
            let (barrier, token) = (Arc::clone(&barrier), token.clone());
            std::thread::spawn(move || {
                barrier.wait();
                let now = chrono::Utc::now().naive_utc();
                conn.transaction(|conn| acs_storage::refresh_tokens::mark_used(conn, &token, now))
                    .expect("the rotation runs")
            })
        })
        .collect();
    let winners = racers
        .into_iter()
        .map(|racer| racer.join().expect("a racer finishes"))
        .filter(|won| *won)
        .count();
    let rotated = Instant::now();
    assert_eq!(winners, 1);

    // The winner deleted the access token; the server learns of it from its change feed.
    honoured_within_bound(rotated, 401, || bearer(&access));
    assert_eq!(
        server.query_i64("SELECT COUNT(*) FROM refresh_tokens WHERE revoked IS NOT NULL"),
        1
    );
}

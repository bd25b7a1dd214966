//! Refresh-token rotation at the storage level, under real concurrency on both backends: of
//! many connections marking one refresh token used at once, exactly one wins (contract §4:
//! "exactly one succeeds"), and what it revoked is refused by the running server within the
//! consistency bound (the rotation is SQL behind the server's back, as another server's is).

use std::sync::{Arc, Barrier};
use std::time::Instant;

use acs_storage::DbConnection;
use acs_storage::refresh_tokens::{RefreshToken, mark_used};
use acs_tests::{Backend, Call, TestServer, backend_tests, honoured_within_bound};
use diesel::connection::SimpleConnection;
use diesel::{Connection, RunQueryDsl};
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

/// The slot of the change counters a PostgreSQL session's triggers bump (the migration
/// `revisions_in_slots`).
fn counter_slot(conn: &mut DbConnection) -> i32 {
    let DbConnection::Postgres(conn) = conn else {
        panic!("slots are PostgreSQL's");
    };
    let pid: i32 = diesel::select(diesel::dsl::sql::<diesel::sql_types::Integer>(
        "pg_backend_pid()",
    ))
    .get_result(conn)
    .expect("the session's pid");
    pid % 64
}

/// On PostgreSQL, rotations of different refresh tokens do not queue for each other's
/// commit. Each deletes an access token, which bumps a change counter; with one row of
/// counters, the first rotation held that row's lock until it committed and the second
/// waited for it. Now each session bumps the row of its own slot. (SQLite takes one writer at
/// a time by design: nothing to show there.)
#[test]
fn rotations_of_different_tokens_do_not_wait_for_each_others_commit() {
    let server = TestServer::start(Backend::Postgres);
    let alice_id = server.create_user("alice", "pw-alice-1", false);
    let org = server.create_organization("cli-org");
    server.add_member(org, alice_id);
    let app = server.password_application(org, "cli", Some(alice_id));
    let alice = server.as_user("alice", "pw-alice-1");
    let database = server.database();
    let refresh_token = || -> RefreshToken {
        let created = alice
            .post(&format!("/api/v2/applications/{app}/tokens/"))
            .json(&json!({ "scope": "write" }))
            .call()
            .expect(201)
            .json();
        let refresh = acs_oauth2::PlainSecret::new(
            created["refresh_token"]
                .as_str()
                .expect("a refresh token")
                .to_owned(),
        );
        let mut conn = database.connect().expect("a connection");
        acs_storage::refresh_tokens::find_by_digest(&mut conn, refresh.digest().as_bytes())
            .expect("a lookup")
            .expect("the refresh token is stored")
    };
    let (first_token, second_token) = (refresh_token(), refresh_token());

    let mut first = database.connect().expect("a connection");
    let first_slot = counter_slot(&mut first);
    let mut second = std::iter::repeat_with(|| database.connect().expect("a connection"))
        .find_map(|mut conn| (counter_slot(&mut conn) != first_slot).then_some(conn))
        .expect("a session in another slot");
    let now = chrono::Utc::now().naive_utc();
    first
        .transaction(|first| {
            assert!(mark_used(first, &first_token, now)?);
            // The first rotation is not committed yet: the second must not wait for it.
            second.transaction(|second| {
                second.batch_execute("SET LOCAL lock_timeout = '2s'")?;
                assert!(mark_used(second, &second_token, now)?);
                Ok::<_, acs_storage::StorageError>(())
            })
        })
        .expect("both rotations commit, the second without waiting for the first");
    assert_eq!(
        server.query_i64("SELECT COUNT(*) FROM refresh_tokens WHERE revoked IS NOT NULL"),
        2
    );
}

//! The reference's filter prefixes on every list: `or__` (any of them holds), `not__` (the
//! rows a filter does not hold for, null fields among them) and `chain__` (as a plain
//! filter), with the same lookups, and the same refusals of unknown and secret fields, as
//! plain filters; what a caller may not see stays out whatever the prefixes say. The
//! collection's "id or name" lookup (`?or__id=3&or__username=3`) is the everyday case.

use acs_tests::{Backend, Call, TestServer, backend_tests, id_of};
use serde_json::json;

fn users_are_found_by_id_or_name(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    server.create_user("alice", "Alice-pass-1", false);
    let bob = server.create_user("bob", "Bob-pass-1", false);
    server.create_user("carol", "Carol-pass-1", false);
    // The collection's lookup, given an id and given a name.
    assert_eq!(
        admin.usernames_at(&format!("/api/v2/users/?or__id={bob}&or__username={bob}")),
        ["bob"]
    );
    assert_eq!(
        admin.usernames_at("/api/v2/users/?or__id=99999&or__username=carol"),
        ["carol"]
    );
    // Lookups, repeated keys, and a plain filter beside the alternatives.
    assert_eq!(
        admin.usernames_at("/api/v2/users/?or__username__startswith=al&or__username__endswith=ol"),
        ["alice", "carol"]
    );
    assert_eq!(
        admin.usernames_at("/api/v2/users/?or__username=alice&or__username=bob"),
        ["alice", "bob"]
    );
    assert_eq!(
        admin.usernames_at("/api/v2/users/?is_superuser=false&or__username=admin&or__username=bob"),
        ["bob"]
    );
    // not__, alone, with a lookup, and inside an or__.
    assert_eq!(
        admin.usernames_at("/api/v2/users/?not__username__icontains=a"),
        ["bob"]
    );
    assert_eq!(
        admin.usernames_at("/api/v2/users/?not__is_superuser=true&not__username=alice"),
        ["bob", "carol"]
    );
    assert_eq!(
        admin.usernames_at("/api/v2/users/?or__not__username__icontains=o&or__username=bob"),
        ["admin", "alice", "bob"]
    );
    assert_eq!(
        admin.usernames_at("/api/v2/users/?chain__username=alice"),
        ["alice"]
    );
}

fn prefixed_filters_refuse_what_plain_ones_refuse(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    // Secret fields are refused as the plain filters refuse them (403), the rest with 400.
    let cases = [
        (
            "/api/v2/users/?or__password=x&or__username=admin",
            403,
            "Filtering on password is not allowed.",
        ),
        (
            "/api/v2/users/?not__password__startswith=pbkdf2",
            403,
            "Filtering on password is not allowed.",
        ),
        (
            "/api/v2/credentials/?not__inputs__password=hunter2",
            403,
            "Filtering on inputs__password is not allowed.",
        ),
        (
            "/api/v2/activity_stream/?or__changes__icontains=secret",
            403,
            "Filtering on changes is not allowed.",
        ),
        (
            "/api/v2/users/?or__nosuch=1",
            400,
            "nosuch is not an allowed field name.",
        ),
        (
            "/api/v2/users/?or__id=carol&or__username=carol",
            400,
            "'carol' is not an integer.",
        ),
        (
            "/api/v2/credentials/?or__credential_type__namespace=ssh",
            400,
            "or__ and not__ do not apply",
        ),
    ];
    for (path, status, reason) in cases {
        let refused = admin.get(path).call().expect(status);
        assert!(refused.body.contains(reason), "{path}: {}", refused.body);
    }
}

/// The prefixes narrow what a caller may see; they never widen it.
fn prefixes_never_show_what_the_caller_may_not_see(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let alice = server.create_user("alice", "Alice-pass-1", false);
    let bob = server.create_user("bob", "Bob-pass-1", false);
    let organization = server.create_organization("Ops");
    let custom = id_of(
        &admin
            .post("/api/v2/credential_types/")
            .json(&json!({"name": "Token", "kind": "cloud", "inputs": {"fields": [{"id": "user", "label": "User"}]}}))
            .call()
            .expect(201)
            .json(),
    );
    let credential = |name: &str, owner: (&str, i64)| {
        let mut body = json!({"name": name, "credential_type": custom, "inputs": {"user": "u"}});
        body[owner.0] = json!(owner.1);
        id_of(
            &admin
                .post("/api/v2/credentials/")
                .json(&body)
                .call()
                .expect(201)
                .json(),
        )
    };
    let alices = credential("alice's", ("user", alice));
    let bobs = credential("bob's", ("user", bob));
    let shared = credential("shared", ("organization", organization));
    let bob_agent = server.as_user("bob", "Bob-pass-1");
    assert_eq!(
        bob_agent.ids_at(&format!(
            "/api/v2/credentials/?or__id={alices}&or__name=bob's"
        )),
        [bobs]
    );
    assert_eq!(
        bob_agent.ids_at(&format!("/api/v2/credentials/?not__id={bobs}")),
        Vec::<i64>::new()
    );
    // not__ on a nullable field keeps the rows where it is null (the personal ones).
    assert_eq!(
        admin.ids_at(&format!(
            "/api/v2/credentials/?not__organization={organization}"
        )),
        {
            let mut personal = vec![alices, bobs];
            personal.sort_unstable();
            personal
        }
    );
    assert_eq!(
        admin.ids_at(&format!(
            "/api/v2/credentials/?or__organization={organization}&or__user={bob}"
        )),
        {
            let mut both = vec![bobs, shared];
            both.sort_unstable();
            both
        }
    );
}

backend_tests!(
    users_are_found_by_id_or_name,
    prefixed_filters_refuse_what_plain_ones_refuse,
    prefixes_never_show_what_the_caller_may_not_see,
);

//! Contract §4 and §5: a database dump holds no token, refresh token, client secret, session id
//! or secret credential input in clear. The SQLite file (with its write-ahead log) is read
//! byte for byte; PostgreSQL is dumped with `pg_dump`, which must be installed (the test fails
//! without it).

use acs_tests::{Backend, Call, TestServer, backend_tests};
use serde_json::json;

backend_tests!(
    a_dump_reveals_no_credential,
    a_dump_reveals_no_secret_credential_input,
);

fn dump(server: &TestServer) -> Vec<u8> {
    match server.database() {
        acs_storage::Database::Sqlite(path) => {
            let mut bytes = std::fs::read(&path).expect("the SQLite file");
            let wal = path.with_extension("sqlite3-wal");
            if let Ok(more) = std::fs::read(&wal) {
                bytes.extend(more);
            }
            bytes
        }
        acs_storage::Database::Postgres(url) => {
            let output = std::process::Command::new("pg_dump")
                .arg("--data-only")
                .arg(&url)
                .output()
                .expect("pg_dump runs (scripts/setup-test-env.sh installs it)");
            assert!(
                output.status.success(),
                "pg_dump failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            output.stdout
        }
    }
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle.as_bytes())
}

fn a_dump_reveals_no_credential(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let org = server.create_organization("vault");
    let app = admin
        .post("/api/v2/applications/")
        .json(&json!({
            "name": "dumped",
            "client_type": "confidential",
            "authorization_grant_type": "password",
            "organization": org,
        }))
        .call()
        .expect(201)
        .json();
    let token = admin
        .post("/api/v2/tokens/")
        .json(&json!({ "application": app["id"], "description": "dump me" }))
        .call()
        .expect(201)
        .json();
    let personal = admin.personal_token("read");
    let browser = server.client();
    server.login(&browser, "admin", &server.admin_password);
    let session = browser
        .cookie("acs_sessionid")
        .expect("a session cookie after login");

    let secrets = [
        (
            "client secret",
            app["client_secret"].as_str().expect("secret").to_owned(),
        ),
        (
            "access token",
            token["token"].as_str().expect("token").to_owned(),
        ),
        (
            "refresh token",
            token["refresh_token"].as_str().expect("refresh").to_owned(),
        ),
        ("personal token", personal),
        ("session id", session),
        ("admin password", server.admin_password.clone()),
    ];
    let bytes = dump(&server);
    // The dump is real: it holds what the API wrote.
    assert!(contains(&bytes, "dump me"), "the dump misses the token row");
    assert!(contains(
        &bytes,
        app["client_id"].as_str().expect("client id")
    ));
    for (name, secret) in &secrets {
        assert!(secret.len() >= 20, "{name} is too short to search for");
        assert!(
            !contains(&bytes, secret),
            "the dump holds the {name} in clear"
        );
    }
}

fn a_dump_reveals_no_secret_credential_input(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let org = server.create_organization("vault");
    let unique = format!("{}", std::process::id());
    let aws_type = admin.get_json("/api/v2/credential_types/?namespace=aws")["results"][0]["id"]
        .as_i64()
        .expect("the aws type");
    let aws_secret = format!("s3cr3t-aws-password-{unique}");
    let aws = admin
        .post("/api/v2/credentials/")
        .json(&json!({
            "name": "dumped aws",
            "credential_type": aws_type,
            "organization": org,
            "inputs": {"username": format!("AKIA-visible-{unique}"), "password": aws_secret},
        }))
        .call()
        .expect(201)
        .json();
    let custom_type = admin
        .post("/api/v2/credential_types/")
        .json(&json!({
            "name": "Dumped token",
            "kind": "cloud",
            "inputs": {"fields": [
                {"id": "endpoint", "label": "Endpoint"},
                {"id": "api_token", "label": "Token", "secret": true},
            ]},
            "injectors": {"env": {"DUMPED_TOKEN": "{{ api_token }}"}},
        }))
        .call()
        .expect(201)
        .json();
    let custom_secret = format!("s3cr3t-custom-token-{unique}");
    admin
        .post("/api/v2/credentials/")
        .json(&json!({
            "name": "dumped custom",
            "credential_type": custom_type["id"],
            "user": admin.get_json("/api/v2/me/")["results"][0]["id"],
            "inputs": {"endpoint": format!("endpoint-visible-{unique}"), "api_token": custom_secret},
        }))
        .call()
        .expect(201);
    // An update re-seals: neither the old nor the new value may appear.
    let rotated = format!("s3cr3t-rotated-password-{unique}");
    admin
        .patch(&format!("/api/v2/credentials/{}/", aws["id"]))
        .json(
            &json!({"inputs": {"username": format!("AKIA-visible-{unique}"), "password": rotated}}),
        )
        .call()
        .expect(200);

    let bytes = dump(&server);
    // The dump is real: it holds the non-secret inputs and the sealed values.
    assert!(contains(&bytes, &format!("AKIA-visible-{unique}")));
    assert!(contains(&bytes, &format!("endpoint-visible-{unique}")));
    assert!(contains(&bytes, "$encrypted$AESGCM$"));
    for (name, secret) in [
        ("aws password", &aws_secret),
        ("custom secret input", &custom_secret),
        ("rotated aws password", &rotated),
    ] {
        assert!(secret.len() >= 20, "{name} is too short to search for");
        assert!(
            !contains(&bytes, secret),
            "the dump holds the {name} in clear"
        );
    }
}

//! The OAuth 2 endpoints under `/api/o/` driven by a real third-party client library:
//! tests/python/oauth_flows.py uses requests-oauthlib 2.0.0 for the password grant (client
//! authenticated by Basic and in the body), refresh rotation, the authorization-code grant
//! through the consent page with and without PKCE, denial, revocation and introspection.
//! `ACS_PYTHON_BIN` names the Python of the venv that has it; scripts/test-all.sh installs it
//! and sets the variable.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use acs_tests::{Backend, Call, TestServer, backend_tests};
use serde_json::{Value, json};

backend_tests!(requests_oauthlib_drives_every_flow);

/// Registered on the authorization-code applications; nothing listens there, the client only
/// reads the `Location` of the redirect.
const REDIRECT_URI: &str = "http://127.0.0.1:9/callback";

fn python_bin() -> PathBuf {
    let Some(path) = std::env::var_os("ACS_PYTHON_BIN").filter(|p| !p.is_empty()) else {
        panic!(
            "ACS_PYTHON_BIN is not set: this test needs a Python with requests-oauthlib 2.0.0. \
             Run scripts/test-all.sh (it installs it into .venv and sets ACS_PYTHON_BIN), \
             or set ACS_PYTHON_BIN=<repo>/.venv/bin/python after scripts/setup-test-env.sh"
        )
    };
    let path = PathBuf::from(path);
    assert!(
        path.is_file(),
        "ACS_PYTHON_BIN={} does not exist: run scripts/test-all.sh (or scripts/setup-test-env.sh) \
         to install requests-oauthlib 2.0.0 into .venv",
        path.display()
    );
    path
}

/// The workspace root (the tests crate is `<root>/tests`).
fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate lives inside the workspace")
}

/// Creates an application in `organization` as admin and returns its 201 record (which holds
/// `client_id` and, for confidential clients, the `client_secret` shown this once).
fn create_application(
    server: &TestServer,
    organization: i64,
    name: &str,
    client_type: &str,
    grant_type: &str,
) -> Value {
    let redirect_uris = if grant_type == "authorization-code" {
        REDIRECT_URI
    } else {
        ""
    };
    server
        .admin()
        .post("/api/v2/applications/")
        .json(&json!({
            "name": name,
            "description": "",
            "organization": organization,
            "client_type": client_type,
            "authorization_grant_type": grant_type,
            "redirect_uris": redirect_uris,
            "skip_authorization": false,
        }))
        .call()
        .expect(201)
        .json()
}

/// A field of an application record that must be a non-empty string.
#[track_caller]
fn text(record: &Value, field: &str) -> String {
    record[field]
        .as_str()
        .filter(|value| !value.is_empty())
        .unwrap_or_else(|| {
            panic!(
                "application {} has no {field} in its creation response",
                record["name"]
            )
        })
        .to_owned()
}

/// Runs tests/python/oauth_flows.py with `input` on stdin; asserts exit status 0 and returns
/// the JSON summary it prints.
fn run_flows(input: &Value) -> Value {
    let script = workspace_root().join("tests/python/oauth_flows.py");
    assert!(script.is_file(), "{} is missing", script.display());
    let mut child = Command::new(python_bin())
        .arg(&script)
        .current_dir(workspace_root())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("PYTHONWARNINGS", "ignore")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("running {} failed: {error}", script.display()));
    {
        let mut stdin = child.stdin.take().expect("the script's stdin");
        stdin
            .write_all(input.to_string().as_bytes())
            .expect("the input reaches the script");
    }
    let output = child
        .wait_with_output()
        .expect("the script's output can be collected");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        output.status.success(),
        "oauth_flows.py exited with {}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        output.status
    );
    let summary = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(summary).unwrap_or_else(|error| {
        panic!(
            "oauth_flows.py printed no JSON summary ({error})\nstdout:\n{stdout}\nstderr:\n{stderr}"
        )
    })
}

fn requests_oauthlib_drives_every_flow(backend: Backend) {
    let server = TestServer::start(backend);
    let organization = server.create_organization("OAuth clients");
    let (username, password) = ("grace", "pw-grace-0AUTH");
    let user = server.create_user(username, password, false);
    server.add_member(organization, user);

    let password_app = create_application(
        &server,
        organization,
        "Password client",
        "confidential",
        "password",
    );
    let code_app = create_application(
        &server,
        organization,
        "Web client",
        "confidential",
        "authorization-code",
    );
    let public_app = create_application(
        &server,
        organization,
        "Native client",
        "public",
        "authorization-code",
    );
    assert!(
        public_app["client_secret"]
            .as_str()
            .is_none_or(str::is_empty),
        "a public client got a client secret"
    );

    let input = json!({
        "base": server.base,
        "username": username,
        "password": password,
        "password_app": {
            "client_id": text(&password_app, "client_id"),
            "client_secret": text(&password_app, "client_secret"),
        },
        "code_app": {
            "client_id": text(&code_app, "client_id"),
            "client_secret": text(&code_app, "client_secret"),
            "redirect_uri": REDIRECT_URI,
        },
        "public_app": {
            "client_id": text(&public_app, "client_id"),
            "redirect_uri": REDIRECT_URI,
        },
    });
    let summary = run_flows(&input);
    assert_eq!(summary["ok"], true, "{summary}");
    assert_eq!(
        summary["flows"],
        json!([
            "password_grant_and_refresh",
            "client_credentials_in_body",
            "authorization_code",
            "authorization_code_pkce",
            "denial",
            "revocation_and_introspection",
        ]),
        "{summary}"
    );

    // Every approved code was exchanged (once; the wrong verifier consumed its code too), and
    // the denial issued none.
    assert_eq!(
        server.query_i64("SELECT count(*) FROM authorization_codes"),
        0,
        "authorization codes remain after the flows"
    );
}

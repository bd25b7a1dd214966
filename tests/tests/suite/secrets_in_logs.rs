//! No secret ever reaches the server's log, even at its most verbose level: the real
//! `acs-server` process runs with `RUST_LOG=trace` (every crate, `log` records included)
//! through a session that issues and uses every kind of secret: passwords (form login, Basic,
//! wrong ones, a password grant, a user created with one), session and CSRF cookies, personal
//! tokens (created, used, revoked), a confidential application's client secret, the password,
//! refresh and authorization-code (PKCE) grants with their codes, verifiers and tokens,
//! revocation and introspection, credentials with secret inputs (a Machine password, SSH key
//! and become password, a custom type's secret) and sealed settings (the LDAP bind password,
//! an OpenID provider's client secret). Then the log is searched for each value, raw and as
//! it travels (percent-encoded, JSON- and Rust-escaped, base64 and base64url, inside Basic
//! credentials), and for each token's first 16 characters.

use std::collections::BTreeMap;

use acs_oauth2::CodeChallenge;
use acs_tests::oauth::authorize_path;
use acs_tests::process::ServerProcess;
use acs_tests::{Agent, Backend, Call, Reply, backend_tests, id_of};
use serde_json::{Value, json};

backend_tests!(secrets_never_reach_the_log);

const ADMIN_PASSWORD: &str = "Adm1n p@ss/w0rd+%\"x";
const CAROL_PASSWORD: &str = "C@rol's pass/w0rd+%&=";
const WRONG_PASSWORD: &str = "Wr0ng pass/w0rd+%?#";
const MACHINE_PASSWORD: &str = "Mach1ne-p@ss/w0rd+%";
const BECOME_PASSWORD: &str = "Bec0me-p@ss/w0rd+%";
const NEW_MACHINE_PASSWORD: &str = "Upd4ted-mach1ne/p@ss";
const KEY_BODY: &str = "QUNTc2VjcmV0S2V5TWF0ZXJpYWxOb3RGb3JMb2dzNDI0Mg==";
const CUSTOM_SECRET: &str = "Cust0m-api-t0ken/s3cret+%";
const BIND_PASSWORD: &str = "B1nd-p@ss/w0rd+%";
const OIDC_SECRET: &str = "0idc-cl1ent/s3cret+%";
const REDIRECT: &str = "https://client.example/cb";

/// Every secret issued or sent, by what it is.
#[derive(Debug, Default)]
struct Secrets(Vec<(String, String)>);

impl Secrets {
    fn add(&mut self, what: impl Into<String>, value: impl Into<String>) {
        let value = value.into();
        assert!(
            value.len() >= 8,
            "a secret too short to search for: {value:?}"
        );
        self.0.push((what.into(), value));
    }

    /// Basic credentials: both parts and the header's base64.
    fn add_basic(&mut self, what: &str, user: &str, password: &str) {
        self.add(
            format!("{what} (Basic credentials)"),
            base64(format!("{user}:{password}").as_bytes(), STANDARD),
        );
    }
}

const STANDARD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL_SAFE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Base64 without padding (a padded encoding contains it).
fn base64(bytes: &[u8], alphabet: &[u8; 64]) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=chunk.len() {
            out.push(char::from(alphabet[((n >> (18 - 6 * i)) & 63) as usize]));
        }
    }
    out
}

/// `application/x-www-form-urlencoded` (`hex` in upper or lower case).
fn percent_encoded(value: &str, upper: bool) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'*' | b'-' | b'.' | b'_' => {
                char::from(b).to_string()
            }
            b' ' => "+".to_owned(),
            _ if upper => format!("%{b:02X}"),
            _ => format!("%{b:02x}"),
        })
        .collect()
}

/// The forms a value may take on its way into a log line.
fn forms(value: &str) -> Vec<String> {
    let json = serde_json::to_string(value).expect("a JSON string");
    let debug = format!("{value:?}");
    let mut forms = vec![
        value.to_owned(),
        percent_encoded(value, true),
        percent_encoded(value, false),
        percent_encoded(value, true).replace('+', "%20"),
        json[1..json.len() - 1].to_owned(),
        debug[1..debug.len() - 1].to_owned(),
        base64(value.as_bytes(), STANDARD),
        base64(value.as_bytes(), URL_SAFE),
    ];
    // A token's prefix is as good as a leak for anyone grepping.
    if value.len() >= 40 && value.bytes().all(|b| b.is_ascii_alphanumeric()) {
        forms.push(value[..16].to_owned());
    }
    forms.sort();
    forms.dedup();
    forms
}

/// The `value` of the read-only input `id` in a page.
#[track_caller]
fn shown_value(page: &str, id: &str) -> String {
    let marker = format!("id=\"{id}\" class=\"copyable\" value=\"");
    let start = page
        .find(&marker)
        .unwrap_or_else(|| panic!("no #{id} in {page}"))
        + marker.len();
    let end = page[start..].find('"').expect("the value ends") + start;
    page[start..end].to_owned()
}

/// A string field of a JSON body.
#[track_caller]
fn text(body: &Value, key: &str) -> String {
    body[key]
        .as_str()
        .unwrap_or_else(|| panic!("no {key} in {body}"))
        .to_owned()
}

/// Posts the login form as a browser does; returns the reply and the cookies it holds after.
fn login(server: &ServerProcess, agent: &Agent, username: &str, password: &str) -> Reply {
    agent.get("/api/login/").call().expect(200);
    let csrf = agent.cookie("csrftoken").expect("a csrftoken cookie");
    agent
        .post("/api/login/")
        .header("Referer", server.url("/api/login/"))
        .form(&[
            ("username", username),
            ("password", password),
            ("csrfmiddlewaretoken", csrf.as_str()),
            ("next", "/api/v2/me/"),
        ])
        .call()
}

/// Undoes the HTML escaping of the page templates (handlebars' set).
fn html_unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&#x60;", "`")
        .replace("&#x3D;", "=")
        .replace("&amp;", "&")
}

/// The hidden inputs of a page, `(name, value)` in order, unescaped.
fn hidden_fields(html: &str) -> Vec<(String, String)> {
    const OPEN: &str = "<input type=\"hidden\" name=\"";
    html.split(OPEN)
        .skip(1)
        .filter_map(|rest| {
            let (name, rest) = rest.split_once("\" value=\"")?;
            let (value, _) = rest.split_once('"')?;
            Some((html_unescape(name), html_unescape(value)))
        })
        .collect()
}

fn secrets_never_reach_the_log(backend: Backend) {
    let ansible = acs_tests::ansible::bin_dir();
    let projects_root = tempfile::tempdir().expect("a projects root");
    let program = |tool: &str| ansible.join(tool).display().to_string();
    let (root, playbook) = (
        projects_root.path().display().to_string(),
        program("ansible-playbook"),
    );
    let mut server = ServerProcess::start(
        backend,
        &[
            ("RUST_LOG", "trace"),
            ("ACS_ADMIN_PASSWORD", ADMIN_PASSWORD),
            ("ACS_PROJECTS_ROOT", root.as_str()),
            ("ACS_ANSIBLE_PLAYBOOK_PATH", playbook.as_str()),
        ],
    );
    let mut secrets = Secrets::default();
    secrets.add("admin password", ADMIN_PASSWORD);
    secrets.add_basic("admin", "admin", ADMIN_PASSWORD);
    let key = std::fs::read(server.data_dir().join("secret_key")).expect("the secret key file");
    secrets.add("secret key (base64)", base64(&key, STANDARD));
    secrets.add(
        "secret key (hex)",
        key.iter().map(|b| format!("{b:02x}")).collect::<String>(),
    );
    let admin = server.admin();
    admin.get("/api/v2/me/").call().expect(200);

    // A user with a password, and an organization with both as members.
    let org = id_of(
        &admin
            .post("/api/v2/organizations/")
            .json(&json!({ "name": "Acme" }))
            .call()
            .expect(201)
            .json(),
    );
    let carol_id = id_of(
        &admin
            .post("/api/v2/users/")
            .json(&json!({ "username": "carol", "password": CAROL_PASSWORD }))
            .call()
            .expect(201)
            .json(),
    );
    secrets.add("carol's password", CAROL_PASSWORD);
    secrets.add_basic("carol", "carol", CAROL_PASSWORD);
    admin
        .post(&format!("/api/v2/organizations/{org}/users/"))
        .json(&json!({ "id": carol_id }))
        .call()
        .expect(204);

    // Form login, a session-authenticated write, failed logins (form, Basic).
    let browser = server.client();
    login(&server, &browser, "admin", ADMIN_PASSWORD).expect(302);
    let session = browser.cookie("acs_sessionid").expect("a session cookie");
    let csrf = browser.cookie("csrftoken").expect("a csrftoken cookie");
    secrets.add("admin's session id", session);
    secrets.add("admin's csrf token", csrf.clone());
    browser.get("/api/v2/me/").call().expect(200);
    browser
        .post("/api/v2/organizations/")
        .header("X-CSRFToken", csrf.as_str())
        .json(&json!({ "name": "Made in a session" }))
        .call()
        .expect(201);
    login(&server, &server.client(), "admin", WRONG_PASSWORD).expect(401);
    secrets.add("a wrong password", WRONG_PASSWORD);
    secrets.add_basic("a wrong password", "admin", WRONG_PASSWORD);
    server
        .anonymous()
        .with_basic("admin", WRONG_PASSWORD)
        .get("/api/v2/me/")
        .call()
        .expect(401);

    // A personal token: created, used, revoked, refused.
    let carol = server.anonymous().with_basic("carol", CAROL_PASSWORD);
    let created = carol
        .post(&format!("/api/v2/users/{carol_id}/personal_tokens/"))
        .json(&json!({ "scope": "write", "description": "mine" }))
        .call()
        .expect(201)
        .json();
    let personal = text(&created, "token");
    secrets.add("personal token", personal.clone());
    let bearer = server.anonymous().with_bearer(&personal);
    bearer.get("/api/v2/me/").call().expect(200);
    carol
        .delete(&format!("/api/v2/tokens/{}/", id_of(&created)))
        .call()
        .expect(204);
    bearer.get("/api/v2/me/").call().expect(401);

    // A confidential password-grant application: its secret, the password and refresh
    // grants, a wrong password, revocation and introspection.
    let application = admin
        .post("/api/v2/applications/")
        .json(&json!({
            "name": "Password client",
            "organization": org,
            "authorization_grant_type": "password",
            "client_type": "confidential",
        }))
        .call()
        .expect(201)
        .json();
    let client_id = text(&application, "client_id");
    let client_secret = text(&application, "client_secret");
    secrets.add("client secret", client_secret.clone());
    secrets.add_basic("client", &client_id, &client_secret);
    let client = server.anonymous().with_basic(&client_id, &client_secret);
    let tokens = client
        .post("/api/o/token/")
        .form(&[
            ("grant_type", "password"),
            ("username", "carol"),
            ("password", CAROL_PASSWORD),
            ("scope", "write"),
        ])
        .call()
        .expect(200)
        .json();
    let access = text(&tokens, "access_token");
    let refresh = text(&tokens, "refresh_token");
    secrets.add("password grant's access token", access.clone());
    secrets.add("password grant's refresh token", refresh.clone());
    server
        .anonymous()
        .with_bearer(&access)
        .get("/api/v2/me/")
        .call()
        .expect(200);
    let refused = client
        .post("/api/o/token/")
        .form(&[
            ("grant_type", "password"),
            ("username", "carol"),
            ("password", WRONG_PASSWORD),
        ])
        .call();
    assert!(
        matches!(refused.status, 400 | 401),
        "a wrong password at the token endpoint: {} {}",
        refused.status,
        refused.body
    );
    let rotated = client
        .post("/api/o/token/")
        .form(&[("grant_type", "refresh_token"), ("refresh_token", &refresh)])
        .call()
        .expect(200)
        .json();
    let access2 = text(&rotated, "access_token");
    let refresh2 = text(&rotated, "refresh_token");
    secrets.add("refreshed access token", access2.clone());
    secrets.add("refreshed refresh token", refresh2.clone());
    server
        .anonymous()
        .with_bearer(&access2)
        .get("/api/v2/me/")
        .call()
        .expect(200);
    // The used refresh token again, within the grace period: refused.
    client
        .post("/api/o/token/")
        .form(&[("grant_type", "refresh_token"), ("refresh_token", &refresh)])
        .call()
        .expect(400);
    let introspected = client
        .post("/api/o/introspect/")
        .form(&[("token", access2.as_str())])
        .call()
        .expect(200)
        .json();
    assert_eq!(introspected["active"], true, "{introspected}");
    client
        .post("/api/o/revoke_token/")
        .form(&[("token", access2.as_str())])
        .call()
        .expect(200);
    server
        .anonymous()
        .with_bearer(&access2)
        .get("/api/v2/me/")
        .call()
        .expect(401);

    // The authorization-code grant with PKCE, from carol's browser session.
    let code_app = admin
        .post("/api/v2/applications/")
        .json(&json!({
            "name": "Code client",
            "organization": org,
            "authorization_grant_type": "authorization-code",
            "client_type": "confidential",
            "redirect_uris": REDIRECT,
        }))
        .call()
        .expect(201)
        .json();
    let code_client_id = text(&code_app, "client_id");
    let code_client_secret = text(&code_app, "client_secret");
    secrets.add("code client's secret", code_client_secret.clone());
    secrets.add_basic("code client", &code_client_id, &code_client_secret);
    let carol_browser = server.client();
    login(&server, &carol_browser, "carol", CAROL_PASSWORD).expect(302);
    secrets.add(
        "carol's session id",
        carol_browser.cookie("acs_sessionid").expect("a session"),
    );
    secrets.add(
        "carol's csrf token",
        carol_browser.cookie("csrftoken").expect("a csrftoken"),
    );
    let verifier = format!("{}-verifier-{}", "v".repeat(30), std::process::id());
    secrets.add("PKCE verifier", verifier.clone());
    let challenge = CodeChallenge::s256_of(&verifier);
    let consent = carol_browser
        .get(&authorize_path(&[
            ("response_type", "code"),
            ("client_id", code_client_id.as_str()),
            ("state", "st4te"),
            ("code_challenge", challenge.as_str()),
            ("code_challenge_method", "S256"),
        ]))
        .call()
        .expect(200);
    let mut form = hidden_fields(&consent.body);
    form.push(("allow".into(), "Authorize".into()));
    let approved = carol_browser
        .post("/api/o/authorize/")
        .header("Referer", server.url("/api/o/authorize/"))
        .form(&form)
        .call()
        .expect(302);
    let location = approved.location().expect("a redirect with the code");
    let code = reqwest::Url::parse(&location)
        .expect("a URL")
        .query_pairs()
        .find(|(name, _)| name == "code")
        .map(|(_, code)| code.into_owned())
        .unwrap_or_else(|| panic!("no code in {location}"));
    secrets.add("authorization code", code.clone());
    let exchanged = server
        .anonymous()
        .with_basic(&code_client_id, &code_client_secret)
        .post("/api/o/token/")
        .form(&[
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("code_verifier", verifier.as_str()),
        ])
        .call()
        .expect(200)
        .json();
    let code_access = text(&exchanged, "access_token");
    secrets.add("code grant's access token", code_access.clone());
    secrets.add(
        "code grant's refresh token",
        text(&exchanged, "refresh_token"),
    );
    server
        .anonymous()
        .with_bearer(&code_access)
        .get("/api/v2/me/")
        .call()
        .expect(200);
    // The code again: refused.
    server
        .anonymous()
        .with_basic(&code_client_id, &code_client_secret)
        .post("/api/o/token/")
        .form(&[
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("code_verifier", verifier.as_str()),
        ])
        .call()
        .expect(400);

    // Credentials with secret inputs: a Machine credential (created, updated, kept) and a
    // custom type's.
    let machine_type =
        id_of(&admin.get_json("/api/v2/credential_types/?namespace=ssh")["results"][0]);
    let ssh_key =
        format!("-----BEGIN RSA PRIVATE KEY-----\n{KEY_BODY}\n-----END RSA PRIVATE KEY-----");
    secrets.add("machine password", MACHINE_PASSWORD);
    secrets.add("become password", BECOME_PASSWORD);
    secrets.add("ssh key", KEY_BODY);
    secrets.add("new machine password", NEW_MACHINE_PASSWORD);
    let machine = id_of(
        &admin
            .post("/api/v2/credentials/")
            .json(&json!({
                "name": "Machine",
                "credential_type": machine_type,
                "organization": org,
                "inputs": {
                    "username": "root",
                    "password": MACHINE_PASSWORD,
                    "ssh_key_data": ssh_key,
                    "become_method": "sudo",
                    "become_password": BECOME_PASSWORD,
                },
            }))
            .call()
            .expect(201)
            .json(),
    );
    admin
        .patch(&format!("/api/v2/credentials/{machine}/"))
        .json(&json!({ "inputs": {
            "username": "root",
            "password": NEW_MACHINE_PASSWORD,
            "ssh_key_data": "$encrypted$",
            "become_method": "sudo",
            "become_password": "$encrypted$",
        }}))
        .call()
        .expect(200);
    admin
        .get(&format!("/api/v2/credentials/{machine}/"))
        .call()
        .expect(200);
    let custom_type = id_of(
        &admin
            .post("/api/v2/credential_types/")
            .json(&json!({
                "name": "Custom API",
                "kind": "cloud",
                "inputs": {"fields": [{"id": "api_token", "label": "Token", "secret": true}]},
                "injectors": {
                    "env": {
                        "MY_API_TOKEN": "{{ api_token }}",
                        "MY_API_FLAG": "{{#if api_token}}set{{else}}unset{{/if}}",
                        "MY_API_FILE": "{{ svc.filename.token }}",
                    },
                    "file": {"template.token": "token={{ api_token }}"},
                    "extra_vars": {"api": {"token": "{{ api_token }}"}},
                },
            }))
            .call()
            .expect(201)
            .json(),
    );
    secrets.add("custom secret input", CUSTOM_SECRET);
    let custom = admin
        .post("/api/v2/credentials/")
        .json(&json!({
            "name": "Custom",
            "credential_type": custom_type,
            "organization": org,
            "inputs": { "api_token": CUSTOM_SECRET },
        }))
        .call()
        .expect(201)
        .json();
    admin
        .get("/api/v2/activity_stream/?page_size=200")
        .call()
        .expect(200);

    // A job run with both credentials injected (environment, files, extra vars, the Machine
    // password as a variable), which renders the custom type's templates.
    let project_dir = projects_root.path().join("site");
    std::fs::create_dir_all(&project_dir).expect("a project directory");
    std::fs::write(
        project_dir.join("site.yml"),
        "- hosts: all\n  gather_facts: false\n  tasks:\n    - ansible.builtin.debug:\n        msg: ran\n",
    )
    .expect("a playbook");
    let project = id_of(
        &admin
            .post("/api/v2/projects/")
            .json(&json!({ "name": "site", "organization": org, "local_path": "site" }))
            .call()
            .expect(201)
            .json(),
    );
    let inventory = id_of(
        &admin
            .post("/api/v2/inventories/")
            .json(&json!({ "name": "local", "organization": org }))
            .call()
            .expect(201)
            .json(),
    );
    admin
        .post(&format!("/api/v2/inventories/{inventory}/hosts/"))
        .json(&json!({
            "name": "localhost",
            "variables": "ansible_connection: local\nansible_python_interpreter: \"{{ ansible_playbook_python }}\"\n",
        }))
        .call()
        .expect(201);
    let template = id_of(
        &admin
            .post("/api/v2/job_templates/")
            .json(&json!({
                "name": "site",
                "project": project,
                "inventory": inventory,
                "playbook": "site.yml",
            }))
            .call()
            .expect(201)
            .json(),
    );
    for credential in [machine, id_of(&custom)] {
        admin
            .post(&format!("/api/v2/job_templates/{template}/credentials/"))
            .json(&json!({ "id": credential }))
            .call()
            .expect(204);
    }
    let launched = admin
        .post(&format!("/api/v2/job_templates/{template}/launch/"))
        .json(&json!({}))
        .call()
        .expect(201)
        .json();
    let job =
        acs_tests::ansible::wait_for_run(&admin, &format!("/api/v2/jobs/{}/", launched["job"]));
    admin
        .get(&format!(
            "/api/v2/jobs/{}/stdout/?format=txt",
            launched["job"]
        ))
        .call()
        .expect(200);

    // Sealed settings, then failed logins that try the (unreachable) directory too.
    secrets.add("LDAP bind password", BIND_PASSWORD);
    secrets.add("OpenID client secret", OIDC_SECRET);
    admin
        .patch("/api/v2/settings/ldap/")
        .json(&json!({
            "AUTH_LDAP_SERVER_URI": "ldap://127.0.0.1:1",
            "AUTH_LDAP_BIND_DN": "cn=reader,dc=acs,dc=test",
            "AUTH_LDAP_BIND_PASSWORD": BIND_PASSWORD,
            "AUTH_LDAP_USER_SEARCH": ["ou=people,dc=acs,dc=test", "SCOPE_SUBTREE", "(uid=%(user)s)"],
        }))
        .call()
        .expect(200);
    admin
        .patch("/api/v2/settings/oidc/")
        .json(&json!({"OIDC_PROVIDERS": [{
            "name": "corp", "label": "Corp ID", "issuer": "https://idp.example",
            "client_id": "acs", "client_secret": OIDC_SECRET,
        }]}))
        .call()
        .expect(200);
    admin.get("/api/v2/settings/ldap/").call().expect(200);
    admin.get("/api/v2/settings/oidc/").call().expect(200);
    server.client().get("/api/login/").call().expect(200);
    let directory_login = login(&server, &server.client(), "dave", WRONG_PASSWORD);
    assert!(
        matches!(directory_login.status, 401 | 503),
        "a login the directory cannot answer: {}",
        directory_login.status
    );
    server
        .anonymous()
        .with_basic("dave", WRONG_PASSWORD)
        .get("/api/v2/me/")
        .call()
        .expect(401);

    // The account pages: a personal token and an application's secret, each shown once in
    // the page that made it; the token revoked from the page.
    let page = browser
        .post("/accounts/profile/tokens/")
        .header("Origin", server.base.as_str())
        .form(&[
            ("csrfmiddlewaretoken", csrf.as_str()),
            ("description", "from the page"),
            ("scope", "read"),
        ])
        .call()
        .expect(201);
    let page_token = shown_value(&page.body, "new-token");
    secrets.add(
        "personal token made by the profile page",
        page_token.clone(),
    );
    server
        .anonymous()
        .with_bearer(&page_token)
        .get("/api/v2/me/")
        .call()
        .expect(200);
    let page_token_id =
        id_of(&admin.get_json("/api/v2/tokens/?description=from%20the%20page")["results"][0]);
    browser
        .post(&format!("/accounts/profile/tokens/{page_token_id}/revoke/"))
        .header("Origin", server.base.as_str())
        .form(&[("csrfmiddlewaretoken", csrf.as_str())])
        .call()
        .expect(303);
    let org_text = org.to_string();
    let page = browser
        .post("/accounts/applications/")
        .header("Origin", server.base.as_str())
        .form(&[
            ("csrfmiddlewaretoken", csrf.as_str()),
            ("name", "Portal"),
            ("organization", org_text.as_str()),
            ("authorization_grant_type", "authorization-code"),
            ("client_type", "confidential"),
            ("redirect_uris", "https://portal.example/cb"),
        ])
        .call()
        .expect(201);
    secrets.add(
        "client secret made by the applications page",
        shown_value(&page.body, "client-secret"),
    );
    browser.get("/accounts/profile/").call().expect(200);
    browser.get("/accounts/applications/").call().expect(200);

    // Log out, stop.
    browser
        .post("/api/logout/")
        .header("X-CSRFToken", csrf.as_str())
        .call()
        .expect(302);
    assert!(server.stop(), "the server did not stop on SIGTERM");

    let log = server.log();
    let mut levels: BTreeMap<&str, usize> = BTreeMap::new();
    for line in log.lines() {
        for level in ["TRACE", "DEBUG", " INFO", " WARN", "ERROR"] {
            if line.contains(level) {
                *levels.entry(level.trim()).or_insert(0) += 1;
                break;
            }
        }
    }
    let mut leaks = Vec::new();
    let mut searched = 0;
    for (what, value) in &secrets.0 {
        for form in forms(value) {
            searched += 1;
            if let Some(line) = log.lines().find(|line| line.contains(&form)) {
                leaks.push(format!("{what} as {form:?} in: {line}"));
            }
        }
    }
    eprintln!(
        "secrets_in_logs ({backend:?}): {} secrets, {searched} forms searched in {} log lines \
         ({} bytes; lines by level {levels:?}); the job ended {}; leaks: {}",
        secrets.0.len(),
        log.lines().count(),
        log.len(),
        job["status"],
        leaks.len()
    );
    assert!(
        log.contains("acs::access") && log.contains("/api/o/token/"),
        "the log shows no requests: logging does not work at all?\n{}",
        &log[..log.len().min(2000)]
    );
    assert!(
        levels.get("TRACE").copied().unwrap_or(0) + levels.get("DEBUG").copied().unwrap_or(0) > 0,
        "RUST_LOG=trace logged nothing below INFO"
    );
    assert!(leaks.is_empty(), "{leaks:#?}");
    // Nothing went wrong in this run, so nothing was logged as an error.
    let errors: Vec<&str> = log
        .lines()
        .filter(|line| line.contains(" ERROR "))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

//! Single-sign-on users land in organizations and teams by the maps (against the real
//! OpenID provider): `SOCIAL_AUTH_ORGANIZATION_MAP` and `SOCIAL_AUTH_TEAM_MAP` match the
//! username or email with literals and anchored `/regex/`es, and a provider's `groups`
//! mapping reads a claim of the verified ID token; they add at every sign-in, remove where
//! the remove flags say, make an organization or team only when a user is added to it,
//! record each real change once with the source `oidc:<provider>`, and malformed maps are
//! refused with where and why.

use acs_tests::oidc::{self, Account, Client, Provider, ProviderConfig};
use acs_tests::{Agent, Backend, Call, TestServer, backend_tests};
use serde_json::{Value, json};

/// The provider `corp` with one account per `(login, email)`, password `<login>-at-idp`.
fn provider_for(server: &TestServer, accounts: &[(&str, &str)]) -> Provider {
    let accounts: Vec<_> = accounts
        .iter()
        .map(|(login, email)| (*login, *email, None))
        .collect();
    provider_with_groups(server, &accounts, Value::Null)
}

/// The provider `corp` with one account per `(login, email, groups claim)`, password
/// `<login>-at-idp`, configured in ACS with the groups mapping `groups`.
fn provider_with_groups(
    server: &TestServer,
    accounts: &[(&str, &str, Option<Value>)],
    groups: Value,
) -> Provider {
    let provider = Provider::start(ProviderConfig {
        clients: vec![Client {
            client_id: "acs".into(),
            client_secret: "acs-client-s3cret".into(),
            redirect_uris: vec![format!("{}/sso/complete/corp/", server.base)],
        }],
        accounts: accounts
            .iter()
            .map(|(login, email, groups)| Account {
                sub: format!("sub-{login}"),
                password: format!("{login}-at-idp"),
                preferred_username: (*login).into(),
                given_name: (*login).into(),
                family_name: "Idp".into(),
                email: (*email).into(),
                groups: groups.clone(),
            })
            .collect(),
        tamper_id_token: false,
    });
    server
        .admin()
        .patch("/api/v2/settings/oidc/")
        .json(&json!({"OIDC_PROVIDERS": [{
            "name": "corp", "label": "Corp ID", "issuer": provider.issuer(),
            "client_id": "acs", "client_secret": "acs-client-s3cret", "groups": groups,
        }]}))
        .call()
        .expect(200);
    provider
}

/// Signs `login` in through the provider in a new browser; that browser.
fn sign_in(server: &TestServer, login: &str) -> Agent {
    let browser = server.client();
    sign_in_with(server, &browser, login).expect(302);
    browser
}

/// ACS's answer when `login` comes back from the provider in `browser`.
fn sign_in_with(server: &TestServer, browser: &Agent, login: &str) -> acs_tests::Reply {
    let started = browser.get("/sso/login/corp/").call().expect(302);
    let authorize = started.location().expect("a redirect to the provider");
    let back = oidc::log_in_at_provider(
        &oidc::browser_client(),
        &authorize,
        login,
        &format!("{login}-at-idp"),
    );
    let path = back
        .strip_prefix(&server.base)
        .unwrap_or_else(|| panic!("the provider sent the browser to {back}"))
        .to_owned();
    browser.get(&path).call()
}

/// The id of the organization `name`, which must exist.
fn organization(agent: &Agent, name: &str) -> i64 {
    let page = agent.get_json(&format!("/api/v2/organizations/?name={name}"));
    assert_eq!(page["count"], 1, "{name}: {page}");
    page["results"][0]["id"].as_i64().expect("an id")
}

fn maps_match_username_or_email(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let _provider = provider_for(
        &server,
        &[
            ("alice", "alice@example.com"),
            ("adm-bob", "adm-bob@Example.com"),
            ("carol", "carol@other.org"),
        ],
    );
    // The reference note's example, and a team for carol by username.
    admin
        .patch("/api/v2/settings/authentication/")
        .json(&json!({
            "SOCIAL_AUTH_ORGANIZATION_MAP": {
                "Default": {"users": true},
                "Eng": {
                    "admins": ["alice@example.com", "/^adm-.*@example\\.com$/i"],
                    "users": "/^[^@]+@example\\.com$/",
                    "remove_users": false,
                },
            },
            "SOCIAL_AUTH_TEAM_MAP": {"Oncall": {"organization": "Eng", "users": ["carol"]}},
        }))
        .call()
        .expect(200);
    assert_eq!(
        admin.get_json("/api/v2/organizations/?name=Eng")["count"],
        0
    );

    sign_in(&server, "alice");
    sign_in(&server, "adm-bob");
    sign_in(&server, "carol");
    let default = organization(&admin, "Default");
    let eng = organization(&admin, "Eng");
    let members = admin.usernames_at(&format!("/api/v2/organizations/{default}/users/"));
    for name in ["alice", "adm-bob", "carol"] {
        assert!(members.contains(&name.to_owned()), "{members:?}");
    }
    assert_eq!(
        admin.usernames_at(&format!("/api/v2/organizations/{eng}/admins/")),
        ["adm-bob", "alice"]
    );
    let eng_members = admin.usernames_at(&format!("/api/v2/organizations/{eng}/users/"));
    assert!(eng_members.contains(&"alice".to_owned()), "{eng_members:?}");
    assert!(
        !eng_members.contains(&"carol".to_owned()),
        "{eng_members:?}"
    );
    let team = admin.get_json(&format!("/api/v2/teams/?name=Oncall&organization={eng}"));
    assert_eq!(team["count"], 1, "{team}");
    let oncall = team["results"][0]["id"].as_i64().expect("an id");
    assert_eq!(
        admin.usernames_at(&format!("/api/v2/teams/{oncall}/users/")),
        ["carol"]
    );

    // Each change once: Default, Eng and Oncall made; alice's Default, Eng admin, Eng
    // member; adm-bob's Default and Eng admin (his capital E misses the case-sensitive
    // users pattern); carol's Default and Oncall. Signing in again changes nothing.
    let written = admin.activity_from("oidc:corp");
    assert_eq!(
        written.iter().filter(|e| e.starts_with("create ")).count(),
        3,
        "{written:#?}"
    );
    assert_eq!(
        written
            .iter()
            .filter(|e| e.starts_with("associate "))
            .count(),
        7,
        "{written:#?}"
    );
    assert_eq!(written.len(), 10, "{written:#?}");
    sign_in(&server, "alice");
    sign_in(&server, "carol");
    assert_eq!(admin.activity_from("oidc:corp").len(), 10);

    // A map that no longer matches removes where the remove flags are on (the default),
    // and keeps where they are off.
    admin
        .patch("/api/v2/settings/authentication/")
        .json(&json!({
            "SOCIAL_AUTH_ORGANIZATION_MAP": {"Eng": {"admins": "adm-bob@Example.com", "users": false, "remove_users": false}},
            "SOCIAL_AUTH_TEAM_MAP": {"Oncall": {"organization": "Eng", "users": []}},
        }))
        .call()
        .expect(200);
    sign_in(&server, "alice");
    sign_in(&server, "carol");
    assert_eq!(
        admin.usernames_at(&format!("/api/v2/organizations/{eng}/admins/")),
        ["adm-bob"]
    );
    let eng_members = admin.usernames_at(&format!("/api/v2/organizations/{eng}/users/"));
    assert!(eng_members.contains(&"alice".to_owned()), "{eng_members:?}");
    assert!(
        admin
            .usernames_at(&format!("/api/v2/teams/{oncall}/users/"))
            .is_empty()
    );
    let written = admin.activity_from("oidc:corp");
    assert_eq!(
        written
            .iter()
            .filter(|e| e.starts_with("disassociate "))
            .count(),
        2,
        "{written:#?}"
    );
    // Default is in no map now: nobody leaves it.
    assert_eq!(
        admin
            .usernames_at(&format!("/api/v2/organizations/{default}/users/"))
            .len(),
        3
    );
}

fn maps_are_refused_with_where_and_why(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let path = "/api/v2/settings/authentication/";
    let cases = [
        (
            "SOCIAL_AUTH_ORGANIZATION_MAP",
            json!({"Eng": {"auditors": true}}),
            "auditors: Invalid field.",
        ),
        (
            "SOCIAL_AUTH_ORGANIZATION_MAP",
            json!({"Eng": {"users": "/(/"}}),
            "/(/",
        ),
        (
            "SOCIAL_AUTH_ORGANIZATION_MAP",
            json!({"Eng": {"users": [true]}}),
            "Not a valid string.",
        ),
        ("SOCIAL_AUTH_ORGANIZATION_MAP", json!(["Eng"]), "dictionary"),
        (
            "SOCIAL_AUTH_TEAM_MAP",
            json!({"Oncall": {"users": true}}),
            "organization: This field is required.",
        ),
        (
            "SOCIAL_AUTH_TEAM_MAP",
            json!({"Oncall": {"organization": "Eng", "remove": "maybe"}}),
            "Must be a valid boolean.",
        ),
    ];
    let before = admin.get_json(path);
    for (name, value, reason) in cases {
        let errors = admin
            .patch(path)
            .json(&json!({ name: value }))
            .call()
            .expect(400)
            .field_errors(name);
        assert!(
            errors.iter().any(|error| error.contains(reason)),
            "{value}: {errors:?}"
        );
    }
    assert_eq!(admin.get_json(path), before, "nothing refused was stored");
    // Stored normalised: every key, the pattern's flags in order.
    admin
        .patch(path)
        .json(&json!({"SOCIAL_AUTH_ORGANIZATION_MAP": {"Eng": {"users": "/^x/mi"}}, "SOCIAL_AUTH_TEAM_MAP": null}))
        .call()
        .expect(200);
    let shown = admin.get_json(path);
    assert_eq!(
        shown["SOCIAL_AUTH_ORGANIZATION_MAP"]["Eng"]["users"],
        "/^x/im"
    );
    assert_eq!(
        shown["SOCIAL_AUTH_ORGANIZATION_MAP"]["Eng"]["remove_users"],
        true
    );
    assert_eq!(shown["SOCIAL_AUTH_TEAM_MAP"], Value::Null);
}

fn a_groups_claim_gives_organizations_teams_and_flags(backend: Backend) {
    let server = TestServer::start(backend);
    let admin = server.admin();
    let mapping = json!({
        "claim": "groups",
        "organizations": {"Ops": {"admins": "ops-admins", "users": ["ops"]}},
        "teams": {"On-call": {"organization": "Ops", "users": "ops"}},
        "flags": {"is_system_auditor": "auditors"},
    });
    let provider = provider_with_groups(
        &server,
        &[
            ("dora", "dora@example.com", Some(json!(["ops", "auditors"]))),
            ("eli", "eli@example.com", Some(json!("ops"))),
            ("fay", "fay@example.com", None),
            ("gus", "gus@example.com", Some(json!(42))),
        ],
        mapping.clone(),
    );
    let shown = admin.get_json("/api/v2/settings/oidc/");
    assert_eq!(
        shown["OIDC_PROVIDERS"][0]["groups"]["organizations"]["Ops"]["admins"],
        json!(["ops-admins"]),
        "stored normalised: {shown}"
    );

    let dora = sign_in(&server, "dora");
    assert_eq!(me(&dora)["is_system_auditor"], true);
    let eli = sign_in(&server, "eli");
    assert_eq!(me(&eli)["is_system_auditor"], false);
    let fay = sign_in(&server, "fay");
    assert_eq!(me(&fay)["is_system_auditor"], false);
    let ops = organization(&admin, "Ops");
    let members = admin.usernames_at(&format!("/api/v2/organizations/{ops}/users/"));
    assert_eq!(members, ["dora", "eli"]);
    assert!(
        admin
            .usernames_at(&format!("/api/v2/organizations/{ops}/admins/"))
            .is_empty()
    );
    let team = admin.get_json(&format!("/api/v2/teams/?name=On-call&organization={ops}"));
    let on_call = team["results"][0]["id"].as_i64().expect("the team");
    assert_eq!(
        admin.usernames_at(&format!("/api/v2/teams/{on_call}/users/")),
        ["dora", "eli"]
    );

    // A claim that is not a list of names refuses the sign-in: no session, no account.
    let browser = server.client();
    let refused = sign_in_with(&server, &browser, "gus").expect(403);
    assert!(
        refused
            .body
            .contains("claim &quot;groups&quot; is not a group name"),
        "{}",
        refused.body
    );
    browser.get("/api/v2/me/").call().expect(401);
    assert_eq!(admin.get_json("/api/v2/users/?username=gus")["count"], 0);

    // The maps by username add what the groups do not: fay joins Ops by name.
    admin
        .patch("/api/v2/settings/authentication/")
        .json(&json!({"SOCIAL_AUTH_ORGANIZATION_MAP": {"Ops": {"users": ["fay"]}}}))
        .call()
        .expect(200);
    sign_in(&server, "fay");
    sign_in(&server, "dora");
    let members = admin.usernames_at(&format!("/api/v2/organizations/{ops}/users/"));
    assert_eq!(members, ["dora", "eli", "fay"]);

    // A flag whose groups the user is no longer in is taken away, and recorded.
    let mut changed = mapping;
    changed["flags"] = json!({"is_system_auditor": ["security"]});
    admin
        .patch("/api/v2/settings/oidc/")
        .json(&json!({"OIDC_PROVIDERS": [{
            "name": "corp", "issuer": provider.issuer(), "client_id": "acs",
            "client_secret": "$encrypted$", "groups": changed,
        }]}))
        .call()
        .expect(200);
    let dora = sign_in(&server, "dora");
    assert_eq!(me(&dora)["is_system_auditor"], false);
    let written = admin.activity_from("oidc:corp");
    let flag_changes: Vec<_> = written
        .iter()
        .filter(|e| e.contains("is_system_auditor"))
        .collect();
    assert_eq!(flag_changes.len(), 2, "{written:#?}");

    // The flag the provider's mapping owns is not changed by hand; the others are.
    let dora_id = me(&dora)["id"].as_i64().expect("dora's id");
    let refused = admin
        .patch(&format!("/api/v2/users/{dora_id}/"))
        .json(&json!({"is_system_auditor": true}))
        .call()
        .expect(400)
        .field_errors("is_system_auditor");
    assert!(
        refused
            .iter()
            .any(|reason| reason.contains("OIDC_PROVIDERS")),
        "{refused:?}"
    );
    admin
        .patch(&format!("/api/v2/users/{dora_id}/"))
        .json(&json!({"is_system_auditor": false, "is_superuser": true}))
        .call()
        .expect(200);
}

fn me(agent: &Agent) -> Value {
    agent.get_json("/api/v2/me/")["results"][0].clone()
}

backend_tests!(
    maps_match_username_or_email,
    maps_are_refused_with_where_and_why,
    a_groups_claim_gives_organizations_teams_and_flags,
);

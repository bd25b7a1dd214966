//! The browsable API over HTTP: which requests get a page and which keep getting the JSON,
//! what the page holds (escaped data, links, the list's parameters, the strict policy), and
//! where an anonymous browser is sent.

use acs_tests::{Agent, Backend, Call, Reply, TestServer, backend_tests};
use serde_json::json;

backend_tests!(
    browsers_get_pages_and_programs_keep_the_json,
    pages_escape_data_and_link_the_api,
    anonymous_browsers_are_sent_to_login_and_back,
    a_record_is_changed_and_deleted_from_its_page,
    forms_appear_only_for_what_the_caller_may_do,
    a_record_is_created_from_its_list_page,
    typed_fields_make_the_body,
    members_are_added_from_the_list_page,
    settings_are_changed_from_their_page,
    actions_offer_their_post_to_who_may_run_them,
    roles_are_granted_from_their_users_page,
    a_team_is_made_and_joined_from_its_pages,
);

/// What Chromium sends when a person follows a link.
const BROWSER_ACCEPT: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7";

/// A signed-in browser (session cookie), as after the login form.
fn browser(server: &TestServer) -> Agent {
    let browser = server.client();
    server.login(&browser, "admin", &server.admin_password);
    browser
}

/// `GET path` as a browser following a link, answered `status`.
#[track_caller]
fn visit(agent: &Agent, path: &str, status: u16) -> Reply {
    agent
        .get(path)
        .header("Accept", BROWSER_ACCEPT)
        .call()
        .expect(status)
}

fn is_page(reply: &acs_tests::Reply) -> bool {
    reply
        .header("content-type")
        .is_some_and(|t| t.starts_with("text/html"))
}

fn browsers_get_pages_and_programs_keep_the_json(backend: Backend) {
    let server = TestServer::start(backend);
    let browser = browser(&server);
    let path = "/api/v2/users/?order_by=id";
    let page = visit(&browser, path, 200);
    assert!(is_page(&page), "{:?}", page.headers);
    assert!(page.body.contains("<h1>User List</h1>"), "{}", page.body);
    let policy = page.header("content-security-policy").expect("a policy");
    assert!(policy.contains("default-src 'none'"), "{policy}");
    assert!(policy.contains("script-src 'self'"), "{policy}");
    assert_eq!(page.header("vary").as_deref(), Some("Accept"));
    assert!(
        page.header("x-api-request-id").is_some(),
        "{:?}",
        page.headers
    );
    let json_body = browser.get(path).call().expect(200).body;
    for (accept, query) in [
        (None, ""),
        (Some("*/*"), ""),
        (Some("application/json"), ""),
        (Some(BROWSER_ACCEPT), "&format=json"),
    ] {
        let mut request = browser.get(&format!("{path}{query}"));
        if let Some(accept) = accept {
            request = request.header("Accept", accept);
        }
        let reply = request.call().expect(200);
        assert!(!is_page(&reply), "{accept:?} {query}");
        assert_eq!(reply.body, json_body, "{accept:?} {query}");
    }
    // Bearer and Basic clients are programs, whatever they accept.
    let admin = server.admin();
    let token = admin.personal_token("read");
    for agent in [admin.clone(), server.anonymous().with_bearer(&token)] {
        let reply = visit(&agent, path, 200);
        assert!(!is_page(&reply), "{:?}", reply.headers);
        assert_eq!(reply.json()["count"], json!(1));
    }
    // Any client may ask for the page by name.
    let named = admin.get("/api/v2/users/?format=api").call().expect(200);
    assert!(is_page(&named));
    // Only reads are pages, and only under /api/v2/.
    let posted = browser
        .post("/api/v2/organizations/")
        .header("Accept", BROWSER_ACCEPT)
        .json(&json!({"name": "made"}))
        .call();
    assert!(!is_page(&posted), "{}", posted.body);
    let metadata = visit(&browser, "/.well-known/oauth-authorization-server", 200);
    assert!(!is_page(&metadata));
}

fn pages_escape_data_and_link_the_api(backend: Backend) {
    let server = TestServer::start(backend);
    let organization = server.create_organization("<b>x</b>");
    let browser = browser(&server);
    let page = visit(
        &browser,
        &format!("/api/v2/organizations/{organization}/"),
        200,
    )
    .body;
    assert!(page.contains("<h1>Organization Detail</h1>"), "{page}");
    assert!(page.contains("&lt;b&gt;x&lt;/b&gt;"), "{page}");
    assert!(!page.contains("<b>x</b>"), "{page}");
    assert!(
        page.contains(&format!(
            "<a href=\"/api/v2/organizations/{organization}/\">"
        )),
        "{page}"
    );
    assert!(page.contains("PATCH"), "the allowed methods: {page}");
    assert!(
        page.contains("Organizations group users; their admins manage them."),
        "the resource's description: {page}"
    );
    assert!(page.contains("<a href=\"/api/v2/\">"), "{page}");

    for n in 0..3 {
        server.create_organization(&format!("org{n}"));
    }
    let list = visit(&browser, "/api/v2/organizations/?page_size=2", 200).body;
    assert!(list.contains("rel=\"next\""), "{list}");
    assert!(list.contains("<code>order_by</code>"), "{list}");
    assert!(list.contains("<code>name</code>"), "a filter: {list}");
    // A detail the caller may not see: the API's refusal, in a page.
    let user = server.create_user("alice", "Alice-pass-1", false);
    let alice = server.client();
    server.login(&alice, "alice", "Alice-pass-1");
    let refused = visit(
        &alice,
        &format!("/api/v2/organizations/{organization}/"),
        403,
    );
    assert!(is_page(&refused));
    assert!(refused.body.contains("403"), "{}", refused.body);
    assert!(user > 0);
}

fn anonymous_browsers_are_sent_to_login_and_back(backend: Backend) {
    let server = TestServer::start(backend);
    let visitor = server.client();
    let reply = visit(&visitor, "/api/v2/users/?order_by=-id", 302);
    assert_eq!(
        reply.location().as_deref(),
        Some("/api/login/?next=%2Fapi%2Fv2%2Fusers%2F%3Forder_by%3D-id")
    );
    // A program without credentials still gets the 401.
    server
        .anonymous()
        .get("/api/v2/users/")
        .header("Accept", "application/json")
        .call()
        .expect(401);
    // The login form takes the browser back.
    let login = server
        .login_attempt(
            &visitor,
            "admin",
            &server.admin_password,
            Some("/api/v2/users/?order_by=-id"),
        )
        .expect(302);
    assert_eq!(
        login.location().as_deref(),
        Some("/api/v2/users/?order_by=-id")
    );
}

/// Posts a page's form as the browser does: its fields, the CSRF token, this site's origin.
fn post_page_form(
    server: &TestServer,
    browser: &Agent,
    path: &str,
    fields: &[(&str, &str)],
) -> Reply {
    let csrf = browser.cookie("csrftoken").expect("a csrftoken cookie");
    let mut form = vec![("csrfmiddlewaretoken", csrf.as_str())];
    form.extend_from_slice(fields);
    browser
        .post(path)
        .header("Accept", BROWSER_ACCEPT)
        .header("Origin", server.base.as_str())
        .form(&form)
        .call()
}

fn a_record_is_changed_and_deleted_from_its_page(backend: Backend) {
    let server = TestServer::start(backend);
    let organization = server.create_organization("before");
    let path = format!("/api/v2/organizations/{organization}/");
    let browser = browser(&server);
    let page = visit(&browser, &path, 200).body;
    assert!(page.contains("name=\"_content\""), "{page}");
    assert!(
        page.contains("&quot;name&quot;: &quot;before&quot;"),
        "pre-filled: {page}"
    );
    assert!(page.contains("value=\"DELETE\""), "{page}");

    let patched = post_page_form(
        &server,
        &browser,
        &path,
        &[
            ("_method", "PATCH"),
            ("_content", r#"{"description": "from the page"}"#),
        ],
    )
    .expect(303);
    assert_eq!(patched.location().as_deref(), Some(path.as_str()));
    assert_eq!(
        server.admin().get_json(&path)["description"],
        "from the page"
    );

    // A refusal is shown in the page, with the form as it was sent.
    let refused = post_page_form(
        &server,
        &browser,
        &path,
        &[("_method", "PUT"), ("_content", r#"{"name": ""}"#)],
    )
    .expect(400);
    assert!(is_page(&refused));
    assert!(
        refused.body.contains("This field may not be blank."),
        "{}",
        refused.body
    );
    assert!(
        refused.body.contains("{&quot;name&quot;: &quot;&quot;}"),
        "{}",
        refused.body
    );
    assert_eq!(server.admin().get_json(&path)["name"], "before");

    // Without the page's token nothing happens.
    let forged = browser
        .post(&path)
        .header("Accept", BROWSER_ACCEPT)
        .form(&[("_method", "DELETE")])
        .call()
        .expect(403);
    assert!(forged.body.contains("CSRF"), "{}", forged.body);
    server.admin().get(&path).call().expect(200);

    let deleted = post_page_form(&server, &browser, &path, &[("_method", "DELETE")]).expect(303);
    assert_eq!(
        deleted.location().as_deref(),
        Some("/api/v2/organizations/")
    );
    server.admin().get(&path).call().expect(404);
}

fn forms_appear_only_for_what_the_caller_may_do(backend: Backend) {
    let server = TestServer::start(backend);
    let organization = server.create_organization("watched");
    let path = format!("/api/v2/organizations/{organization}/");
    server.create_auditor("audrey", "Audrey-pass-1");
    let auditor = server.client();
    server.login(&auditor, "audrey", "Audrey-pass-1");
    let page = visit(&auditor, &path, 200).body;
    assert!(!page.contains("<form"), "{page}");
    // Nor can the auditor send what a form would.
    post_page_form(
        &server,
        &auditor,
        &path,
        &[
            ("_method", "PATCH"),
            ("_content", r#"{"description": "x"}"#),
        ],
    )
    .expect(403);
    // A page asked for with a token shows no forms either.
    let token = server.admin().personal_token("write");
    let with_token = server
        .anonymous()
        .with_bearer(&token)
        .get(&format!("{path}?format=api"))
        .call()
        .expect(200)
        .body;
    assert!(!with_token.contains("<form"), "{with_token}");
    // A program's form post is not a page's: the API takes JSON only.
    server
        .anonymous()
        .with_bearer(&token)
        .post(&path)
        .form(&[("_method", "DELETE")])
        .call();
    server.admin().get(&path).call().expect(200);
}

fn a_record_is_created_from_its_list_page(backend: Backend) {
    let server = TestServer::start(backend);
    let browser = browser(&server);
    let list = "/api/v2/organizations/";
    let page = visit(&browser, list, 200).body;
    assert!(page.contains("id=\"create-content\""), "{page}");
    assert!(
        page.contains("&quot;name&quot;: &quot;&quot;"),
        "the fields to fill: {page}"
    );

    let refused = post_page_form(
        &server,
        &browser,
        list,
        &[("_method", "POST"), ("_content", r#"{"name": ""}"#)],
    )
    .expect(400);
    assert!(
        refused.body.contains("This field may not be blank."),
        "{}",
        refused.body
    );
    assert!(
        refused.body.contains("id=\"create-content\""),
        "{}",
        refused.body
    );

    let created = post_page_form(
        &server,
        &browser,
        list,
        &[
            ("_method", "POST"),
            ("_content", r#"{"name": "made in a page"}"#),
        ],
    )
    .expect(303);
    let location = created.location().expect("the new record's page");
    assert_ne!(location, list, "{:?} {}", created.headers, created.body);
    let record = server.admin().get_json(&location);
    assert_eq!(record["name"], "made in a page");

    // A user who may not create organizations gets no form there, but gets one for tokens.
    server.create_user("bo", "Bo-pass-12345", false);
    let bo = server.client();
    server.login(&bo, "bo", "Bo-pass-12345");
    let page = visit(&bo, list, 200).body;
    assert!(!page.contains("<form"), "{page}");
    let tokens = visit(&bo, "/api/v2/tokens/", 200).body;
    assert!(tokens.contains("id=\"create-content\""), "{tokens}");
    // The JSON of a list is the same whether or not its caller may create.
    assert_eq!(
        browser.get(list).call().expect(200).json()["count"],
        json!(1)
    );
}

fn typed_fields_make_the_body(backend: Backend) {
    let server = TestServer::start(backend);
    let organization = server.create_organization("apps");
    let browser = browser(&server);
    let list = "/api/v2/applications/";
    let page = visit(&browser, list, 200).body;
    // A flag is a box, help text is next to its input, a choice is a select of its values.
    assert!(page.contains("name=\"field.client_type\""), "{page}");
    assert!(
        page.contains("type=\"checkbox\" id=\"create-skip_authorization\""),
        "{page}"
    );
    assert!(page.contains("Unique within the organization."), "{page}");
    let types = visit(&browser, "/api/v2/credential_types/", 200).body;
    assert!(
        types.contains("<select id=\"create-kind\" name=\"field.kind\""),
        "{types}"
    );
    assert!(
        types.contains("<option value=\"cloud\">cloud</option>"),
        "{types}"
    );

    let organization_text = organization.to_string();
    let created = post_page_form(
        &server,
        &browser,
        list,
        &[
            ("_method", "POST"),
            ("_form", "fields"),
            ("field.name", "typed"),
            ("field.description", ""),
            ("field.organization", organization_text.as_str()),
            ("field.client_type", "public"),
            ("field.authorization_grant_type", "password"),
        ],
    )
    .expect(303);
    let path = created.location().expect("the new application's page");
    let application = server.admin().get_json(&path);
    assert_eq!(application["name"], "typed");
    assert_eq!(application["client_type"], "public");
    assert_eq!(application["skip_authorization"], false);
    assert_eq!(application["organization"], organization);

    // The record's form holds its values; a change by fields keeps what is left out.
    let page = visit(&browser, &path, 200).body;
    assert!(
        page.contains("id=\"edit-name\" name=\"field.name\" type=\"text\" value=\"typed\""),
        "{page}"
    );
    post_page_form(
        &server,
        &browser,
        &path,
        &[
            ("_method", "PATCH"),
            ("_form", "fields"),
            ("field.description", "by fields"),
            ("field.skip_authorization", "true"),
        ],
    )
    .expect(303);
    let changed = server.admin().get_json(&path);
    assert_eq!(changed["description"], "by fields");
    assert_eq!(changed["skip_authorization"], true);
    assert_eq!(changed["name"], "typed");

    // A number that is not one reaches the API as typed, and its refusal shows.
    let refused = post_page_form(
        &server,
        &browser,
        list,
        &[
            ("_method", "POST"),
            ("_form", "fields"),
            ("field.name", "bad"),
            ("field.organization", "seven"),
            ("field.client_type", "public"),
            ("field.authorization_grant_type", "password"),
        ],
    )
    .expect(400);
    assert!(refused.body.contains("organization"), "{}", refused.body);
    assert!(refused.body.contains("value=\"seven\""), "{}", refused.body);
}

fn members_are_added_from_the_list_page(backend: Backend) {
    let server = TestServer::start(backend);
    let organization = server.create_organization("club");
    let user = server.create_user("cy", "Cy-pass-123456", false);
    let members = format!("/api/v2/organizations/{organization}/users/");
    let browser = browser(&server);
    let page = visit(&browser, &members, 200).body;
    assert!(page.contains("name=\"field.id\""), "{page}");
    assert!(page.contains("name=\"field.disassociate\""), "{page}");
    let user_text = user.to_string();
    let added = post_page_form(
        &server,
        &browser,
        &members,
        &[
            ("_method", "POST"),
            ("_form", "fields"),
            ("field.id", user_text.as_str()),
        ],
    )
    .expect(303);
    assert_eq!(added.location().as_deref(), Some(members.as_str()));
    assert_eq!(server.admin().get_json(&members)["count"], json!(1));
    // A member may see the list, not change it: no form.
    let cy = server.client();
    server.login(&cy, "cy", "Cy-pass-123456");
    let seen = visit(&cy, &members, 200).body;
    assert!(!seen.contains("<form"), "{seen}");
    // The organization's content sources likewise.
    let sources = format!("/api/v2/organizations/{organization}/source_credentials/");
    let admin_page = visit(&browser, &sources, 200).body;
    assert!(admin_page.contains("name=\"field.id\""), "{admin_page}");
    let member_page = visit(&cy, &sources, 200).body;
    assert!(!member_page.contains("<form"), "{member_page}");
}

fn settings_are_changed_from_their_page(backend: Backend) {
    let server = TestServer::start(backend);
    let path = "/api/v2/settings/authentication/";
    let browser = browser(&server);
    let page = visit(&browser, path, 200).body;
    assert!(page.contains("id=\"edit-content\""), "{page}");
    assert!(page.contains("SESSION_COOKIE_AGE"), "{page}");
    post_page_form(
        &server,
        &browser,
        path,
        &[
            ("_method", "PATCH"),
            ("_content", r#"{"SESSION_COOKIE_AGE": 900}"#),
        ],
    )
    .expect(303);
    assert_eq!(server.admin().get_json(path)["SESSION_COOKIE_AGE"], 900);
    // The reset form returns the category to its defaults.
    let page = visit(&browser, path, 200).body;
    assert!(page.contains(DELETE_FORM), "{page}");
    let reset = post_page_form(&server, &browser, path, &[("_method", "DELETE")]).expect(303);
    assert_eq!(reset.location().as_deref(), Some("/api/v2/settings/"));
    assert_eq!(server.admin().get_json(path)["SESSION_COOKIE_AGE"], 1800);
    // A system auditor reads the settings, and gets no form; a reset it forges is refused.
    server.create_auditor("audrey", "Audrey-pass-1");
    let auditor = server.client();
    server.login(&auditor, "audrey", "Audrey-pass-1");
    let read = visit(&auditor, path, 200).body;
    assert!(!read.contains("<form"), "{read}");
    post_page_form(&server, &auditor, path, &[("_method", "DELETE")]).expect(403);
}

fn actions_offer_their_post_to_who_may_run_them(backend: Backend) {
    let fixture = acs_tests::ansible::AutomationServer::start(backend, &[]);
    fixture.project_file("site", "site.yml", "- hosts: all\n  tasks: []\n");
    let server = &fixture.server;
    let organization = server.create_organization("ops");
    let project = server
        .admin()
        .post("/api/v2/projects/")
        .json(&json!({"name": "p", "organization": organization, "local_path": "site"}))
        .call()
        .expect(201)
        .json()["id"]
        .clone();
    let update = format!("/api/v2/projects/{project}/update/");
    let admin = browser(server);
    let page = visit(&admin, &update, 200).body;
    assert!(page.contains("name=\"_method\" value=\"POST\""), "{page}");
    // A member sees the project but may not update it: no form.
    let member = server.create_user("mo", "Mo-pass-123456", false);
    server.add_member(organization, member);
    let mo = server.client();
    server.login(&mo, "mo", "Mo-pass-123456");
    let seen = visit(&mo, &update, 200).body;
    assert!(!seen.contains("<form"), "{seen}");

    // A finished run's page offers its deletion to who may run it, not to a member, though
    // its `user_capabilities` say `delete: false`.
    let started = server.admin().post(&update).call().expect(202).json();
    let run = format!("/api/v2/project_updates/{}/", started["project_update"]);
    let finished = acs_tests::ansible::wait_for_run(&server.admin(), &run);
    assert_eq!(
        finished["summary_fields"]["user_capabilities"]["delete"],
        false
    );
    let member_view = visit(&mo, &run, 200).body;
    assert!(!member_view.contains(DELETE_FORM), "{member_view}");
    post_page_form(server, &mo, &run, &[("_method", "DELETE")]).expect(403);
    let admin_view = visit(&admin, &run, 200).body;
    assert!(admin_view.contains(DELETE_FORM), "{admin_view}");
    let deleted = post_page_form(server, &admin, &run, &[("_method", "DELETE")]).expect(303);
    assert_eq!(
        deleted.location().as_deref(),
        Some("/api/v2/project_updates/")
    );
    server.admin().get(&run).call().expect(404);
}

/// The hidden field of a page's delete form.
const DELETE_FORM: &str = "name=\"_method\" value=\"DELETE\"";

/// A role's users page carries the grant form for who may grant it, and the grant works.
fn roles_are_granted_from_their_users_page(backend: Backend) {
    let server = TestServer::start(backend);
    let organization = server.create_organization("club");
    let user = server.create_user("cy", "Cy-pass-123456", false);
    server.add_member(organization, user);
    let record = server
        .admin()
        .get_json(&format!("/api/v2/organizations/{organization}/"));
    let execute = record["summary_fields"]["object_roles"]["execute_role"]["id"]
        .as_i64()
        .expect("the execute role");
    let users = format!("/api/v2/roles/{execute}/users/");
    let browser = browser(&server);
    let page = visit(&browser, &users, 200).body;
    assert!(page.contains("name=\"field.id\""), "{page}");
    assert!(page.contains("name=\"field.disassociate\""), "{page}");
    let user_text = user.to_string();
    let granted = post_page_form(
        &server,
        &browser,
        &users,
        &[
            ("_method", "POST"),
            ("_form", "fields"),
            ("field.id", user_text.as_str()),
        ],
    )
    .expect(303);
    assert_eq!(granted.location().as_deref(), Some(users.as_str()));
    let members = server.admin().get_json(&users);
    assert_eq!(members["count"], json!(1), "{members}");
    assert_eq!(members["results"][0]["username"], "cy", "{members}");
    // Cy now holds the role, but may not grant it: no form.
    let cy = server.client();
    server.login(&cy, "cy", "Cy-pass-123456");
    let seen = visit(&cy, &users, 200).body;
    assert!(!seen.contains("<form"), "{seen}");
}

/// A team made from the team list's page, then a member added from its users page.
fn a_team_is_made_and_joined_from_its_pages(backend: Backend) {
    let server = TestServer::start(backend);
    let organization = server.create_organization("club");
    let user = server.create_user("cy", "Cy-pass-123456", false);
    let browser = browser(&server);
    let list = "/api/v2/teams/";
    let page = visit(&browser, list, 200).body;
    assert!(page.contains("id=\"create-content\""), "{page}");
    let body = format!(r#"{{"name": "night shift", "organization": {organization}}}"#);
    let created = post_page_form(
        &server,
        &browser,
        list,
        &[("_method", "POST"), ("_content", body.as_str())],
    )
    .expect(303);
    let location = created.location().expect("the new team's page");
    let team = server.admin().get_json(&location);
    assert_eq!(team["name"], "night shift", "{team}");
    let members = format!("{location}users/");
    let page = visit(&browser, &members, 200).body;
    assert!(page.contains("name=\"field.id\""), "{page}");
    let user_text = user.to_string();
    post_page_form(
        &server,
        &browser,
        &members,
        &[
            ("_method", "POST"),
            ("_form", "fields"),
            ("field.id", user_text.as_str()),
        ],
    )
    .expect(303);
    assert_eq!(server.admin().get_json(&members)["count"], json!(1));
}

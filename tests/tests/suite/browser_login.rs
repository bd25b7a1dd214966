//! The browser harness's own tests, on the session login pages: a real Chromium signs in and
//! out, the error shows, and the login page passes axe's WCAG 2.1 AA rules at phone size.

use acs_tests::browser::Browser;
use acs_tests::{Backend, TestServer, backend_tests};

backend_tests!(
    failed_login_shows_the_error,
    login_lands_on_the_profile_and_logout_ends_the_session,
    login_page_is_accessible_and_fits_a_phone,
);

fn sign_in(browser: &Browser, username: &str, password: &str) {
    browser.goto("/api/login/");
    browser.fill("#username", username);
    browser.fill("#password", password);
    browser.click_through("button[type=submit]");
}

fn failed_login_shows_the_error(backend: Backend) {
    let server = TestServer::start(backend);
    let browser = Browser::open(&server, "failed_login_shows_the_error");
    sign_in(&browser, "admin", "not-the-password");
    let error = browser.text("p.error[role=alert]");
    assert!(error.contains("correct username and password"), "{error}");
    assert!(
        browser.path().starts_with("/api/login/"),
        "{}",
        browser.path()
    );
    // The form comes back for another try, with the username kept or empty, never the password.
    assert_eq!(browser.value("#password"), "");
    browser.screenshot("login-failed");
}

fn login_lands_on_the_profile_and_logout_ends_the_session(backend: Backend) {
    let server = TestServer::start(backend);
    let browser = Browser::open(
        &server,
        "login_lands_on_the_profile_and_logout_ends_the_session",
    );
    sign_in(&browser, "admin", &server.admin_password);
    assert_eq!(browser.path(), "/accounts/profile/");
    assert_eq!(browser.text("h1"), "Signed in as admin");
    assert!(browser.cookie(acs_tests::SESSION_COOKIE).is_some());
    browser.screenshot("profile");

    // The "Log out" form posts to /api/logout/ and comes back to the login page.
    browser.click_through("form[action^='/api/logout/'] button[type=submit]");
    let path = browser.path();
    assert!(path.starts_with("/api/login/"), "{path}");
    browser.goto("/accounts/profile/");
    let path = browser.path();
    assert!(path.starts_with("/api/login/"), "{path}");
    assert!(browser.exists("#username"));
}

fn login_page_is_accessible_and_fits_a_phone(backend: Backend) {
    let server = TestServer::start(backend);
    let browser = Browser::open(&server, "login_page_is_accessible_and_fits_a_phone");
    browser.goto("/api/login/");
    let violations = browser.accessibility_violations();
    assert_eq!(
        violations,
        Vec::<String>::new(),
        "axe (WCAG 2.1 A/AA) on /api/login/:\n{}",
        violations.join("\n")
    );

    browser.set_window_size(390, 844);
    browser.goto("/api/login/");
    let width = browser.execute("return window.innerWidth", vec![]);
    assert_eq!(width, 390, "the window did not shrink to phone width");
    assert!(
        !browser.overflows_horizontally(),
        "/api/login/ scrolls sideways at 390x844"
    );
    browser.screenshot("login-phone");

    // The check itself: the page's CSP is in force (an inline script does not run), yet axe,
    // injected through WebDriver, runs and reports a planted image without alt text.
    let inline_ran = browser.execute(
        "const s = document.createElement('script');
         s.textContent = 'window.inlineRan = true';
         document.head.appendChild(s);
         return window.inlineRan === true",
        vec![],
    );
    assert_eq!(
        inline_ran, false,
        "the page's CSP did not block an inline script"
    );
    browser.execute(
        "document.querySelector('main').insertAdjacentHTML('beforeend', '<img src=\"/static/acs.css\">')",
        vec![],
    );
    let planted = browser.accessibility_violations();
    assert!(
        planted
            .iter()
            .any(|v| v.starts_with("image-alt (critical): ")),
        "{planted:?}"
    );
}

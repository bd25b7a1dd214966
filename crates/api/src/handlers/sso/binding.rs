//! Binds a sign-in to the browser that started it. The state travels through the provider and
//! back in URLs, so anyone who started a sign-in holds a valid one: without a binding, an
//! attacker signs in at the provider as themself and sends the victim the completion URL,
//! which then signs the victim's browser in as the attacker (login CSRF). The start sets a
//! cookie only that browser has; the completion requires it.
//!
//! The cookie's name carries a prefix of the state's digest, so sign-ins started in several
//! tabs do not overwrite each other; its value is the whole digest, its path the completion
//! path, and it lives as long as the sign-in may take.

use actix_web::HttpRequest;
use actix_web::cookie::{Cookie, SameSite, time::Duration};

use super::SIGN_IN_SECONDS;

const PREFIX: &str = "acs_sso_";
const PATH: &str = "/sso/complete/";

/// The cookie's name and value for a sign-in with `state`.
fn name_and_value(state: &str) -> (String, String) {
    let digest = hex::encode(
        acs_oauth2::PlainSecret::new(state.to_owned())
            .digest()
            .as_bytes(),
    );
    (format!("{PREFIX}{}", &digest[..16]), digest)
}

/// The cookie the start of a sign-in with `state` sets (`Secure` when the request came over
/// HTTPS).
pub fn cookie(state: &str, secure: bool) -> Cookie<'static> {
    let (name, value) = name_and_value(state);
    Cookie::build(name, value)
        .path(PATH)
        .http_only(true)
        .same_site(SameSite::Lax)
        .secure(secure)
        .max_age(Duration::seconds(SIGN_IN_SECONDS))
        .finish()
}

/// Whether the browser that sent `req` started the sign-in with `state`.
pub fn holds(req: &HttpRequest, state: &str) -> bool {
    let (name, value) = name_and_value(state);
    req.cookie(&name)
        .is_some_and(|cookie| cookie.value().as_bytes() == value.as_bytes())
}

/// The cookie that removes the binding of `state`, once the sign-in is over either way.
pub fn removal(state: &str) -> Cookie<'static> {
    let (name, _) = name_and_value(state);
    let mut cookie = Cookie::build(name, "").path(PATH).http_only(true).finish();
    cookie.make_removal();
    cookie
}

#[cfg(test)]
mod tests {
    use actix_web::test::TestRequest;

    use super::*;

    #[test]
    fn only_the_browser_with_the_cookie_of_that_state_holds_it() {
        let started = cookie("state-1", false);
        assert_eq!(started.path(), Some(PATH));
        assert_eq!(started.http_only(), Some(true));
        assert_eq!(started.same_site(), Some(SameSite::Lax));
        assert!(cookie("state-1", true).secure().unwrap_or(false));
        let with = TestRequest::default()
            .cookie(started.clone())
            .to_http_request();
        assert!(holds(&with, "state-1"));
        assert!(!holds(&with, "state-2"), "another sign-in's state");
        let without = TestRequest::default().to_http_request();
        assert!(
            !holds(&without, "state-1"),
            "a browser that never started it"
        );
        let forged = Cookie::new(started.name().to_owned(), "0".repeat(64));
        let forged = TestRequest::default().cookie(forged).to_http_request();
        assert!(
            !holds(&forged, "state-1"),
            "a cookie of the right name only"
        );
        assert_eq!(removal("state-1").name(), started.name());
    }
}

//! Which requests get a page: content negotiation on `Accept`, `?format=` and who asks.

use crate::PREFIX;

/// Whether a request is answered with a page: `?format=api`, or a `GET` (or `HEAD`) under
/// [`PREFIX`] whose `Accept` prefers `text/html` to `application/json` and that carries no
/// `Authorization` (`authorized`: bearer and Basic clients are programs); never with
/// `?format=json`.
pub fn wants_page(
    method: &str,
    path: &str,
    query: &str,
    accept: Option<&str>,
    authorized: bool,
) -> bool {
    if !path.starts_with(PREFIX) || !matches!(method, "GET" | "HEAD") {
        return false;
    }
    // Most requests have no `format`: look for it before decoding the query.
    let format = query
        .contains("format")
        .then(|| {
            url::form_urlencoded::parse(query.as_bytes())
                .find(|(name, _)| name == "format")
                .map(|(_, value)| value.into_owned())
        })
        .flatten();
    match format.as_deref() {
        Some("api") => true,
        Some(_) => false,
        None => !authorized && accept.is_some_and(prefers_html),
    }
}

/// Whether an `Accept` header ranks `text/html` above `application/json` (a tie goes to
/// JSON: a program listing both did not ask for a page).
fn prefers_html(accept: &str) -> bool {
    let html = quality(accept, "text", "html");
    html > 0.0 && html > quality(accept, "application", "json")
}

/// The quality `accept` gives `kind/subtype`: its most specific matching range's `q`.
fn quality(accept: &str, kind: &str, subtype: &str) -> f32 {
    let mut best: Option<(u8, f32)> = None;
    for range in accept.split(',') {
        let mut parts = range.split(';').map(str::trim);
        let Some((range_kind, range_subtype)) = parts.next().and_then(|r| r.split_once('/')) else {
            continue;
        };
        let specificity = match (range_kind, range_subtype) {
            (k, s) if k.eq_ignore_ascii_case(kind) && s.eq_ignore_ascii_case(subtype) => 2,
            (k, "*") if k.eq_ignore_ascii_case(kind) => 1,
            ("*", "*") => 0,
            _ => continue,
        };
        let q = parts
            .filter_map(|p| p.strip_prefix("q="))
            .find_map(|q| q.parse::<f32>().ok())
            .unwrap_or(1.0);
        if best.is_none_or(|(seen, _)| specificity > seen) {
            best = Some((specificity, q));
        }
    }
    best.map_or(0.0, |(_, q)| q)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHROMIUM: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7";
    const FIREFOX: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

    #[test]
    fn browsers_get_pages_and_programs_get_json() {
        let page = |accept: Option<&str>, query: &str, authorized: bool| {
            wants_page("GET", "/api/v2/users/", query, accept, authorized)
        };
        assert!(page(Some(CHROMIUM), "", false), "Chromium");
        assert!(page(Some(FIREFOX), "", false), "Firefox");
        assert!(page(None, "format=api", false), "?format=api");
        assert!(page(Some("application/json"), "a=1&format=api", false));
        for (accept, name) in [
            (None, "no Accept"),
            (Some("*/*"), "*/*"),
            (Some("application/json"), "JSON"),
            (Some("application/json, text/html"), "a tie"),
            (Some("text/html;q=0.5, application/json"), "JSON preferred"),
            (Some("text/html;q=0"), "HTML refused"),
        ] {
            assert!(!page(accept, "", false), "{name}");
        }
        assert!(!page(Some(CHROMIUM), "format=json", false), "?format=json");
        assert!(!page(Some(CHROMIUM), "", true), "Authorization header");
        assert!(!wants_page(
            "POST",
            "/api/v2/users/",
            "",
            Some(CHROMIUM),
            false
        ));
        assert!(!wants_page(
            "GET",
            "/api/o/token/",
            "",
            Some(CHROMIUM),
            false
        ));
        assert!(!wants_page("GET", "/api/login/", "", Some(CHROMIUM), false));
    }
}

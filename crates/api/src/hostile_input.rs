//! Property tests over every parser and validator of the API crate that reads user data:
//! whatever arrives, nothing panics, and what is accepted keeps the promises the callers
//! rely on (a `next` stays on this site, a relative path stays inside its directory).

use proptest::prelude::*;
use serde_json::{Map, Value};

use crate::auth::basic_credentials;
use crate::handlers::automation::{parse_variables, relative_path_problem};
use crate::handlers::login::safe_next;
use crate::http::list::ListRequest;
use acs_app::settings::{directory, sso};

/// Any JSON value, nested a few levels, with strings that look like what the validators
/// look for.
fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        prop_oneof![
            any::<String>(),
            "(ldap|ldaps|http|https)://[a-z0-9.:/%@]{0,20}",
            "SCOPE_(SUBTREE|ONELEVEL|BASE)",
            "\\(uid=%\\(user\\)s\\)",
            "[a-z_-]{0,10}",
            Just("$encrypted$".to_owned()),
        ]
        .prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        any::<String>(),
                        "(name|label|issuer|client_id|client_secret|scopes|first_name|email)"
                    ],
                    inner
                ),
                0..6
            )
            .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn basic_headers_never_panic(header in prop_oneof![any::<String>(), "(?i)basic [A-Za-z0-9+/=]{0,40}"]) {
        if let Some((username, _)) = basic_credentials(Some(&header)) {
            prop_assert!(!username.contains(':'));
        }
    }

    #[test]
    fn a_next_that_is_accepted_stays_on_this_site(next in prop_oneof![any::<String>(), "[/\\\\a-z:.]{0,12}"]) {
        if let Some(kept) = safe_next(Some(&next)) {
            prop_assert!(kept.starts_with('/') && !kept.starts_with("//"));
            prop_assert!(!kept.contains('\\') && !kept.chars().any(char::is_control));
        }
    }

    #[test]
    fn an_accepted_relative_path_stays_inside(path in prop_oneof![any::<String>(), "[./a-z\\\\]{0,16}"]) {
        if relative_path_problem(&path).is_none() {
            prop_assert!(!path.is_empty() && !path.starts_with('/') && !path.contains('\\'));
            prop_assert!(path.split('/').all(|segment| !matches!(segment, "" | "." | "..")));
        }
    }

    #[test]
    fn variables_never_panic(text in prop_oneof![any::<String>(), "[a-z]{1,4}: [\\[{&*!a-z0-9 ]{0,16}"]) {
        let _ = parse_variables(&text);
    }

    #[test]
    fn list_queries_never_panic(pairs in prop::collection::vec(
        (prop_oneof![any::<String>(), "(page|page_size|order_by|search|name__icontains|id__in)"], any::<String>()),
        0..6,
    )) {
        let _ = ListRequest::from_pairs("/api/v2/users/".into(), pairs);
    }

    #[test]
    fn setting_validators_never_panic(value in json()) {
        let _ = directory::server_uri(&value);
        let _ = directory::dn(&value);
        let _ = directory::dn_template(&value);
        let _ = directory::user_search(&value);
        let _ = directory::attribute_map(&value);
        if let Ok(valid) = sso::validate(&value) {
            // A list that validated is one that sealing and masking can read.
            prop_assert!(valid.is_array());
            let _ = sso::masked(&valid);
        }
    }
}

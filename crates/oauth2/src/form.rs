//! The parameters of an OAuth 2 request (a form body or an authorization
//! query), already percent-decoded by the caller, with the two rules RFC 6749
//! §3.1 sets for every endpoint: a parameter must not appear more than once,
//! and one sent without a value counts as omitted.
//!
//! Repeats are refused outright rather than resolved (first or last wins)
//! because the endpoints authenticate clients and compare redirect URIs from
//! these values: two readers picking different copies is how parameter
//! pollution attacks work.

use std::collections::BTreeMap;

use crate::protocol_error::OAuthError;

/// Request parameters by name, each present at most once.
#[derive(Clone, PartialEq, Eq)]
pub struct FormParams {
    /// Name → value; empty values are kept so [`FormParams::contains`] can
    /// still tell "sent empty" from "not sent".
    values: BTreeMap<String, String>,
}

impl std::fmt::Debug for FormParams {
    /// Names only: values include passwords, client secrets and codes.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.values.keys()).finish()
    }
}

impl FormParams {
    /// Collects decoded `(name, value)` pairs, e.g. from
    /// `url::form_urlencoded::parse`.
    ///
    /// Any name seen twice, even with an empty or identical value, gives
    /// `invalid_request` `"Duplicate <name> parameter."`. Names are
    /// case-sensitive (`Scope` and `scope` are different parameters, and only
    /// the lower-case ones mean anything).
    pub fn parse<I, K, V>(pairs: I) -> Result<FormParams, OAuthError>
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        let mut values = BTreeMap::new();
        for (name, value) in pairs {
            let name = name.into();
            if values.contains_key(&name) {
                return Err(OAuthError::duplicate_parameter(&name));
            }
            values.insert(name, value.into());
        }
        Ok(FormParams { values })
    }

    /// The value of `name`, or `None` when it was not sent or sent empty
    /// (RFC 6749 §3.1: "Parameters sent without a value MUST be treated as
    /// if they were omitted").
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// True when `name` was sent at all, even empty.
    pub fn contains(&self, name: &str) -> bool {
        self.values.contains_key(name)
    }

    /// True when no parameter was sent, e.g. a JSON body read as a form.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decoded request parameters, in order.
    type Pairs<'a> = Vec<(&'a str, &'a str)>;
    use crate::protocol_error::ErrorCode;

    #[test]
    fn parse_and_get() {
        let form = FormParams::parse([
            ("grant_type", "password"),
            ("scope", ""),
            ("Username", "alice"),
            ("name", "é ü"),
        ])
        .unwrap();
        assert_eq!(form.get("grant_type"), Some("password"));
        assert_eq!(form.get("scope"), None, "empty counts as omitted");
        assert!(form.contains("scope"));
        assert_eq!(form.get("username"), None, "names are case-sensitive");
        assert_eq!(form.get("name"), Some("é ü"));
        assert_eq!(form.get("missing"), None);
        assert!(!form.contains("missing"));
        assert!(!form.is_empty());
        assert!(
            FormParams::parse(Vec::<(String, String)>::new())
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn repeated_parameters_are_refused() {
        let huge = "x".repeat(10_000);
        let cases: Vec<(&str, Pairs<'_>, &str)> = vec![
            (
                "same value twice",
                vec![("code", "a"), ("code", "a")],
                "Duplicate code parameter.",
            ),
            (
                "different values",
                vec![("client_id", "a"), ("x", "y"), ("client_id", "b")],
                "Duplicate client_id parameter.",
            ),
            (
                "empty then full",
                vec![("scope", ""), ("scope", "read")],
                "Duplicate scope parameter.",
            ),
            (
                "unknown parameter",
                vec![("foo", "1"), ("foo", "2")],
                "Duplicate foo parameter.",
            ),
            (
                "huge name not echoed",
                vec![(huge.as_str(), "1"), (huge.as_str(), "2")],
                "Duplicate parameter.",
            ),
            (
                "empty name",
                vec![("", "1"), ("", "2")],
                "Duplicate parameter.",
            ),
        ];
        for (name, pairs, description) in cases {
            let error = FormParams::parse(pairs).unwrap_err();
            assert_eq!(error.code, ErrorCode::InvalidRequest, "{name}");
            assert_eq!(error.description, description, "{name}");
        }
    }

    #[test]
    fn accepts_owned_and_cow_pairs() {
        let form =
            FormParams::parse(url::form_urlencoded::parse(b"token=a%2Bb&hint=x+y&empty=")).unwrap();
        assert_eq!(form.get("token"), Some("a+b"));
        assert_eq!(form.get("hint"), Some("x y"));
        assert_eq!(form.get("empty"), None);
        let owned = FormParams::parse(vec![("a".to_owned(), "b".to_owned())]).unwrap();
        assert_eq!(owned.get("a"), Some("b"));
    }

    #[test]
    fn debug_hides_values() {
        let form = FormParams::parse([("password", "hunter2")]).unwrap();
        let shown = format!("{form:?}");
        assert!(shown.contains("password"));
        assert!(!shown.contains("hunter2"));
    }
}

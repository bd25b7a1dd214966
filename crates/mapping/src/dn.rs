//! Distinguished names, compared as a directory compares them: attribute types and values
//! without regard to case or to the spaces around `,` and `=`, escapes kept.

use crate::MapError;

/// A distinguished name, normalised for comparison.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Dn(String);

impl Dn {
    /// Parses `text` as a DN (`cn=ops,ou=groups,dc=example,dc=org`): one or more
    /// `type=value` parts separated by unescaped commas, each type a name or a numeric OID,
    /// each value non-empty.
    pub fn parse(text: &str) -> Result<Dn, MapError> {
        let invalid = || MapError::at(&[], format!("Invalid DN: {text}"));
        let mut parts = Vec::new();
        for part in split_unescaped(text, ',').ok_or_else(invalid)? {
            let (kind, value) = part.split_once('=').ok_or_else(invalid)?;
            let (kind, value) = (kind.trim(), value.trim());
            let named = kind
                .chars()
                .next()
                .is_some_and(|first| first.is_ascii_alphabetic())
                && kind.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
            let numeric = !kind.is_empty() && kind.chars().all(|c| c.is_ascii_digit() || c == '.');
            if !(named || numeric) || value.is_empty() {
                return Err(invalid());
            }
            parts.push(format!(
                "{}={}",
                kind.to_ascii_lowercase(),
                value.to_lowercase()
            ));
        }
        if parts.is_empty() {
            return Err(invalid());
        }
        Ok(Dn(parts.join(",")))
    }

    /// The normalised text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// `text` cut at each `separator` not escaped by a backslash; `None` for a dangling escape.
fn split_unescaped(text: &str, separator: char) -> Option<Vec<&str>> {
    let mut parts = Vec::new();
    let (mut start, mut escaped) = (0, false);
    for (at, c) in text.char_indices() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == separator {
            parts.push(&text[start..at]);
            start = at + c.len_utf8();
        }
    }
    if escaped {
        return None;
    }
    parts.push(&text[start..]);
    Some(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_name_written_differently_is_equal() {
        let written = [
            "cn=ops,ou=groups,dc=example,dc=org",
            "CN=Ops, OU=Groups, DC=example, DC=org",
            " cn = ops ,ou=groups,dc=example,dc=org",
        ];
        let parsed: Vec<Dn> = written
            .iter()
            .map(|t| Dn::parse(t).expect("a DN"))
            .collect();
        assert!(
            parsed.windows(2).all(|pair| pair[0] == pair[1]),
            "{parsed:?}"
        );
        assert_ne!(
            Dn::parse("cn=ops\\,eu,dc=org").expect("an escaped comma"),
            Dn::parse("cn=ops,cn=eu,dc=org").expect("two parts")
        );
        assert!(Dn::parse("2.5.4.3=ops,dc=org").is_ok());
    }

    #[test]
    fn what_is_not_a_dn_is_refused() {
        for text in [
            "", "ops", "cn=", "=ops", "cn=ops,", "cn=ops\\", "c n=ops", "1cn=x",
        ] {
            let refused = Dn::parse(text).expect_err(text);
            assert_eq!(refused.message, format!("Invalid DN: {text}"));
        }
    }
}

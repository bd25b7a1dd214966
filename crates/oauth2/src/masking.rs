//! How secrets appear in API responses after their creation.
//!
//! A token, refresh token or client secret is shown in full exactly once, in
//! the response that created it; only its digest is stored, so every later
//! response could not show it even if it wanted to, and shows AWX's mask
//! instead (clients written against AWX compare against this exact string).

use crate::secret::PlainSecret;

/// What every response after creation shows instead of a token, refresh token
/// or client secret: exactly twelve asterisks, as AWX does.
pub const MASK: &str = "************";

/// The value to put in a response: the plain secret when given (the creation
/// response, which just generated it), else [`MASK`].
pub fn shown(secret: Option<&PlainSecret>) -> &str {
    secret.map_or(MASK, PlainSecret::expose)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_is_twelve_asterisks() {
        assert_eq!(MASK.len(), 12);
        assert!(MASK.bytes().all(|b| b == b'*'));
    }

    #[test]
    fn shown_cases() {
        let token = PlainSecret::new("abc123".to_owned());
        let empty = PlainSecret::new(String::new());
        let cases = [
            ("creation response shows the value", Some(&token), "abc123"),
            ("an empty value is shown as is", Some(&empty), ""),
            ("later responses show the mask", None, MASK),
        ];
        for (name, secret, expected) in cases {
            assert_eq!(shown(secret), expected, "{name}");
        }
    }
}

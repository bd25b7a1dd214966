//! Proof Key for Code Exchange (RFC 7636), `S256` only.
//!
//! PKCE binds an authorization code to the client that asked for it: the
//! authorization request carries `BASE64URL(SHA256(verifier))`, the token
//! request the verifier itself, so a stolen code is useless. The `plain`
//! method (challenge = verifier) is refused: it protects nothing once the
//! authorization request leaks, and the contract offers S256 alone.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::digest;

use crate::protocol_error::{ErrorCode, OAuthError};
use crate::secret::constant_time_eq;

/// Shortest `code_verifier` RFC 7636 §4.1 allows.
pub const MIN_VERIFIER_LEN: usize = 43;

/// Longest `code_verifier` RFC 7636 §4.1 allows.
pub const MAX_VERIFIER_LEN: usize = 128;

/// Length of an S256 challenge: base64url without padding of a 32-byte
/// SHA-256 digest.
const S256_CHALLENGE_LEN: usize = 43;

/// A `code_challenge_method` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChallengeMethod {
    /// `S256`: the challenge is `BASE64URL(SHA256(code_verifier))`.
    S256,
}

impl ChallengeMethod {
    /// The parameter value, `"S256"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ChallengeMethod::S256 => "S256",
        }
    }

    /// Parses `code_challenge_method`; `None` (absent) means `plain` by RFC
    /// 7636 §4.3, so it is refused like `plain` itself and any other value
    /// (case-sensitive, so `s256` too), with oauthlib's description.
    pub fn parse(value: Option<&str>) -> Result<ChallengeMethod, OAuthError> {
        match value {
            Some("S256") => Ok(ChallengeMethod::S256),
            _ => Err(OAuthError::invalid_request(
                "Transform algorithm not supported.",
            )),
        }
    }
}

/// A validated S256 `code_challenge`, as stored with the authorization code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeChallenge(String);

impl CodeChallenge {
    /// Validates an authorization request's `code_challenge` for S256:
    /// exactly 43 characters of the base64url alphabet, the only form an
    /// S256 challenge can take (RFC 7636 §4.2 allows 43–128 unreserved
    /// characters in general; anything else could never match a verifier,
    /// so it is refused up front with a clear message).
    pub fn parse(value: &str) -> Result<CodeChallenge, OAuthError> {
        let valid = value.len() == S256_CHALLENGE_LEN
            && value
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if valid {
            Ok(CodeChallenge(value.to_owned()))
        } else {
            Err(OAuthError::invalid_request(
                "code_challenge must be 43 base64url characters (S256).",
            ))
        }
    }

    /// Rebuilds a challenge read back from storage, where it was validated
    /// on the way in.
    pub fn from_stored(value: String) -> CodeChallenge {
        CodeChallenge(value)
    }

    /// The challenge text, to store.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The S256 challenge of `verifier`: `BASE64URL-NOPAD(SHA256(verifier))`.
    pub fn s256_of(verifier: &str) -> CodeChallenge {
        let d = digest::digest(&digest::SHA256, verifier.as_bytes());
        CodeChallenge(URL_SAFE_NO_PAD.encode(d.as_ref()))
    }

    /// True when `verifier` is well-formed ([`validate_verifier`]) and its
    /// S256 challenge equals this one, compared in constant time.
    pub fn verify(&self, verifier: &str) -> bool {
        if validate_verifier(verifier).is_err() {
            return false;
        }
        let computed = CodeChallenge::s256_of(verifier);
        constant_time_eq(computed.0.as_bytes(), self.0.as_bytes())
    }
}

/// Checks a token request's `code_verifier`: 43–128 characters of the
/// unreserved set `[A-Za-z0-9-._~]` (RFC 7636 §4.1). Anything else
/// (empty, too short or long, spaces, non-ASCII) gives `invalid_request`.
pub fn validate_verifier(verifier: &str) -> Result<(), OAuthError> {
    let valid = (MIN_VERIFIER_LEN..=MAX_VERIFIER_LEN).contains(&verifier.len())
        && verifier
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'));
    if valid {
        Ok(())
    } else {
        Err(OAuthError::invalid_request(
            "code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9, '-', '.', '_' and '~'.",
        ))
    }
}

/// The PKCE check of a code exchange (RFC 7636 §4.6, RFC 9700 §2.1.1).
///
/// - challenge stored, verifier given: it must match, else `invalid_grant`;
/// - challenge stored, no verifier: `invalid_request` "Code verifier
///   required." (oauthlib's wording);
/// - no challenge, verifier given: `invalid_grant`, because RFC 9700 requires
///   refusing it (otherwise an attacker could strip the challenge from the
///   authorization request and still look PKCE-protected);
/// - neither: nothing to check (a confidential client that skipped PKCE).
pub fn check_exchange(
    challenge: Option<&CodeChallenge>,
    verifier: Option<&str>,
) -> Result<(), OAuthError> {
    match (challenge, verifier) {
        (Some(challenge), Some(verifier)) if challenge.verify(verifier) => Ok(()),
        (Some(_), Some(_)) => Err(OAuthError::new(
            ErrorCode::InvalidGrant,
            "The code_verifier does not match the code_challenge.",
        )),
        (Some(_), None) => Err(OAuthError::invalid_request("Code verifier required.")),
        (None, Some(_)) => Err(OAuthError::new(
            ErrorCode::InvalidGrant,
            "A code_verifier was sent but the authorization request had no code_challenge.",
        )),
        (None, None) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 7636 appendix B.
    const RFC_VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    const RFC_CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

    #[test]
    fn rfc_7636_appendix_b() {
        assert_eq!(CodeChallenge::s256_of(RFC_VERIFIER).as_str(), RFC_CHALLENGE);
        let challenge = CodeChallenge::parse(RFC_CHALLENGE).unwrap();
        assert!(challenge.verify(RFC_VERIFIER));
        assert_eq!(check_exchange(Some(&challenge), Some(RFC_VERIFIER)), Ok(()));
    }

    #[test]
    fn method_cases() {
        let cases = [
            ("S256", Some("S256"), true),
            ("absent means plain", None, false),
            ("plain", Some("plain"), false),
            ("lower case", Some("s256"), false),
            ("empty", Some(""), false),
            ("other", Some("S512"), false),
        ];
        for (name, value, ok) in cases {
            let parsed = ChallengeMethod::parse(value);
            assert_eq!(parsed.is_ok(), ok, "{name}");
            if let Err(error) = parsed {
                assert_eq!(error.code, ErrorCode::InvalidRequest, "{name}");
                assert_eq!(error.description, "Transform algorithm not supported.");
            }
        }
        assert_eq!(ChallengeMethod::S256.as_str(), "S256");
    }

    #[test]
    fn challenge_parse_cases() {
        let cases: &[(&str, String, bool)] = &[
            ("RFC challenge", RFC_CHALLENGE.to_owned(), true),
            ("empty", String::new(), false),
            ("42 characters", "a".repeat(42), false),
            ("44 characters", "a".repeat(44), false),
            ("128 characters", "a".repeat(128), false),
            ("huge", "a".repeat(100_000), false),
            ("padding", format!("{}=", &RFC_CHALLENGE[..42]), false),
            (
                "standard base64 plus",
                format!("{}+", &RFC_CHALLENGE[..42]),
                false,
            ),
            ("tilde", format!("{}~", &RFC_CHALLENGE[..42]), false),
            ("non-ASCII", format!("{}é", &RFC_CHALLENGE[..41]), false),
            ("space", format!("{} ", &RFC_CHALLENGE[..42]), false),
        ];
        for (name, value, ok) in cases {
            assert_eq!(CodeChallenge::parse(value).is_ok(), *ok, "{name}");
        }
    }

    #[test]
    fn verifier_cases() {
        let cases: &[(&str, String, bool)] = &[
            ("RFC verifier", RFC_VERIFIER.to_owned(), true),
            ("43 characters", "a".repeat(43), true),
            ("128 characters", "a".repeat(128), true),
            ("all unreserved", format!("{}-._~", "A".repeat(40)), true),
            ("empty", String::new(), false),
            ("42 characters", "a".repeat(42), false),
            ("129 characters", "a".repeat(129), false),
            ("huge", "a".repeat(100_000), false),
            ("space", format!("{} ", "a".repeat(43)), false),
            ("plus", format!("{}+", "a".repeat(43)), false),
            ("slash", format!("{}/", "a".repeat(43)), false),
            // 43 bytes but 42 characters: still refused, not a byte-count fluke.
            ("non-ASCII", format!("{}é", "a".repeat(41)), false),
        ];
        for (name, value, ok) in cases {
            assert_eq!(validate_verifier(value).is_ok(), *ok, "{name}");
        }
    }

    #[test]
    fn verify_refuses_wrong_or_malformed_verifiers() {
        let challenge = CodeChallenge::parse(RFC_CHALLENGE).unwrap();
        let mut wrong = RFC_VERIFIER.to_owned();
        wrong.replace_range(0..1, "e");
        assert!(!challenge.verify(&wrong));
        assert!(!challenge.verify(""));
        assert!(
            !challenge.verify(RFC_CHALLENGE),
            "plain method is not honoured"
        );
        // A malformed verifier is refused even when its digest would match.
        let short = "abc";
        assert!(!CodeChallenge::s256_of(short).verify(short));
    }

    #[test]
    fn check_exchange_cases() {
        let challenge = CodeChallenge::from_stored(RFC_CHALLENGE.to_owned());
        let other = "a".repeat(43);
        let cases = [
            (
                "match",
                Some(&challenge),
                Some(RFC_VERIFIER),
                None::<ErrorCode>,
            ),
            (
                "mismatch",
                Some(&challenge),
                Some(other.as_str()),
                Some(ErrorCode::InvalidGrant),
            ),
            (
                "malformed verifier",
                Some(&challenge),
                Some("x"),
                Some(ErrorCode::InvalidGrant),
            ),
            (
                "verifier missing",
                Some(&challenge),
                None,
                Some(ErrorCode::InvalidRequest),
            ),
            (
                "verifier without challenge",
                None,
                Some(RFC_VERIFIER),
                Some(ErrorCode::InvalidGrant),
            ),
            ("no PKCE", None, None, None),
        ];
        for (name, challenge, verifier, expected) in cases {
            let got = check_exchange(challenge, verifier).err().map(|e| e.code);
            assert_eq!(got, expected, "{name}");
        }
    }
}

//! OAuth 2 scopes as AWX defines them: `read` and `write`, where `write`
//! implies `read`.
//!
//! Two readers with different strictness, on purpose: scopes a client sends
//! (token creation, the token endpoint) are checked strictly, with AWX's error
//! message, so typos are reported rather than silently narrowed; scopes read
//! back from storage (including rows imported from AWX, written by older code
//! or by hand) are read leniently, because a stored token must keep working
//! and can only ever lose `write`, never gain it.

/// A set of OAuth 2 permissions: read-only or read-write.
///
/// `write` implies `read`, so only [`Scope::READ`] and [`Scope::WRITE`] exist;
/// the fields are private to keep it that way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scope {
    read: bool,
    write: bool,
}

/// The scope API token creation uses when the request omits `scope` (AWX's
/// `OAuth2TokenSerializer` default).
pub const DEFAULT_SCOPE: &str = "write";

/// The scope word for read access.
const READ_WORD: &str = "read";

/// The scope word for write access (which implies read).
const WRITE_WORD: &str = "write";

/// A client-sent scope that [`Scope::parse`] refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScopeError {
    /// Empty or blank, an unknown word (words are case-sensitive), or a
    /// repeated word. The message is AWX's, word for word.
    #[error("Must be a simple space-separated string with allowed scopes ['read', 'write'].")]
    Invalid,
}

impl Scope {
    /// Read-only access.
    pub const READ: Scope = Scope {
        read: true,
        write: false,
    };

    /// Read and write access.
    pub const WRITE: Scope = Scope {
        read: true,
        write: true,
    };

    /// Strict parse of a client-sent scope: a non-empty string of
    /// whitespace-separated words, each exactly `read` or `write`
    /// (case-sensitive), none repeated.
    ///
    /// `"read"`, `"write"`, `"read write"` and `"write read"` are accepted;
    /// `""`, `"  "`, `"Write"`, `"read read"`, `"read rainbow"` and `"admin"`
    /// give [`ScopeError::Invalid`]. Words are split on any Unicode
    /// whitespace, as Python's `str.split()` does in AWX. Unlike AWX, a blank
    /// string is refused too (AWX only refuses the empty string and would
    /// accept `"  "` as a scope granting nothing).
    pub fn parse(text: &str) -> Result<Scope, ScopeError> {
        let mut read = false;
        let mut write = false;
        for word in text.split_whitespace() {
            let seen = match word {
                READ_WORD => &mut read,
                WRITE_WORD => &mut write,
                _ => return Err(ScopeError::Invalid),
            };
            if *seen {
                return Err(ScopeError::Invalid);
            }
            *seen = true;
        }
        match (read, write) {
            (_, true) => Ok(Scope::WRITE),
            (true, false) => Ok(Scope::READ),
            (false, false) => Err(ScopeError::Invalid),
        }
    }

    /// Lenient read of a stored scope; never fails.
    ///
    /// Write access exactly when one of the whitespace-separated words is
    /// `write` (case-sensitive, as django-oauth-toolkit's `allow_scopes`
    /// compares); anything else, including unknown words and an empty string,
    /// is read-only.
    pub fn from_stored(text: &str) -> Scope {
        if text.split_whitespace().any(|word| word == WRITE_WORD) {
            Scope::WRITE
        } else {
            Scope::READ
        }
    }

    /// True for a read-write scope: the token may be used for unsafe methods
    /// (POST, PUT, PATCH, DELETE).
    pub fn allows_write(self) -> bool {
        self.write
    }

    /// True when every permission of `other` is within `self`, e.g. whether a
    /// refresh may ask for `other` given the original grant `self`: write
    /// covers read and write; read covers only read.
    pub fn covers(self, other: Scope) -> bool {
        (self.read || !other.read) && (self.write || !other.write)
    }

    /// The canonical scope string: `"read"` or `"write"` (enough, since
    /// `write` implies `read`), e.g. for a token response or a new row.
    pub fn as_str(self) -> &'static str {
        if self.write { WRITE_WORD } else { READ_WORD }
    }

    /// The words a token with this scope records and is answered with,
    /// given the words that asked for it: those words (whitespace
    /// collapsed) when they mean exactly `self`, so a client that asked for
    /// `"read write"` reads back `"read write"` (OAuth clients such as
    /// oauthlib compare the returned scope word by word with the requested
    /// one); else the canonical [`Scope::as_str`].
    pub fn words(self, asked: Option<&str>) -> String {
        match asked {
            Some(words) if Scope::parse(words) == Ok(self) => {
                words.split_whitespace().collect::<Vec<_>>().join(" ")
            }
            _ => self.as_str().to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_cases() {
        let cases: &[(&str, &str, Result<Scope, ScopeError>)] = &[
            ("read", "read", Ok(Scope::READ)),
            ("write", "write", Ok(Scope::WRITE)),
            ("both", "read write", Ok(Scope::WRITE)),
            ("both reversed", "write read", Ok(Scope::WRITE)),
            ("surrounding spaces", "  read  ", Ok(Scope::READ)),
            ("tabs and newlines", "read\t\nwrite", Ok(Scope::WRITE)),
            ("empty", "", Err(ScopeError::Invalid)),
            ("blank", "  ", Err(ScopeError::Invalid)),
            ("capitalised", "Write", Err(ScopeError::Invalid)),
            ("upper case", "READ", Err(ScopeError::Invalid)),
            ("repeated read", "read read", Err(ScopeError::Invalid)),
            (
                "repeated write",
                "write read write",
                Err(ScopeError::Invalid),
            ),
            ("unknown word", "read rainbow", Err(ScopeError::Invalid)),
            ("admin", "admin", Err(ScopeError::Invalid)),
            ("comma separated", "read,write", Err(ScopeError::Invalid)),
            ("plus separated", "read+write", Err(ScopeError::Invalid)),
        ];
        for (name, text, expected) in cases {
            assert_eq!(&Scope::parse(text), expected, "{name}: {text:?}");
        }
    }

    #[test]
    fn from_stored_cases() {
        let cases: &[(&str, &str, Scope)] = &[
            ("read", "read", Scope::READ),
            ("write", "write", Scope::WRITE),
            ("both", "read write", Scope::WRITE),
            ("empty is read-only", "", Scope::READ),
            ("unknown words ignored", "admin rainbow", Scope::READ),
            ("write among unknown words", "rainbow write", Scope::WRITE),
            ("repeats tolerated", "write write", Scope::WRITE),
            ("case-sensitive", "WRITE", Scope::READ),
            ("word, not substring", "rewrite", Scope::READ),
        ];
        for (name, text, expected) in cases {
            assert_eq!(Scope::from_stored(text), *expected, "{name}: {text:?}");
        }
    }

    #[test]
    fn allows_write_and_as_str() {
        let cases = [
            ("read", Scope::READ, false, "read"),
            ("write", Scope::WRITE, true, "write"),
        ];
        for (name, scope, writes, text) in cases {
            assert_eq!(scope.allows_write(), writes, "{name}");
            assert_eq!(scope.as_str(), text, "{name}");
            assert_eq!(Scope::parse(scope.as_str()), Ok(scope), "{name}");
            assert_eq!(Scope::from_stored(scope.as_str()), scope, "{name}");
        }
    }

    #[test]
    fn words_repeat_the_request_when_granted_as_asked() {
        let cases = [
            (Scope::WRITE, Some("read  write"), "read write"),
            (Scope::WRITE, Some("write read"), "write read"),
            (Scope::WRITE, Some("write"), "write"),
            (Scope::READ, Some("read"), "read"),
            // Narrowed, unparseable or not asked: the canonical word.
            (Scope::READ, Some("read write"), "read"),
            (Scope::READ, Some("bogus"), "read"),
            (Scope::WRITE, Some("rainbow write"), "write"),
            (Scope::WRITE, None, "write"),
        ];
        for (granted, asked, words) in cases {
            assert_eq!(granted.words(asked), words, "{asked:?}");
        }
    }

    #[test]
    fn covers_cases() {
        let cases = [
            ("write covers write", Scope::WRITE, Scope::WRITE, true),
            ("write covers read", Scope::WRITE, Scope::READ, true),
            ("read covers read", Scope::READ, Scope::READ, true),
            (
                "read does not cover write",
                Scope::READ,
                Scope::WRITE,
                false,
            ),
        ];
        for (name, granted, asked, expected) in cases {
            assert_eq!(granted.covers(asked), expected, "{name}");
        }
    }

    #[test]
    fn default_scope_parses_to_write() {
        assert_eq!(Scope::parse(DEFAULT_SCOPE), Ok(Scope::WRITE));
    }

    #[test]
    fn error_message_is_awx_s() {
        assert_eq!(
            ScopeError::Invalid.to_string(),
            "Must be a simple space-separated string with allowed scopes ['read', 'write']."
        );
    }
}

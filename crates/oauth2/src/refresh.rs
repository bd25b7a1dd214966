//! The decision of a refresh (`grant_type=refresh_token`): rotate, refuse,
//! or refuse and revoke what descends from the token (contract §4, RFC 9700
//! §4.14.2).
//!
//! Rotation makes every refresh token single-use, which turns a stolen one
//! into something detectable: when a used token comes back after the grace
//! period, either the thief or the client is replaying it, and the server
//! cannot tell which, so it revokes the whole chain. Within the grace period
//! a second presentation is assumed to be the client's own retry or race and
//! is only refused.

use chrono::NaiveDateTime;

use crate::lifetimes::Lifetimes;
use crate::protocol_error::{ErrorCode, OAuthError};
use crate::scope::Scope;

/// The stored facts of the presented refresh token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefreshTokenFacts {
    /// The application the token was issued to.
    pub application_id: i64,
    /// When the token was created; its lifetime counts from here.
    pub created: NaiveDateTime,
    /// When it was used (rotated) or revoked, if it was.
    pub revoked: Option<NaiveDateTime>,
    /// The scope of the grant it continues (read leniently from storage).
    pub scope: Scope,
}

/// The refresh request, after client authentication.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefreshRequest {
    /// The application of the authenticated client.
    pub application_id: i64,
    /// The `scope` asked for, if any.
    pub scope: Option<Scope>,
}

/// What to do with a refresh request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefreshDecision {
    /// Mark the token used, delete its access token and issue a new pair
    /// with this scope, in one transaction.
    Rotate {
        /// The scope of the new pair: the one asked for or the original.
        scope: Scope,
    },
    /// Answer with the error and change nothing.
    Refuse(OAuthError),
    /// Answer with the error and revoke every token issued from this one
    /// by rotation, directly or further down the chain.
    RefuseAndRevokeDescendants(OAuthError),
}

/// Decides a refresh of `token` by `request` at `now`.
///
/// In order:
/// 1. issued to another application: `invalid_grant`, nothing else, so a
///    client cannot revoke another client's chain;
/// 2. expired (`created + refresh lifetime <= now`): `invalid_grant` "The
///    refresh token has expired.", nothing else, even if it was used: the
///    storage may delete expired tokens at any time, and the answer must not
///    depend on whether it did yet;
/// 3. used or revoked, presented again until the grace period ends
///    (inclusive): `invalid_grant` only;
/// 4. used or revoked, presented after the grace period: `invalid_grant`
///    and revoke the descendants;
/// 5. a scope wider than the original (`write` asked of a `read` token):
///    `invalid_scope`;
/// 6. otherwise rotate.
///
/// Steps 1, 3 and 4 share one description, so the answer tells a caller
/// nothing about the token beyond "not usable".
pub fn decide_refresh(
    token: &RefreshTokenFacts,
    request: &RefreshRequest,
    now: NaiveDateTime,
    lifetimes: &Lifetimes,
) -> RefreshDecision {
    let invalid = OAuthError::invalid_refresh_token;
    if token.application_id != request.application_id {
        return RefreshDecision::Refuse(invalid());
    }
    if lifetimes.refresh_token_expires(token.created) <= now {
        return RefreshDecision::Refuse(OAuthError::new(
            ErrorCode::InvalidGrant,
            "The refresh token has expired.",
        ));
    }
    if let Some(revoked) = token.revoked {
        return if now <= lifetimes.refresh_token_grace_ends(revoked) {
            RefreshDecision::Refuse(invalid())
        } else {
            RefreshDecision::RefuseAndRevokeDescendants(invalid())
        };
    }
    let scope = request.scope.unwrap_or(token.scope);
    if !token.scope.covers(scope) {
        return RefreshDecision::Refuse(OAuthError::new(
            ErrorCode::InvalidScope,
            "The requested scope is wider than the one originally granted.",
        ));
    }
    RefreshDecision::Rotate { scope }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S").unwrap()
    }

    const CREATED: &str = "2024-06-01T12:00:00";

    fn token(revoked: Option<&str>, scope: Scope) -> RefreshTokenFacts {
        RefreshTokenFacts {
            application_id: 1,
            created: at(CREATED),
            revoked: revoked.map(at),
            scope,
        }
    }

    fn request(application_id: i64, scope: Option<Scope>) -> RefreshRequest {
        RefreshRequest {
            application_id,
            scope,
        }
    }

    /// Refresh lifetime of one hour, grace of five seconds.
    fn lifetimes(grace: i64) -> Lifetimes {
        Lifetimes {
            refresh_token_seconds: 3600,
            refresh_token_reuse_grace_seconds: grace,
            ..Lifetimes::default()
        }
    }

    #[derive(Debug, PartialEq)]
    enum Outcome {
        Rotate(Scope),
        Refuse(ErrorCode, &'static str),
        Revoke(ErrorCode),
    }

    fn outcome(decision: RefreshDecision) -> Outcome {
        match decision {
            RefreshDecision::Rotate { scope } => Outcome::Rotate(scope),
            RefreshDecision::Refuse(e) => Outcome::Refuse(
                e.code,
                if e.description.contains("expired") {
                    "expired"
                } else {
                    ""
                },
            ),
            RefreshDecision::RefuseAndRevokeDescendants(e) => Outcome::Revoke(e.code),
        }
    }

    #[test]
    fn decide_refresh_cases() {
        use ErrorCode::{InvalidGrant, InvalidScope};
        use Outcome::{Refuse, Revoke, Rotate};
        let w = Scope::WRITE;
        let r = Scope::READ;
        let used = Some("2024-06-01T12:30:00");
        // (name, token, request, now, grace, expected)
        let cases: Vec<(&str, RefreshTokenFacts, RefreshRequest, &str, i64, Outcome)> = vec![
            (
                "same scope",
                token(None, w),
                request(1, None),
                "2024-06-01T12:10:00",
                5,
                Rotate(w),
            ),
            (
                "narrower scope",
                token(None, w),
                request(1, Some(r)),
                "2024-06-01T12:10:00",
                5,
                Rotate(r),
            ),
            (
                "same scope named",
                token(None, r),
                request(1, Some(r)),
                "2024-06-01T12:10:00",
                5,
                Rotate(r),
            ),
            (
                "wider scope",
                token(None, r),
                request(1, Some(w)),
                "2024-06-01T12:10:00",
                5,
                Refuse(InvalidScope, ""),
            ),
            (
                "other application",
                token(None, w),
                request(2, None),
                "2024-06-01T12:10:00",
                5,
                Refuse(InvalidGrant, ""),
            ),
            (
                "other application, used long ago: no revocation",
                token(used, w),
                request(2, None),
                "2024-06-01T12:50:00",
                5,
                Refuse(InvalidGrant, ""),
            ),
            (
                "one second before expiry",
                token(None, w),
                request(1, None),
                "2024-06-01T12:59:59",
                5,
                Rotate(w),
            ),
            (
                "expires exactly now",
                token(None, w),
                request(1, None),
                "2024-06-01T13:00:00",
                5,
                Refuse(InvalidGrant, "expired"),
            ),
            (
                "long expired",
                token(None, w),
                request(1, None),
                "2025-01-01T00:00:00",
                5,
                Refuse(InvalidGrant, "expired"),
            ),
            (
                "expired and used: expiry wins, no revocation",
                token(used, w),
                request(1, None),
                "2024-06-01T13:00:00",
                5,
                Refuse(InvalidGrant, "expired"),
            ),
            (
                "used, same instant",
                token(used, w),
                request(1, None),
                "2024-06-01T12:30:00",
                5,
                Refuse(InvalidGrant, ""),
            ),
            (
                "used, grace ends now",
                token(used, w),
                request(1, None),
                "2024-06-01T12:30:05",
                5,
                Refuse(InvalidGrant, ""),
            ),
            (
                "used, after grace",
                token(used, w),
                request(1, None),
                "2024-06-01T12:30:06",
                5,
                Revoke(InvalidGrant),
            ),
            (
                "used, zero grace, same instant",
                token(used, w),
                request(1, None),
                "2024-06-01T12:30:00",
                0,
                Refuse(InvalidGrant, ""),
            ),
            (
                "used, zero grace, a second later",
                token(used, w),
                request(1, None),
                "2024-06-01T12:30:01",
                0,
                Revoke(InvalidGrant),
            ),
            (
                "used after grace with a wider scope: reuse wins",
                token(used, r),
                request(1, Some(w)),
                "2024-06-01T12:40:00",
                5,
                Revoke(InvalidGrant),
            ),
            (
                "clock earlier than creation",
                token(None, w),
                request(1, None),
                "2024-06-01T11:00:00",
                5,
                Rotate(w),
            ),
        ];
        for (name, token, request, now, grace, expected) in cases {
            let decision = decide_refresh(&token, &request, at(now), &lifetimes(grace));
            assert_eq!(outcome(decision), expected, "{name}");
        }
    }

    #[test]
    fn descriptions() {
        let l = lifetimes(5);
        let expired = decide_refresh(
            &token(None, Scope::WRITE),
            &request(1, None),
            at("2030-01-01T00:00:00"),
            &l,
        );
        assert_eq!(
            expired,
            RefreshDecision::Refuse(OAuthError::new(
                ErrorCode::InvalidGrant,
                "The refresh token has expired."
            ))
        );
        let foreign = decide_refresh(
            &token(None, Scope::WRITE),
            &request(9, None),
            at(CREATED),
            &l,
        );
        let reused = decide_refresh(
            &token(Some(CREATED), Scope::WRITE),
            &request(1, None),
            at("2024-06-01T12:00:01"),
            &l,
        );
        assert_eq!(foreign, reused, "foreign and reused tokens look the same");
    }

    #[test]
    fn huge_lifetimes_do_not_overflow() {
        let l = Lifetimes {
            refresh_token_seconds: i64::MAX,
            refresh_token_reuse_grace_seconds: i64::MAX,
            ..Lifetimes::default()
        };
        let fresh = decide_refresh(
            &token(None, Scope::WRITE),
            &request(1, None),
            at("9999-01-01T00:00:00"),
            &l,
        );
        assert_eq!(
            fresh,
            RefreshDecision::Rotate {
                scope: Scope::WRITE
            }
        );
        let reused = decide_refresh(
            &token(Some(CREATED), Scope::WRITE),
            &request(1, None),
            at("9000-01-01T00:00:00"),
            &l,
        );
        assert!(
            matches!(reused, RefreshDecision::Refuse(_)),
            "grace never ends"
        );
    }
}

//! Authorization codes of the OAuth 2 authorization-code grant, stored only as SHA-256
//! digests. A code is single-use: [`take`] deletes the row it returns, in one statement, so
//! of several concurrent exchanges of one code exactly one gets it.

use diesel::prelude::*;

use crate::schema::authorization_codes;
use crate::{DbConnection, StorageResult, Timestamp};

/// A stored authorization code.
#[derive(Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = authorization_codes)]
pub struct AuthorizationCode {
    /// Primary key.
    pub id: i64,
    /// SHA-256 of the code value.
    pub digest: Vec<u8>,
    /// The application the code was issued to.
    pub application_id: i64,
    /// The user who approved it.
    pub user_id: i64,
    /// The redirect URI it was issued for.
    pub redirect_uri: String,
    /// Whether the client named the redirect URI (then the exchange must repeat it).
    pub redirect_uri_sent: bool,
    /// The scope approved.
    pub scope: String,
    /// The PKCE S256 challenge, when the client sent one.
    pub code_challenge: Option<String>,
    /// Creation time.
    pub created: Timestamp,
    /// The code cannot be exchanged from this time on.
    pub expires: Timestamp,
}

impl std::fmt::Debug for AuthorizationCode {
    // The digest stays out of logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthorizationCode")
            .field("id", &self.id)
            .field("application_id", &self.application_id)
            .field("user_id", &self.user_id)
            .field("scope", &self.scope)
            .field("expires", &self.expires)
            .finish_non_exhaustive()
    }
}

/// The values of a new authorization code.
#[derive(Debug, Clone, Insertable)]
#[diesel(table_name = authorization_codes)]
#[diesel(treat_none_as_default_value = false)]
pub struct NewAuthorizationCode<'a> {
    /// Digest of the generated value.
    pub digest: &'a [u8],
    /// Application.
    pub application_id: i64,
    /// The approving user.
    pub user_id: i64,
    /// The redirect URI in force.
    pub redirect_uri: &'a str,
    /// Whether the client named it.
    pub redirect_uri_sent: bool,
    /// Approved scope.
    pub scope: &'a str,
    /// PKCE S256 challenge.
    pub code_challenge: Option<&'a str>,
    /// Creation time.
    pub created: Timestamp,
    /// Expiry (`AUTHORIZATION_CODE_EXPIRE_SECONDS` after creation).
    pub expires: Timestamp,
}

/// Stores a new code.
pub fn insert(conn: &mut DbConnection, code: &NewAuthorizationCode<'_>) -> StorageResult<()> {
    diesel::insert_into(authorization_codes::table)
        .values(code)
        .execute(conn)?;
    Ok(())
}

/// Removes the code with this digest and returns it; `None` when there is none (unknown, or
/// already exchanged). Expired codes are returned too: the caller decides, and the row is
/// gone either way.
pub fn take(conn: &mut DbConnection, digest: &[u8]) -> StorageResult<Option<AuthorizationCode>> {
    Ok(
        diesel::delete(authorization_codes::table.filter(authorization_codes::digest.eq(digest)))
            .returning(authorization_codes::all_columns)
            .get_result(conn)
            .optional()?,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{at, seeded};

    fn code(digest: &[u8]) -> NewAuthorizationCode<'_> {
        NewAuthorizationCode {
            digest,
            application_id: 1,
            user_id: 1,
            redirect_uri: "https://client.example/cb?x=1",
            redirect_uri_sent: true,
            scope: "read",
            code_challenge: Some("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"),
            created: at("2024-07-01 00:00:00"),
            expires: at("2024-07-01 00:10:00"),
        }
    }

    #[test]
    fn a_code_is_taken_once() {
        let mut conn = seeded();
        insert(&mut conn, &code(b"code-1")).expect("insert");
        insert(&mut conn, &code(b"code-2")).expect("insert");
        let taken = take(&mut conn, b"code-1").expect("take").expect("a code");
        assert_eq!(taken.redirect_uri, "https://client.example/cb?x=1");
        assert!(taken.redirect_uri_sent);
        assert_eq!(taken.scope, "read");
        assert_eq!(
            taken.code_challenge.as_deref(),
            Some("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        );
        assert_eq!(taken.expires, at("2024-07-01 00:10:00"));
        assert!(take(&mut conn, b"code-1").expect("take").is_none());
        assert!(take(&mut conn, b"unknown").expect("take").is_none());
        assert!(take(&mut conn, b"code-2").expect("take").is_some());
    }

    #[test]
    fn digests_are_unique() {
        let mut conn = seeded();
        insert(&mut conn, &code(b"same")).expect("insert");
        assert!(insert(&mut conn, &code(b"same")).is_err());
    }

    #[test]
    fn debug_output_leaves_the_digest_out() {
        let mut conn = seeded();
        insert(&mut conn, &code(b"secret-digest")).expect("insert");
        let taken = take(&mut conn, b"secret-digest")
            .expect("take")
            .expect("a code");
        assert!(!format!("{taken:?}").contains("115, 101, 99"));
    }
}

//! Finding the token a revocation or introspection request names by its value, as an access
//! token or a refresh token, the hinted kind first (RFC 7009 §2.1).

use acs_oauth2::{TokenOwner, TokenReference, TokenTypeHint};
use acs_storage::DbConnection;
use acs_storage::refresh_tokens::RefreshToken;
use acs_storage::tokens::AccessToken;

use crate::error::ApiResult;

/// A stored token found by value.
pub enum FoundToken {
    /// An access token (personal or of an application).
    Access(AccessToken),
    /// A refresh token.
    Refresh(RefreshToken),
}

impl FoundToken {
    /// Whose token it is.
    pub fn owner(&self) -> TokenOwner {
        match self {
            FoundToken::Access(token) => token
                .application_id
                .map_or(TokenOwner::Personal, TokenOwner::Application),
            FoundToken::Refresh(token) => TokenOwner::Application(token.application_id),
        }
    }

    /// The application it was issued to, `None` for a personal token.
    pub fn application_id(&self) -> Option<i64> {
        match self.owner() {
            TokenOwner::Application(id) => Some(id),
            TokenOwner::Personal => None,
        }
    }
}

/// The token with the referenced value, looked up as the hinted kind first.
pub fn find(conn: &mut DbConnection, reference: &TokenReference) -> ApiResult<Option<FoundToken>> {
    let digest = reference.token.digest();
    let digest = digest.as_bytes();
    let access = |conn: &mut DbConnection| -> ApiResult<Option<FoundToken>> {
        Ok(acs_storage::tokens::find_by_digest(conn, digest)?.map(FoundToken::Access))
    };
    let refresh = |conn: &mut DbConnection| -> ApiResult<Option<FoundToken>> {
        Ok(acs_storage::refresh_tokens::find_by_digest(conn, digest)?.map(FoundToken::Refresh))
    };
    if reference.hint == Some(TokenTypeHint::RefreshToken) {
        match refresh(conn)? {
            Some(found) => Ok(Some(found)),
            None => access(conn),
        }
    } else {
        match access(conn)? {
            Some(found) => Ok(Some(found)),
            None => refresh(conn),
        }
    }
}

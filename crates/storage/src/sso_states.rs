//! Sign-ins in progress at an OpenID provider, each found once by the digest of its `state`.

use diesel::prelude::*;

use crate::schema::sso_states;
use crate::{DbConnection, StorageResult, Timestamp};

/// A started sign-in. `nonce` and `pkce_verifier` are sealed by the caller.
#[derive(Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = sso_states)]
pub struct SsoState {
    /// SHA-256 of the `state` sent to the provider.
    pub digest: Vec<u8>,
    /// The provider's name.
    pub provider: String,
    /// The nonce the ID token must carry (sealed).
    pub nonce: String,
    /// The PKCE code verifier (sealed).
    pub pkce_verifier: String,
    /// Where the user goes after signing in.
    pub next: String,
    /// When the sign-in can no longer complete.
    pub expires: Timestamp,
}

impl std::fmt::Debug for SsoState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SsoState")
            .field("provider", &self.provider)
            .field("expires", &self.expires)
            .finish_non_exhaustive()
    }
}

/// Records a started sign-in, dropping expired ones on the way.
pub fn insert(conn: &mut DbConnection, state: &SsoState, now: Timestamp) -> StorageResult<()> {
    diesel::delete(sso_states::table.filter(sso_states::expires.le(now))).execute(conn)?;
    diesel::insert_into(sso_states::table)
        .values(state)
        .execute(conn)?;
    Ok(())
}

/// Takes the unexpired sign-in with `digest`: it is deleted, so a state completes once.
pub fn take(
    conn: &mut DbConnection,
    digest: &[u8],
    now: Timestamp,
) -> StorageResult<Option<SsoState>> {
    let found: Option<SsoState> = sso_states::table
        .filter(sso_states::digest.eq(digest))
        .select(SsoState::as_select())
        .get_result(conn)
        .optional()?;
    let deleted =
        diesel::delete(sso_states::table.filter(sso_states::digest.eq(digest))).execute(conn)?;
    // Of two concurrent completions, only the one that deleted the row goes on.
    Ok(found.filter(|state| deleted > 0 && state.expires > now))
}

//! A stored token's description and scope changed, and its revocation: what its owner, or
//! whoever administers them, may do to a token once issued.

use acs_authz::{Actor, Denied, TargetToken};
use acs_storage::tokens::{AccessToken, TokenChanges};
use acs_storage::{DbConnection, StorageError};
use serde::Serialize;

use crate::activity::{self, Subject};
use crate::{AppError, AppResult, CallerError, Writer};

/// The facts `acs_authz` needs about `token`: its owner with their organization roles.
pub fn target_of(conn: &mut DbConnection, token: &AccessToken) -> AppResult<TargetToken> {
    let owner = acs_storage::users::find(conn, token.user_id)?;
    let memberships = acs_storage::users::memberships_of(conn, owner.id)?;
    Ok(TargetToken {
        id: token.id,
        owner: crate::users::target_of(&owner, &memberships),
        application: token.application_id,
    })
}

/// The token `id` with its facts, if `actor` may see it: [`AppError::NoSuch`] if it does not
/// exist, [`AppError::Forbidden`] if it is not theirs to see.
pub fn visible(
    conn: &mut DbConnection,
    actor: &Actor,
    id: i64,
) -> AppResult<(AccessToken, TargetToken)> {
    let token = acs_storage::tokens::find(conn, id).map_err(|error| match error {
        StorageError::NotFound => AppError::NoSuch("OAuth2AccessToken"),
        other => other.into(),
    })?;
    let target = target_of(conn, &token)?;
    if !acs_authz::can_view_token(actor, &target) {
        return Err(Denied::NotPermitted.into());
    }
    Ok((token, target))
}

/// Sets the description and scope of `before` (whose facts are `target`) where given, if the
/// writer may; a new scope applies to its refresh token too, so a refresh issues the scope
/// the token has now. Recorded as an update from the record `render` showed before to the one
/// it shows after, which is returned.
pub fn change<R, E>(
    writer: &Writer<'_>,
    conn: &mut DbConnection,
    (before, target): (&AccessToken, &TargetToken),
    (description, scope): (Option<String>, Option<String>),
    render: impl Fn(&mut DbConnection, &AccessToken) -> Result<R, E>,
) -> Result<R, E>
where
    R: Serialize,
    E: CallerError,
{
    acs_authz::can_change_token(writer.actor, target).map_err(AppError::from)?;
    let shown_before = render(conn, before)?;
    let id = before.id;
    let changes = TokenChanges {
        description,
        scope,
        modified: Some(writer.now),
    };
    writer.pool.transaction(conn, |conn| {
        // The refresh token first, then the access token: the order in which a rotation
        // locks them (it marks the refresh token used, then deletes the access token), so an
        // edit racing a refresh waits for it instead of deadlocking with it.
        if let Some(scope) = &changes.scope {
            acs_storage::refresh_tokens::set_scope_of_access_token(conn, id, scope)
                .map_err(AppError::from)?;
        }
        let updated = acs_storage::tokens::update(conn, id, &changes).map_err(AppError::from)?;
        let shown_after = render(conn, &updated)?;
        writer.record_update(conn, &subject(&updated), &shown_before, &shown_after)?;
        Ok(shown_after)
    })
}

/// Revokes the token `id` and its refresh token, if the writer may see and delete it: both
/// stop working at once, on every server (bearer principals are cached only while the tokens'
/// change counter holds). Recorded with its last record as `render` shows it.
pub fn revoke<R, E>(
    writer: &Writer<'_>,
    conn: &mut DbConnection,
    id: i64,
    render: impl Fn(&mut DbConnection, &AccessToken) -> Result<R, E>,
) -> Result<Subject, E>
where
    R: Serialize,
    E: CallerError,
{
    let (token, target) = visible(conn, writer.actor, id)?;
    acs_authz::can_delete_token(writer.actor, &target).map_err(AppError::from)?;
    let subject = subject(&token);
    let shown = render(conn, &token)?;
    writer.pool.transaction(conn, |conn| {
        acs_storage::tokens::revoke(conn, id, writer.now).map_err(AppError::from)?;
        activity::record_deletion(conn, writer.now, writer.user, &subject, &shown)?;
        Ok(subject.clone())
    })
}

/// The activity stream's name of `token`.
fn subject(token: &AccessToken) -> Subject {
    Subject::named(acs_storage::activity::TOKEN, token.id, &token.description)
}

//! `PUT` and `PATCH /api/v2/tokens/<id>/`: only `description` and `scope` change; a PUT that
//! omits them resets them (`""`, `write`), as in the reference. A new scope applies to the
//! token's refresh token too, so a refresh issues the scope the token has now.

use acs_storage::tokens::TokenChanges;

use super::Tokens;
use super::input::TokenInput;
use super::render::render_one;
use super::visible;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::change::{Change, Edit};
use acs_app::activity::{self, Subject};

impl Change for Tokens {
    fn change(ctx: &mut Context<'_>, edit: Edit<'_, i64>) -> ApiResult<super::TokenRecord> {
        let (principal, id, body, full) = (edit.principal, edit.key, edit.body, edit.full);
        let (token, target) = visible(ctx, principal, id)?;
        acs_authz::can_change_token(&principal.actor, &target)?;
        let input = TokenInput::read(body, full, false)?;
        let before = render_one(ctx.conn()?, token, None)?;
        let changes = TokenChanges {
            description: input.description,
            scope: input.scope,
            modified: Some(ctx.now),
        };
        let now = ctx.now;
        ctx.write(|conn| {
            // The refresh token first, then the access token: the order in which a rotation
            // locks them (it marks the refresh token used, then deletes the access token), so
            // an edit racing a refresh waits for it instead of deadlocking with it.
            if let Some(scope) = &changes.scope {
                acs_storage::refresh_tokens::set_scope_of_access_token(conn, id, scope)?;
            }
            let updated = acs_storage::tokens::update(conn, id, &changes)?;
            let subject = Subject::named(acs_storage::activity::TOKEN, id, &updated.description);
            let after = render_one(conn, updated, None)?;
            activity::record_update(conn, now, &principal.user, &subject, &before, &after)?;
            Ok(after)
        })
    }
}

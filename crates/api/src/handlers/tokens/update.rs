//! `PUT` and `PATCH /api/v2/tokens/<id>/`: only `description` and `scope` change; a PUT that
//! omits them resets them (`""`, `write`), as in the reference (see
//! `acs_app::tokens::change`).

use super::input::TokenInput;
use super::render::render_one;
use super::{TokenRecord, Tokens, visible};
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::change::{Change, Edit};

impl Change for Tokens {
    fn change(ctx: &mut Context<'_>, edit: Edit<'_, i64>) -> ApiResult<TokenRecord> {
        let (principal, id, body, full) = (edit.principal, edit.key, edit.body, edit.full);
        let (token, target) = visible(ctx, principal, id)?;
        acs_authz::can_change_token(&principal.actor, &target)?;
        let input = TokenInput::read(body, full, false)?;
        let writer = ctx.writer(principal);
        acs_app::tokens::change(
            &writer,
            ctx.conn()?,
            (&token, &target),
            (input.description, input.scope),
            |conn, token| render_one(conn, token.clone(), None),
        )
    }
}

//! `PUT` and `PATCH /api/v2/applications/<id>/`. Grant type, organization, owner and client
//! credentials are fixed at creation.

use super::input::{self, Fixed};

use super::render::{ApplicationRecord, render_one};
use super::{Applications, visible};
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::handlers::change::{Change, Edit};

/// Also what the applications page's form does, from a body of the API's shape.
impl Change for Applications {
    fn change(ctx: &mut Context<'_>, edit: Edit<'_, i64>) -> ApiResult<ApplicationRecord> {
        let (principal, id, body, full) = (edit.principal, edit.key, edit.body, edit.full);
        let app = visible(ctx, principal, id)?;
        acs_authz::can_change_application(
            &principal.actor,
            &acs_app::applications::target_of(&app),
        )?;
        let grant_type = acs_oauth2::GrantType::parse(&app.authorization_grant_type)
            .map_err(|e| ApiError::Internal(format!("stored grant type: {e}")))?;
        let fixed = Fixed {
            grant_type,
            organization: app.organization_id,
            user: app.user_id,
        };
        let input = input::read(body, full, Some(fixed))?;
        let writer = ctx.writer(principal);
        let masked = |conn: &mut _, app: &_| render_one(conn, principal, app, None);
        acs_app::applications::change(&writer, ctx.conn()?, &app, &input, masked)
    }
}
